/**
 * Raw chain records as of an anchor block: headers, transactions, receipts and logs exactly as the
 * node sent them (eth_getBlockByNumber(n, true) / eth_getBlockReceipts, stored by ingest in
 * src/ingest/apply.ts), plus the facts derived from them once here: origin fields, L1 gas
 * accounting, timestamp bounds. Everything reads through the request's {@link View}.
 */
import { DomainError } from '../errors/index.js';
import { CHAIN_BLOCK_TRANSACTIONS, CHAIN_LOGS } from '../schema/cursors.js';
import type { LogRow } from '../schema/tables/chain.js';
import {
  CANON,
  HASH_TO_NUMBER,
  HEADER,
  RECEIPT,
  TIME,
  TX,
  TX_BY_HASH,
  type TxLocation,
} from '../schema/tables/chain.js';
import type { BlockRef, View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';
import { l1GasOfRaw } from './l1-gas.js';
import type { ReceiptRecord, TimestampBounds, TransactionRecord } from './types.js';
import { walkPage } from './walk.js';

type Hex = `0x${string}`;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const QUANTITY = /^0x[0-9a-fA-F]+$/;

const blockAbsent = (n: number, at: number) =>
  new DomainError('not_found', `block ${n} is not indexed at the anchored block ${at}`);

/**
 * The canonical header JSON of block `n` (transactions as hashes), byte-exact.
 * @throws DomainError not_found when `n` is above the anchor `at` or not indexed.
 */
export function header(view: View, at: number, n: number): string {
  const v = n <= at ? view.get(HEADER, n) : undefined;
  if (v === undefined) throw blockAbsent(n, at);
  return v;
}

/**
 * The canonical header of the block with hash `hash`.
 * @throws DomainError not_found when the hash is not canonical at `at` (a reorged block's hash).
 */
export function headerByHash(view: View, at: number, hash: string): string {
  const h = hash.toLowerCase() as Hex;
  const n = view.get(HASH_TO_NUMBER, h);
  if (n === undefined || n > at || view.get(CANON, n) !== h)
    throw new DomainError('not_found', `block ${hash} is not canonical at the anchored block ${at}`);
  return header(view, at, n);
}

/**
 * The canonical `(number, hash)` of block `n` as of `at`.
 * @throws DomainError not_found when `n` is above the anchor or not indexed.
 */
export function canonicalAt(view: View, at: number, n: number): BlockRef {
  const hash = n <= at ? view.get(CANON, n) : undefined;
  if (hash === undefined) throw blockAbsent(n, at);
  return { number: n, hash };
}

/**
 * Both named bounds of timestamp `t` (unix seconds) among the blocks indexed up to `at`. Block
 * timestamps never decrease with the number, so the TIME index (timestamp, number) is in chain
 * order and each bound is the first row of a walk.
 */
export function timestampBounds(view: View, at: number, t: number): TimestampBounds {
  let before: [number, number] | undefined;
  view.each(TIME, { lte: [t], reverse: true }, (_, [ts, n]) => {
    if (n > at) return true;
    before = [ts, n];
    return false;
  });
  let after: [number, number] | undefined;
  view.each(TIME, { gte: [t] }, (_, [ts, n]) => {
    if (n <= at) after = [ts, n];
    return false;
  });
  const bound = (b: [number, number] | undefined) =>
    b ? { number: b[1], hash: view.get(CANON, b[1]) as Hex, timestamp: b[0] } : null;
  return {
    timestamp: t,
    lastAtOrBefore: bound(before),
    lastAtOrBeforeReason: before ? null : 'before_first_indexed_block',
    firstAtOrAfter: bound(after),
    firstAtOrAfterReason: after ? null : 'after_anchor_block',
  };
}

/**
 * One page of block `n`'s transactions in index order (byte-exact JSON).
 * @throws DomainError not_found when `n` is not indexed at the page's anchor.
 */
export function blockTransactions(view: View, n: number, q: PageQuery, sink: PageSink<string>): void {
  header(view, q.at, n);
  walkPage(view, CHAIN_BLOCK_TRANSACTIONS, [n], { prefix: [n] }, q, sink, (v) => v);
}

/**
 * One page of the logs emitted in block `n`, by log index (byte-exact JSON).
 * @throws DomainError not_found when `n` is not indexed at the page's anchor.
 */
export function blockLogs(view: View, n: number, q: PageQuery, sink: PageSink<string>): void {
  header(view, q.at, n);
  const text = logTexts(view, n);
  walkPage(view, CHAIN_LOGS, [n], { prefix: [n] }, q, sink, (v, [, i]) => text(v, i));
}

/**
 * The JSON of the logs of block `n`, as the node sent them: a log row names the transaction whose
 * receipt holds the log, and the log is that receipt's entry re-serialised exactly as it was when
 * the receipt was stored (same parse, same key order: the bytes the log rows of older stores
 * hold). Receipts are parsed once per transaction per walk.
 */
export function logTexts(view: View, n: number): (row: LogRow, logIndex: number) => string {
  let memoTx = -1;
  let memo = new Map<number, string>();
  return (row, logIndex) => {
    if (row.json !== undefined) return row.json;
    if (row.txIndex !== memoTx) {
      memoTx = row.txIndex;
      memo = new Map();
      const raw = view.get(RECEIPT, n, row.txIndex);
      if (raw === undefined) throw new Error(`log ${n}/${logIndex}: no receipt ${row.txIndex} stored`);
      for (const l of (JSON.parse(raw) as { logs?: Array<{ logIndex: string }> }).logs ?? [])
        memo.set(Number.parseInt(l.logIndex, 16), JSON.stringify(l));
    }
    const text = memo.get(logIndex);
    if (text === undefined) throw new Error(`log ${n}/${logIndex}: not in receipt ${row.txIndex}`);
    return text;
  };
}

/**
 * Where transaction `hash` is in the canonical chain as of `at`.
 * @throws DomainError not_found when it is not canonical at `at`.
 */
export function txLocation(view: View, at: number, hash: string): TxLocation {
  const loc = view.get(TX_BY_HASH, hash.toLowerCase() as Hex);
  if (!loc || loc.number > at)
    throw new DomainError(
      'not_found',
      `transaction ${hash} is not in the canonical chain at the anchored block ${at}`,
    );
  return loc;
}

/** The stored envelope at `loc` (every located transaction has one: both commit in one batch). */
export const envelopeAt = (view: View, loc: TxLocation): string =>
  view.get(TX, loc.number, loc.txIndex) as string;

/**
 * The envelope of transaction `hash` (byte-exact) with its coordinate and origin fields. `from`
 * is the sender the node recovered from the signature, as its envelope reports it.
 * @throws DomainError not_found when it is not canonical at `at`.
 */
export function transaction(view: View, at: number, hash: string): TransactionRecord {
  const loc = txLocation(view, at, hash);
  const raw = envelopeAt(view, loc);
  const tx = JSON.parse(raw) as { from?: unknown; to?: unknown; value?: unknown };
  const from = typeof tx.from === 'string' && ADDRESS.test(tx.from) ? tx.from.toLowerCase() : null;
  const to = typeof tx.to === 'string' && ADDRESS.test(tx.to) ? tx.to.toLowerCase() : null;
  const value = typeof tx.value === 'string' && QUANTITY.test(tx.value) ? BigInt(tx.value).toString() : '0';
  return {
    raw,
    blockNumber: loc.number,
    transactionIndex: loc.txIndex,
    from,
    fromReason: from ? null : 'unrecoverable',
    to,
    toReason: to ? null : 'contract_creation',
    value,
    originCoverage: from ? 'full' : 'partial',
  };
}

/**
 * The receipt of transaction `hash` (byte-exact) with its chain-specific L1 gas accounting
 * normalised to decimal strings (src/chain/l1-gas.ts).
 * @throws DomainError not_found when it is not canonical at `at`.
 */
export function receipt(view: View, at: number, hash: string): ReceiptRecord {
  const loc = txLocation(view, at, hash);
  const raw = view.get(RECEIPT, loc.number, loc.txIndex) as string;
  return { raw, blockNumber: loc.number, ...l1GasOfRaw(raw) };
}

/**
 * One page of transaction `hash`'s logs by log index (byte-exact JSON).
 * @throws DomainError not_found when it is not canonical at the page's anchor.
 */
export function transactionLogs(view: View, hash: string, q: PageQuery, sink: PageSink<string>): void {
  const loc = txLocation(view, q.at, hash);
  const range = {
    gte: [loc.number, loc.firstLogIndex] as [number, number],
    lt: [loc.number, loc.firstLogIndex + loc.logCount] as [number, number],
  };
  const text = logTexts(view, loc.number);
  walkPage(view, CHAIN_LOGS, [loc.number], range, q, sink, (v, [, i]) => text(v, i));
}
