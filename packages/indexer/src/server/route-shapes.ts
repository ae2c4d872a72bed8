/**
 * The two shapes of an index route, each declared once. A PAGE route ({@link pagedRoute}) is a
 * GET index route (anchored; batchable unless it says not) whose query is the PAGE parameters (or
 * the given query), whose response is `Paged(row, extra)`, and whose handler is one reader walk
 * through {@link paged}. A single-record route ({@link singleRoute}) answers `{anchor, data}` with
 * one reader call. A route states only what is its own: path, schemas, errors, and the read.
 *
 * Both shapes are cached by default (route.ts `cached`: an answer is served again until the store's
 * next write): their answer is what a reader makes of the request's view, path and query. A route
 * whose reader also consults state that is not in RocksDB (the traces lane's in-memory status)
 * says `cached: false`.
 */
import type { Static, TObject, TProperties, TSchema } from '@sinclair/typebox';
import type { AnyCursor } from '../schema/cursor.js';
import { type PageOptions, type PageQuery, type PageSink, paged, type Unpaged } from './page.js';
import { type Ctx, defineRoute, type IndexRouteSpec, type Route, single } from './route.js';
import { Paged, pageQuery, Single } from './schemas.js';

type PageParams = ReturnType<typeof pageQuery>;

/** What a PAGE route declares (see the module note). */
export interface PagedRouteSpec<P extends TProperties, Q extends TProperties, R>
  extends Omit<IndexRouteSpec<P, Q>, 'kind' | 'method' | 'handler' | 'anchored' | 'query' | 'response'> {
  /** The whole response schema, for a page with alternatives (default `Paged(row, extra)`). */
  response?: TSchema;
  /** The query (default: the PAGE parameters `cursor`, `limit`, `order`). */
  query?: Q;
  /** The schema of one row (with `response` absent). */
  row?: TSchema;
  /** Fields beside `data` and `page`. */
  extra?: Record<string, TSchema>;
  /** The walk's declared cursor (src/schema/cursors.ts): its key, order, anchor; it tags the pages. */
  cursor: AnyCursor;
  /** The walk's subject, bound into the cursor after the route id (absent: the route id alone). */
  subject?: (ctx: Ctx<Static<TObject<P>>, Static<TObject<Q>>>) => string | number;
  /** The one reader walk: pushes rows into `sink`, returns the extra fields (or an Unpaged body). */
  walk: (
    ctx: Ctx<Static<TObject<P>>, Static<TObject<Q>>>,
    q: PageQuery,
    sink: PageSink<R>,
    // biome-ignore lint/suspicious/noConfusingVoidType: a walk with no extra fields returns nothing
  ) => object | Unpaged | undefined | void;
  /** Serializes one row (default JSON.stringify). */
  render?: (row: R) => string;
  /** Default order and limit, row cap. */
  page?: PageOptions;
}

/** Declares a PAGE route (see the module note). */
export function pagedRoute<P extends TProperties = {}, Q extends TProperties = PageParams, R = unknown>(
  spec: PagedRouteSpec<P, Q, R>,
): Route {
  const { row, extra, response, subject, walk, render, page, query, cursor, ...rest } = spec;
  return defineRoute<P, Q>({
    ...rest,
    method: 'GET',
    cached: spec.cached ?? true,
    query: query ?? (pageQuery() as unknown as Q),
    response: response ?? Paged(row as TSchema, extra),
    batchable: spec.batchable ?? true,
    anchored: true,
    handler(ctx) {
      const tag = subject ? cursor.tag(spec.id, subject(ctx)) : cursor.tag(spec.id);
      return paged(ctx as never, tag, (q, sink: PageSink<R>) => walk(ctx, q, sink), render, page);
    },
  });
}

/** What a single-record route declares: its data schema and the one reader call that answers. */
export interface SingleRouteSpec<P extends TProperties, Q extends TProperties>
  extends Omit<IndexRouteSpec<P, Q>, 'kind' | 'method' | 'handler' | 'anchored' | 'response'> {
  /** The schema of `data` (the response is `{anchor, data}`). */
  data: TSchema;
  /** The one reader call: the response's `data`, shaped. */
  read: (ctx: Ctx<Static<TObject<P>>, Static<TObject<Q>>>) => unknown;
}

/**
 * Declares a single-record route: a GET index route (anchored; batchable unless it says not)
 * answering `{anchor, data}` with what `read` returns, serialized once.
 */
export function singleRoute<P extends TProperties = {}, Q extends TProperties = {}>(
  spec: SingleRouteSpec<P, Q>,
): Route {
  const { data, read, ...rest } = spec;
  return defineRoute<P, Q>({
    ...rest,
    method: 'GET',
    cached: spec.cached ?? true,
    response: Single(data),
    batchable: spec.batchable ?? true,
    anchored: true,
    handler: (ctx) => single(ctx.anchor, JSON.stringify(read(ctx))),
  });
}

/**
 * The head of an all-time high or low route of a family (`/pools/{address}/ath`,
 * `/tokens/{address}/atl`, …): its id `<family>.ath|atl`, path, scope read and group.
 */
export function extremeHead(family: 'pools' | 'tokens', which: 'high' | 'low') {
  const kind = which === 'high' ? 'ath' : 'atl';
  const group = family === 'pools' ? 'Pools' : 'Tokens';
  return { id: `${family}.${kind}`, path: `/${family}/{address}/${kind}`, scope: 'read' as const, group };
}
