/**
 * Credits, usage and cached answers: the three things written together when a request is
 * answered.
 *
 * Credits ("scans") are a ledger per account: every movement is a row (grant or charge) carrying
 * the balance after it, and the balance row always equals the sum of the account's movements
 * (checked at start-up by {@link checkLedger}). A credit-consuming request first takes a hold
 * (in memory) so concurrent requests cannot overspend; the answer is then settled in ONE atomic
 * batch that writes the charge, the balance, the usage count and the cached body, and only then
 * is the answer sent. So a crash never charges without answering (the batch is committed only
 * with the answer in hand, and the send follows in the same synchronous step), nor answers
 * without charging (nothing is sent before the batch is durable in the WAL). A failed request
 * releases its hold: it was never charged, which is the refund.
 *
 * Usage counts every answered request of a known account by UTC day, endpoint path and status
 * class, in the same kind of batch.
 *
 * {@link Ledger} is the seam a shared implementation replaces (several servers charging one
 * account); the embedded one below serves one process over the scanner store.
 */
import { hash } from 'node:crypto';
import { type CachedAnswer, dayOf, type LedgerEntry, type StatusClass, statusClass } from './model.js';
import { del, type Op, put, type ScannerStore, TABLES } from './store.js';

/** Scans held for one in-flight request. */
export interface Hold {
  readonly accountId: string;
  readonly amount: number;
}

/**
 * Scans held by in-flight requests, per account (in memory: a hold lives as long as its request):
 * `reserve` holds `amount` when the balance minus what is already held covers it (else null),
 * `release` returns a hold.
 */
export function createHolds(balance: (accountId: string) => number): Pick<Ledger, 'reserve' | 'release'> {
  const held = new Map<string, number>();
  return {
    reserve(accountId, amount) {
      const h = held.get(accountId) ?? 0;
      if (balance(accountId) - h < amount) return null;
      held.set(accountId, h + amount);
      return { accountId, amount };
    },
    release(hold) {
      const h = (held.get(hold.accountId) ?? 0) - hold.amount;
      if (h <= 0) held.delete(hold.accountId);
      else held.set(hold.accountId, h);
    },
  };
}

/** What one answered request writes. */
export interface Settlement {
  accountId: string;
  at: number;
  /** Endpoint path as registered (e.g. `/v1/whoami`); the usage row's endpoint. */
  endpoint: string;
  /** HTTP status answered. */
  status: number;
  requestId: string;
  /** The hold to charge (credit-consuming answers only). */
  hold?: Hold;
  /** The answer to keep for free repeats: normalised-parameter key, body, expiry. */
  cache?: { key: string; body: string; exp: number };
}

/** One usage count: requests answered on a UTC day for an endpoint and status class. */
export interface UsageCount {
  day: number;
  endpoint: string;
  statusClass: StatusClass;
  requests: number;
}

/** Credits, usage and cached answers of accounts. */
export interface Ledger {
  /** Scans left (settled), not counting holds in flight. */
  balance(accountId: string): number;
  /** Takes a hold of `amount` scans, or returns null when fewer are available (402). */
  reserve(accountId: string, amount: number): Hold | null;
  /** Gives a hold back (the request failed or was abandoned): nothing is charged. */
  release(hold: Hold): void;
  /**
   * Writes the charge (if any), the usage count and the cached body in one atomic batch. The
   * shared ledger (shared/ledger.ts) answers a Promise when it charges (the compare-and-set on
   * the KV bucket); it rejects with 402 INSUFFICIENT_CREDITS when another server spent the
   * credits first, or 503 INTERNAL_ERROR when the bucket is unreachable — nothing charged.
   */
  settle(s: Settlement): void | Promise<void>;
  /** The cached answer of (account, endpoint, normalised key) if still fresh at `now`. */
  cached(accountId: string, endpoint: string, key: string, now: number): CachedAnswer | undefined;
  /** Adds `amount` scans (operator grant); returns the ledger row (a Promise from the shared ledger). */
  grant(
    accountId: string,
    amount: number,
    note: string | null,
    at: number,
  ): LedgerEntry | Promise<LedgerEntry>;
  /** Usage counts of days `fromDay..toDay` (inclusive, UTC day numbers). */
  usage(accountId: string, fromDay: number, toDay: number): UsageCount[];
  /** The account's ledger rows, newest first. */
  entries(accountId: string, limit: number): LedgerEntry[];
  /** Deletes cached answers expired at `now`; returns how many. */
  sweep(now: number): number;
}

/** Cache rows are keyed by a fixed-width digest of the normaliser's output. */
const digest = (s: string) => hash('sha256', s, 'hex');

/** The embedded ledger: synchronous settle and grant. */
export interface EmbeddedLedger extends Ledger {
  settle(s: Settlement): void;
  grant(accountId: string, amount: number, note: string | null, at: number): LedgerEntry;
}

/**
 * The ledger entry (balance aside) of a grant of `amount` scans at `at` (ms) with its note.
 * @throws Error when `amount` is not a positive whole number.
 */
