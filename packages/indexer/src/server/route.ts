/**
 * Route definitions. A route is a file that exports one `defineRoute(...)`: its path, scope,
 * TypeBox schemas (params, query, response), the errors it can answer and its handler. The
 * router and the OpenAPI contract are both generated from the same list, so they cannot drift.
 */
import type { Static, TObject, TProperties, TSchema } from '@sinclair/typebox';
import type { CursorCodec } from '../cursor/index.js';
import type { Ingest } from '../ingest/index.js';
import type { TracesLane } from '../ingest/traces.js';
import type { MarketsConfig } from '../markets/config.js';
import type { Registered, Registry } from '../projections/index.js';
import type { Rpc } from '../rpc/client.js';
import type { BlockRef, Store, View } from '../storage/index.js';
import type { LaunchpadDeployments } from '../tokens/launchpads.js';
import { AS_OF_QUERY } from './as-of.js';
import type { ErrorCode } from './errors.js';
import type { SseConn } from './sse.js';

/** Route classes; a key holds a set of scopes, each route requires one (or none for public routes). */
export type Scope = 'read' | 'wallet' | 'rpc' | 'monitoring' | 'stream';

/** Everything a handler may use about the chain it serves. */
export interface ChainContext {
  name: string;
  chainId: number;
  store: Store;
  ingest: Ingest;
  rpc: Rpc;
  cursors: CursorCodec;
  /** Durable stream topics (log + live hub). */
  streams: import('../streams/service.js').Streams;
  /** Projection states (R5), re-read as the engine commits: identities only, no build code. */
  registry: Registry<Registered>;
  launchpads: LaunchpadDeployments;
  traces: TracesLane;
  markets: MarketsConfig;
  /** Entity overrides: wallets screened out of cohorts (ENTITY_OVERRIDES_FILE). */
  overrides: ReadonlySet<string>;
  /** Version of the overrides file (its content hash prefix); '0' when none. */
  overridesVersion: string;
  /** Labels from LABELS_FILE: address → labels. */
  labels: ReadonlyMap<string, string[]>;
  /**
   * HISTORY_RETENTION: how many blocks below the head an as-of read may name (null or absent:
   * every indexed block). Enforced on reads (as-of.ts); nothing prunes the stored history yet.
   */
  historyRetention?: number | null;
  /** The domain readers of this chain (created once at start-up; they read through a request's view). */
  readers: Readers;
  /**
   * Set on a read replica (ROLE=replica): its state and lag behind the writer; anchored routes
   * answer 503 replica_lagging past `maxLagSeconds`.
   */
  replica?: { status(): import('../replication/replica.js').ReplicaStatus; maxLagSeconds: number };
  /**
   * Set on a writer (ROLE=writer): its change-log publisher's state, null until the publisher has
   * connected to JetStream.
   */
  writer?: { status(): import('../replication/publisher.js').PublisherStatus | null };
  /** Set when this chain is the embedded devnet: its node and traffic generator state (/health). */
  devnet?: { status(): import('@chain-indexer/devnet').DevnetStatus };
}

/**
 * The domain readers of a chain, one per domain (src/<domain>/index.ts exports its factory). A
 * reader holds the domain's rules (quote rule, venue choice, windows, scan limits, holder-count
 * shapes) and reads only through the {@link View} a route hands it.
 */
export interface Readers {
  chain: import('../chain/index.js').ChainReader;
  tokens: import('../tokens/index.js').TokensReader;
  markets: import('../markets/index.js').MarketsReader;
  screener: import('../screener/index.js').ScreenerReader;
  wallets: import('../wallets/index.js').WalletsReader;
  cohorts: import('../cohorts/index.js').CohortsReader;
  addresses: import('../addresses/index.js').AddressesReader;
  /** The responses that combine domains (src/queries), built over the readers above. */
  queries: import('../queries/index.js').Queries;
}

