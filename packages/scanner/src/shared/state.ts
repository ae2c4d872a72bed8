/**
 * The scanner's shared state on NATS JetStream KV (SCANNER_NATS_URL / NATS_URL set): several
 * scanner servers share one account space. This module owns the connection, the two buckets,
 * the one watcher every server runs on the state bucket, and the contact clock.
 *
 * Buckets (prefix SCANNER_KV_BUCKET, default `scanner`; file storage):
 * - `<prefix>` (history 64): `acct.<accountId>`, `key.<keyId>`, `sess.<token hash>`,
 *   `act.<accountId>.<id>` (activity entries), `bal.<accountId>` (balance, compare-and-set),
 *   `led.<accountId>.<seq, 12 digits>` (ledger rows), `hb.<serverId>` (heartbeats).
 * - `<prefix>-rate` (history 1, entries expire after 120 s): `rate.<serverId>.<k|a>.<id>`, each
 *   server's admissions per second of the last 60 s (shared/windows.ts).
 * Every value is JSON `{o: serverId, n: version, v: record, m: mac}`, so a server can tell its own
 * writes; `m` is HMAC-SHA256 under SCANNER_KV_SECRET (a key only the scanner servers hold, never
 * NATS users that may merely write the bucket) over the KV key and `{o, n, v}`: a record that
 * fails it — forged, moved to another key, or altered — is refused (never applied, never
 * believed) and counted ({@link SharedState.rejected}). Whoever can write the bucket without the
 * secret cannot mint keys, sessions or credits.
 *
 * `n` is the record's version, inside the MAC: each write of a key carries a version above every
 * one before it (compare-and-set orders the writes of a key, versions.ts keeps what each server
 * applied), so a sealed record taken from the bucket's history and put back — a replay, which the
 * MAC alone cannot tell from a fresh write — carries a version that does not increase and is
 * refused and counted ({@link SharedState.replayed}). Records of the previous format (`{o, v, m}`,
 * MAC over `{o, v}`, no version) stay readable as version 0: a server takes one only for a key it
 * holds no version of, so after the first versioned write of a key none is ever applied again.
 *
 * Contact: every second the server puts `hb.<serverId>` carrying the instant it was sent; when
 * its own watcher delivers it back, every change committed to the bucket before that instant has
 * been delivered too (the bucket is one ordered stream), so the directory was current at that
 * instant — {@link SharedState.lastContact}. A server whose heartbeat does not come back (NATS
 * down, partition, stalled watcher) stops advancing it and, 5 s later, refuses keys (gate.ts).
 */

import { createHmac, timingSafeEqual } from 'node:crypto';
import { natsConnectOptions } from '@chain-indexer/platform/nats';
import { JetStreamApiError, jetstream } from '@nats-io/jetstream';
import { type KV, Kvm, type KvWatchEntry } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { randomBase62 } from '../secrets.js';

/** How often a server proves its watcher current, ms. */
export const HEARTBEAT_MS = 1_000;
/** Timeout of one KV request, ms (a request past it is retried or refused, never waited on). */
export const KV_TIMEOUT_MS = 2_000;

/** A value as stored: the writing server, the version and the record (the MAC is checked and dropped on read). */
export interface Envelope<T = unknown> {
  o: string;
  /** The record's version (inside the MAC); 0 for a record of the previous, unversioned format. */
  n: number;
  v: T;
}

/** Domain tag of the versioned format's MAC input (so no unversioned MAC ever checks as one). */
const MAC_TAG = 'scanner-kv/2';

/**
 * Seals and opens KV values under the writers' secret.
 * @param secret SCANNER_KV_SECRET (≥ 32 bytes).
 */
