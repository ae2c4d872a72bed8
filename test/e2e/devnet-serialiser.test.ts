/**
 * The embedded devnet cannot race or deadlock (issue U item 4), on real anvil behind the devnet's
 * JSON-RPC front, with the real indexer following it with traces on (its traces lane replays every
 * block with `debug_traceBlockByNumber`, its heads watcher subscribes to newHeads through the front):
 * for about a minute, several clients at once fire `anvil_reorg`s, `evm_mine`s, `anvil_mine`s and
 * `debug_traceBlockByNumber`s, over HTTP, in mixed JSON-RPC batches and over WebSocket, while the
 * traffic generator sends and the front's own miner mines every 500 ms. Then:
 *  - the node never hung: every call of every client answered within {@link CALL_BOUND_MS};
 *  - it never lost a served block: every block number served earlier is still served, by number
 *    and by hash, unless a reorg that answered after it was served replaced it; with mining
 *    frozen (`evm_setIntervalMining 0`, honoured by the front's miner), every block from genesis to
 *    the head is served by number and by hash, and each names its predecessor as parent;
 *  - mining resumes on `evm_setIntervalMining`, and the indexer, its traces lane included,
 *    follows the node to its head.
 * No hang or loss is tolerated: there is no retry that could hide one.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { freePort } from '../harness/anvil.js';
import { embeddedDataDir, startEmbeddedIndexer } from '../harness/devnet.js';
import type { IndexerProcess } from '../harness/indexer.js';

/** The longest any call may take before it counts as a hang, ms (a deadlocked anvil never answers). */
const CALL_BOUND_MS = 30_000;
/** How long the clients fire, ms. */
const CAMPAIGN_MS = 60_000;

interface Block {
  number: string;
  hash: string;
  parentHash: string;
}
interface Served {
  hash: string;
  /** When the read that first served it was sent (ms since epoch). */
  at: number;
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('the devnet front serialises mining, reorgs and traces (real anvil, real indexer)', () => {
  let ix: IndexerProcess;
  let url: string;
  let wsUrl: string;
  /** Every call's latency and the slowest, by method. */
  const slowest = new Map<string, number>();
  const hung: string[] = [];
  let calls = 0;

  /** One JSON-RPC call (or batch) to the front; a call past {@link CALL_BOUND_MS} is recorded as a hang. */
  const send = async (body: unknown, label: string): Promise<any> => {
    const t0 = Date.now();
    calls++;
    try {
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(CALL_BOUND_MS),
      });
      return await r.json();
    } catch (err) {
      if ((err as Error).name === 'TimeoutError')
        hung.push(`${label} (no answer within ${CALL_BOUND_MS} ms)`);
      throw err;
    } finally {
      const ms = Date.now() - t0;
      slowest.set(label, Math.max(slowest.get(label) ?? 0, ms));
    }
  };
  const rpc = async <T = any>(method: string, params: unknown[] = []): Promise<T> => {
    const j = await send({ jsonrpc: '2.0', id: 1, method, params }, method);
    if (j.error) throw new Error(`${method}: ${j.error.message}`);
    return j.result as T;
  };
  const head = async () => Number(await rpc<string>('eth_blockNumber'));
  const hex = (n: number) => `0x${n.toString(16)}`;

  beforeAll(async () => {
    const dataDir = embeddedDataDir('devnet-serialiser-');
    dirs.push(dataDir);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    wsUrl = `ws://127.0.0.1:${port}`;
    ix = await startEmbeddedIndexer(dataDir, port, { TRACES: 'on' });
  }, 120_000);
  afterAll(async () => {
    await ix?.stop();
  });

