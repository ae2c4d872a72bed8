/**
 * The typed client (packages/client, generated from the contract) pointed at a test indexer, for the e2e
 * suites. Every response it receives is validated against its route's schema, exactly like
 * `idx.get` (test/harness/contract.ts): a body that breaks its contract fails the caller.
 */
import { createIndexerClient, type IndexerClient } from '@chain-indexer/client';
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
