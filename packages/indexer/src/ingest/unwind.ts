/**
 * Reorgs. The unwinder finds the common ancestor of what the store holds and the node's chain and
 * unwinds every stage to it; the store's own unwind ({@link Unwinder.rollbackTo}) takes back one
 * block at a time from its undo records, moves the projections' checkpoints and the lanes' with
 * it in the same write, and appends an explicit `reorg` frame on every topic. A reorg reaching
 * below the end of history (final blocks keep no undo) or deeper than the unfinalised window
 * halts ingest and records a gap.
 */
import type { Logger } from 'pino';
import type { Registry } from '../projections/index.js';
import type { Rpc } from '../rpc/client.js';
import { type PendingFrame, TOPIC_NAMES } from '../schema/rows/streams.js';
import type { Store } from '../storage/index.js';
import type { Hub } from '../streams/hub.js';
import type { Frame, StreamLog } from '../streams/log.js';
import { recordGap } from './gaps.js';
import { type CommitEvent, historyEndOf, type Stage } from './stage.js';

/** What the unwinder needs. */
export interface UnwindDeps {
  chain: string;
  store: Store;
  rpc: Rpc;
  registry: Registry;
  log: Logger;
  streams?: { log: StreamLog; hub: Hub };
  /** Lanes that must move their checkpoint below a rolled-back block, in the same batch. */
  rollbackHooks?: Array<(dropped: number) => Record<string, unknown>>;
  onCommit?: (e: CommitEvent) => void;
  onReorg?: (depth: number) => void;
  /** Ingest halts (a reorg below history or the window). */
  halt: (reason: string) => void;
}

/** Reorg handling over the stages (set with {@link Unwinder.setStages} once they exist). */
export interface Unwinder {
  setStages(stages: readonly Stage[]): void;
  /** Rolls the store back block by block (undo records) until `to` is the head. */
  rollbackTo(to: number): void;
  /** Finds the common ancestor with the node and unwinds every stage to it (or halts, see module doc). */
  toNode(): Promise<void>;
  /** While following: the node's hash at our head; unwinds on a mismatch. */
  checkHead(nodeHead: number): Promise<void>;
}

/** The unwinder of one chain. Source: the node's block hashes (eth_getBlockByNumber), the store's undo records. */
export function createUnwinder(deps: UnwindDeps): Unwinder {
  const { store, registry, log } = deps;
  let stages: readonly Stage[] = [];

  const reorgFramesOps = (
    gone: { number: number; hash: string },
    newHead: unknown,
    out: { frames: Frame[] },
  ) => {
    if (!deps.streams) return [];
    // Reorgs are explicit on every topic: a frame naming the removed block and the new head.
    const json = JSON.stringify({ removedBlocks: [{ number: gone.number, hash: gone.hash }], newHead });
    const pending: PendingFrame[] = TOPIC_NAMES.map((topic) => ({ topic, event: 'reorg', json, keys: {} }));
    const r = deps.streams.log.appendOps(gone.number, pending);
    out.frames = r.frames;
    return r.ops;
  };

  const rollbackTo = (to: number) => {
    while ((store.head()?.number ?? -1) > to) {
      const dropped = store.head()!;
      const moved: Array<[string, number | null]> = [];
      const out = { frames: [] as Frame[] };
      store.rollbackHead(
        () => {
          const meta: Record<string, unknown> = {};
          for (const p of registry.projections) {
            const c = registry.state(p.name).checkpoint;
            if (c !== null && c >= dropped.number) {
              const back = dropped.number - 1 >= 0 ? dropped.number - 1 : null;
              meta[registry.metaKeyOf(p.name)] = { version: p.version, checkpoint: back };
              moved.push([p.name, back]);
            }
          }
          for (const hook of deps.rollbackHooks ?? []) Object.assign(meta, hook(dropped.number));
          return meta;
        },
        (gone, newHead) => reorgFramesOps(gone, newHead, out),
        () => {
          deps.onCommit?.({ kind: 'rollback', dropped });
          deps.streams?.hub.publish(out.frames);
        },
      );
      for (const [name, back] of moved) registry.setCheckpoint(name, back);
    }
  };

  const nodeHashAt = async (n: number): Promise<`0x${string}` | null> => {
    const b = await deps.rpc.call<{ hash: `0x${string}` } | null>('eth_getBlockByNumber', [
      `0x${n.toString(16)}`,
      false,
    ]);
    return b ? b.hash : null;
  };

  /** The highest block at or above `floor` where the node and the store agree; null: node behind; −1: none. */
  const ancestorFrom = async (top: number, floor: number): Promise<number | null> => {
    for (let n = top; n >= floor; n--) {
      const h = await nodeHashAt(n);
      if (h === null) return null; // node behind: not a reorg
      if (h === store.canonicalHash(n)) return n;
    }
    return -1;
  };

  const toNode = async (): Promise<void> => {
    const head = store.head();
    if (!head) return;
    const historyEnd = historyEndOf(store);
    const floor = Math.max(0, head.number - store.unfinalisedWindow, historyEnd);
    const ancestor = await ancestorFrom(head.number, floor);
    if (ancestor === null) return;
    if (ancestor < 0) {
      const belowHistory = floor === historyEnd && floor > head.number - store.unfinalisedWindow;
      recordGap(store, {
        lane: 'blocks',
        fromBlock: floor,
        toBlock: head.number,
        reason: belowHistory
          ? `reorg below the end of history (block ${floor}, final when it was committed)`
          : `reorg deeper than the unfinalised window (${store.unfinalisedWindow} blocks)`,
      });
      deps.halt(belowHistory ? 'reorg_below_history' : 'reorg_beyond_window');
      return;
    }
    const depth = head.number - ancestor;
    log.warn({ chain: deps.chain, from: head.number, ancestor, depth }, 'reorg: rolling back');
    for (const s of stages) await s.unwind?.(ancestor);
    deps.onReorg?.(depth);
  };

  return {
    setStages: (s) => {
      stages = s;
    },
    rollbackTo,
    toNode,
    async checkHead(nodeHead) {
      const head = store.head();
      if (!head || nodeHead < head.number) return;
      const h = await nodeHashAt(head.number);
      if (h !== null && h !== head.hash) await toNode();
    },
  };
}
