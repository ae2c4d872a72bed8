/**
 * Issue G end-to-end with the standard `eventsource` client against a real anvil:
 *  - resume after disconnect delivers exactly the missed frames (after_sequence and
 *    Last-Event-ID), no duplicates, no gaps;
 *  - resume beyond the catch-up ring gets the lag event;
 *  - a reorg during a stream produces the removal frame and the replacement frames;
 *  - the ninth connection of a key gets 429 without Retry-After;
 *  - a paused consumer is cut off with bounded memory and does not delay others.
 */
import { connect } from 'node:net';
import { EventSource } from 'eventsource';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Anvil, startAnvil } from '../harness/anvil.js';
import { checkFrames } from '../harness/contract.js';
import { type IndexerProcess, startIndexer, TEST_KEY } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';

let anvil: Anvil;
let idx: IndexerProcess;
const RING = 40;

beforeAll(async () => {
  anvil = await startAnvil();
  await anvil.mine(5);
  idx = await startIndexer({
    rpcUrl: anvil.rpcUrl,
    env: { STREAM_RING_FRAMES: String(RING), TRACES: 'off' },
  });
  await idx.waitForHead(5);
});

afterAll(stopAll(() => [idx, anvil]));

/** Frames that broke their route's published frame schema (checked after every test). */
const violations: string[] = [];
afterEach(() => {
  const v = violations.splice(0);
  expect(v, 'stream frames that break the contract').toEqual([]);
});

const url = (path: string) => `http://127.0.0.1:${idx.port}/index/v1/testnet${path}`;
const withKey = (extra: Record<string, string> = {}) => ({
  fetch: (input: string | URL | Request, init?: RequestInit) =>
    fetch(input, {
      ...init,
      headers: { ...(init?.headers as Record<string, string>), 'x-api-key': TEST_KEY, ...extra },
    }),
});

