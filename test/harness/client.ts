/**
 * The typed client (packages/client, generated from the contract) pointed at a test indexer, for the e2e
 * suites. Every response it receives is validated against its route's schema, exactly like
 * `idx.get` (test/harness/contract.ts): a body that breaks its contract fails the caller.
 */
import { createIndexerClient, type IndexerClient } from '@chain-indexer/client';
import { expect } from 'vitest';
import { assertContract } from './contract.js';
import { type IndexerProcess, TEST_KEY } from './indexer.js';

/** A typed client of `idx` (chain `chain`) whose every answer is checked against the contract. */
export function typedClient(idx: IndexerProcess, chain = 'testnet'): IndexerClient {
  const validating = async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    const req = input instanceof Request ? input : new Request(input, init);
    const res = await fetch(req);
    const text = await res.clone().text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {}
    const url = new URL(req.url);
    if ((res.headers.get('content-type') ?? '').startsWith('application/json'))
      assertContract(req.method, `${url.pathname}${url.search}`, res.status, body, text);
    return res;
  };
  return createIndexerClient({
    baseUrl: `http://127.0.0.1:${idx.port}`,
    apiKey: TEST_KEY,
    chain,
    fetch: validating as typeof fetch,
  });
}

/** The page envelope every paged route answers. */
interface Paged<R> {
  data: R[];
  page: { nextCursor: string | null };
}

/**
 * Walks a paged route to its end through `call(cursor)` and returns every row.
 * @throws Error naming the status and body when a page is not a 200.
 */
export async function walkTyped<R>(
  call: (cursor: string | undefined) => Promise<{ data?: Paged<R>; error?: unknown; response: Response }>,
): Promise<R[]> {
  const rows: R[] = [];
  let cursor: string | undefined;
  do {
    const r = await call(cursor);
    if (!r.data) throw new Error(`${r.response.url} → ${r.response.status}: ${JSON.stringify(r.error)}`);
    rows.push(...r.data.data);
    cursor = r.data.page.nextCursor ?? undefined;
  } while (cursor);
  return rows;
}

/**
 * Every row of a PAGE route through `idx.get`, 1000 a page, following `page.nextCursor`; expects
 * 200 on each page. `key`: the API key (absent: the harness default). `sameAnchor`: also expect
 * every page at the first page's anchor. Returns the rows and the first page's anchor.
 */
export async function walkPages(
  idx: IndexerProcess,
  path: string,
  o: { key?: string; sameAnchor?: boolean } = {},
): Promise<{ rows: any[]; anchor: any }> {
  const rows: any[] = [];
  let cursor: string | null = null;
  let anchor: any = null;
  const sep = path.includes('?') ? '&' : '?';
  do {
    const url: string = `${path}${sep}limit=1000${cursor ? `&cursor=${cursor}` : ''}`;
    const r: { status: number; body: any; text: string } = await (o.key === undefined
      ? idx.get(url)
      : idx.get(url, { key: o.key }));
    expect(r.status, r.text).toBe(200);
    anchor ??= r.body.anchor;
    if (o.sameAnchor) expect(r.body.anchor).toEqual(anchor);
    rows.push(...r.body.data);
    cursor = r.body.page.nextCursor;
  } while (cursor);
  return { rows, anchor };
}
