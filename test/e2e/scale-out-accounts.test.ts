/**
 * The NATS accounts of ops/SCALE-OUT.md ("NATS accounts and secrets"), on real parts: a real
 * nats-server started with exactly the configuration block of that file, a real anvil devnet
 * with traffic, the writer (ROLE=writer) and a replica (ROLE=replica) as processes each with its
 * own credential in its NATS_URL, and the scanner's shared state (its own code) with its own.
 *
 *  - the writer publishes and the replica follows it, each within its permissions;
 *  - the replica takes its streams' slots from the shared open-stream ceiling (IDX_CEILING);
 *  - a replica credential cannot publish a change-log entry (the stream does not move), write a
 *    snapshot, or delete the stream;
 *  - the scanner credential runs the scanner's shared state (buckets, watch, heartbeat) and can
 *    neither see the index account's streams nor publish on its subjects nor touch another bucket;
 *  - no credential, no connection; every credential stays out of the processes' logs.
 */
import { readFileSync } from 'node:fs';
import { openSharedState } from '@chain-indexer/scanner/testing';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { Objm } from '@nats-io/obj';
import { connect } from '@nats-io/transport-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer, TEST_KEY } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';
import { NATS_MISSING, type NatsServer, natsServerBinary, startNats } from '../harness/nats.js';

