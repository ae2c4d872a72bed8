/**
 * The credit ledger shared by several scanner servers on JetStream KV (state.ts names the keys).
 *
 * The balance of an account is one KV entry, `bal.<accountId>` = `{balance, seq, last}`, and
 * every movement (a charge or a grant) is a compare-and-set of it against the revision it was
 * computed from (a put with `previousSeq` = that revision, 0 when absent): of two servers charging the same credit, one
 * update wins and the other is refused by JetStream, re-reads, and either fits in what is left or
 * answers 402 INSUFFICIENT_CREDITS without delivering the answer. So the sum of charges equals
 * the answers delivered and a balance never goes below zero, whatever the interleaving.
 *
 * Each movement's row is carried in the balance entry (`last`, with its sequence `seq − 1`) and
 * also written as `led.<accountId>.<seq>`; every server's watcher copies the rows into its local
 * store, where `entries()` reads them. A hold (reserve) is local to the server (it stops this
 * server overspending from its own view); the compare-and-set at settlement is what holds across
 * servers. Usage counts and cached answers stay per server (the local store): `GET /v1/usage`
 * counts the requests the answering server served, and a cached answer is free on the server
 * that cached it.
 *
 * The balance's `seq` is its version (inside the record's MAC, state.ts): every movement takes the
 * next one, so a balance entry put back from the bucket's history (a replay, e.g. to give spent
 * credits back) carries a `seq` that does not increase past the one this server holds — from its
 * mirror, or after a restart from the ledger rows in its store — and is refused, counted and
 * logged; its revision still orders the next compare-and-set, which writes the true balance past it.
 *
 * The one ambiguity left: a KV update whose acknowledgement is lost (timeout) may have been
 * applied. The ledger then reads the entry back and counts the charge as made when its row
 * carries this request's id; if the entry cannot be read either, the request answers 503 and the
 * charge, if it was applied, has no answer (the same as a crash between commit and send).
 */
import type { Logger } from 'pino';
import { ScannerError } from '../errors.js';
import { createEmbeddedLedger, createHolds, grantEntry, type Ledger } from '../ledger.js';
import type { LedgerEntry } from '../model.js';
import { put, type ScannerStore, TABLES } from '../store.js';
import { type Change, isCasConflict, type SharedState } from './state.js';

/** The value of `bal.<accountId>`. */
export interface SharedBalance {
  balance: number;
  /** Movements so far; the next row's sequence. */
  seq: number;
  /** The row of the movement that produced this value (sequence `seq − 1`), null when none. */
  last: LedgerEntry | null;
}

/** Compare-and-set attempts of one movement before giving up (contention). */
const MAX_ATTEMPTS = 100;
const pad = (n: number) => String(n).padStart(12, '0');

/** The refusal of a movement the shared ledger cannot make now (503: nothing was charged). */
const unavailable = () =>
  new ScannerError(
    'INTERNAL_ERROR',
    'the shared credit ledger is briefly unavailable; nothing was charged, retry shortly',
  );

/** The refusal of a charge of `required` scans with `remaining` left (402). */
const insufficient = (required: number, remaining: number) =>
  new ScannerError('INSUFFICIENT_CREDITS', `this request costs ${required} scan(s); not enough left`, {
    required,
    remaining,
  });

/** Writes ledger row `seq` of an account into the local store unless it is there already. */
function writeRowOnce(store: ScannerStore, accountId: string, seq: number, row: LedgerEntry): void {
  if (store.get(TABLES.ledger, [accountId, seq]) === undefined)
    store.write([put(TABLES.ledger, [accountId, seq], row)]);
}

/** What the store's rows say of an account: the balance after its last row, the next sequence. */
function storedBalance(store: ScannerStore, accountId: string): { balance: number; seq: number } {
  const last = store.scan(TABLES.ledger, [accountId], { reverse: true, limit: 1 })[0];
  return last ? { balance: last[1].balance, seq: last[0][1] + 1 } : { balance: 0, seq: 0 };
}

