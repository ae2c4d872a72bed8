/**
 * Stream benchmarks against a live-following indexer (the bench's anvil, blocks mined on demand):
 *
 *  - fan-out: `subscribers` SSE consumers of /stream/blocks spread over keys (8 per key, the
 *    ceiling) and over child processes (bench/sse-client.ts, so the client is not one event loop);
 *    for each mined block, delivery latency = frame arrival at a consumer − the moment the block
 *    became queryable (/checkpoints polled every ~1 ms by this process). Baseline in the same run:
 *    the same measurement with one consumer.
 *  - paused consumer: one /stream/logs consumer that stops reading while blocks full of logs are
 *    mined; the server's RSS is sampled before and after, the consumer must have been cut off (lag),
 *    and a second, reading consumer's delivery latency is measured meanwhile.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { hex, type IndexerChild, promValue, rpc, rssMiB, sleep, summarize } from './lib.js';

const CLIENT = new URL('./sse-client.js', import.meta.url).pathname;
const nowEpoch = () => performance.timeOrigin + performance.now();

/** A keys file with `n` stream-scoped keys (for KEYS_FILE); returns the keys. */
export function writeStreamKeys(path: string, n: number): string[] {
  const keys = Array.from({ length: n }, (_, i) => `bench-stream-key-${i}`);
  writeFileSync(
    path,
    JSON.stringify(keys.map((key, i) => ({ name: `stream-${i}`, key, scopes: ['read', 'stream'] }))),
  );
  return keys;
}

/** Waits until the indexer's anchor reaches `target`; returns the epoch ms it was seen. */
async function visibleAt(ix: IndexerChild, target: number): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    if ((await ix.anchor()) >= target) return nowEpoch();
    if (performance.now() - t0 > 10_000) throw new Error(`block ${target} not visible in 10 s`);
    await sleep(1);
  }
}

interface Client {
  child: ChildProcess;
  ready: Promise<{ ready: number; failed: number }>;
  report(): Promise<{ arrivals: Array<[number, number]>; failed: number }>;
}

function spawnClient(url: string, count: number, keys: string[]): Client {
  const child = fork(CLIENT, [url, String(count), keys.join(',')], { stdio: 'ignore' });
  let onReport: ((m: any) => void) | null = null;
  const ready = new Promise<{ ready: number; failed: number }>((resolve) => {
    child.on('message', (m: any) => {
      if ('ready' in m) resolve(m);
      else if ('arrivals' in m) onReport?.(m);
    });
  });
  return {
    child,
    ready,
    report: () =>
      new Promise((resolve) => {
        onReport = resolve;
        child.send({ cmd: 'report' });
      }),
  };
}

export interface FanoutResult {
  subscribers: number;
  connected: number;
  blocks: number;
  deliveries: number;
  missing: number;
  p50: number;
  p99: number;
  p999: number;
}

/**
 * Mines `blocks` blocks one by one (random 20–120 ms gaps) while `subscribers` consumers of
 * /stream/blocks listen; delivery latency per (block, consumer) from the block's visibility.
 */
export async function fanout(o: {
  ix: IndexerChild;
  rpcUrl: string;
  keys: string[];
  subscribers: number;
  blocks: number;
  processes: number;
}): Promise<FanoutResult> {
  const url = `${o.ix.base}/stream/blocks`;
  const perKey = 8;
  const keysNeeded = Math.ceil(o.subscribers / perKey);
  if (keysNeeded > o.keys.length) throw new Error(`need ${keysNeeded} keys for ${o.subscribers} subscribers`);
  const clients: Client[] = [];
  // Whole keys per process (8 consumers each) so no key is shared across processes.
  const per = Math.ceil(Math.ceil(o.subscribers / o.processes) / perKey) * perKey;
  for (let _p = 0, left = o.subscribers, k = 0; left > 0; _p++) {
    const n = Math.min(per, left);
    // Each process gets whole keys (n/8 of them) so no key is shared across processes.
    const ks = o.keys.slice(k, k + Math.ceil(n / perKey));
    k += ks.length;
    clients.push(spawnClient(url, n, ks));
    left -= n;
  }
  const readies = await Promise.all(clients.map((c) => c.ready));
  const connected = readies.reduce((a, r) => a + r.ready, 0);
  await sleep(300);
  let seed = 7;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const visible = new Map<number, number>();
  let target = await o.ix.anchor();
  for (let i = 0; i < o.blocks; i++) {
    await sleep(20 + rand() * 100);
    await rpc(o.rpcUrl, 'evm_mine');
    target++;
    visible.set(target, await visibleAt(o.ix, target));
  }
  await sleep(500);
  const reports = await Promise.all(clients.map((c) => c.report()));
  const lat: number[] = [];
  let deliveries = 0;
  for (const r of reports)
    for (const [b, t] of r.arrivals) {
      const v = visible.get(b);
      if (v === undefined) continue;
      deliveries++;
      lat.push(Math.max(0, t - v));
    }
  const s = summarize(lat);
  return {
    subscribers: o.subscribers,
    connected,
    blocks: o.blocks,
    deliveries,
    missing: connected * o.blocks - deliveries,
    p50: s.p50,
    p99: s.p99,
    p999: s.p999,
  };
}

