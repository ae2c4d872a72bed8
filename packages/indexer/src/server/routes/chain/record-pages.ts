/**
 * The PAGE routes of a canonical block's or transaction's records: the node's records embedded
 * byte-exact (or with their decodings), by index, the cursor bound to the block or transaction.
 */

import type { TSchema } from '@sinclair/typebox';
import type { DecodedLogRow as Row } from '../../../chain/index.js';
import type { AnyCursor } from '../../../schema/cursor.js';
import type { PageQuery, PageSink } from '../../page.js';
import type { Ctx, Route } from '../../route.js';
import { pagedRoute } from '../../route-shapes.js';
import { BlockNumber, Hash } from '../../schemas.js';

/** A stored node record, embedded as it is. */
export const raw = (json: string) => json;
/** `{log, decoded}` from two stored JSON texts, embedded as they are. */
export const decodedLogJson = (r: Row) => `{"log":${r.log},"decoded":${r.decoded}}`;

interface RecordPage<R, S> {
  id: string;
  /** The walk's declared cursor (src/schema/cursors.ts). */
  cursor: AnyCursor;
  path: string;
  summary: string;
  row: TSchema;
  requires?: string[];
  render: (row: R) => string;
  walk: (ctx: Ctx, subject: S, q: PageQuery, sink: PageSink<R>) => void;
}

/** Every chain record route: scope read, group Chain, 404 `not_found` for a subject not indexed. */
const CHAIN_HEAD = { scope: 'read' as const, group: 'Chain', errors: ['not_found' as const] };

/** A PAGE route over the records of block `{number}` (404 when it is not canonical). */
export const blockPage = <R>(o: RecordPage<R, number>): Route =>
  pagedRoute({
    ...o,
    ...CHAIN_HEAD,
    params: { number: BlockNumber },
    subject: (ctx) => ctx.params.number,
    walk: (ctx, q, sink: PageSink<R>) => o.walk(ctx as Ctx, Number(ctx.params.number), q, sink),
  });

/** A PAGE route over the records of transaction `{hash}` (404 when it is not indexed). */
export const transactionPage = <R>(o: RecordPage<R, string>): Route =>
  pagedRoute({
    ...o,
    ...CHAIN_HEAD,
    params: { hash: Hash },
    subject: (ctx) => ctx.params.hash.toLowerCase(),
    walk: (ctx, q, sink: PageSink<R>) => o.walk(ctx as Ctx, ctx.params.hash, q, sink),
  });
