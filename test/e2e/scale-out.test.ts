/**
 * Issue O: read replicas fed by the writer's change log on NATS JetStream, on real parts — a real
 * nats-server with JetStream (Debian `nats-server`, installed by .ci/run), a real anvil devnet with
 * traffic, the writer (ROLE=writer) and a replica (ROLE=replica, no node) as two processes.
 *
 *  - the replica answers with exactly the writer's anchors and bodies at the same head;
 *  - a cursor minted on the replica resumes on the writer (same secret, same chain identity);
 *  - durable stream sequences name the same frame on both;
 *  - /health shows each side's role, the publisher and the replica's lag;
 *  - a writer killed with -9 and restarted publishes no gap and no duplicate: the replica follows
 *    it to the same head with the same canonical hashes;
 *  - cut off from NATS past REPLICA_MAX_LAG_SECONDS, the replica refuses with 503
 *    replica_lagging instead of serving an older view, and recovers when NATS is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../faults/lib.js';
import { startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';
import { NATS_MISSING, type NatsServer, natsServerBinary, startNats } from '../harness/nats.js';
import { firstAnswerWith } from '../harness/poll.js';
import { atOneChangeLogPosition, okBody } from '../harness/replication.js';
import { freezeNode, jsonRpc } from '../harness/rpc.js';

let nats: NatsServer;
let dev: TestDevnet;
let writer: IndexerProcess;
let replica: IndexerProcess;
const nodeHead = async () => Number.parseInt(await jsonRpc<string>(dev.rpcUrl, 'eth_blockNumber', []), 16);

/** Waits until `p`'s anchored head equals `n` exactly (a replica must not run ahead either). */
async function headOf(p: IndexerProcess): Promise<number> {
  const r = await p.get('/checkpoints');
  return r.body?.anchor?.block ?? -1;
}

const body = okBody;
/** Writer and replica bodies of `path` at one change-log position (harness/replication.ts). */
const atOneSequence = async (path: string) => (await atOneChangeLogPosition(writer, replica, path)).pair;

beforeAll(async () => {
  // Loud in CI: the scale-out tests need nats-server (.ci/run installs it from Debian).
  if (!natsServerBinary()) throw new Error(NATS_MISSING);
  nats = await startNats();
  dev = await startTestDevnet({ blockTimeMs: 400, traffic: true, txPerSecond: 15 });
  await dev.traffic?.ready;
  writer = await startIndexer({
    rpcUrl: dev.rpcUrl,
    env: { ROLE: 'writer', NATS_URL: nats.url, SNAPSHOT_SECONDS: '5' },
  });
  await writer.waitForHead(15, 120_000);
  replica = await startIndexer({
    env: { ROLE: 'replica', NATS_URL: nats.url, REPLICA_MAX_LAG_SECONDS: '3' },
  });
}, 300_000);

afterAll(stopAll(() => [replica, writer, dev, nats]));