/** Per-request context handed to a handler. The adapter has already authenticated and validated. */
export interface Ctx<P = Record<string, string>, Q = Record<string, unknown>> {
  chain: ChainContext;
  params: P;
  query: Q;
  /**
   * The block this request reads at (R1): the committed head, or the block named by
   * `atBlock`/`atBlockHash` on a route declaring `asOf` (as-of.ts). Chain routes only; resolved
   * before the handler runs.
   */
  anchor: BlockRef;
  /**
   * On a route answering as of a block (`asOf`): the block named by `atBlock`/`atBlockHash` (then
   * equal to `anchor`), null when it names none (the head). Absent on every other route.
   */
  asOf?: BlockRef | null;
  /**
   * The request's anchored view (opened at `anchor`). Index routes read only through it; node
   * routes may use it in their synchronous prefix only (it is closed when the handler returns).
   */
  view: View;
  /** The chain's domain readers (same as `chain.readers`). */
  readers: Readers;
  /** Every chain the process serves (root routes answer for all of them). */
  allChains: ReadonlyMap<string, ChainContext>;
  header(name: string): string | undefined;
  /** Parsed JSON body (POST routes only). */
  body: unknown;
  /** Scopes of the calling key. */
  scopes: ReadonlySet<Scope>;
  /** The calling key (null on public routes). */
  principal: { name: string; maxStreams: number } | null;
  /**
   * The outcome of each charge the route declared with {@link RouteSpecBase.charges}, in its order:
   * null when charged, the refusal (429 rate_limited) when not. Decided once per request, before
   * the first run (a request re-run on a new view is not charged again). Absent otherwise.
   */
  charged?: ReadonlyArray<import('../errors/index.js').ServiceError | null>;
}

/** A handler's answer: status (default 200) and an already serialized JSON body. */
export interface Reply {
  status?: number;
  json: string;
  /**
   * The UTF-8 bytes of `json`, made once when the response cache keeps a large reply
   * (response-cache.ts): every hit writes them as they are. Without them a cached 128 KB answer
   * was encoded again on every hit — ~900 MB/s of external memory at c=1 and a serving-thread
   * scavenge every ~60–110 ms (bench/results/engine-thread-2026-11-28-fourth.md).
   */
  bytes?: Uint8Array;
  headers?: Array<[string, string]>;
  /**
   * Set by `recordSingle` (record-cache.ts) on the answer about a chain record: its data JSON and
   * the record's block number. While that block stays canonical the body under a later anchor is
   * the same data, so the record cache answers it again without the handler.
   */
  record?: { data: string; block: number };
  /** When set, the response becomes an SSE stream driven by this function (json is ignored). */
  sse?: (conn: SseConn) => void;
  /**
   * The handler's side effect (reserving a stream slot, mutating an open connection), kept apart
   * from its reads. A run whose reads crossed a write is dropped and run again (invoke.ts), so a
   * handler never acts while it reads: it returns `effect`, and invoke calls it exactly once, on
   * the run whose answer stands. Its return replaces this reply. It may throw ApiError (e.g.
   * rate_limited at the open-stream ceiling), or answer later (a slot of the shared open-stream
   * ceiling is asked of NATS). A route with an effect is not batchable.
   */
  effect?: () => Reply | Promise<Reply>;
  /**
   * Gives back what `effect` took when the reply is dropped unsent after it ran (the client went
   * away before an SSE stream could start: server/index.ts).
   */
  dispose?: () => void;
}

