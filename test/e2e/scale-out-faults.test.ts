/**
 * Issue O part 6: faults of the scale-out layout on real parts — a real nats-server with
 * JetStream, a real anvil devnet with traffic, the writer (ROLE=writer) and a replica
 * (ROLE=replica, its NATS connection through a stalling TCP proxy) as separate processes.
 * scale-out.test.ts covers the writer's kill -9 and NATS going away; this file covers:
 *
 *  - a partitioned replica (the proxy stops forwarding past REPLICA_MAX_LAG_SECONDS): 503
 *    replica_lagging during the stall, converges after;
 *  - kill -9 of a replica mid-stream, restarted on its data dir: resumes and converges;
 *  - a replica restarted from an old data dir after the writer advanced, snapshotted and the
 *    stream dropped the entries it would resume from (retention): it joins from the snapshot;
 *  - a reorg deeper than the replica's lag while it is stopped: converges and never serves the
 *    dropped fork.
 *
 * "Converges" = at one frozen head and one change-log position the replica's bodies (blocks,
 * tokens, token detail and holders of 3 tokens, pools, checkpoints) are byte-equal to the
 * writer's. "No response mixes two blocks" = every body the replica served, sampled all along,
 * is anchored on the node's canonical block at that height.
 */

import { streamOf } from '@chain-indexer/indexer/replication';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';
import { NATS_MISSING, type NatsServer, natsServerBinary, startNats } from '../harness/nats.js';
import { firstAnswerWith } from '../harness/poll.js';
import { atOneChangeLogPosition, changeLogPositions, okBody } from '../harness/replication.js';
import { freezeNode, jsonRpc } from '../harness/rpc.js';
import { type StallingProxy, startStallingProxy } from '../harness/tcp-proxy.js';

const MAX_LAG_S = 3;
let nats: NatsServer;
let proxy: StallingProxy;
let dev: TestDevnet;
let writer: IndexerProcess;
let replica: IndexerProcess;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nodeHead = async () => Number.parseInt(await jsonRpc<string>(dev.rpcUrl, 'eth_blockNumber', []), 16);
const canonicalHash = async (n: number) =>
  (await jsonRpc<{ hash: string }>(dev.rpcUrl, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])).hash;

const body = okBody;
const sequences = () => changeLogPositions(writer, replica);

/** Writer and replica bodies of `path` at one change-log position (harness/replication.ts). */
async function atOneSequence(path: string): Promise<[any, any]> {
  const { pair, settled } = await atOneChangeLogPosition(writer, replica, path);
  if (!settled) throw new Error(`${path}: the writer and the replica never stood at one change-log position`);
  return pair;
}

/** Every anchor the replica served while a fault ran, checked against the node afterwards. */
const served: Array<{ path: string; block: number; hash: string }> = [];
let sampling = false;
/** Reads a few routes on the replica in a loop, keeping each 200 body's anchor. */
async function sampleReplica() {
  const paths = ['/tokens?limit=5', '/checkpoints', '/pools/new?limit=5'];
  for (let i = 0; sampling; i++) {
    const path = paths[i % paths.length];
    const r = await replica.get(path, { timeoutMs: 3000 }).catch(() => null);
    if (r?.status === 200 && r.body?.anchor) served.push({ path, ...r.body.anchor });
    await sleep(100);
  }
}
/** Every sampled anchor is the node's canonical block at its height; empties the samples. */
async function expectServedCanonical(minSamples: number) {
  const got = served.splice(0);
  expect(got.length).toBeGreaterThanOrEqual(minSamples);
  const hashes = new Map<number, string>();
  for (const a of got) {
    if (!hashes.has(a.block)) hashes.set(a.block, await canonicalHash(a.block));
    expect(a.hash, `${a.path} anchored on block ${a.block}`).toBe(hashes.get(a.block));
  }
}

/** Stops the node's mining and waits until its head has stood still for 600 ms. */
const freeze = () => freezeNode(dev.rpcUrl);

/**
 * Freezes the node, waits for both processes at its head and for the replica at the writer's
 * change-log position, compares the body set byte for byte, then lets the node mine again.
 */
