/**
 * Projection status as routes see it (R5: fail closed). A route whose projection is not `ready`
 * answers a typed 503 naming the projection, its status and progress — never a partial page.
 */
import type { BlockRef, View } from '../storage/index.js';
import { ApiError } from './errors.js';
import type { ChainContext } from './route.js';

export type ProjectionStatus = 'building' | 'ready' | 'stale' | 'disabled';

export interface ProjectionInfo {
  name: string;
  version: number;
  status: ProjectionStatus;
  /** Route groups this projection backs. */
  backs: string[];
  /** Last block applied (null before the first). */
  checkpoint: number | null;
  /** Blocks behind the node head (null when unknown). */
  lagBlocks: number | null;
  /** Fraction of the indexed chain applied while building, 0..1. */
  progress: number | null;
  reason: string | null;
}

/** Blocks behind the node past which a following projection is reported `stale`. */
export const STALE_LAG_BLOCKS = 64;

function statusOf(
  chain: ChainContext,
  checkpoint: number | null,
  head: BlockRef | null,
): Pick<ProjectionInfo, 'status' | 'lagBlocks' | 'progress' | 'reason'> {
  const s = chain.ingest.status();
  const lag = s.nodeHead !== null && head ? Math.max(0, s.nodeHead - head.number) : null;
  if (!head) return { status: 'building', lagBlocks: lag, progress: 0, reason: 'nothing_indexed_yet' };
  if (checkpoint === null || checkpoint < head.number) {
    const first = chain.store.getMeta<{ firstBlock: number }>('identity')?.firstBlock ?? 0;
    const done = checkpoint === null ? 0 : checkpoint - first + 1;
    return {
      status: 'building',
      lagBlocks: lag,
      progress: done / (head.number - first + 1),
      reason: 'rebuilding_from_stored_blocks',
    };
  }
  if (s.state === 'halted')
    return { status: 'stale', lagBlocks: lag, progress: null, reason: `ingest_halted:${s.haltReason}` };
  if (lag !== null && lag > STALE_LAG_BLOCKS) {
    return s.state === 'backfilling'
      ? {
          status: 'building',
          lagBlocks: lag,
          progress: s.nodeHead ? head.number / s.nodeHead : null,
          reason: 'backfilling',
        }
      : { status: 'stale', lagBlocks: lag, progress: null, reason: 'head_lag_past_threshold' };
  }
  return { status: 'ready', lagBlocks: lag, progress: null, reason: null };
}

export function projectionsOf(chain: ChainContext): ProjectionInfo[] {
  const head = chain.store.committedHead();
  const raw: ProjectionInfo = {
    name: 'chain_records',
    version: 1,
    backs: ['Chain'],
    checkpoint: head?.number ?? null,
    ...(head
      ? chain.ingest.status().state === 'halted'
        ? {
            status: 'stale' as const,
            lagBlocks: null,
            progress: null,
            reason: `ingest_halted:${chain.ingest.status().haltReason}`,
          }
        : { status: 'ready' as const, lagBlocks: null, progress: null, reason: null }
      : { status: 'building' as const, lagBlocks: null, progress: 0, reason: 'nothing_indexed_yet' }),
  };
  // The head was read first: a commit landing meanwhile moves the checkpoints read after it to or
  // past it, never behind (both are written in the commit's one batch).
  const built = chain.registry.projections.map((p): ProjectionInfo => {
    const checkpoint = chain.registry.state(p.name).checkpoint;
    return {
      name: p.name,
      version: p.version,
      backs: p.backs,
      checkpoint,
      ...statusOf(chain, checkpoint, head),
    };
  });
  return [raw, ...built];
}

/** Whether projection `name` is ready (see {@link requireProjection}; no view: the in-memory checkpoint). */
export function projectionReady(chain: ChainContext, name: string): boolean {
  try {
    requireProjection(chain, name);
    return true;
  } catch (e) {
    if (e instanceof ApiError && e.code === 'projection_unavailable') return false;
    throw e;
  }
}

/**
 * Fails closed unless projection `name` is ready — and, given the request's view, unless the
 * projection's rows as that view holds them cover its anchor (a rebuild step or a block may be
 * written by the writer thread but not committed yet: the in-memory checkpoint runs ahead).
 * @throws ApiError projection_unavailable (503) with status, progress and reason.
 */
export function requireProjection(chain: ChainContext, name: string, view?: View): void {
  const p = chain.registry.projections.find((x) => x.name === name);
  if (!p)
    throw new ApiError('projection_unavailable', `projection "${name}" is not built in this version`, {
      projection: name,
      status: 'disabled',
    });
  // With a view, its own snapshot decides (the head and the checkpoint of one committed state);
  // without one, the committed head is read before the checkpoint (see projectionsOf).
  let head: BlockRef | null;
  let checkpoint: number | null;
  if (view?.head) {
    head = view.head;
    checkpoint = view.meta<{ checkpoint: number | null }>(chain.registry.metaKeyOf(name))?.checkpoint ?? null;
  } else {
    head = chain.store.committedHead();
    checkpoint = chain.registry.state(name).checkpoint;
  }
  const s = statusOf(chain, checkpoint, head);
  if (s.status !== 'ready') {
    throw new ApiError(
      'projection_unavailable',
      `projection "${name}" is ${s.status} (${s.reason}); retry with backoff`,
      {
        projection: name,
        status: s.status,
        progress: s.progress,
        reason: s.reason,
      },
    );
  }
}
