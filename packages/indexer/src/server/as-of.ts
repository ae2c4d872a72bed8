/**
 * As-of-block reads: the declared query parameters `atBlock` / `atBlockHash` and the one resolver
 * that turns them into the request's anchor (R1: every read of the request is at that block), or
 * into one of three typed refusals. A route takes them by declaring `asOf: true` (route.ts); the
 * router resolves the anchor before the handler runs (invoke.ts), so a handler reads
 * `ctx.anchor` as it always does, and a page minted at that anchor keeps it (R2).
 *
 * The retained range is `[oldest, head]`: `oldest` is the first indexed block, raised to
 * `head − HISTORY_RETENTION` when a number of blocks is configured, and to the history pruner's
 * mark (META `history:oldest`, storage/history-prune.ts): the pruner deletes the versions no read
 * at or above its cutoff reaches, and raises the mark before it deletes any, so a view never reads
 * a pruned block's state.
 */
import { Type } from '@sinclair/typebox';
import { HISTORY_OLDEST_META } from '../schema/history.js';
import { HASH_TO_NUMBER } from '../schema/tables/chain.js';
import type { BlockRef, View } from '../storage/index.js';
import { ApiError } from './errors.js';

/** The as-of query parameters, spread into the query of every route declaring `asOf: true`. */
export const AS_OF_QUERY = {
  atBlock: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'answer as of the end of this block (its canonical hash is the anchor); 410 history_pruned below the retained range (/health `history`), 409 block_not_indexed above the committed head; exclusive with atBlockHash',
    }),
  ),
  atBlockHash: Type.Optional(
    Type.String({
      pattern: '^0x[0-9a-fA-F]{64}$',
      description:
        'answer as of the end of the block with this hash; 409 block_not_canonical when the index holds no canonical block with it (unknown, or reorged out); exclusive with atBlock',
    }),
  ),
};

/** The names of the as-of parameters (a route without `asOf` refuses them by name: validate.ts). */
export const AS_OF_PARAMS: ReadonlySet<string> = new Set(Object.keys(AS_OF_QUERY));

/** The parsed as-of parameters of a request. */
export interface AsOfQuery {
  atBlock?: number;
  atBlockHash?: string;
}

/**
 * The block range an as-of read may name, as of the view: `{oldest, head}` (block numbers,
 * inclusive), or null before the first block. `retention` is HISTORY_RETENTION in blocks (null:
 * all). Source: META `identity.firstBlock`, the view's committed head and the pruner's mark
 * (META `history:oldest`, read in the same snapshot as every row the request reads).
 */
export function retainedRange(view: View, retention: number | null): { oldest: number; head: number } | null {
  const head = view.head;
  if (!head) return null;
  const first = view.meta<{ firstBlock: number }>('identity')?.firstBlock ?? 0;
  const pruned = view.meta<number>(HISTORY_OLDEST_META) ?? 0;
  const oldest = Math.max(first, pruned, retention === null ? 0 : head.number - retention);
  return { oldest: Math.min(oldest, head.number), head: head.number };
}

/** The pruner's mark as of the view: the oldest block whose state the store holds exactly (null: nothing pruned). */
export function prunedBelow(view: View): number | null {
  return view.meta<number>(HISTORY_OLDEST_META) ?? null;
}

/**
 * The anchor a request asked for: null when it names no block (the head, as before), else the
 * canonical `(number, hash)` of the block at `atBlock` or with hash `atBlockHash`. The hash is
 * looked up in `chain.hash_to_number` and checked against `chain.canonical` (a reorged block's row
 * is undone with its block, so only canonical hashes resolve).
 * @throws ApiError bad_request (both parameters), block_not_indexed (409, above the head: extra
 * `requestedBlock`, `headBlock`), history_pruned (410, below the retained range: extra
 * `requestedBlock`, `oldestRetainedBlock`, `headBlock`), block_not_canonical (409, an unknown or
 * non-canonical hash), not_ready (503, nothing indexed yet).
 */
export function resolveAsOf(view: View, q: AsOfQuery, retention: number | null): BlockRef | null {
  if (q.atBlock === undefined && q.atBlockHash === undefined) return null;
  if (q.atBlock !== undefined && q.atBlockHash !== undefined)
    throw new ApiError('bad_request', 'atBlock and atBlockHash are exclusive: name the block one way');
  const range = retainedRange(view, retention);
  if (!range) throw new ApiError('not_ready', 'nothing indexed yet; retry shortly');
  let n: number;
  if (q.atBlockHash !== undefined) {
    const hash = q.atBlockHash.toLowerCase() as `0x${string}`;
    const found = view.get(HASH_TO_NUMBER, hash);
    if (found === undefined || found > range.head || view.canonicalHash(found) !== hash)
      throw new ApiError(
        'block_not_canonical',
        `block ${hash} is not on the canonical chain indexed up to block ${range.head}`,
        { headBlock: range.head },
      );
    n = found;
  } else {
    n = q.atBlock as number;
    if (n > range.head)
      throw new ApiError(
        'block_not_indexed',
        `block ${n} is above the committed head ${range.head}; retry once it is indexed`,
        { requestedBlock: n, headBlock: range.head },
      );
  }
  const hash = n >= range.oldest ? view.canonicalHash(n) : undefined;
  if (hash === undefined)
    throw new ApiError(
      'history_pruned',
      `block ${n} is older than the retained history (oldest retained block ${range.oldest})`,
      { requestedBlock: n, oldestRetainedBlock: range.oldest, headBlock: range.head },
    );
  return { number: n, hash };
}

/**
 * Checks a cursor's anchor on a route that answers as of a block: a cursor keeps the anchor it
 * was minted at (R2), so naming another block beside it is a contradiction, and its anchor must
 * still be in the retained range (`retention`: HISTORY_RETENTION in blocks, null = all), as
 * an as-of read of that block must.
 * @throws ApiError bad_request when `asked` is set and differs from the cursor's anchor;
 * cursor_history_pruned (409, extra `anchorBlock`, `oldestRetainedBlock`) when the anchor is older
 * than the retained range.
 */
export function checkCursorAsOf(
  view: View,
  asked: BlockRef | null,
  cursorAnchor: BlockRef,
  retention: number | null,
): void {
  if (asked && (asked.number !== cursorAnchor.number || asked.hash !== cursorAnchor.hash))
    throw new ApiError(
      'bad_request',
      `the cursor was minted at block ${cursorAnchor.number}; atBlock/atBlockHash name block ${asked.number} (leave them out, or restart from page one)`,
    );
  const range = retainedRange(view, retention);
  if (range && cursorAnchor.number < range.oldest)
    throw new ApiError(
      'cursor_history_pruned',
      `the cursor's anchor block ${cursorAnchor.number} is older than the retained history (oldest retained block ${range.oldest}); restart from page one`,
      { anchorBlock: cursorAnchor.number, oldestRetainedBlock: range.oldest },
    );
}
