/**
 * The devnet's one serialiser: a first-in, first-out queue that orders every call that changes the
 * chain or traces it (see front.ts for which methods are which). Two kinds of access:
 *  - `exclusive` (mining, reorgs, snapshots and reverts, mining-mode changes): runs alone;
 *  - `shared` (traces, transaction sends): runs beside other shared calls, never beside an
 *    exclusive one.
 * Admission is strictly in arrival order: a shared call that arrives after a waiting exclusive one
 * waits behind it, so a stream of traces never starves the miner, and a mine never lands in the
 * middle of a trace (anvil 1.7.1 deadlocks when it does).
 */

/** How a call holds the chain: alone, or beside other shared calls. */
export type Access = 'exclusive' | 'shared';

/** Counters of a serialiser, for the devnet's status line and tests. */
export interface SerialiserStats {
  /** Calls waiting for their turn. */
  queued: number;
  /** Calls running now (at most 1 when the running one is exclusive). */
  running: number;
  /** Calls completed since start, by access. */
  done: Record<Access, number>;
  /** Calls dropped while queued because their caller went away. */
  abandoned: number;
}

interface Waiting {
  access: Access;
  start: () => void;
  abandon: (reason: unknown) => void;
}

/** An AbortError for a call whose caller went away before its turn. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('the caller went away before its turn', 'AbortError');
}

/** The queue (see the module comment). One instance per node. */
export class ChainSerialiser {
  private readonly waiting: Waiting[] = [];
  private exclusiveRunning = false;
  private sharedRunning = 0;
  private readonly counts: SerialiserStats = {
    queued: 0,
    running: 0,
    done: { exclusive: 0, shared: 0 },
    abandoned: 0,
  };

  /**
   * Runs `f` when its turn comes (see {@link Access}) and resolves or rejects with it. A `signal`
   * that aborts while the call is still queued drops it (rejecting with the signal's reason); once
   * started, the call runs to its end: the chain is not released half-way through a mine or reorg.
   */
  run<T>(access: Access, f: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const entry: Waiting = {
        access,
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          if (access === 'exclusive') this.exclusiveRunning = true;
          else this.sharedRunning++;
          let p: Promise<T>;
          try {
            p = f();
          } catch (err) {
            p = Promise.reject(err);
          }
          const release = () => {
            if (access === 'exclusive') this.exclusiveRunning = false;
            else this.sharedRunning--;
            this.counts.done[access]++;
            this.pump();
          };
          p.then(
            (v) => {
              release();
              resolve(v);
            },
            (err) => {
              release();
              reject(err);
            },
          );
        },
        abandon: reject,
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(entry);
        if (i < 0) return;
        this.waiting.splice(i, 1);
        this.counts.abandoned++;
        entry.abandon(abortReason(signal!));
        this.pump();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
      this.pump();
    });
  }

  /** Starts every waiting call whose turn it is, in arrival order. */
  private pump(): void {
    while (this.waiting.length > 0 && !this.exclusiveRunning) {
      const next = this.waiting[0];
      if (next.access === 'exclusive' && this.sharedRunning > 0) return;
      this.waiting.shift();
      next.start();
      if (next.access === 'exclusive') return;
    }
  }

  /** Queue length, running calls and completed counts now. */
  stats(): SerialiserStats {
    return {
      ...this.counts,
      done: { ...this.counts.done },
      queued: this.waiting.length,
      running: this.exclusiveRunning ? 1 : this.sharedRunning,
    };
  }
}
