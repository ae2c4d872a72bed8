/**
 * The soak's random schedule, drawn from one seed (mulberry32): which faults hit the devnet and the
 * indexers, in bursts, and when. The draw is deterministic for a seed and a finality mode; the
 * instants steps land at (block heights, what the indexers were doing) depend on timing, so the
 * runner records every step it executed with the heights it saw (that log is the reproduction).
 *
 * Targets: `devnet` is the embedded devnet's own indexer (`npm start`: dist/app/main.js with no
 * RPC_URL), `proxied` the indexer that reads the same node through the RPC fault proxy, `late` the
 * second indexer (TRACES=off) started late on the same node.
 */
import { mulberry32 } from '../harness/rpc-proxy.js';

export type Target = 'devnet' | 'proxied' | 'late';

/** One action of a burst. */
export type Step =
  /** `anvil_reorg` of `depth` blocks with `txs` replacement transactions, sent to the devnet port. */
  | { kind: 'reorg'; depth: number; txs: number }
  /**
   * A reorg, then a second one (`second` deep) sent the moment `target` logs its rollback of the
   * first (the node changes again while the indexer unwinds).
   */
  | { kind: 'reorg_during_rollback'; depth: number; second: number; target: Target; txs: number }
  /** kill -9 of `target`, restarted on the same data dir after `downMs`. */
  | { kind: 'kill'; target: Target; downMs: number }
  /** A reorg, and kill -9 of `target` `delayMs` after it logs the rollback (then restart). */
  | { kind: 'kill_during_rollback'; target: Target; depth: number; delayMs: number; txs: number }
  /** The proxy's random faults (every kind it has) at `rate` for `ms`, seeded with `seed`. */
  | { kind: 'node_faults'; rate: number; ms: number; seed: number }
  /** The proxy refuses connections for `ms` (a node restart, as the proxied indexer sees it). */
  | { kind: 'node_restart'; ms: number }
  /** The proxy answers as a node `lag` blocks behind for `ms`. */
  | { kind: 'stale_head'; lag: number; ms: number }
  /** `count` SSE consumers disconnect and resume with Last-Event-ID. */
  | { kind: 'sse_churn'; count: number }
  /** Wait `ms` (1–3 s between the steps of a burst). */
  | { kind: 'pause'; ms: number };

export interface Burst {
  index: number;
  /** Quiet traffic before the burst, milliseconds. */
  quietMs: number;
  steps: Step[];
}

export interface ScheduleOptions {
  /** Deepest reorg drawn (64; the unfinalised window when it is smaller). */
  maxDepth: number;
}

/**
 * The schedule of seed `seed`: the set-up reorg (made while the devnet's traffic generator does its
 * set-up), the burst after which the late indexer starts, and an endless sequence of bursts.
 */
export function createSchedule(seed: number, o: ScheduleOptions) {
  const rand = mulberry32(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  /** Half the reorgs shallow (1–8), half anywhere up to maxDepth. */
  const depth = () => (rand() < 0.5 ? int(1, Math.min(8, o.maxDepth)) : int(1, o.maxDepth));
  const setupReorg = { afterBlocks: int(2, 16), depth: int(1, Math.min(12, o.maxDepth)), txs: int(0, 3) };
  const lateStartAfterBurst = int(0, 2);
  let index = 0;

  const next = (lateStarted: boolean): Burst => {
    const targets: Target[] = lateStarted ? ['devnet', 'proxied', 'late'] : ['devnet', 'proxied'];
    const steps: Step[] = [];
    const gap = () => steps.push({ kind: 'pause', ms: int(1_000, 3_000) });
    // Node faults first: they overlap the reorgs and kills that follow.
    if (rand() < 0.5)
      steps.push({
        kind: 'node_faults',
        rate: 0.05 + rand() * 0.25,
        ms: int(5_000, 20_000),
        seed: int(1, 2 ** 30),
      });
    if (rand() < 0.2) steps.push({ kind: 'stale_head', lag: int(1, 10), ms: int(2_000, 8_000) });
    const reorgs = rand() < 0.4 ? 1 : int(2, 5);
    const killAt = rand() < 0.45 ? int(0, reorgs) : -1;
    for (let i = 0; i < reorgs; i++) {
      if (i > 0) gap();
      if (i === killAt) {
        const target = pick(targets.filter((t) => t !== 'late'));
        if (rand() < 0.4)
          steps.push({
            kind: 'kill_during_rollback',
            target,
            depth: depth(),
            delayMs: int(0, 40),
            txs: int(0, 3),
          });
        else steps.push({ kind: 'kill', target: pick(targets), downMs: int(0, 4_000) });
        gap();
      }
      if (rand() < 0.25)
        steps.push({
          kind: 'reorg_during_rollback',
          depth: depth(),
          second: depth(),
          target: pick(['devnet', 'proxied'] as const),
          txs: int(0, 3),
        });
      else steps.push({ kind: 'reorg', depth: depth(), txs: int(0, 3) });
      if (rand() < 0.15) steps.push({ kind: 'node_restart', ms: int(300, 3_000) });
    }
    if (killAt === reorgs) steps.push({ kind: 'kill', target: pick(targets), downMs: int(0, 4_000) });
    if (rand() < 0.6) steps.push({ kind: 'sse_churn', count: int(1, 4) });
    return { index: index++, quietMs: int(10_000, 45_000), steps };
  };

  return { seed, setupReorg, lateStartAfterBurst, next };
}

export type Schedule = ReturnType<typeof createSchedule>;

/** A step as one line of the reproduction log. */
export function describeStep(s: Step): string {
  switch (s.kind) {
    case 'reorg':
      return `reorg depth ${s.depth} (${s.txs} replacement txs)`;
    case 'reorg_during_rollback':
      return `reorg depth ${s.depth}, then depth ${s.second} the moment ${s.target} logs its rollback`;
    case 'kill':
      return `kill -9 ${s.target}, restart after ${s.downMs} ms`;
    case 'kill_during_rollback':
      return `reorg depth ${s.depth}, kill -9 ${s.target} ${s.delayMs} ms after it logs the rollback, restart`;
    case 'node_faults':
      return `proxy faults at rate ${s.rate.toFixed(2)} for ${s.ms} ms (seed ${s.seed})`;
    case 'node_restart':
      return `proxy refuses connections for ${s.ms} ms`;
    case 'stale_head':
      return `proxy serves a node ${s.lag} blocks behind for ${s.ms} ms`;
    case 'sse_churn':
      return `${s.count} SSE consumers disconnect and resume with Last-Event-ID`;
    case 'pause':
      return `pause ${s.ms} ms`;
  }
}