/** The shared ledger over the local store (rows, usage, cache) and the shared state (balances). */
export function createSharedLedger(store: ScannerStore, shared: SharedState, log: Logger): Ledger {
  const local = createEmbeddedLedger(store);
  const mirror = new Map<string, { balance: number; seq: number; rev: number }>();

  const writeRow = (accountId: string, seq: number, row: LedgerEntry) =>
    writeRowOnce(store, accountId, seq, row);
  const localBalance = (accountId: string) => storedBalance(store, accountId);
  /**
   * Takes balance `v` of an account, seen at KV revision `rev`, when its `seq` increases past the
   * one held here (the mirror's; on a first sight, as after a restart, the store's rows', which it
   * may equal). Otherwise it is this server's own write coming back (a revision already held:
   * nothing to do) or a replay: not believed, its revision kept for the next compare-and-set, and
   * counted when `count` (the watcher's sight; a read-back is not counted again).
   * @returns whether `v` was taken.
   */
  const see = (accountId: string, v: SharedBalance, rev: number, count: boolean): boolean => {
    const cur = mirror.get(accountId);
    const held = cur ?? { ...localBalance(accountId), rev: 0 };
    if (cur ? v.seq > cur.seq : v.seq >= held.seq) {
      mirror.set(accountId, { balance: v.balance, seq: v.seq, rev: Math.max(rev, held.rev) });
      if (v.last) writeRow(accountId, v.seq - 1, v.last);
      return true;
    }
    if (rev <= held.rev) return false;
    mirror.set(accountId, { ...held, rev });
    if (count) shared.refuseReplay(`bal.${accountId}`, v.seq, held.seq);
    return false;
  };
  shared.on('bal.', (c: Change) => {
    if (c.value) see(c.key.slice(4), c.value.v as SharedBalance, c.revision, true);
  });
  shared.on('led.', (c: Change) => {
    const [, accountId, seq] = c.key.split('.');
    if (c.value && accountId && /^[0-9]+$/.test(seq ?? ''))
      writeRow(accountId, Number(seq), c.value.v as LedgerEntry);
  });

  const refresh = async (accountId: string) => {
    const e = await shared.kv.get(`bal.${accountId}`);
    const env = e && e.operation === 'PUT' ? shared.open(e.key, e.value) : null;
    // A forged balance, or an older one put back, is never believed; its revision still orders
    // our compare-and-set.
    if (env) see(accountId, env.v as SharedBalance, e!.revision, false);
    else if (e) {
      const cur = mirror.get(accountId);
      if (cur) cur.rev = Math.max(cur.rev, e.revision);
      else mirror.set(accountId, { ...localBalance(accountId), rev: e.revision });
    }
    return env ? e : null;
  };

  // Movements of one account on this server run one after another: they would only lose
  // compare-and-sets to each other; the compare-and-set then arbitrates between servers only.
  const queues = new Map<string, Promise<unknown>>();
  const movement = (accountId: string, entry: Omit<LedgerEntry, 'balance'>): Promise<LedgerEntry> => {
    const prev = queues.get(accountId) ?? Promise.resolve();
    const run = prev.then(
      () => casMovement(accountId, entry),
      () => casMovement(accountId, entry),
    );
    const tail = run.catch(() => {});
    queues.set(accountId, tail);
    void tail.then(() => {
      if (queues.get(accountId) === tail) queues.delete(accountId);
    });
    return run;
  };

  /** One compare-and-set movement; resolves to its row. @throws 402 when it would go below zero, 503. */
  const casMovement = async (
    accountId: string,
    entry: Omit<LedgerEntry, 'balance'>,
  ): Promise<LedgerEntry> => {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const cur = mirror.get(accountId) ?? { balance: 0, seq: 0, rev: 0 };
      const row: LedgerEntry = { ...entry, balance: cur.balance + entry.delta };
      if (row.balance < 0) throw insufficient(-entry.delta, cur.balance);
      if (!Number.isSafeInteger(row.balance)) throw new Error('balance would exceed 2^53 scans');
      const next: SharedBalance = { balance: row.balance, seq: cur.seq + 1, last: row };
      try {
        const rev = await shared.kv.put(`bal.${accountId}`, shared.seal(`bal.${accountId}`, next, next.seq), {
          previousSeq: cur.rev,
        });
        see(accountId, next, rev, false);
        const rowKey = `led.${accountId}.${pad(cur.seq)}`;
        shared.kv
          .put(rowKey, shared.seal(rowKey, row, 1))
          .catch((err) =>
            log.warn(
              { accountId, err: String(err) },
              'shared ledger: row not written (the balance entry carries it)',
            ),
          );
        return row;
      } catch (err) {
        if (isCasConflict(err)) {
          await refresh(accountId).catch(() => {
            throw unavailable();
          });
          continue;
        }
        // Unacknowledged: it may have been applied. Read it back; ours if the row is this request's.
        const e = await refresh(accountId).catch(() => null);
        const env = e?.operation === 'PUT' ? shared.open(e.key, e.value) : null;
        const last = env ? (env.v as SharedBalance).last : null;
        if (last && entry.requestId !== null && last.requestId === entry.requestId) return last;
        log.warn({ accountId, err: String(err) }, 'shared ledger: movement failed');
        throw unavailable();
      }
    }
    throw unavailable();
  };

  const balance = (accountId: string) => mirror.get(accountId)?.balance ?? 0;
  const holds = createHolds(balance);
  const release = holds.release;

  return {
    balance,
    reserve: holds.reserve,
    release,
    settle(s) {
      const hold = s.hold;
      if (!hold || hold.amount <= 0) return local.settle({ ...s, hold: undefined });
      return (async () => {
        try {
          await movement(s.accountId, {
            at: s.at,
            delta: -hold.amount,
            reason: 'charge',
            requestId: s.requestId,
            endpoint: s.endpoint,
            note: null,
          });
        } finally {
          release(hold);
        }
        // Usage and the cached body (this server's store), once the charge is made.
        local.settle({ ...s, hold: undefined });
      })();
    },
    cached: local.cached,
    grant(accountId, amount, note, at) {
      return movement(accountId, grantEntry(amount, note, at));
    },
    usage: local.usage,
    entries: local.entries,
    sweep: local.sweep,
  };
}
