/**
 * The scanner's durable store: the only scanner module that touches storage. One RocksDB
 * directory of its own (SCANNER_DATA_DIR, never inside the index's data directory, so an index
 * rebuild or reset never loses accounts, keys, sessions, activity, usage or credits), a typed
 * table registry, and atomic batches: every multi-row change is one {@link ScannerStore.write}.
 *
 * Key layout: one table byte, then the key's parts in order; a string part is its UTF-8 bytes and
 * a 0x00 terminator (no stored string contains NUL), a number part is 8 bytes big-endian, so keys
 * sort as their parts do. Values are JSON.
 */

import { privateDir, tightenTree } from '@chain-indexer/platform/security';
import { openRocks, type Rocks, type WriteOp } from '@chain-indexer/store';
import type {
  AccountRecord,
  ActivityEntry,
  CachedAnswer,
  KeyRecord,
  LedgerEntry,
  SessionRecord,
  StatusClass,
} from './model.js';

type Part = string | number;
type Shape = readonly ('s' | 'n')[];

/** A typed table: its prefix byte, key shape and (phantom) key and value types. */
export interface Table<K extends readonly Part[], V> {
  readonly id: number;
  readonly name: string;
  readonly shape: Shape;
  /** Phantom: never read at run time. */
  readonly _types?: { key: K; value: V };
}

const table = <K extends readonly Part[], V>(id: number, name: string, shape: Shape): Table<K, V> => ({
  id,
  name,
  shape,
});

/** Every table of the scanner store. */
export const TABLES = {
  /** name → JSON: `kind` (always `scanner-store`), `schema`. */
  meta: table<[string], unknown>(1, 'meta', ['s']),
  account: table<[string], AccountRecord>(2, 'account', ['s']),
  key: table<[string], KeyRecord>(3, 'key', ['s']),
  /** Session token hash (hex) → session. */
  session: table<[string], SessionRecord>(4, 'session', ['s']),
  /** (account, sequence) → entry; sequence is per account, in insertion (= time) order. */
  activity: table<[string, number], ActivityEntry>(5, 'activity', ['s', 'n']),
  /** (key id, activity kind) → instant of the last recorded entry (10-minute de-duplication). */
  activityMark: table<[string, string], number>(6, 'activityMark', ['s', 's']),
  /** account → scans left. Always equal to the sum of the account's ledger deltas (invariant). */
  balance: table<[string], number>(7, 'balance', ['s']),
  /** (account, sequence) → credit movement. */
  ledger: table<[string, number], LedgerEntry>(8, 'ledger', ['s', 'n']),
  /** (account, UTC day, endpoint path, status class) → requests answered. */
  usage: table<[string, number, string, StatusClass], number>(9, 'usage', ['s', 'n', 's', 's']),
  /** (account, endpoint path, hex SHA-256 of the normalised parameters) → cached answer. */
  cache: table<[string, string, string], CachedAnswer>(10, 'cache', ['s', 's', 's']),
  /**
   * Shared mode only (NATS_URL): directory changes committed here and not yet acknowledged by the
   * JetStream KV bucket, by local sequence; drained in order and deleted once published.
   */
  outbox: table<[number], OutboxRecord>(11, 'outbox', ['n']),
  /** Shared mode only: KV keys of write-once entries (activity) already applied here → revision. */
  kvApplied: table<[string], number>(12, 'kvApplied', ['s']),
  /**
   * Shared mode only: KV key of a versioned record (`acct.`, `key.`, `sess.`) → the version and
   * KV revision of the copy this server holds (shared/versions.ts: a record put back with a
   * version that does not increase is refused). Kept when a session is pruned, so its older
   * versions stay refused.
   */
  kvVersion: table<[string], KvVersion>(13, 'kvVersion', ['s']),
} as const;

/** The version of a shared record this server holds, and the KV revision it came with. */
export interface KvVersion {
  /** The version sealed in the record (state.ts), 0 for a record of the unversioned format. */
  n: number;
  /** Its KV revision (stream sequence of the bucket). */
  rev: number;
}

/** One pending write of a directory record to the shared KV bucket (shared/directory.ts). */
export interface OutboxRecord {
  /** KV key, e.g. `key.<id>`. */
  key: string;
  /** The record (account, key, session or activity envelope). */
  value: unknown;
  /** KV revision the change was made against (0: unknown); key records are compare-and-set. */
  rev: number;
}

/** One write of a batch: a put, or a delete when `value` is null. */
export interface Op {
  table: Table<readonly Part[], unknown>;
  key: readonly Part[];
  value: unknown;
}

/** Builds a put of `value` at `key` in `t`. */
export function put<K extends readonly Part[], V>(t: Table<K, V>, key: K, value: V): Op {
  return { table: t as Table<readonly Part[], unknown>, key, value };
}

/** Builds a delete of `key` in `t`. */
export function del<K extends readonly Part[], V>(t: Table<K, V>, key: K): Op {
  return { table: t as Table<readonly Part[], unknown>, key, value: null };
}

export interface ScanOptions {
  limit?: number;
  reverse?: boolean;
}

