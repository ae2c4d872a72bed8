/**
 * The typed client takes `atBlock` / `atBlockHash` on the routes whose contract says they answer
 * as of a block, and not on the others: checked by the type checker (`npm run typecheck`: a
 * route without them does not compile with them) and at run time (the parameter reaches the URL;
 * the shipped contract's `x-as-of` lists exactly the paths {@link AsOfPath} names).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type AsOfPath, createIndexerClient, type paths } from './index.js';

const POOL = '/index/v1/{chain}/pools/{address}';
const TRANSFERS = '/index/v1/{chain}/tokens/{address}/transfers';
const address = `0x${'ab'.repeat(20)}`;

/** A client whose fetch records each URL and answers an empty JSON body. */
function recording() {
  const urls: string[] = [];
  const api = createIndexerClient({
    baseUrl: 'http://indexer.test',
    fetch: async (req: Request | string | URL) => {
      urls.push(req instanceof Request ? req.url : String(req));
      return new Response('{}', { headers: { 'content-type': 'application/json' } });
    },
  });
  return { api, urls };
}

describe('atBlock in the typed client', () => {
  it('a route with asOf takes atBlock and atBlockHash; the parameter reaches the URL', async () => {
    expectTypeOf<paths[typeof POOL]['get']['parameters']['query']>().toEqualTypeOf<
      { atBlock?: number; atBlockHash?: string } | undefined
    >();
    const { api, urls } = recording();
    await api.GET(POOL, { params: { path: { chain: 'devnet', address }, query: { atBlock: 1234 } } });
    const hash = `0x${'cd'.repeat(32)}`;
    await api.GET(POOL, { params: { path: { chain: 'devnet', address }, query: { atBlockHash: hash } } });
    expect(urls).toEqual([
      `http://indexer.test/index/v1/devnet/pools/${address}?atBlock=1234`,
      `http://indexer.test/index/v1/devnet/pools/${address}?atBlockHash=${hash}`,
    ]);
  });

  it('a route without asOf does not take it (a type error)', async () => {
    expectTypeOf<NonNullable<paths[typeof TRANSFERS]['get']['parameters']['query']>>().not.toHaveProperty(
      'atBlock',
    );
    const { api, urls } = recording();
    await api.GET(TRANSFERS, {
      // @ts-expect-error transfers do not answer as of a block: atBlock is not in their query
      params: { path: { chain: 'devnet', address }, query: { atBlock: 1234 } },
    });
    expect(urls).toHaveLength(1);
  });

  it('AsOfPath names exactly the GET paths the shipped contract marks x-as-of supported', () => {
    expectTypeOf<typeof POOL>().toExtend<AsOfPath>();
    expectTypeOf<typeof TRANSFERS>().not.toExtend<AsOfPath>();
    const file = createRequire(import.meta.url).resolve('@chain-indexer/client/openapi.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as {
      paths: Record<
        string,
        { get?: { 'x-as-of': { supported: boolean }; parameters?: Array<{ name: string }> } }
      >;
    };
    const marked = Object.entries(doc.paths)
      .filter(([, p]) => p.get?.['x-as-of'].supported)
      .map(([path, p]) => [
        path,
        (p.get?.parameters ?? []).map((x) => x.name).filter((n) => n.startsWith('atBlock')),
      ]);
    expect(marked.length).toBeGreaterThan(0);
    for (const [path, names] of marked) expect(names, path as string).toEqual(['atBlock', 'atBlockHash']);
    // Every marked path is one AsOfPath names (checked by type for the two above).
    expect(marked.map(([p]) => p)).toContain(POOL);
    expect(marked.map(([p]) => p)).not.toContain(TRANSFERS);
  });
});
