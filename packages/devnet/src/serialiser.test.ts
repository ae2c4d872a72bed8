import { describe, expect, test } from 'vitest';
import { handlingOf } from './front.js';
import { ChainSerialiser } from './serialiser.js';

/** A call that records when it starts and ends, and finishes when released. */
function gate(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((r) => {
    release = r;
  });
  return {
    release,
    f: async () => {
      log.push(`+${name}`);
      await done;
      log.push(`-${name}`);
      return name;
    },
  };
}
const tick = () => new Promise((r) => setImmediate(r));

/** A serialiser and gated calls named `names`, logging their starts (+name) and ends (-name). */
function fixture(...names: string[]) {
  const log: string[] = [];
  const g = Object.fromEntries(names.map((n) => [n, gate(log, n)]));
  return { q: new ChainSerialiser(), log, g };
}

describe('ChainSerialiser', () => {
  test('an exclusive call runs alone; shared calls run together', async () => {
    const { q, log, g } = fixture('t1', 't2', 'mine');
    const { t1, t2, mine } = g;
    const p1 = q.run('shared', t1.f);
    const p2 = q.run('shared', t2.f);
    const pm = q.run('exclusive', mine.f);
    await tick();
    expect(log).toEqual(['+t1', '+t2']);
    expect(q.stats()).toMatchObject({ queued: 1, running: 2 });
    t1.release();
    await p1;
    await tick();
    expect(log).toEqual(['+t1', '+t2', '-t1']); // the mine waits for the last trace
    t2.release();
    await p2;
    await tick();
    expect(log.at(-1)).toBe('+mine');
    mine.release();
    expect(await pm).toBe('mine');
    expect(q.stats().done).toEqual({ exclusive: 1, shared: 2 });
  });

  test('arrival order: a shared call behind a waiting exclusive one waits for it (no starvation)', async () => {
    const { q, log, g } = fixture('t1', 'reorg', 't2');
    const { t1, reorg, t2 } = g;
    const all = [q.run('shared', t1.f), q.run('exclusive', reorg.f), q.run('shared', t2.f)];
    await tick();
    expect(log).toEqual(['+t1']);
    t1.release();
    await tick();
    await tick();
    expect(log).toEqual(['+t1', '-t1', '+reorg']);
    reorg.release();
    await tick();
    await tick();
    expect(log.slice(3)).toEqual(['-reorg', '+t2']);
    t2.release();
    expect(await Promise.all(all)).toEqual(['t1', 'reorg', 't2']);
  });

  test('two exclusive calls never overlap; a failing call releases its turn', async () => {
    const q = new ChainSerialiser();
    let running = 0;
    let most = 0;
    const calls = Array.from({ length: 20 }, (_, i) =>
      q
        .run('exclusive', async () => {
          running++;
          most = Math.max(most, running);
          await tick();
          running--;
          if (i % 5 === 0) throw new Error(`call ${i} failed`);
          return i;
        })
        .catch((e: Error) => e.message),
    );
    const out = await Promise.all(calls);
    expect(most).toBe(1);
    expect(out.filter((x) => typeof x === 'string')).toHaveLength(4);
  });

  test('a caller that goes away while queued is dropped; a started call runs to its end', async () => {
    const { q, g } = fixture('mine');
    const { mine } = g;
    const started = q.run('exclusive', mine.f);
    const ac = new AbortController();
    const dropped = q.run('exclusive', async () => 'never', ac.signal);
    ac.abort(new Error('client gone'));
    await expect(dropped).rejects.toThrow('client gone');
    expect(q.stats()).toMatchObject({ queued: 0, abandoned: 1 });
    mine.release();
    expect(await started).toBe('mine');
  });
});

describe('what the front orders', () => {
  test('mining, reorgs and snapshots alone; traces and sends shared; reads pass; mining modes in the front', () => {
    const expected: Record<string, ReturnType<typeof handlingOf>> = {
      evm_mine: 'exclusive',
      anvil_mine: 'exclusive',
      anvil_reorg: 'exclusive',
      anvil_rollback: 'exclusive',
      evm_revert: 'exclusive',
      evm_snapshot: 'exclusive',
      debug_traceBlockByNumber: 'shared',
      debug_traceTransaction: 'shared',
      trace_block: 'shared',
      eth_sendRawTransaction: 'shared',
      evm_setIntervalMining: 'front',
      anvil_setIntervalMining: 'front',
      evm_setAutomine: 'front',
      anvil_getAutomine: 'front',
      eth_blockNumber: 'pass',
      eth_getBlockByNumber: 'pass',
      eth_call: 'pass',
      eth_getLogs: 'pass',
      eth_subscribe: 'pass',
    };
    for (const [method, how] of Object.entries(expected)) expect(handlingOf(method), method).toBe(how);
  });
});
