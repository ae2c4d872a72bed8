/**
 * Page assembly under the Limits: at most `limit` rows (≤ 1,000), at most 4 MiB serialized. The
 * page names the bound that stopped it, so an exhausted walk is distinguishable from a cut page.
 */

import type { CursorTag } from '../schema/cursor.js';
import type { BlockRef } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';

export type { PageQuery, PageSink };

import { checkCursorAsOf } from './as-of.js';
import { ApiError } from './errors.js';
import { anchorJson, type Ctx, type Reply } from './route.js';

/** Hard ceiling of one serialized response, bytes (Limits: 4 MiB). */
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;
/** Row cap of pages that publish a USD sibling per row (Limits). */
export const ROWS_USD_SIBLING = 200;
/** Row cap of pages whose rows may each need a separate mark (Limits). */
export const ROWS_SEPARATE_MARKS = 100;
/** Room kept for the envelope around the rows, bytes. */
const ENVELOPE_RESERVE_BYTES = 4 * 1024;

export type Order = 'asc' | 'desc';
export type StoppedBy = 'exhausted' | 'rows' | 'rows_usd_sibling' | 'rows_separate_marks' | 'bytes';

/** Resolved PAGE parameters: the anchor to read at, order, limit and the resume key (if any). */
export interface PageRequest {
  anchor: BlockRef;
  order: Order;
  limit: number;
  /** Last key of the previous page; null on page one. */
  after: Buffer | null;
  /** The walk's declared cursor and route tag: the cursors of this walk carry the tag. */
  route: CursorTag;
}

/**
 * Resolves PAGE parameters for the walk tagged `tag` (a declared cursor's `tag`,
 * src/schema/cursors.ts). With a cursor the walk keeps the cursor's anchor (R2) — refused with 409
 * `stale_cursor` once that block is no longer canonical (R3).
 * @throws ApiError bad_cursor, bad_request (order differs from the cursor's, or atBlock names
 * another block than the cursor's), stale_cursor, cursor_history_pruned (an as-of route's cursor
 * older than the retained history).
 */
export function pageRequest(
  ctx: Ctx<unknown, { cursor?: string; limit?: number; order?: Order }>,
  tag: CursorTag,
  defaults: { limit?: number; order?: Order } = {},
): PageRequest {
  const route = tag;
  const q = ctx.query;
  const limit = q.limit ?? defaults.limit ?? 100;
  if (!q.cursor)
    return { anchor: ctx.anchor, order: q.order ?? defaults.order ?? 'asc', limit, after: null, route };
  const c = ctx.chain.cursors.decode(q.cursor, {
    chainId: ctx.chain.chainId,
    route: tag.tag,
    order: q.order,
  });
  // On a route answering as of a block, a cursor keeps its anchor (R2): naming another block
  // beside it is refused, and so is an anchor older than the retained history (as-of.ts).
  if (ctx.asOf !== undefined)
    checkCursorAsOf(ctx.view, ctx.asOf, c.anchor, ctx.chain.historyRetention ?? null);
  const canonical = ctx.view.canonicalHash(c.anchor.number);
  if (canonical !== c.anchor.hash) {
    throw new ApiError(
      'stale_cursor',
      `the cursor's anchor block ${c.anchor.number} (${c.anchor.hash}) is no longer canonical; restart from page one`,
      { anchorBlock: c.anchor.number, anchorHash: c.anchor.hash },
    );
  }
  return { anchor: c.anchor, order: c.order, limit, after: c.key, route };
}

/** The reader-side form of a page request (src/storage/page.ts). */
export function pageQueryOf(req: PageRequest): PageQuery {
  return { at: req.anchor.number, after: req.after, order: req.order, limit: req.limit };
}

/**
 * Mints the signed cursor of a page of the walk tagged `tag` (a declared cursor's `tag`, see
 * src/schema/cursors.ts) resuming after `key` (that cursor's `encode` or `tail`), on this chain at
 * `anchor`: the only place besides {@link pageRequest} that touches the envelope codec.
 */
export function mintCursor(
  ctx: Ctx<unknown, unknown>,
  tag: CursorTag,
  order: Order,
  anchor: BlockRef,
  key: Buffer,
): string {
  return ctx.chain.cursors.encode({ chainId: ctx.chain.chainId, route: tag.tag, order, anchor, key });
}

/** Accumulates serialized rows of one page and renders the paged envelope. */
export class PageBuilder {
  private readonly rows: string[] = [];
  /** Rows counted against the limit but filtered from the output (filters never change paging). */
  private hidden = 0;
  private bytes = 0;
  private lastKey: Buffer | null = null;
  stoppedBy: StoppedBy | null = null;
  constructor(
    private readonly ctx: Ctx<unknown, unknown>,
    private readonly req: PageRequest,
    private readonly rowCap = req.limit,
    private readonly capReason: StoppedBy = 'rows',
  ) {}

