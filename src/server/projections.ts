/**
 * Projection status as routes see it (R5: fail closed). Each projection names the routes it backs
 * and its status; a route whose projection is not `ready` answers a typed 503.
 */
import { PENDING_PROJECTIONS } from './pending.js';
import type { ChainContext } from './route.js';

export type ProjectionStatus = 'building' | 'ready' | 'stale' | 'disabled';

export interface ProjectionInfo {
  name: string;
  version: number;
  status: ProjectionStatus;
  /** Route groups this projection backs. */
  backs: string[];
  /** Blocks behind the node head (null when unknown). */
  lagBlocks: number | null;
  reason: string | null;
}

/** Blocks behind the node past which a projection is reported `stale`. */
export const STALE_LAG_BLOCKS = 64;

export function projectionsOf(chain: ChainContext): ProjectionInfo[] {
  const s = chain.ingest.status();
  const head = chain.store.head();
  const lag = s.nodeHead !== null && head ? Math.max(0, s.nodeHead - head.number) : null;
  const raw: ProjectionInfo = {
    name: 'chain_records',
    version: 1,
    status: !head ? 'building' : s.state === 'halted' ? 'stale' : 'ready',
    backs: ['Chain'],
    lagBlocks: lag,
    reason: !head ? 'nothing_indexed_yet' : s.state === 'halted' ? `ingest_halted:${s.haltReason}` : null,
  };
  const pending = [...PENDING_PROJECTIONS].map(
    (name): ProjectionInfo => ({
      name,
      version: 0,
      status: 'disabled',
      backs: [],
      lagBlocks: null,
      reason: 'not_built_in_this_version',
    }),
  );
  return [raw, ...pending];
}
