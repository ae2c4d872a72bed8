/**
 * Issue AE, finding 6: the open-stream ceiling of a key is shared by the writer and its replicas
 * (streams/shared-slots.ts), on real parts — a real nats-server with JetStream, a real anvil devnet
 * with traffic, the writer (ROLE=writer) and two replicas (ROLE=replica) as processes.
 *
 *  - a key's 8 streams spread over two replicas: the ninth is refused `429 rate_limited` on either
 *    replica and on the writer (each process alone holds fewer than 8);
 *  - a stream closed on one replica frees its slot for another replica;
 *  - a replica killed with -9 holds its slots until its lease ends (LEASE_MS), then they are free.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer, TEST_KEY } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';
import { NATS_MISSING, type NatsServer, natsServerBinary, startNats } from '../harness/nats.js';

let nats: NatsServer;
let dev: TestDevnet;
let writer: IndexerProcess;
let r1: IndexerProcess;
let r2: IndexerProcess;
/** Streams this file opened (closed after it). */
const opened: AbortController[] = [];

/** The shared ceiling's lease (streams/shared-slots.ts LEASE_MS), ms. */
const LEASE_MS = 30_000;

beforeAll(async () => {
  // Loud in CI: the scale-out tests need nats-server (.ci/run installs it from Debian).
  if (!natsServerBinary()) throw new Error(NATS_MISSING);
  nats = await startNats();
  dev = await startTestDevnet({ blockTimeMs: 400, traffic: true, txPerSecond: 10 });
  await dev.traffic?.ready;
  writer = await startIndexer({ rpcUrl: dev.rpcUrl, env: { ROLE: 'writer', NATS_URL: nats.url } });
  await writer.waitForHead(5, 120_000);
  [r1, r2] = await Promise.all(
    [0, 1].map(() =>
      startIndexer({ env: { ROLE: 'replica', NATS_URL: nats.url, REPLICA_MAX_LAG_SECONDS: '20' } }),
    ),
  );
  const h = await writer.waitForHead(5);
  await Promise.all([r1.waitForHead(h, 60_000), r2.waitForHead(h, 60_000)]);
}, 300_000);

afterAll(async () => {
  for (const a of opened) a.abort();
  await stopAll(() => [r2, r1, writer, dev, nats])();
});

/**
 * Opens `/stream/blocks` on `p` with the test key and keeps it open: resolves once the server
 * answered 200 with an event stream (the slot is taken then). @throws on any other answer.
 */
async function openStream(p: IndexerProcess): Promise<AbortController> {
  const ac = new AbortController();
  opened.push(ac);
  const res = await fetch(`http://127.0.0.1:${p.port}/index/v1/testnet/stream/blocks`, {
    headers: { 'x-api-key': TEST_KEY },
    signal: ac.signal,
  });
  if (res.status !== 200) throw new Error(`stream on ${p.port}: ${res.status} ${await res.text()}`);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  // Read as a consumer does: a stream nobody reads is cut as a slow consumer (its slot freed).
  void (async () => {
    for await (const _ of res.body!) {
    }
  })().catch(() => {});
  return ac;
}

/** One more stream on `p`, expected refused at the ceiling (the body is validated by the harness). */

/** Opens a stream on `ix`, retrying every `everyMs`, until one opens. @throws `what` after `ms`. */
async function openWithin(ix: Parameters<typeof openStream>[0], ms: number, everyMs: number, what: string) {
  for (const t0 = Date.now(); ; ) {
    const ok = await openStream(ix).then(
      () => true,
      () => false,
    );
    if (ok) return;
    if (Date.now() - t0 > ms) throw new Error(what);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

async function refused(p: IndexerProcess) {
  // A stream served instead would never end: look at the status first.
  const probe = new AbortController();
  const first = await fetch(`http://127.0.0.1:${p.port}/index/v1/testnet/stream/blocks`, {
    headers: { 'x-api-key': TEST_KEY },
    signal: probe.signal,
  });
  probe.abort();
  expect(first.status, 'one stream past the ceiling was served').toBe(429);
  const r = await p.get('/stream/blocks', { timeoutMs: 10_000 });
  expect(r.status, r.text).toBe(429);
  expect(r.body.error).toBe('rate_limited');
  expect(r.body.detail).toMatch(/every replica/);
  expect(r.headers.get('retry-after')).toBeNull();
}

describe('the open-stream ceiling across replicas', () => {
  it('8 streams over two replicas: the ninth is refused on either replica and on the writer; a close frees a slot elsewhere', async () => {
    const onR1: AbortController[] = [];
    for (let i = 0; i < 5; i++) onR1.push(await openStream(r1));
    for (let i = 0; i < 3; i++) await openStream(r2);
    await refused(r2);
    await refused(r1);
    await refused(writer);
    // A stream closed on r1 gives its slot back to the deployment: r2 may open one.
    onR1.pop()!.abort();
    await openWithin(r2, 5_000, 100, 'the slot closed on r1 never reached r2');
    await refused(r2);
  });

  it('a replica killed with -9 holds its slots until its lease ends, then they are free', async () => {
    // r1 holds 4 of the key's 8 streams (the test above), r2 holds 4.
    await r1.kill9();
    const killed = Date.now();
    await refused(r2);
    await openWithin(r2, LEASE_MS + 15_000, 500, 'the dead replica’s slots were never freed');
    // Not before the lease could have ended (the last renewal may be up to RENEW_MS old).
    expect(Date.now() - killed).toBeGreaterThan(LEASE_MS - 10_000 - 1_000);
  });
});