async function expectConverged(label: string) {
  await freeze();
  try {
    const h = await nodeHead();
    await writer.waitForHead(h, 60_000);
    await replica.waitForHead(h, 60_000);
    let s = await sequences();
    for (let i = 0; i < 100 && (s.pending !== 0 || s.applied < s.published); i++) {
      await sleep(100);
      s = await sequences();
    }
    expect(s.applied, `${label}: replica applied`).toBeGreaterThanOrEqual(s.published);
    const tokens = (await body(writer, '/tokens?limit=5')).data as Array<{ address: string }>;
    expect(tokens.length).toBeGreaterThanOrEqual(3);
    const paths = [
      `/blocks/${h}`,
      `/blocks/${h - 1}`,
      `/blocks/${h - 5}`,
      '/tokens?limit=20',
      ...tokens.slice(0, 3).map((t) => `/tokens/${t.address}`),
      ...tokens.slice(0, 3).map((t) => `/tokens/${t.address}/holders?limit=10`),
      '/pools/new?limit=20',
      `/tokens/${tokens[0].address}/pools/ranked?limit=5`,
      '/checkpoints',
    ];
    for (const p of paths) {
      const [a, b] = await atOneSequence(p);
      expect(a.anchor.block, `${label} ${p}`).toBe(h);
      expect(a.anchor.hash, `${label} ${p}`).toBe(await canonicalHash(h));
      expect(JSON.stringify(b), `${label} ${p}`).toBe(JSON.stringify(a));
    }
    return h;
  } finally {
    await jsonRpc(dev.rpcUrl, 'evm_setIntervalMining', [1]);
  }
}

beforeAll(async () => {
  if (!natsServerBinary()) throw new Error(NATS_MISSING);
  nats = await startNats();
  proxy = await startStallingProxy(nats.port);
  dev = await startTestDevnet({ blockTimeMs: 400, traffic: true, txPerSecond: 15 });
  await dev.traffic?.ready;
  writer = await startIndexer({
    rpcUrl: dev.rpcUrl,
    env: { ...devnetIndexerEnv(dev), ROLE: 'writer', NATS_URL: nats.url, SNAPSHOT_SECONDS: '5' },
  });
  await writer.waitForHead(12, 120_000);
  replica = await startIndexer({
    env: {
      ...devnetIndexerEnv(dev),
      ROLE: 'replica',
      NATS_URL: `nats://127.0.0.1:${proxy.port}`,
      REPLICA_MAX_LAG_SECONDS: String(MAX_LAG_S),
    },
  });
  await replica.waitForHead(12, 60_000);
}, 300_000);

afterAll(async () => {
  sampling = false;
  await stopAll(() => [replica, writer, proxy, dev, nats])();
});

