/**
 * Where history ends: the node's `finalized` tag capped by the window, read beside the head poll
 * (sent before the head answers), and the window alone on a node without the tag.
 */
import { describe, expect, it } from 'vitest';
import { type Rpc, RpcError } from '../rpc/client.js';
import { createFinality } from './finality.js';

/** A node whose finalized block is `finalized` (null: no such block; 'none': the tag is unknown). */
function node(finalized: number | null | 'none') {
  const calls: string[] = [];
  const rpc: Rpc = {
    async call<T>(method: string, params: unknown[] = []): Promise<T> {
      calls.push(`${method}(${params[0]})`);
      if (finalized === 'none') throw new RpcError('unknown block tag', method, false, -32602);
      return (finalized === null ? null : { number: `0x${finalized.toString(16)}` }) as T;
    },
  };
  return { rpc, calls };
}

describe('createFinality', () => {
  it('asks for the finalized block while the head poll is still out, and caps it by the window', async () => {
    const n = node(900);
    const f = createFinality(n.rpc, 64);
    let answer!: (h: number) => void;
    const head = new Promise<number>((r) => {
      answer = r;
    });
    const target = f.historyTarget(head);
    await Promise.resolve();
    expect(n.calls).toEqual(['eth_getBlockByNumber(finalized)']); // sent before the head answered
    answer(1000);
    expect(await target).toBe(900);
    expect(f.finalized()).toBe(900);
    expect(await f.historyTarget(940)).toBe(876); // the window is stricter
  });

  it('judges by the window alone on a node without the tag, and stops asking', async () => {
    const n = node('none');
    const f = createFinality(n.rpc, 64);
    expect(await f.historyTarget(Promise.resolve(1000))).toBe(936);
    expect(await f.historyTarget(1000)).toBe(936);
    expect(n.calls).toHaveLength(1);
    expect(f.finalized()).toBeNull();
  });

  it('a failed head poll fails the read (the caller retries), whatever the tag answered', async () => {
    const f = createFinality(node(900).rpc, 64);
    await expect(f.historyTarget(Promise.reject(new Error('node down')))).rejects.toThrow('node down');
  });

  it('serves an announced head from a finalized read of the last second, never a higher target', async () => {
    const n = node(900);
    const f = createFinality(n.rpc, 64);
    expect(f.recentTarget(1000, 1_000)).toBeNull(); // never read: the follower asks the node
    expect(await f.historyTarget(1000)).toBe(900);
    expect(f.recentTarget(1001, 1_000)).toBe(900); // the read stands for a new head
    expect(f.recentTarget(950, 1_000)).toBe(886); // and the window still caps it
    expect(f.recentTarget(1001, -1)).toBeNull(); // too old: read again
    expect(n.calls).toHaveLength(1);
  });
});