export function createKvSeal(secret: Uint8Array): {
  /** `v` at `key`, written by server `o` at version `n` (a non-negative safe integer). */
  seal(key: string, o: string, v: unknown, n: number): Uint8Array;
  /**
   * The envelope of `data` stored at `key`, or null when it is not sealed under the secret. A
   * record of the previous format (no `n`, MAC over `{o, v}`) opens as version 0.
   */
  open(key: string, data: Uint8Array): Envelope | null;
} {
  const mac = (input: string) => createHmac('sha256', secret).update(input).digest();
  const versioned = (key: string, body: string) => mac(`${MAC_TAG}\n${key}\n${body}`);
  const legacy = (key: string, body: string) => mac(`${key}\n${body}`);
  return {
    seal(key, o, v, n) {
      if (!Number.isSafeInteger(n) || n < 0) throw new Error(`version of ${key} must be a whole number ≥ 0`);
      const body = JSON.stringify({ o, n, v });
      return new TextEncoder().encode(`${body.slice(0, -1)},"m":"${versioned(key, body).toString('hex')}"}`);
    },
    open(key, data) {
      let parsed: { o?: unknown; n?: unknown; v?: unknown; m?: unknown };
      try {
        parsed = JSON.parse(new TextDecoder().decode(data));
      } catch {
        return null;
      }
      if (
        !parsed ||
        typeof parsed !== 'object' ||
        typeof parsed.o !== 'string' ||
        typeof parsed.m !== 'string'
      )
        return null;
      const given = Buffer.from(parsed.m, 'hex');
      const hasN = 'n' in parsed;
      if (hasN && (typeof parsed.n !== 'number' || !Number.isSafeInteger(parsed.n) || parsed.n < 0))
        return null;
      const want = hasN
        ? versioned(key, JSON.stringify({ o: parsed.o, n: parsed.n, v: parsed.v }))
        : legacy(key, JSON.stringify({ o: parsed.o, v: parsed.v }));
      if (given.length !== want.length || !timingSafeEqual(given, want)) return null;
      return { o: parsed.o, n: hasN ? (parsed.n as number) : 0, v: parsed.v };
    },
  };
}

/** One watched change of the state bucket. */
export interface Change {
  key: string;
  revision: number;
  /** Null for a delete or purge. */
  value: Envelope | null;
}