describe('scale-out faults', () => {
  it('a partitioned replica answers 503 replica_lagging during the stall and converges after', async () => {
    sampling = true;
    const sampler = sampleReplica();
    proxy.stall();
    try {
      const refused = await firstAnswerWith(replica, '/tokens?limit=1', 503, 20_000, 200);
      expect(refused, 'the partitioned replica kept serving an aging view').not.toBeNull();
      expect(refused!.body.error).toBe('replica_lagging');
      const hr = await body(replica, '/health');
      expect(hr.replication.replica.lagSeconds).toBeGreaterThan(MAX_LAG_S);
      // The writer is not partitioned: it answers (the body names a refusal, should there be one).
      const w = await writer.get('/tokens?limit=1');
      expect(w.status, JSON.stringify(w.body).slice(0, 400)).toBe(200);
    } finally {
      proxy.resume();
    }
    let ok = false;
    for (const t0 = Date.now(); Date.now() - t0 < 30_000 && !ok; ) {
      ok = (await replica.get('/tokens?limit=1')).status === 200;
      if (!ok) await sleep(200);
    }
    expect(ok, 'the replica did not recover after the partition').toBe(true);
    // Before the partition passes the lag limit the replica serves its aging view for ~3 s, but
    // how many of those reads a loaded machine completes varies (CI once got 1): the sampler goes
    // on after the recovery until it holds 10 anchors (at most 20 s), all checked below.
    for (const t0 = Date.now(); served.length < 10 && Date.now() - t0 < 20_000; ) await sleep(100);
    sampling = false;
    await sampler;
    await expectConverged('partition');
    await expectServedCanonical(10);
  });

  it('a replica killed with -9 mid-stream restarts on its data dir, resumes and converges', async () => {
    const before = (await sequences()).applied;
    await replica.kill9();
    await sleep(2000); // the writer commits and publishes meanwhile
    await replica.restart();
    sampling = true;
    const sampler = sampleReplica();
    const h = await nodeHead();
    await replica.waitForHead(h, 60_000);
    sampling = false;
    await sampler;
    const r = (await body(replica, '/health')).replication.replica;
    expect(r.appliedSequence).toBeGreaterThan(before);
    // Resumed from its own store, not from a snapshot.
    expect(r.snapshotsImported ?? 0).toBe(0);
    await expectConverged('kill -9');
    await expectServedCanonical(1);
  });

  it('a replica restarted from an old data dir past the stream’s retention joins from a snapshot', async () => {
    const stoppedAt = (await sequences()).applied;
    const stoppedHead = (await body(replica, '/checkpoints')).anchor.block as number;
    await replica.stop(); // SIGTERM; the data dir stays (it is the harness's temp dir until afterAll)
    // The writer advances many blocks and takes fresh snapshots.
    await jsonRpc(dev.rpcUrl, 'anvil_mine', ['0x14']);
    const nc = await connect({ servers: nats.url });
    try {
      const jsm = await jetstreamManager(nc);
      const stream = streamOf('testnet');
      const from = (await jsm.streams.info(stream)).state.last_seq;
      const snaps = () => (writer.logs().match(/replication: snapshot published/g) ?? []).length;
      const n0 = snaps();
      for (const t0 = Date.now(); snaps() < n0 + 2 && Date.now() - t0 < 20_000; ) await sleep(200);
      expect(snaps(), 'the writer took no new snapshot').toBeGreaterThanOrEqual(n0 + 2);
      // Retention (max_age) dropping what the old replica would resume from, made to happen now.
      await jsm.streams.purge(stream, { seq: from });
      expect((await jsm.streams.info(stream)).state.first_seq).toBeGreaterThanOrEqual(from);
    } finally {
      await nc.close();
    }
    await replica.restart();
    const h = await nodeHead();
    await replica.waitForHead(h, 60_000);
    const r = (await body(replica, '/health')).replication.replica;
    expect(r.snapshotsImported).toBeGreaterThanOrEqual(1);
    expect(r.appliedSequence).toBeGreaterThan(stoppedAt);
    const at = await expectConverged('old data dir');
    expect(at).toBeGreaterThan(stoppedHead + 20);
  });

  it('a reorg deeper than the replica’s lag: it converges and never serves the dropped fork', async () => {
    await dev.traffic?.stop();
    await freeze();
    const h = await nodeHead();
    await writer.waitForHead(h, 60_000);
    await replica.waitForHead(h, 60_000);
    const depth = 4;
    const dropped = new Map<number, string>();
    for (let n = h - depth + 1; n <= h; n++) dropped.set(n, (await body(replica, `/blocks/${n}`)).data.hash);
    // The replica holds the fork about to be dropped; it is stopped (lag 0 < depth) during the reorg.
    await replica.stop();
    await jsonRpc(dev.rpcUrl, 'anvil_reorg', [
      depth,
      [
        [
          {
            from: '0xa0ee7a142d267c1f36714e4a8f75612f20a79720',
            to: '0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f',
            value: '0x7',
          },
          0,
        ],
        [
          {
            from: '0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f',
            to: '0xa0ee7a142d267c1f36714e4a8f75612f20a79720',
            value: '0x9',
          },
          1,
        ],
      ],
    ]);
    await jsonRpc(dev.rpcUrl, 'anvil_mine', ['0x3']);
    const h2 = await nodeHead();
    for (const [n, old] of dropped) expect(await canonicalHash(n), `block ${n} reorged`).not.toBe(old);
    await writer.waitForHead(h2, 60_000);
    for (let n = h - depth + 1; n <= h; n++)
      expect((await body(writer, `/blocks/${n}`)).data.hash).toBe(await canonicalHash(n));
    await replica.restart();
    await replica.waitForHead(h2, 60_000);
    // From the moment it reached the new head (it rolled the dropped fork back to get there).
    sampling = true;
    const sampler = sampleReplica();
    await sleep(1500);
    sampling = false;
    await sampler;
    const at = await expectConverged('reorg');
    expect(at).toBeGreaterThanOrEqual(h2);
    // After convergence: the replica's blocks at the reorged heights are the new fork's.
    for (const [n, old] of dropped) {
      const b = await body(replica, `/blocks/${n}`);
      expect(b.data.hash, `block ${n}`).not.toBe(old);
      expect(b.data.hash, `block ${n}`).toBe(await canonicalHash(n));
    }
    // Nothing served after it reached the new head is anchored on the dropped fork.
    await expectServedCanonical(5);
  });
});
