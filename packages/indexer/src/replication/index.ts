/**
 * Scale-out on NATS JetStream (ARCHITECTURE "Beyond one machine"): the writer of a chain
 * publishes its change log and periodic snapshots; read replicas join from a snapshot and apply
 * the log. See ops/SCALE-OUT.md for the deployment and names.ts for streams, subjects, buckets.
 */

import { natsConnectOptions } from '@chain-indexer/platform/nats';
import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { type ObjectStore, Objm } from '@nats-io/obj';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { Store } from '../storage/index.js';
import { bucketOf } from './names.js';
import { createPublisher, type LogRetention, type Publisher } from './publisher.js';
import { publishSnapshot } from './snapshot.js';

export { bucketOf, streamOf, subjectOf } from './names.js';
export { createPublisher, DEFAULT_RETENTION, type LogRetention, type Publisher } from './publisher.js';
export { createReplica, type Replica, type ReplicaStatus, replicaIngest } from './replica.js';

/** One NATS connection of the process, with its JetStream clients. */
export interface Nats {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** The chain's snapshot bucket (created when absent). */
  snapshots(chain: string): Promise<ObjectStore>;
  close(): Promise<void>;
}

/**
 * Connects to `servers` (comma list of nats:// URLs) with endless reconnects.
 * @throws the client's error when no server answers at first connect.
 */
export async function connectNats(servers: string, log: Logger): Promise<Nats> {
  const nc = await connect({
    // Credentials in the URLs (nats://user:password@host) become the client's options.
    ...natsConnectOptions(servers),
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    name: `chain-indexer-${process.pid}`,
  });
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnect') log.warn({ nats: s.type }, `nats: ${s.type}`);
    }
  })();
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const objm = new Objm(nc);
  const buckets = new Map<string, Promise<ObjectStore>>();
  return {
    nc,
    js,
    jsm,
    snapshots(chain) {
      let b = buckets.get(chain);
      if (!b) {
        b = objm.create(bucketOf(chain), { storage: 'file' } as never);
        buckets.set(chain, b);
      }
      return b;
    },
    close: () => nc.drain(),
  };
}

/** The writer side of one chain: its publisher and the periodic snapshots. */
export interface WriterReplication {
  publisher: Publisher;
  /** Takes a snapshot now (also on the timer). */
  snapshotNow(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts publishing `store`'s change log for `chain` and snapshotting every `snapshotSeconds`
 * (one at start when the bucket is empty).
 */
export async function startWriterReplication(o: {
  store: Store;
  chain: string;
  nats: Nats;
  log: Logger;
  snapshotSeconds: number;
  retention?: LogRetention;
}): Promise<WriterReplication> {
  const publisher = createPublisher({
    store: o.store,
    chain: o.chain,
    js: o.nats.js,
    jsm: o.nats.jsm,
    nc: o.nats.nc,
    log: o.log,
    retention: o.retention,
  });
  publisher.start();
  const os = await o.nats.snapshots(o.chain);
  let running: Promise<void> | null = null;
  const snapshotNow = () => {
    running ??= publishSnapshot(o.store, os, o.chain, publisher.status().streamSeq)
      .then((h) =>
        o.log.info({ chain: o.chain, seq: h.seq, head: h.head }, 'replication: snapshot published'),
      )
      .catch((err) =>
        o.log.warn({ chain: o.chain, err: (err as Error).message }, 'replication: snapshot failed'),
      )
      .finally(() => {
        running = null;
      });
    return running;
  };
  if ((await os.list()).filter((i) => !i.deleted).length === 0) void snapshotNow();
  const timer = setInterval(() => void snapshotNow(), o.snapshotSeconds * 1000);
  return {
    publisher,
    snapshotNow,
    async stop() {
      clearInterval(timer);
      await running;
      await publisher.stop();
    },
  };
}