/** The shared state of one scanner server. */
export interface SharedState {
  readonly serverId: string;
  readonly kv: KV;
  readonly rateKv: KV;
  /** Instant (ms, service clock) this server last knew its view of the bucket current; 0 before. */
  lastContact(): number;
  /** True once {@link close} was called (background loops stop). */
  closed(): boolean;
  /** `v` sealed for KV key `key` at version `n` as written by this server (see the module's MAC rule). */
  seal(key: string, v: unknown, n: number): Uint8Array;
  /**
   * The envelope of a value read at `key` (a watch, a get), or null — counted and logged — when
   * its MAC fails (forged or altered: never applied).
   */
  open(key: string, data: Uint8Array): Envelope | null;
  /** Records refused so far because their MAC failed. */
  rejected(): number;
  /**
   * Counts and logs a record refused as a replay: sealed correctly, but its version `n` does not
   * increase past `known`, the version this server holds of `key` (versions.ts decides).
   */
  refuseReplay(key: string, n: number, known: number): void;
  /** Records refused so far as replays ({@link refuseReplay}). */
  replayed(): number;
  /** Registers a handler of every change of keys starting with `prefix` (e.g. `key.`). */
  on(prefix: string, handler: (c: Change) => void): void;
  /** Registers a handler of every change of the rate bucket. */
  onRate(handler: (c: Change) => void): void;
  /** Starts the watchers and the heartbeat; resolves once caught up, or after `waitMs` regardless. */
  start(waitMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** True when `err` is JetStream's "wrong last sequence" (a compare-and-set lost to another write). */
export function isCasConflict(err: unknown): boolean {
  return err instanceof JetStreamApiError && (err.code === 10071 || err.code === 10164);
}

/**
 * Connects to `servers` (comma list) and opens (creating when absent) the buckets.
 * @throws the client's error when no server answers, or JetStream is not enabled.
 */
export async function openSharedState(o: {
  servers: string;
  bucket: string;
  /** SCANNER_KV_SECRET: the writers' key of every record's MAC. */
  secret: Uint8Array;
  log: Logger;
  now: () => number;
}): Promise<SharedState> {
  const { log, now } = o;
  const serverId = `srv_${randomBase62(12)}`;
  const kvSeal = createKvSeal(o.secret);
  let rejected = 0;
  let replayed = 0;
  const open = (key: string, data: Uint8Array): Envelope | null => {
    const env = kvSeal.open(key, data);
    if (env) return env;
    rejected++;
    // Every one is refused; the log says so for the first and then every hundredth.
    if (rejected === 1 || rejected % 100 === 0)
      log.warn(
        { key: key.slice(0, 80), rejected },
        'shared state: a record failed its MAC (forged or altered, or written without SCANNER_KV_SECRET); refused',
      );
    return null;
  };
  const decode = (e: KvWatchEntry): Change => {
    if (e.operation !== 'PUT') return { key: e.key, revision: e.revision, value: null };
    return { key: e.key, revision: e.revision, value: open(e.key, e.value) };
  };
  const nc: NatsConnection = await connect({
    // Credentials in the URLs (nats://user:password@host) become the client's options.
    ...natsConnectOptions(o.servers),
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    name: `scanner-${serverId}`,
  });
  void (async () => {
    for await (const s of nc.status())
      if (s.type === 'disconnect' || s.type === 'reconnect')
        log.warn({ nats: s.type }, `scanner nats: ${s.type}`);
  })();
  const kvm = new Kvm(jetstream(nc, { timeout: KV_TIMEOUT_MS }));
  const kv = await kvm.create(o.bucket, { history: 64, storage: 'file' } as never);
  const rateKv = await kvm.create(`${o.bucket}-rate`, { history: 1, ttl: 120_000, storage: 'file' } as never);

  const handlers: Array<[string, (c: Change) => void]> = [];
  const rateHandlers: Array<(c: Change) => void> = [];
  let contact = 0;
  let stopped = false;
  let caughtUp: () => void = () => {};
  const ready = new Promise<void>((r) => {
    caughtUp = r;
  });
  const dispatch = (c: Change) => {
    if (c.key.startsWith('hb.')) {
      const v = c.value;
      if (v && v.o === serverId && typeof v.v === 'number') {
        if (v.v > contact) contact = v.v;
        caughtUp();
      }
      return;
    }
    for (const [prefix, h] of handlers)
      if (c.key.startsWith(prefix))
        try {
          h(c);
        } catch (err) {
          log.error({ key: c.key, err: String(err) }, 'shared state: a change could not be applied');
        }
  };
  const watchers: Array<{ stop(): void }> = [];
  const follow = async (bucket: KV, each: (c: Change) => void, what: string) => {
    const w = await bucket.watch();
    watchers.push(w);
    void (async () => {
      for await (const e of w) each(decode(e));
      if (!stopped) log.error({ bucket: what }, 'shared state: the watcher ended');
    })();
  };
  const heartbeat = async () => {
    while (!stopped) {
      const t = now();
      try {
        await kv.put(`hb.${serverId}`, kvSeal.seal(`hb.${serverId}`, serverId, t, t));
      } catch (err) {
        log.warn({ err: String(err) }, 'shared state: heartbeat failed');
      }
      await new Promise((r) => setTimeout(r, HEARTBEAT_MS).unref());
    }
  };

  return {
    serverId,
    kv,
    rateKv,
    lastContact: () => contact,
    closed: () => stopped,
    seal: (key, v, n) => kvSeal.seal(key, serverId, v, n),
    open,
    rejected: () => rejected,
    refuseReplay(key, n, known) {
      replayed++;
      // Every one is refused; the log says so for the first and then every hundredth.
      if (replayed === 1 || replayed % 100 === 0)
        log.warn(
          { key: key.slice(0, 80), version: n, known, replayed },
          'shared state: a record put back with a version that does not increase (a replay of an older record); refused',
        );
    },
    replayed: () => replayed,
    on: (prefix, h) => void handlers.push([prefix, h]),
    onRate: (h) => void rateHandlers.push(h),
    async start(waitMs) {
      await follow(kv, dispatch, o.bucket);
      await follow(
        rateKv,
        (c) => {
          for (const h of rateHandlers) h(c);
        },
        `${o.bucket}-rate`,
      );
      void heartbeat();
      const t = new Promise<false>((r) => setTimeout(() => r(false), waitMs).unref());
      return Promise.race([ready.then(() => true as const), t]);
    },
    async close() {
      stopped = true;
      for (const w of watchers) w.stop();
      // This server's heartbeat key goes with it (a killed server's stays: a few small messages).
      await kv.purge(`hb.${serverId}`).catch(() => {});
      await nc.drain().catch(() => nc.close());
    },
  };
}
