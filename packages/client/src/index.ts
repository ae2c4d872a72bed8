/**
 * The typed client of the indexer API, generated from the published contract
 * (generated/schema.d.ts by openapi-typescript; calls through openapi-fetch). Regenerate with
 * `npm run client`; a test fails when the generated files are stale.
 *
 * ```ts
 * const api = createIndexerClient({ baseUrl: 'http://127.0.0.1:8080', apiKey, chain: 'devnet' });
 * const { data, error } = await api.GET('/index/v1/{chain}/tokens/{address}', {
 *   params: { path: { chain: api.chain, address } },
 * });
 * ```
 *
 * A route that answers as of a block takes `atBlock` (or `atBlockHash`) in its query, typed on
 * exactly those routes ({@link AsOfPath}); a route that does not take it fails to type-check with
 * it (and the server refuses it with 400):
 *
 * ```ts
 * const { data } = await api.GET('/index/v1/{chain}/pools/{address}', {
 *   params: { path: { chain: api.chain, address }, query: { atBlock: 19_000_000 } },
 * });
 * data?.anchor; // {block: 19000000, hash: the canonical hash of that block}
 * ```
 *
 * Records served with `?proof=true` are checked against a block hash the caller trusts with
 * {@link verifyTransaction}, {@link verifyReceipt} and {@link verifyLog} (verify.ts).
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../generated/schema.js';

export type { components, operations, paths } from '../generated/schema.js';
export {
  type RecordProof,
  type Verification,
  verifyLog,
  verifyReceipt,
  verifyTransaction,
} from './verify.js';

export interface IndexerClientOptions {
  /** Origin of the public listener, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** Sent as `x-api-key` on every request (omit for the public monitoring routes). */
  apiKey?: string;
  /** Default chain name for callers that fill `{chain}` from `client.chain`. */
  chain?: string;
  /** fetch implementation (defaults to the global one). */
  fetch?: typeof globalThis.fetch;
}

/** The query of a path's GET (never when it has none). */
type QueryOf<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } }
  ? NonNullable<Q>
  : never;

/**
 * The paths whose GET answers as of a block: their query takes `atBlock` / `atBlockHash` (the
 * contract's `x-as-of: {supported: true}`).
 */
export type AsOfPath = {
  [P in keyof paths]: [QueryOf<P>] extends [never] ? never : 'atBlock' extends keyof QueryOf<P> ? P : never;
}[keyof paths];

/** The as-of parameters of a path that takes them: name the block by number or by hash, not both. */
export type AsOfQuery = { atBlock: number; atBlockHash?: never } | { atBlockHash: string; atBlock?: never };

/** An openapi-fetch client over the contract's paths, plus the chain it was created for. */
export type IndexerClient = Client<paths> & { chain: string };

/** Creates a typed client. Network and HTTP errors surface as openapi-fetch's `{error}`. */
export function createIndexerClient(o: IndexerClientOptions): IndexerClient {
  const client = createClient<paths>({
    baseUrl: o.baseUrl,
    headers: o.apiKey ? { 'x-api-key': o.apiKey } : {},
    ...(o.fetch ? { fetch: o.fetch } : {}),
  });
  return Object.assign(client, { chain: o.chain ?? 'devnet' });
}