describe('scale-out on NATS JetStream', () => {
  it('a replica serves the writer’s anchors and bodies at the same head, and cursors cross', async () => {
    await dev.traffic?.stop();
    // Freeze the node (no interval mining) so both processes can be compared at one head.
    const h = await freezeNode(dev.rpcUrl);
    await writer.waitForHead(h, 60_000);
    await replica.waitForHead(h, 60_000);
    expect(await headOf(replica)).toBe(h);
    expect(await headOf(writer)).toBe(h);

    const tokens = (await body(writer, '/tokens?limit=5')).data as Array<{ address: string }>;
    expect(tokens.length).toBeGreaterThan(0);
    const paths = [
      `/blocks/${h}`,
      `/blocks/${h - 3}/transactions?limit=3`,
      '/tokens?limit=20',
      ...tokens.slice(0, 3).map((t) => `/tokens/${t.address}`),
      ...tokens.slice(0, 3).map((t) => `/tokens/${t.address}/holders?limit=10`),
      '/checkpoints',
    ];
    for (const p of paths) {
      const [a, b] = await atOneSequence(p);
      expect(b.anchor, p).toEqual(a.anchor);
      // Cursors carry the same secret and chain identity: byte-equal bodies, cursors included.
      expect(b, p).toEqual(a);
    }

    // A cursor minted on the replica pages on the writer, and the reverse.
    const list = '/tokens?limit=2';
    const first = await body(replica, list);
    expect(first.page.nextCursor).toBeTruthy();
    const next = (c: string) => `${list}&cursor=${encodeURIComponent(c)}`;
    const onWriter = await body(writer, next(first.page.nextCursor));
    const onReplica = await body(replica, next(first.page.nextCursor));
    expect(onWriter).toEqual(onReplica);
    expect(onWriter.anchor).toEqual(first.anchor);
    expect(onWriter.data[0]).not.toEqual(first.data[0]);
    if (onWriter.page.nextCursor) {
      const back = await body(replica, next(onWriter.page.nextCursor));
      expect(back.anchor).toEqual(first.anchor);
    }
  });

  it('live node reads: the writer answers from its node, a replica without one refuses typed', async () => {
    expect((await writer.get('/rpc/head')).status).toBe(200);
    const r = await replica.get('/rpc/head');
    expect(r.status).toBe(503);
    expect(r.body.error).toBe('node_unavailable');
    expect(r.body.detail).toMatch(/no node for the chain/);
  });

  it('/health shows the roles, the publisher and the replica’s lag', async () => {
    // The writer's change log also carries non-block writes (reconciler verdicts), so sequences
    // move while the head is frozen: read until the replica has applied what the writer published.
    let w = (await body(writer, '/health')).replication;
    let r = (await body(replica, '/health')).replication;
    for (let i = 0; i < 100; i++) {
      if (w.publisher.pending === 0 && r.replica.appliedSequence >= w.publisher.publishedSequence) break;
      await sleep(100);
      w = (await body(writer, '/health')).replication;
      r = (await body(replica, '/health')).replication;
    }
    expect(w.role).toBe('writer');
    expect(w.publisher.connected).toBe(true);
    expect(w.publisher.pending).toBe(0);
    expect(w.publisher.publishedSequence).toBeGreaterThan(0);
    expect(r.role).toBe('replica');
    expect(r.publisher).toBeNull();
    expect(r.replica.state).toBe('following');
    expect(r.replica.lagBlocks).toBe(0);
    expect(r.replica.appliedSequence).toBeGreaterThanOrEqual(w.publisher.publishedSequence);
    expect(r.replica.maxLagSeconds).toBe(3);
  });

  it('stream sequences name the same frame on the writer and the replica', async () => {
    const read = async (p: IndexerProcess) => {
      const res = await fetch(`http://127.0.0.1:${p.port}/index/v1/testnet/stream/blocks?after_sequence=2`, {
        headers: { 'x-api-key': 'test-key-all-scopes', accept: 'text/event-stream' },
        signal: AbortSignal.timeout(10_000),
      });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      let text = '';
      const dec = new TextDecoder();
      while ((text.match(/\n\n/g) ?? []).length < 8) {
        const { value, done } = await reader.read();
        if (done) break;
        text += dec.decode(value);
      }
      await reader.cancel();
      return text
        .split('\n\n')
        .filter((f) => f.includes('event: block'))
        .slice(0, 5)
        .map((f) => ({
          id: /^id: (.*)$/m.exec(f)?.[1],
          data: /^data: (.*)$/m.exec(f)?.[1],
        }));
    };
    const [a, b] = [await read(writer), await read(replica)];
    expect(a.length).toBe(5);
    expect(b).toEqual(a);
  });

  it('a writer killed with -9 restarts without a gap or a duplicate; the replica follows it', async () => {
    const before = (await body(replica, '/health')).replication.replica.appliedSequence as number;
    await writer.kill9();
    await writer.restart();
    // New blocks after the restart.
    await jsonRpc(dev.rpcUrl, 'anvil_mine', ['0x8']);
    const h = await nodeHead();
    await writer.waitForHead(h, 60_000);
    await replica.waitForHead(h, 60_000);
    // The writer's /health shows its engine's publisher as last reported (it publishes after each
    // commit, asynchronously): both sides are read again until they agree.
    let w = (await body(writer, '/health')).replication;
    let r = (await body(replica, '/health')).replication;
    for (let i = 0; i < 50 && r.replica.appliedSequence !== w.publisher.publishedSequence; i++) {
      await sleep(100);
      w = (await body(writer, '/health')).replication;
      r = (await body(replica, '/health')).replication;
    }
    expect(r.replica.appliedSequence).toBeGreaterThan(before);
    expect(r.replica.appliedSequence).toBe(w.publisher.publishedSequence);
    // Same canonical chain on both, block by block across the restart.
    for (let n = Math.max(0, h - 30); n <= h; n++) {
      const [a, b] = [await body(writer, `/blocks/${n}`), await body(replica, `/blocks/${n}`)];
      expect(b.data, `block ${n}`).toEqual(a.data);
    }
    expect(r.replica.lastError ?? null).toBeNull();
  });

  it('cut off from NATS past its lag limit the replica answers 503 replica_lagging, then recovers', async () => {
    await nats.kill9();
    try {
      // The writer keeps committing (it never waits on replicas); the replica's view ages.
      const refused = await firstAnswerWith(replica, '/tokens?limit=1', 503, 30_000, 250);
      expect(refused, 'the replica kept serving an aging view').not.toBeNull();
      expect(refused!.body.error).toBe('replica_lagging');
      // Monitoring still answers and says why.
      const hr = await replica.get('/health');
      expect(hr.status).toBe(200);
      expect(['disconnected', 'catching_up']).toContain(hr.body.replication.replica.state);
      expect(hr.body.replication.replica.lagSeconds).toBeGreaterThan(3);
      expect((await writer.get('/tokens?limit=1')).status).toBe(200);
    } finally {
      await nats.restart();
    }
    // Back in contact: the writer publishes what it committed meanwhile, the replica catches up.
    let ok = false;
    for (const t0 = Date.now(); Date.now() - t0 < 60_000 && !ok; ) {
      ok = (await replica.get('/tokens?limit=1').catch(() => ({ status: 0 }))).status === 200;
      if (!ok) await sleep(300);
    }
    expect(ok).toBe(true);
    const h = await headOf(writer);
    await replica.waitForHead(h, 60_000);
    const a = await body(writer, `/blocks/${h}`);
    const b = await body(replica, `/blocks/${h}`);
    expect(b.data).toEqual(a.data);
  });
});