  test('a minute of concurrent reorgs, mines and traces: no hang, no lost block, parent links hold', async () => {
    // The traffic generator's set-up first (its funding would otherwise be reorged away at once).
    for (const t0 = Date.now(); ; ) {
      const h = (await ix.get('/health')).body;
      if (h.devnet?.traffic?.state === 'running') break;
      if (Date.now() - t0 > 90_000) throw new Error(`traffic not running: ${JSON.stringify(h.devnet)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const served = new Map<number, Served>();
    const reorgsAnswered: number[] = [];
    const errors: string[] = [];
    const badBatches: string[] = [];
    const end = Date.now() + CAMPAIGN_MS;
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const rand = (lo: number, hi: number) => lo + Math.random() * (hi - lo);
    /** Records a block the node served to a read sent at `sentAt`. */
    const serve = (b: Block | null, sentAt: number) => {
      if (!b) return;
      const n = Number(b.number);
      const s = served.get(n);
      if (!s || s.hash !== b.hash) served.set(n, { hash: b.hash, at: sentAt });
    };
    const loop = async (name: string, step: () => Promise<void>) => {
      while (Date.now() < end) {
        try {
          await step();
        } catch (err) {
          // A hang is recorded by send(); answered errors (a trace of a block a reorg just
          // replaced) are expected under this load and only listed.
          if (errors.length < 50) errors.push(`${name}: ${(err as Error).message.slice(0, 160)}`);
        }
      }
    };

    let wsHeads = 0;
    let wsAnswers = 0;
    const ws = new WebSocket(wsUrl);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const wsReorgs = new Set<number>();
    ws.on('message', (m) => {
      const j = JSON.parse(m.toString());
      if (j.method === 'eth_subscription') wsHeads++;
      else if (j.id >= 100) {
        wsAnswers++;
        if (wsReorgs.delete(j.id)) reorgsAnswered.push(Date.now());
      }
    });
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    let wsId = 100;

    await Promise.all([
      // Two reorg clients: depth 1–8, one to four seconds apart.
      ...[0, 1].map((i) =>
        loop(`reorg-${i}`, async () => {
          await sleep(rand(1_000, 4_000));
          await rpc('anvil_reorg', [Math.floor(rand(1, 9)), []]);
          reorgsAnswered.push(Date.now());
        }),
      ),
      // Two mining clients.
      loop('evm_mine', async () => {
        await sleep(rand(150, 700));
        await rpc('evm_mine');
      }),
      loop('anvil_mine', async () => {
        await sleep(rand(500, 2_000));
        await rpc('anvil_mine', [hex(Math.floor(rand(1, 4)))]);
      }),
      // Three tracing clients on recent blocks (the indexer's traces lane traces every block too).
      ...[0, 1, 2].map((i) =>
        loop(`trace-${i}`, async () => {
          const h = await head();
          await rpc('debug_traceBlockByNumber', [
            hex(Math.max(1, h - Math.floor(rand(0, 6)))),
            { tracer: 'callTracer' },
          ]);
        }),
      ),
      // Mixed batches: reads, a trace and a mine in one request.
      loop('batch', async () => {
        await sleep(rand(300, 1_000));
        const h = await head();
        const sentAt = Date.now();
        const out = await send(
          [
            { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
            {
              jsonrpc: '2.0',
              id: 2,
              method: 'debug_traceBlockByNumber',
              params: [hex(h), { tracer: 'callTracer' }],
            },
            { jsonrpc: '2.0', id: 3, method: 'evm_mine', params: [] },
            { jsonrpc: '2.0', id: 4, method: 'eth_getBlockByNumber', params: ['latest', false] },
          ],
          'batch',
        );
        const ids = out.map((a: { id: number }) => a.id).sort();
        if (ids.join() !== '1,2,3,4') badBatches.push(JSON.stringify(out).slice(0, 300));
        serve(out.find((a: { id: number }) => a.id === 4).result, sentAt);
      }),
      // Writes over WebSocket: a reorg or a mine now and then (answered on the socket).
      loop('ws-writes', async () => {
        await sleep(rand(1_000, 3_000));
        const method = Math.random() < 0.3 ? 'anvil_reorg' : 'evm_mine';
        const id = wsId++;
        if (method === 'anvil_reorg') wsReorgs.add(id);
        ws.send(
          JSON.stringify({ jsonrpc: '2.0', id, method, params: method === 'anvil_reorg' ? [2, []] : [] }),
        );
      }),
      // The watcher: what the node serves, every 200 ms (the newest block and one a few below).
      loop('watch', async () => {
        await sleep(200);
        const h = await head();
        for (const n of [h, Math.max(0, h - 5)]) {
          const sentAt = Date.now();
          serve(await rpc<Block | null>('eth_getBlockByNumber', [hex(n), false]), sentAt);
        }
      }),
    ]);
    expect(hung, 'calls that never answered').toEqual([]);
    expect(badBatches, 'batches answered without one answer per call').toEqual([]);

    // Freeze: interval mining off through the front (its miner stops); the head then stands still.
    await rpc('evm_setIntervalMining', [0]);
    await rpc('evm_setAutomine', [false]);
    let h = await head();
    for (let still = 0, t0 = Date.now(); still < 4; ) {
      expect(Date.now() - t0, 'the head stands still once mining is off').toBeLessThan(20_000);
      await sleep(250);
      const n = await head();
      still = n === h ? still + 1 : 0;
      h = n;
    }
    for (const t0 = Date.now(); wsReorgs.size > 0; await sleep(100))
      if (Date.now() - t0 > CALL_BOUND_MS) {
        hung.push(`${wsReorgs.size} anvil_reorg(s) over WebSocket`);
        break;
      }
    expect(hung, 'calls that never answered').toEqual([]);
    // Every block from genesis to the head: by number, by hash, parent links.
    let prev: Block | null = null;
    const lost: string[] = [];
    let replaced = 0;
    for (let n = 0; n <= h; n++) {
      const b = await rpc<Block | null>('eth_getBlockByNumber', [hex(n), false]);
      if (!b) {
        lost.push(`block ${n} not served by number (head ${h})`);
        prev = null;
        continue;
      }
      const byHash = await rpc<Block | null>('eth_getBlockByHash', [b.hash, false]);
      if (byHash?.number !== b.number) lost.push(`block ${n} ${b.hash} not served by hash`);
      if (prev && b.parentHash !== prev.hash)
        lost.push(`block ${n} names parent ${b.parentHash}, the node's block ${n - 1} is ${prev.hash}`);
      const s = served.get(n);
      if (s && s.hash !== b.hash) {
        replaced++;
        if (!reorgsAnswered.some((t) => t >= s.at))
          lost.push(
            `block ${n} ${s.hash} served at ${new Date(s.at).toISOString()} was replaced with no reorg after it`,
          );
      }
      prev = b;
    }
    expect(lost, 'blocks lost or contradicted').toEqual([]);
    const front = await rpc<{
      serialiser: { done: { exclusive: number; shared: number } };
      blocksMined: number;
    }>('devnet_frontStatus');
    // The load really was there: reorgs, mines and traces in the thousands between them.
    expect(reorgsAnswered.length).toBeGreaterThan(20);
    expect(front.serialiser.done.exclusive).toBeGreaterThan(150);
    expect(front.serialiser.done.shared).toBeGreaterThan(300);
    expect(wsHeads, 'newHeads through the front').toBeGreaterThan(60);
    expect(wsAnswers, 'writes over WebSocket answered').toBeGreaterThan(10);
    ws.close();

    // Mining resumes; the indexer (traces lane included) follows the node to its head.
    await rpc('evm_setIntervalMining', [0.5]);
    const target = h + 4;
    for (const t0 = Date.now(); (await head()) < target; ) {
      expect(Date.now() - t0, 'mining resumes').toBeLessThan(10_000);
      await sleep(200);
    }
    await ix.waitForHead(target, 90_000);
    const at = (await ix.get('/checkpoints')).body.anchor;
    const nodeBlock = await rpc<Block>('eth_getBlockByNumber', [hex(at.block), false]);
    expect(at.hash).toBe(nodeBlock.hash);
    for (const t0 = Date.now(); ; ) {
      const health = (await ix.get('/health')).body;
      if (health.traces.state === 'following' && health.traces.checkpoint >= target) {
        expect(health.ingest.headSource).toBe('newHeads');
        break;
      }
      expect(Date.now() - t0, `traces lane follows (${JSON.stringify(health.traces)})`).toBeLessThan(90_000);
      await sleep(500);
    }
    expect(ix.strayRejections()).toEqual([]);
    console.log(
      `devnet-serialiser: ${calls} calls, ${reorgsAnswered.length} reorgs, ${front.serialiser.done.exclusive} exclusive and ` +
        `${front.serialiser.done.shared} shared turns, ${front.blocksMined} blocks by the miner, head ${h}, ` +
        `${served.size} blocks watched (${replaced} replaced), slowest ${JSON.stringify(Object.fromEntries(slowest))}, ` +
        `answered errors ${errors.length}: ${errors.slice(0, 5).join(' | ')}`,
    );
  }, 300_000);
});