export function grantEntry(amount: number, note: string | null, at: number): Omit<LedgerEntry, 'balance'> {
  if (!Number.isSafeInteger(amount) || amount <= 0)
    throw new Error('a grant is a positive whole number of scans');
  return { at, delta: amount, reason: 'grant', requestId: null, endpoint: null, note };
}

/** The embedded ledger over the scanner store. */
export function createEmbeddedLedger(store: ScannerStore): EmbeddedLedger {
  const balances = new Map<string, number>();
  const nextSeq = new Map<string, number>();

  const balanceOf = (accountId: string) => {
    let b = balances.get(accountId);
    if (b === undefined) balances.set(accountId, (b = store.get(TABLES.balance, [accountId]) ?? 0));
    return b;
  };
  const seqOf = (accountId: string) => {
    let n = nextSeq.get(accountId);
    if (n === undefined) {
      const last = store.scan(TABLES.ledger, [accountId], { reverse: true, limit: 1 })[0];
      n = last ? last[0][1] + 1 : 0;
    }
    return n;
  };
  /** Ops of one ledger movement; memory is updated by the caller after the write succeeds. */
  const movement = (accountId: string, entry: Omit<LedgerEntry, 'balance'>) => {
    const balance = balanceOf(accountId) + entry.delta;
    const seq = seqOf(accountId);
    const row: LedgerEntry = { ...entry, balance };
    const ops: Op[] = [put(TABLES.ledger, [accountId, seq], row), put(TABLES.balance, [accountId], balance)];
    const apply = () => {
      balances.set(accountId, balance);
      nextSeq.set(accountId, seq + 1);
    };
    return { ops, row, apply };
  };

  const holds = createHolds(balanceOf);
  const release = holds.release;

  return {
    balance: balanceOf,
    reserve: holds.reserve,
    release,
    settle(s) {
      const ops: Op[] = [];
      const cls = statusClass(s.status);
      const day = dayOf(s.at);
      const usageKey = [s.accountId, day, s.endpoint, cls] as [string, number, string, StatusClass];
      ops.push(put(TABLES.usage, usageKey, (store.get(TABLES.usage, usageKey) ?? 0) + 1));
      let apply = () => {};
      if (s.hold && s.hold.amount > 0) {
        const m = movement(s.accountId, {
          at: s.at,
          delta: -s.hold.amount,
          reason: 'charge',
          requestId: s.requestId,
          endpoint: s.endpoint,
          note: null,
        });
        ops.push(...m.ops);
        apply = m.apply;
      }
      if (s.cache)
        ops.push(
          put(TABLES.cache, [s.accountId, s.endpoint, digest(s.cache.key)], {
            exp: s.cache.exp,
            body: s.cache.body,
          }),
        );
      store.write(ops);
      apply();
      if (s.hold) release(s.hold);
    },
    cached(accountId, endpoint, key, now) {
      const row = store.get(TABLES.cache, [accountId, endpoint, digest(key)]);
      return row && row.exp > now ? row : undefined;
    },
    grant(accountId, amount, note, at) {
      const m = movement(accountId, grantEntry(amount, note, at));
      if (!Number.isSafeInteger(m.row.balance)) throw new Error('balance would exceed 2^53 scans');
      store.write(m.ops);
      m.apply();
      return m.row;
    },
    usage(accountId, fromDay, toDay) {
      return store
        .range(TABLES.usage, [accountId, fromDay], [accountId, toDay + 1])
        .map(([[, day, endpoint, cls], requests]) => ({ day, endpoint, statusClass: cls, requests }));
    },
    entries(accountId, limit) {
      return store.scan(TABLES.ledger, [accountId], { reverse: true, limit }).map(([, e]) => e);
    },
    sweep(now) {
      const dead: Op[] = [];
      store.each(TABLES.cache, (key, row) => {
        if (row.exp <= now) dead.push(del(TABLES.cache, key));
      });
      if (dead.length) store.write(dead);
      return dead.length;
    },
  };
}

/**
 * Start-up invariant: for every account, the balance row equals the sum of its ledger deltas and
 * each row's `balance` is the running sum. Returns the violations (empty when sound); the service
 * refuses to start on any, since charging on a wrong balance would be wrong money.
 */
export function checkLedger(store: ScannerStore): string[] {
  const running = new Map<string, number>();
  const problems: string[] = [];
  store.each(TABLES.ledger, ([accountId, seq], e) => {
    const b = (running.get(accountId) ?? 0) + e.delta;
    if (b !== e.balance) problems.push(`ledger ${accountId}#${seq}: balance ${e.balance}, running sum ${b}`);
    running.set(accountId, b);
  });
  store.each(TABLES.balance, ([accountId], b) => {
    if ((running.get(accountId) ?? 0) !== b)
      problems.push(`balance of ${accountId} is ${b}, its ledger sums to ${running.get(accountId) ?? 0}`);
    running.delete(accountId);
  });
  for (const [accountId, b] of running)
    if (b !== 0) problems.push(`account ${accountId} has ledger rows summing to ${b} but no balance row`);
  return problems;
}