/** The scanner's typed store. Reads and writes are synchronous (the binding's sync calls). */
export interface ScannerStore {
  readonly dir: string;
  get<K extends readonly Part[], V>(t: Table<K, V>, key: K): V | undefined;
  /** Rows whose key begins with `prefix` (any leading parts of the key), in key order. */
  scan<K extends readonly Part[], V>(t: Table<K, V>, prefix: readonly Part[], o?: ScanOptions): Array<[K, V]>;
  /**
   * Rows whose key lies in `[from, to)` (both complete-or-leading part lists), in key order.
   * Used for ranges such as usage days.
   */
  range<K extends readonly Part[], V>(
    t: Table<K, V>,
    from: readonly Part[],
    to: readonly Part[],
    o?: ScanOptions,
  ): Array<[K, V]>;
  /** Visits every row of `t` in key order (start-up loads and invariant checks). */
  each<K extends readonly Part[], V>(t: Table<K, V>, visit: (key: K, value: V) => void): void;
  /** Applies every op atomically (one WAL-backed RocksDB batch). @throws on I/O failure. */
  write(ops: readonly Op[]): void;
  close(): Promise<void>;
}

/** Thrown when another process holds the store (RocksDB's LOCK): the CLI then uses the admin socket. */
export class StoreLockedError extends Error {
  override readonly name = 'StoreLockedError';
}

const STORE_KIND = 'scanner-store';
const SCHEMA = 1;

function encodeKey(t: Table<readonly Part[], unknown>, parts: readonly Part[]): Buffer {
  const chunks: Buffer[] = [Buffer.of(t.id)];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (t.shape[i] === 'n') {
      if (typeof p !== 'number' || !Number.isSafeInteger(p) || p < 0)
        throw new Error(`${t.name}: key part ${i} must be a non-negative safe integer`);
      const b = Buffer.alloc(8);
      b.writeBigUInt64BE(BigInt(p));
      chunks.push(b);
    } else {
      if (typeof p !== 'string' || p.includes('\u0000'))
        throw new Error(`${t.name}: key part ${i} must be a string without NUL`);
      chunks.push(Buffer.from(p, 'utf8'), Buffer.of(0));
    }
  }
  return Buffer.concat(chunks);
}

function decodeKey(t: Table<readonly Part[], unknown>, key: Buffer): Part[] {
  const out: Part[] = [];
  let at = 1;
  for (const s of t.shape) {
    if (s === 'n') {
      out.push(Number(key.readBigUInt64BE(at)));
      at += 8;
    } else {
      const end = key.indexOf(0, at);
      out.push(key.toString('utf8', at, end));
      at = end + 1;
    }
  }
  return out;
}

/** The smallest key greater than every key that starts with `prefix`. */
function successor(prefix: Buffer): Buffer {
  const b = Buffer.from(prefix);
  for (let i = b.length - 1; i >= 0; i--) {
    if (b[i] < 0xff) {
      b[i]++;
      return b.subarray(0, i + 1);
    }
  }
  throw new Error('no successor of an all-0xff prefix');
}

const decodeValue = (v: Buffer): unknown => JSON.parse(v.toString('utf8'));

/**
 * Opens (creating if missing) the scanner store in `dir`.
 * @throws StoreLockedError when another process has it open; Error when `dir` holds a RocksDB
 *   database that is not a scanner store (e.g. an index), or a newer schema.
 */
export async function openScannerStore(dir: string): Promise<ScannerStore> {
  privateDir(dir);
  tightenTree(dir);
  let db: Rocks;
  try {
    db = await openRocks(dir);
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED' || /lock/i.test(cause?.message ?? ''))
      throw new StoreLockedError(`the scanner store ${dir} is open in another process`, { cause: err });
    throw err;
  }
  const metaKey = (name: string) => encodeKey(TABLES.meta, [name]);
  const kind = db.get(metaKey('kind'));
  if (!kind) {
    if (db.scan({ limit: 1 }).length > 0) {
      await db.close();
      throw new Error(`${dir} holds a RocksDB database that is not a scanner store; refusing to use it`);
    }
    db.write([
      { key: metaKey('kind'), value: Buffer.from(JSON.stringify(STORE_KIND)) },
      { key: metaKey('schema'), value: Buffer.from(JSON.stringify(SCHEMA)) },
    ]);
  } else {
    const schema = decodeValue(db.get(metaKey('schema')) ?? Buffer.from('0'));
    if (decodeValue(kind) !== STORE_KIND || schema !== SCHEMA) {
      await db.close();
      throw new Error(`${dir} is not a scanner store of schema ${SCHEMA} (found schema ${schema})`);
    }
  }

  const asTable = (t: Table<readonly Part[], unknown>) => t;
  const rows = <K extends readonly Part[], V>(t: Table<K, V>, r: Array<[Buffer, Buffer]>): Array<[K, V]> =>
    r.map(([k, v]) => [decodeKey(asTable(t), k) as unknown as K, decodeValue(v) as V]);

  return {
    dir,
    get(t, key) {
      const v = db.get(encodeKey(asTable(t), key));
      return v === undefined ? undefined : (decodeValue(v) as never);
    },
    scan(t, prefix, o = {}) {
      const p = encodeKey(asTable(t), prefix);
      return rows(t, db.scan({ gte: p, lt: successor(p), limit: o.limit, reverse: o.reverse }));
    },
    range(t, from, to, o = {}) {
      return rows(
        t,
        db.scan({
          gte: encodeKey(asTable(t), from),
          lt: encodeKey(asTable(t), to),
          limit: o.limit,
          reverse: o.reverse,
        }),
      );
    },
    each(t, visit) {
      const p = Buffer.of(t.id);
      db.each({ gte: p, lt: successor(p) }, (k, v) => {
        visit(decodeKey(asTable(t), k) as never, decodeValue(v) as never);
        return true;
      });
    },
    write(ops) {
      const w: WriteOp[] = ops.map((op) => ({
        key: encodeKey(op.table, op.key),
        value: op.value === null ? null : Buffer.from(JSON.stringify(op.value), 'utf8'),
      }));
      db.write(w);
    },
    close: () => db.close(),
  };
}
