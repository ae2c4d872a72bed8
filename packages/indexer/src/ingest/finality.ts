/**
 * Where history ends: the highest block ingest may commit in bulk, without undo or frames.
 *
 * A block is history when it is final by the node's `finalized` tag AND at least
 * `unfinalisedWindow` blocks below the node's head (the stricter of the two): a node that serves
 * `finalized` but lets a client reorg past it (anvil's `anvil_reorg`) still never reorgs history
 * that the window would not have covered. A node without the tag (an error or a null answer) is
 * judged by the window alone. Source: `eth_getBlockByNumber("finalized", false)`.
 */
import type { Rpc } from '../rpc/client.js';

export interface Finality {
  /**
   * The last history block for a node at `nodeHead` (−1: none yet). `nodeHead` may be the head
   * poll still in flight: the `finalized` read is sent at once beside it (one round trip).
   * @throws RpcError when the node cannot be reached (the caller retries), or what `nodeHead`
   * rejects with.
   */
  historyTarget(nodeHead: number | Promise<number>): Promise<number>;
  /** The node's `finalized` block as last read (null: the node has no such tag). */
  finalized(): number | null;
  /**
   * The last history block for a node at `nodeHead` from the `finalized` block last read, when
   * that read is at most `maxAgeMs` old; null when it is older (or none was made). Never above
   * what a fresh read would give: `finalized` only grows, so an older value is a lower bound.
   */
  recentTarget(nodeHead: number, maxAgeMs: number): number | null;
}

/**
 * @param source `tag`: the node's `finalized` tag capped by the window; `window`: the window alone
 * (FINALITY=window, e.g. to take a devnet's short chain through history mode).
 */
export function createFinality(
  rpc: Rpc,
  unfinalisedWindow: number,
  source: 'tag' | 'window' = 'tag',
): Finality {
  let supported = source === 'tag';
  let last: number | null = null;
  /** When the tag was last read (performance.now; −∞: never). */
  let readAt = Number.NEGATIVE_INFINITY;
  return {
    recentTarget(head, maxAgeMs) {
      if (!supported) return head - unfinalisedWindow;
      if (performance.now() - readAt > maxAgeMs) return null;
      return last === null ? head - unfinalisedWindow : Math.min(last, head - unfinalisedWindow);
    },
    async historyTarget(head) {
      if (!supported) return (await head) - unfinalisedWindow;
      const tag = rpc.call<{ number: string } | null>('eth_getBlockByNumber', ['finalized', false]);
      tag.catch(() => {}); // judged below, after the head (whose failure comes first)
      const byWindow = (await head) - unfinalisedWindow;
      let b: { number: string } | null = null;
      try {
        b = await tag;
      } catch (err) {
        // A node that does not know the tag answers an error: judge by the window from now on.
        if ((err as { retryable?: boolean }).retryable) throw err;
        supported = false;
        return byWindow;
      }
      readAt = performance.now();
      if (!b) {
        last = null;
        return byWindow;
      }
      last = Number.parseInt(b.number, 16);
      return Math.min(last, byWindow);
    },
    finalized: () => last,
  };
}
