/** Selector parsing and frame matching for the stream routes. */
import { DomainError } from '../errors/index.js';
import type { FrameKeys } from '../schema/rows/streams.js';
import type { Frame } from './log.js';

export type Dimension = keyof FrameKeys;

/** What a consumer asked for on one topic. */
export interface Selection {
  all: boolean;
  dims: Partial<Record<Dimension, Set<string>>>;
  excludeLaunchpads?: Set<string>;
  /** Floor on max(|amount0|, |amount1|) of swap frames, base units of that leg. */
  minLegMagnitude?: bigint;
}

const ADDR = /^0x[0-9a-f]{40}$/;
const POOL = /^0x[0-9a-f]{40}(:0x[0-9a-f]{64})?$/;

/** Parses a comma list query value into a validated lowercase set. @throws DomainError bad_request. */
export function parseList(
  name: string,
  raw: string | undefined,
  kind: 'address' | 'pool' | 'name' | 'topic0',
): Set<string> | undefined {
  if (raw === undefined) return undefined;
  const out = new Set<string>();
  for (const part of raw.split(',')) {
    const v = part.trim().toLowerCase();
    if (!v) continue;
    const ok =
      kind === 'address'
        ? ADDR.test(v)
        : kind === 'pool'
          ? POOL.test(v)
          : kind === 'topic0'
            ? /^0x[0-9a-f]{64}$/.test(v)
            : /^[a-z0-9][a-z0-9_.-]{0,47}$/.test(v);
    if (!ok) throw new DomainError('bad_request', `${name}: "${part.slice(0, 80)}" is not a valid ${kind}`);
    out.add(v);
  }
  if (out.size > 1000) throw new DomainError('bad_request', `${name}: at most 1000 entries`);
  return out;
}

/** True when the frame passes the selection. Reorg frames always pass. */
export function matches(sel: Selection, f: Frame): boolean {
  if (f.event === 'reorg') return true;
  if (sel.excludeLaunchpads && f.keys.launchpads?.some((l) => sel.excludeLaunchpads!.has(l))) return false;
  let hit = sel.all;
  if (!hit) {
    // A dimension the consumer did not name is present with an undefined set (e.g. amm-events
    // with only `tokens=`): it selects nothing, and must not throw inside the hub's publish.
    for (const [dim, set] of Object.entries(sel.dims) as Array<[Dimension, Set<string> | undefined]>) {
      if (set && f.keys[dim]?.some((v) => set.has(v))) {
        hit = true;
        break;
      }
    }
  }
  if (!hit) return false;
  if (sel.minLegMagnitude !== undefined && f.event === 'swap') {
    const j = JSON.parse(f.json) as { amount0: string; amount1: string };
    const a0 = BigInt(j.amount0);
    const a1 = BigInt(j.amount1);
    const m0 = a0 < 0n ? -a0 : a0;
    const m1 = a1 < 0n ? -a1 : a1;
    if ((m0 > m1 ? m0 : m1) < sel.minLegMagnitude) return false;
  }
  return true;
}