export interface PausedResult {
  blocks: number;
  logsPerBlock: number;
  /** Server RSS growth over `blocks` blocks with only reading consumers (the same-run baseline). */
  baselineGrowthMiB: number;
  /** Server RSS growth over the same traffic with a paused consumer added. */
  pausedGrowthMiB: number;
  rssPeakMiB: number;
  /** Server-side lag disconnects during the paused phase (indexer_streams_lag_disconnects). */
  lagDisconnects: number;
  /** Log frames a reading consumer of the same stream received in the paused phase. */
  readingConsumerFrames: number;
  /** Block frame delivery p99 of another consumer during the paused phase, ms. */
  liveP99: number;
  liveDeliveries: number;
}

const metric = async (ix: IndexerChild, name: string) => promValue(await ix.metrics(), name) ?? Number.NaN;

/**
 * Mines `blocks` blocks of `logsPerBlock` emitter logs each, twice: first with only reading
 * consumers (baseline), then with a /stream/logs consumer that reads its headers and then never
 * reads again. Reports the server's RSS growth of each phase, the server's lag disconnects, and a
 * reading consumer's delivery latency meanwhile.
 */
export async function pausedConsumer(o: {
  ix: IndexerChild;
  rpcUrl: string;
  key: string;
  liveKey: string;
  emitter: string;
  from: string;
  emitSelector: string;
  blocks: number;
  logsPerBlock: number;
}): Promise<PausedResult> {
  const word = (n: number) => n.toString(16).padStart(64, '0');
  let peak = 0;
  const drive = async (visible: Map<number, number>) => {
    let target = await o.ix.anchor();
    for (let i = 0; i < o.blocks; i++) {
      const tx = await rpc<string>(o.rpcUrl, 'eth_sendTransaction', [
        {
          from: o.from,
          to: o.emitter,
          data: `${o.emitSelector}${word(o.logsPerBlock)}`,
          gas: hex(30_000_000),
        },
      ]);
      await rpc(o.rpcUrl, 'evm_mine');
      const rc = await rpc<{ status: string; logs: unknown[] }>(o.rpcUrl, 'eth_getTransactionReceipt', [tx]);
      if (rc.status !== '0x1' || rc.logs.length !== o.logsPerBlock)
        throw new Error(`paused-consumer traffic: tx ${tx} status ${rc.status}, ${rc.logs.length} logs`);
      target++;
      visible.set(target, await visibleAt(o.ix, target));
      peak = Math.max(peak, rssMiB(o.ix.pid));
    }
    await sleep(1000);
  };
  // A reading consumer of the same topic proves the frames flow (and counts them).
  let readingFrames = 0;
  const reading = http.get(
    `${o.ix.base}/stream/logs?addresses=${o.emitter}`,
    { headers: { 'x-api-key': o.liveKey } },
    (res) => {
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        readingFrames += c.split('event: log\n').length - 1;
      });
    },
  );
  reading.on('error', () => {});
  await sleep(200);
  // Phase 1: baseline.
  const r0 = rssMiB(o.ix.pid);
  await drive(new Map());
  const r1 = rssMiB(o.ix.pid);
  // Phase 2: a paused consumer joins.
  const lag0 = await metric(o.ix, 'indexer_streams_lag_disconnects');
  const paused = http.get(
    `${o.ix.base}/stream/logs?addresses=${o.emitter}`,
    { headers: { 'x-api-key': o.key } },
    (res) => {
      res.once('data', () => res.pause()); // never read again
    },
  );
  paused.on('error', () => {});
  const live = spawnClient(`${o.ix.base}/stream/blocks`, 1, [o.liveKey]);
  await live.ready;
  await sleep(200);
  const framesBefore = readingFrames;
  const visible = new Map<number, number>();
  await drive(visible);
  await sleep(2500); // the lag grace before the server closes the socket
  const r2 = rssMiB(o.ix.pid);
  const lag1 = await metric(o.ix, 'indexer_streams_lag_disconnects');
  const rep = await live.report();
  const lat = rep.arrivals.filter(([b]) => visible.has(b)).map(([b, t]) => Math.max(0, t - visible.get(b)!));
  paused.destroy();
  reading.destroy();
  return {
    blocks: o.blocks,
    logsPerBlock: o.logsPerBlock,
    baselineGrowthMiB: r1 - r0,
    pausedGrowthMiB: r2 - r1,
    rssPeakMiB: Math.max(peak, r2),
    lagDisconnects: lag1 - lag0,
    readingConsumerFrames: readingFrames - framesBefore,
    liveP99: summarize(lat).p99,
    liveDeliveries: lat.length,
  };
}