/** The nats-server configuration published in ops/SCALE-OUT.md (the fenced block holding `accounts {`). */
function scaleOutConfig(): string {
  const md = readFileSync(new URL('../../ops/SCALE-OUT.md', import.meta.url), 'utf8');
  const blocks = [...md.matchAll(/```conf\n([\s\S]*?)```/g)].map((m) => m[1]);
  const conf = blocks.find((b) => /^accounts \{/m.test(b));
  if (!conf) throw new Error('ops/SCALE-OUT.md has no ```conf block with the NATS accounts');
  return conf;
}

const PASSWORDS = {
  NATS_WRITER_PASSWORD: 'writer-Pa55-7f3a',
  NATS_REPLICA_PASSWORD: 'replica-Pa55-91bc',
  NATS_SCANNER_PASSWORD: 'scanner-Pa55-c04d',
};
const CHAIN = 'testnet';
const STREAM = 'IDX_TESTNET';
const SUBJECT = `idx.${CHAIN}.log`;
const enc = (s: string) => new TextEncoder().encode(s);

let nats: NatsServer;
let dev: TestDevnet;
let writer: IndexerProcess;
let replica: IndexerProcess;
const as = (user: string, password: string) => ({ servers: nats.url, user, pass: password });
const urlOf = (user: string, password: string) => nats.url.replace('nats://', `nats://${user}:${password}@`);

beforeAll(async () => {
  if (!natsServerBinary()) throw new Error(NATS_MISSING);
  nats = await startNats({ config: scaleOutConfig(), env: PASSWORDS });
  dev = await startTestDevnet({ blockTimeMs: 400, traffic: true, txPerSecond: 10 });
  await dev.traffic?.ready;
  writer = await startIndexer({
    rpcUrl: dev.rpcUrl,
    chain: CHAIN,
    env: { ROLE: 'writer', NATS_URL: urlOf('writer', PASSWORDS.NATS_WRITER_PASSWORD), SNAPSHOT_SECONDS: '5' },
  });
  await writer.waitForHead(10, 120_000);
  replica = await startIndexer({
    chain: CHAIN,
    env: { ROLE: 'replica', NATS_URL: urlOf('replica', PASSWORDS.NATS_REPLICA_PASSWORD) },
  });
}, 300_000);

afterAll(stopAll(() => [replica, writer, dev, nats]));

describe('NATS accounts of ops/SCALE-OUT.md', () => {
  it('the writer publishes and the replica follows, each on its own credential', async () => {
    const h = (await writer.get('/checkpoints')).body.anchor.block as number;
    await replica.waitForHead(h, 60_000);
    const w = (await writer.get(`/blocks/${h}`)).body;
    const r = (await replica.get(`/blocks/${h}`)).body;
    expect(r.data).toEqual(w.data);
    expect((await replica.get('/health')).body.replication.replica.state).toMatch(/following|catching_up/);
  });

  it('the replica takes its streams from the shared ceiling on its own credential', async () => {
    const ac = new AbortController();
    try {
      const res = await fetch(`http://127.0.0.1:${replica.port}/index/v1/${CHAIN}/stream/blocks`, {
        headers: { 'x-api-key': TEST_KEY },
        signal: ac.signal,
      });
      expect(res.status).toBe(200);
    } finally {
      ac.abort();
    }
    // A refused publish or read would have made it fall back to its own ceiling, and say so.
    expect(replica.logs()).not.toMatch(/stream ceiling: NATS did not answer/);
    const watcher = await connect(as('writer', PASSWORDS.NATS_WRITER_PASSWORD));
    try {
      const info = await (await jetstreamManager(watcher)).streams.info('IDX_CEILING');
      expect(info.state.messages).toBeGreaterThan(0);
    } finally {
      await watcher.close();
    }
  });

  it('a replica credential cannot publish a change-log entry, write a snapshot, or delete the stream', async () => {
    const nc = await connect(as('replica', PASSWORDS.NATS_REPLICA_PASSWORD));
    const watcher = await connect(as('writer', PASSWORDS.NATS_WRITER_PASSWORD));
    try {
      const js = jetstream(nc);
      const jsm = await jetstreamManager(nc);
      // It may read: that is how it follows.
      const info = await jsm.streams.info(STREAM);
      expect(info.state.messages).toBeGreaterThan(0);
      // The stream's last entry as the writer's account sees it, before and after the attempts.
      const wjsm = await jetstreamManager(watcher);
      await writer.get('/checkpoints'); // let the writer publish what it has
      const forged = js.publish(SUBJECT, enc('forged entry'), { timeout: 3_000 });
      await expect(forged).rejects.toThrow(/Permissions Violation for Publish to "idx\.testnet\.log"/);
      await expect(jsm.streams.delete(STREAM)).rejects.toThrow(/Permissions Violation/);
      await expect(jsm.streams.purge(STREAM)).rejects.toThrow(/Permissions Violation/);
      const os = await new Objm(nc).open(`idx-${CHAIN}-snapshots`);
      expect((await os.list()).length).toBeGreaterThan(0); // it may read snapshots
      await expect(os.putBlob({ name: 'snapshot-9999999999999999' }, enc('forged'))).rejects.toThrow(
        /Permissions Violation/,
      );
      // No message it sent is in the stream: every entry's payload is a change-log entry, never
      // the bytes it tried to publish.
      const last = await wjsm.streams.getMessage(STREAM, { last_by_subj: SUBJECT });
      expect(last).not.toBeNull();
      expect(new TextDecoder().decode(last!.data)).not.toBe('forged entry');
      expect(last!.header?.get('Idx-Seq')).toMatch(/^\d+$/);
    } finally {
      await nc.close();
      await watcher.close();
    }
  });

  it('the scanner credential runs the shared state on its own buckets and nothing else', async () => {
    const state = await openSharedState({
      servers: urlOf('scanner', PASSWORDS.NATS_SCANNER_PASSWORD),
      bucket: 'scanner',
      secret: Buffer.alloc(32, 9),
      log: pino({ level: 'silent' }),
      now: Date.now,
    });
    try {
      // The watcher delivered its own heartbeat back: buckets created, written and watched.
      expect(await state.start(10_000)).toBe(true);
      expect(state.lastContact()).toBeGreaterThan(0);
    } finally {
      await state.close();
    }
    const nc = await connect(as('scanner', PASSWORDS.NATS_SCANNER_PASSWORD));
    try {
      const jsm = await jetstreamManager(nc);
      await expect(jsm.streams.info(STREAM)).rejects.toThrow(/Permissions Violation/);
      await expect(jetstream(nc).publish(SUBJECT, enc('x'), { timeout: 3_000 })).rejects.toThrow(
        /Permissions Violation/,
      );
      await expect(new Kvm(jetstream(nc)).create('someone-elses-bucket')).rejects.toThrow(
        /Permissions Violation/,
      );
    } finally {
      await nc.close();
    }
  });

  it('no credential, no connection; and no process logs a NATS password', async () => {
    await expect(connect({ servers: nats.url, reconnect: false })).rejects.toThrow(/Authorization/i);
    await expect(connect({ ...as('replica', 'wrong'), reconnect: false })).rejects.toThrow(/Authorization/i);
    for (const p of [writer, replica])
      for (const pw of Object.values(PASSWORDS)) expect(p.logs()).not.toContain(pw);
    expect(writer.logs()).toContain('nats://***@127.0.0.1');
  });
});