  /**
   * Offers a row with its resume key. Returns false when the page is full (the row was not added
   * and the walk should stop; the next page starts at this row).
   */
  push(rowJson: string, key: Buffer): boolean {
    if (rowJson === '') {
      // A filtered row: it takes its place in the page (paging is by key, not by filter).
      if (this.rows.length + this.hidden >= this.rowCap) {
        this.stoppedBy = this.rowCap < this.req.limit ? this.capReason : 'rows';
        return false;
      }
      this.hidden++;
      this.lastKey = key;
      return true;
    }
    if (this.rows.length + this.hidden >= this.rowCap) {
      this.stoppedBy = this.rowCap < this.req.limit ? this.capReason : 'rows';
      return false;
    }
    if (this.bytes + rowJson.length + 1 > MAX_PAGE_BYTES - ENVELOPE_RESERVE_BYTES) {
      if (this.rows.length === 0)
        throw new ApiError('query_too_broad', 'a single row exceeds the 4 MiB page budget');
      this.stoppedBy = 'bytes';
      return false;
    }
    this.rows.push(rowJson);
    this.bytes += rowJson.length + 1;
    this.lastKey = key;
    return true;
  }

  /**
   * A sink for a reader's walk: each row is serialized by `render` and pushed (null rows count
   * toward the page but are filtered from the output).
   */
  sink<R>(render: (row: R) => string): PageSink<R> {
    return (row, key) => this.push(row === null ? '' : render(row), key);
  }

  /** Whether the page stopped on a bound (more rows may follow). */
  get full(): boolean {
    return this.stoppedBy !== null;
  }

  /** Renders `{anchor, data, page, ...extra}`; `extraJson` is pre-serialized `"k":v` pairs. */
  finish(extraJson = ''): Reply {
    const stoppedBy = this.stoppedBy ?? 'exhausted';
    const next =
      stoppedBy === 'exhausted' || !this.lastKey
        ? 'null'
        : `"${mintCursor(this.ctx, this.req.route, this.req.order, this.req.anchor, this.lastKey)}"`;
    const page = `{"order":"${this.req.order}","limit":${this.req.limit},"count":${this.rows.length},"stoppedBy":"${stoppedBy}","nextCursor":${next}}`;
    return {
      json: `{"anchor":${anchorJson(this.req.anchor)},"data":[${this.rows.join(',')}],"page":${page}${extraJson ? `,${extraJson}` : ''}}`,
    };
  }
}

/**
 * What a walk returns when it has no page to show (a trace the node could not give): the whole
 * body, rendered after `anchor` instead of `{data, page, …}`.
 */
export class Unpaged {
  constructor(readonly body: Record<string, unknown>) {}
}

/** A route's PAGE options: default order and limit, and a row cap below the limit with its reason. */
export interface PageOptions {
  order?: Order;
  limit?: number;
  rowCap?: number;
  capReason?: StoppedBy;
}

/**
 * Answers a PAGE route with one reader walk: resolves the PAGE parameters with the cursor bound to
 * `tag` (the walk's declared cursor, tagged with the route id and the walk's subject, e.g.
 * `TOKEN_TRANSFERS.tag('tokens.transfers', '0x…')`), lets `walk` push the
 * page's rows into the sink (each serialized by `render`), and renders `{anchor, data, page, …}`
 * with the fields `walk` returns after `page`, in their order (an {@link Unpaged} body instead of
 * a page when the walk has none).
 * @throws ApiError bad_cursor, bad_request, stale_cursor (see {@link pageRequest}), query_too_broad;
 * whatever the walk throws (e.g. DomainError not_found).
 */
export function paged<R>(
  ctx: Ctx<unknown, { cursor?: string; limit?: number; order?: Order }>,
  tag: CursorTag,
  // biome-ignore lint/suspicious/noConfusingVoidType: a walk with no extra fields returns nothing
  walk: (q: PageQuery, sink: PageSink<R>, req: PageRequest) => object | Unpaged | undefined | void,
  render: (row: R) => string = JSON.stringify,
  opts: PageOptions = {},
): Reply {
  const req = pageRequest(ctx, tag, opts);
  const cap = opts.rowCap === undefined ? req.limit : Math.min(req.limit, opts.rowCap);
  const b = new PageBuilder(ctx, req, cap, opts.capReason);
  const extra = walk(pageQueryOf(req), b.sink(render), req);
  if (extra instanceof Unpaged)
    return { json: `{"anchor":${anchorJson(req.anchor)},${JSON.stringify(extra.body).slice(1)}` };
  return b.finish(extra ? JSON.stringify(extra).slice(1, -1) : '');
}