interface Got {
  event: string;
  id: string | undefined;
  data: any;
}
/** Opens a stream and collects frames of the given event names. */
function open(path: string, events: string[], extra: Record<string, string> = {}) {
  const es = new EventSource(url(path), withKey(extra));
  const got: Got[] = [];
  checkFrames(es, path, events, violations, (event, data, m) =>
    got.push({ event, id: m.lastEventId || undefined, data }),
  );
  const until = async (pred: () => boolean, ms = 15_000) => {
    const t0 = Date.now();
    while (!pred()) {
      if (Date.now() - t0 > ms)
        throw new Error(`timeout; got ${got.length} frames: ${JSON.stringify(got.slice(-3))}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  return { es, got, until };
}
const seqOf = (id: string) => Number(id.split('.').pop());

describe('HTTP core', () => {
  // CI's Node 22/24 lanes set EXPECT_HTTP_CORE=uws (on a glibc >= 2.38 root): these streams and
  // reads must then have been served by the native uWebSockets.js core, not the stand-in.
  it('serves through the core /health names, and the one the lane expects', async () => {
    const { status, body: h } = await idx.get('/health');
    expect(status).toBe(200);
    expect(['uws', 'node_http']).toContain(h.http.core);
    expect(h.http.build === null).toBe(h.http.core === 'node_http');
    if (process.env.EXPECT_HTTP_CORE)
      expect(h.http, 'the HTTP core of this lane').toMatchObject({ core: process.env.EXPECT_HTTP_CORE });
  });
});

describe('resume', () => {
  it('after_sequence and Last-Event-ID deliver exactly the missed frames', async () => {
    const a = open('/stream/blocks', ['block']);
    await anvil.mine(3);
    // Until the frame of the last mined block: frames of blocks committed before the stream opened
    // may still reach it (the head shows in the store before its frames are published), and the
    // resume point must be the last block mined here (CI once resumed from block 5 and got 7).
    const mined = await anvil.head();
    await a.until(() => a.got.some((g) => Number.parseInt(g.data.number, 16) === mined));
    a.es.close();
    const lastId = a.got[a.got.length - 1].id!;
    const before = a.got.map((g) => g.data.number);
    await anvil.mine(4); // missed while disconnected
    const head = await anvil.head();
    await idx.waitForHead(head);
    const b = open(`/stream/blocks?after_sequence=${seqOf(lastId)}`, ['block']);
    await b.until(() => b.got.length >= 4);
    const c = open('/stream/blocks', ['block'], { 'last-event-id': lastId });
    await c.until(() => c.got.length >= 4);
    await anvil.mine(1);
    await b.until(() => b.got.length >= 5);
    await c.until(() => c.got.length >= 5);
    b.es.close();
    c.es.close();
    const nums = b.got.map((g) => g.data.number as string).map((h) => Number.parseInt(h, 16));
    expect(nums).toEqual(
      Array.from({ length: 5 }, (_, i) => Number.parseInt(before[before.length - 1], 16) + 1 + i),
    );
    const seqs = b.got.map((g) => seqOf(g.id!));
    expect(seqs).toEqual(seqs.map((_, i) => seqOf(lastId) + 1 + i));
    expect(c.got.map((g) => g.id)).toEqual(b.got.map((g) => g.id));
  });

  it('resume beyond the catch-up ring gets the lag event', async () => {
    await anvil.mine(RING + 5);
    await idx.waitForHead(await anvil.head());
    const s = open('/stream/blocks?after_sequence=1', ['lag', 'block']);
    await s.until(() => s.got.some((g) => g.event === 'lag'));
    s.es.close();
    const lag = s.got.find((g) => g.event === 'lag')!;
    expect(lag.data.reason).toBe('behind_catch_up_ring');
    expect(s.got.filter((g) => g.event === 'block')).toHaveLength(0);
  });
});

describe('reorgs are explicit', () => {
  it('a reorg during a stream produces the removal frame and the replacement frames', async () => {
    const s = open('/stream/heads', ['head', 'reorg']);
    await anvil.mine(2);
    await s.until(() => s.got.filter((g) => g.event === 'head').length >= 2);
    const head = await anvil.head();
    const old = (await anvil.rpc('eth_getBlockByNumber', [`0x${head.toString(16)}`, false])).hash;
    await anvil.rpc('anvil_reorg', [
      2,
      [
        [
          {
            from: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
            to: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
            value: '0x5',
          },
          0,
        ],
      ],
    ]);
    await anvil.mine(1);
    const fresh = (await anvil.rpc('eth_getBlockByNumber', [`0x${head.toString(16)}`, false])).hash;
    await s.until(() => s.got.some((g) => g.event === 'head' && g.data.hash === fresh));
    s.es.close();
    const reorgs = s.got.filter((g) => g.event === 'reorg');
    expect(reorgs.length).toBeGreaterThanOrEqual(1);
    expect(reorgs.flatMap((r) => r.data.removedBlocks.map((b: any) => b.hash))).toContain(old);
    // Sequences stay gap-free across the reorg.
    const seqs = s.got.map((g) => seqOf(g.id!));
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBe(seqs[i - 1] + 1);
  });
});

describe('limits', () => {
  it('the ninth stream of a key gets 429 without Retry-After', async () => {
    const streams = Array.from({ length: 8 }, () => open('/stream/heads', ['head']));
    await new Promise((r) => setTimeout(r, 500));
    const ninth = await fetch(url('/stream/heads'), { headers: { 'x-api-key': TEST_KEY } });
    expect(ninth.status).toBe(429);
    expect(ninth.headers.get('retry-after')).toBeNull();
    expect(((await ninth.json()) as any).error).toBe('rate_limited');
    for (const s of streams) s.es.close();
    await new Promise((r) => setTimeout(r, 300));
    const again = open('/stream/heads', ['head']);
    await anvil.mine(1);
    await again.until(() => again.got.length >= 1);
    again.es.close();
  });

  it('selectors are required where the route takes them; the multiplexed stream says connected first', async () => {
    const r = await fetch(url('/stream/logs'), { headers: { 'x-api-key': TEST_KEY } });
    expect(r.status).toBe(400);
    const m = open(
      '/stream/subscribe?select=blocks:all,heads:all',
      ['connected', 'block', 'head', 'notice'],
      { 'last-event-id': 'v1.blocks-00.1' },
    );
    await anvil.mine(1);
    await m.until(() => m.got.some((g) => g.event === 'block'));
    m.es.close();
    expect(m.got[0].event).toBe('connected');
    expect(m.got.some((g) => g.event === 'notice')).toBe(true);
    expect(m.got.find((g) => g.event === 'block')!.data.topic).toBe('blocks');
  });

  it('a paused consumer is disconnected with a bounded buffer and does not delay others', async () => {
    // A raw client that sends the request and never reads.
    const sock = connect(idx.port, '127.0.0.1');
    sock.write(
      `GET /index/v1/testnet/stream/transactions?all=true HTTP/1.1\r\nhost: x\r\nx-api-key: ${TEST_KEY}\r\n\r\n`,
    );
    sock.pause();
    let closed = false;
    sock.on('close', () => {
      closed = true;
    });
    sock.on('error', () => {});
    const live = open('/stream/heads', ['head']);
    // Push tens of MB of transaction frames (20 KB of calldata each) through the paused connection.
    const lat: number[] = [];
    const data = `0x${'ab'.repeat(10_000)}`;
    for (let b = 0; b < 40; b++) {
      for (let i = 0; i < 40; i++) {
        await anvil.rpc('eth_sendTransaction', [
          {
            from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
            to: '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
            data,
            gas: '0x80000',
          },
        ]);
      }
      const t0 = Date.now();
      const want = live.got.length + 1;
      await anvil.mine(1);
      await live.until(() => live.got.length >= want, 20_000);
      lat.push(Date.now() - t0);
    }
    for (let i = 0; i < 100 && !closed; i++) await new Promise((r) => setTimeout(r, 50));
    live.es.close();
    const metricsPort = Number([...idx.logs().matchAll(/"metricsPort":(\d+)/g)].pop()![1]);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const lagged = Number(/indexer_streams_lag_disconnects (\d+)/.exec(metrics)![1]);
    expect(lagged).toBeGreaterThanOrEqual(1);
    // Others keep flowing: every block reached the healthy consumer.
    expect(Math.max(...lat)).toBeLessThan(5_000);
    sock.destroy();
  });
});
