/**
 * Several chains in one process (CHAINS_FILE), against two real anvil nodes with different chain
 * ids: each chain answers from its own store and follower; a cursor minted on one chain is refused
 * on the other (R4); a reorg deeper than one chain's window halts that chain alone while the other
 * keeps following and serving; metrics carry the chain label.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Anvil, DEV_ACCOUNTS, startAnvil } from '../harness/anvil.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hex = (n: number) => `0x${n.toString(16)}`;

describe('two chains in one process', () => {
  let alpha: Anvil;
  let beta: Anvil;
  let idx: IndexerProcess;
  let dir: string;

  beforeAll(async () => {
    alpha = await startAnvil();
    beta = await startAnvil({ args: ['--chain-id', '31999'] });
    for (const a of [alpha, beta])
      for (let b = 0; b < 16; b++) {
        await a.sendTransfers(3);
        await a.mine();
      }
    dir = mkdtempSync(join(tmpdir(), 'multichain-'));
    const file = join(dir, 'chains.json');
    writeFileSync(
      file,
      JSON.stringify([
        { name: 'alpha', rpcUrl: alpha.rpcUrl, unfinalisedWindow: 8, traces: false, pollMs: 50 },
        { name: 'beta', rpcUrl: beta.rpcUrl, traces: false, pollMs: 50 },
      ]),
    );
    idx = await startIndexer({ chainsFile: file, chain: 'alpha' });
    await idx.waitForHead(await alpha.head(), 60_000, 'alpha');
    await idx.waitForHead(await beta.head(), 60_000, 'beta');
  });

  afterAll(async () => {
    await idx?.stop();
    await alpha?.stop();
    await beta?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('each chain answers from its own node', async () => {
    for (const [name, node] of [
      ['alpha', alpha],
      ['beta', beta],
    ] as const) {
      const r = await idx.get(`/index/v1/${name}/blocks/5`);
      expect(r.status).toBe(200);
      const onNode = await node.rpc<{ hash: string }>('eth_getBlockByNumber', [hex(5), false]);
      expect(r.body.data.hash).toBe(onNode.hash);
    }
    const a = await idx.get('/index/v1/alpha/blocks/5');
    const b = await idx.get('/index/v1/beta/blocks/5');
    expect(a.body.data.hash).not.toBe(b.body.data.hash);
    const unknown = await idx.get('/index/v1/gamma/blocks/5');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('unknown_chain');
  });

  it('a cursor minted on one chain is refused on the other', async () => {
    const page = await idx.get('/index/v1/alpha/blocks/3/transactions?limit=1');
    expect(page.status).toBe(200);
    const cursor = page.body.page.nextCursor as string;
    expect(typeof cursor).toBe('string');
    const same = await idx.get(`/index/v1/alpha/blocks/3/transactions?limit=1&cursor=${cursor}`);
    expect(same.status).toBe(200);
    const other = await idx.get(`/index/v1/beta/blocks/3/transactions?limit=1&cursor=${cursor}`);
    expect(other.status).toBe(400);
    expect(other.body.error).toBe('bad_cursor');
  });

  it('metrics are labelled by chain', async () => {
    const m = [...idx.logs().matchAll(/"metricsPort":(\d+)/g)].at(-1);
    expect(m).not.toBeNull();
    const text = await (await fetch(`http://127.0.0.1:${m![1]}/metrics`)).text();
    expect(text).toMatch(/indexer_ingest_head_block\{chain="alpha"\} \d+/);
    expect(text).toMatch(/indexer_ingest_head_block\{chain="beta"\} \d+/);
    expect(text).toMatch(/indexer_ingest_blocks_total\{chain="beta"\} \d+/);
    // Every live block's timeline from head poll to visible, step by step (ingest/timeline.ts).
    for (const stage of ['plan', 'queue', 'fetch', 'handoff', 'wait', 'build', 'write', 'total'])
      expect(text).toMatch(
        new RegExp(`indexer_ingest_live_stage_seconds_count\\{chain="alpha",stage="${stage}"\\} [1-9]`),
      );
    // Every thread's CPU and its wait for a CPU (Linux schedstat): the serving thread's, and each
    // chain's engine, writer and decode threads' as they last reported them (the engine's status
    // carries them; a decode thread reports with its first task's answer, so poll a little).
    const patterns = ['serving"', 'engine-', 'writer-', 'decode-'].flatMap((thread) =>
      ['indexer_thread_cpu_seconds_total', 'indexer_thread_runqueue_wait_seconds_total'].map(
        (name) =>
          new RegExp(
            `${name}\\{chain="${thread === 'serving"' ? '' : 'beta'}",thread="${thread}[^}]*\\} [0-9.e+-]+\\n`,
          ),
      ),
    );
    let threads = text;
    for (let i = 0; i < 50 && !patterns.every((p) => p.test(threads)); i++) {
      await new Promise((r) => setTimeout(r, 200));
      threads = await (await fetch(`http://127.0.0.1:${m![1]}/metrics`)).text();
    }
    for (const p of patterns) expect(threads).toMatch(p);
  });

  it('a reorg past one chain window halts that chain alone; the other keeps serving', async () => {
    const head = await alpha.head();
    await alpha.rpc('anvil_reorg', [12, [[{ from: DEV_ACCOUNTS[1], to: DEV_ACCOUNTS[2], value: '0x5' }, 0]]]);
    let state = '';
    for (const t0 = Date.now(); state !== 'halted'; ) {
      state = (await idx.get('/index/v1/alpha/health')).body.ingest.state;
      if (Date.now() - t0 > 30_000) throw new Error(`alpha did not halt (state ${state}, head ${head})`);
      await sleep(100);
    }
    const halted = await idx.get('/index/v1/alpha/blocks/5');
    expect(halted.status).toBe(503);
    expect(halted.body.error).toBe('ingest_halted');
    // beta follows on: new blocks on its node become queryable.
    for (let b = 0; b < 3; b++) {
      await beta.sendTransfers(2);
      await beta.mine();
    }
    const betaHead = await beta.head();
    await idx.waitForHead(betaHead, 30_000, 'beta');
    const r = await idx.get(`/index/v1/beta/blocks/${betaHead}`);
    expect(r.status).toBe(200);
    expect((await idx.get('/index/v1/beta/health')).body.ingest.state).not.toBe('halted');
    // Readiness covers every configured chain: one halted chain makes the process not ready.
    const ready = await idx.get('/health/ready', { key: null });
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ ready: false });
  });
});