interface RouteSpecBase<P extends TProperties, Q extends TProperties> {
  /** Stable id, e.g. `chain.block`; used for cursor binding, metrics and the contract's operationId. */
  id: string;
  method: 'GET' | 'POST';
  /**
   * OpenAPI-style path. Chain routes are relative to `/index/v1/{chain}`; routes with
   * `root: true` are absolute.
   */
  path: string;
  root?: boolean;
  /** Required scope; null for public routes. */
  scope: Scope | null;
  group: string;
  summary: string;
  params?: P;
  query?: Q;
  /** The 200 body's schema (the contract). */
  response: TSchema;
  /**
   * Non-error answers on other statuses with their own body (e.g. /health/ready's 503
   * `{ready:false}`): published in the contract and validated like the 200 body.
   */
  alternates?: Array<{ status: number; description: string; schema: TSchema; mediaType?: string }>;
  /**
   * The 200 body's media type (default application/json). Streams set `text/event-stream` and
   * give as `response` the union of their events (`SseEvents` in src/server/openapi.ts): the
   * contract publishes them as the stream's item schema; the JSON harness does not validate them.
   */
  mediaType?: string;
  /** The JSON request body's schema (POST routes): published as the contract's requestBody. */
  body?: TSchema;
  errors: ErrorCode[];
  /** Whether the route can be an item of POST /batch. */
  batchable?: boolean;
  /**
   * The route classes one request is charged to, in an order the handler knows (its
   * `ctx.charged`), decided before the request runs; a null entry is not charged. Default: one
   * charge of `scope`. POST /batch charges each item to the item route's own class.
   */
  charges?(req: {
    body: unknown;
    scopes: ReadonlySet<Scope>;
    services?: Record<string, unknown>;
  }): Array<Scope | null>;
  /** Whether the route needs an anchor (an indexed head). */
  anchored?: boolean;
  /**
   * The route answers state as of a block: it takes the query parameters `atBlock` /
   * `atBlockHash` (spread into its query here, so the contract lists them) and reads at the block
   * they name (src/server/as-of.ts). Only routes whose every read is block-versioned declare it.
   */
  asOf?: boolean;
  /**
   * The body is a function of the request (path parameters and query) and the store's contents
   * only — no header, principal, body, clock or process state — so an answer is served again,
   * without running the handler, until the store's next write (response-cache.ts).
   */
  cached?: boolean;
  /**
   * Projections this route reads (R5: fail closed): each must be `ready` or the route answers
   * 503 projection_unavailable naming it, before the handler runs.
   */
  requires?: readonly string[];
}

/**
 * An index route: synchronous by type, so every read happens within one turn of the event loop
 * through `ctx.view` (one snapshot per response, R1).
 */
export interface IndexRouteSpec<P extends TProperties, Q extends TProperties> extends RouteSpecBase<P, Q> {
  kind?: 'index';
  handler(ctx: Ctx<Static<TObject<P>>, Static<TObject<Q>>>): Reply;
}

/**
 * A node route (the declared async exception): reads the node, pinned to one observed block it
 * names in its body (live RPC) or to the anchor block (runtime code at the anchor). `ctx.view` is
 * usable only in the handler's synchronous prefix; it is closed once the handler returns.
 */
export interface NodeRouteSpec<P extends TProperties, Q extends TProperties> extends RouteSpecBase<P, Q> {
  kind: 'node';
  /** Never: a batch answers every item from one snapshot in one synchronous turn. */
  batchable?: false;
  handler(ctx: Ctx<Static<TObject<P>>, Static<TObject<Q>>>): Promise<Reply>;
}

export type RouteSpec<P extends TProperties, Q extends TProperties> =
  | IndexRouteSpec<P, Q>
  | NodeRouteSpec<P, Q>;

/** A registered route (type-erased for the router). */
export type Route = RouteSpecBase<TProperties, TProperties> & {
  kind?: 'index' | 'node';
  handler(ctx: Ctx): Reply | Promise<Reply>;
};

export function defineRoute<P extends TProperties = {}, Q extends TProperties = {}>(
  spec: RouteSpec<P, Q>,
): Route {
  if (spec.asOf) return { ...spec, query: { ...spec.query, ...AS_OF_QUERY } } as unknown as Route;
  return spec as unknown as Route;
}

/** JSON of the anchor pair. */
export function anchorJson(a: BlockRef): string {
  return `{"block":${a.number},"hash":"${a.hash}"}`;
}

/** `{anchor, data}` with `dataJson` embedded as is (no re-serialisation of stored records). */
export function single(anchor: BlockRef, dataJson: string): Reply {
  return { json: `{"anchor":${anchorJson(anchor)},"data":${dataJson}}` };
}
