/**
 * The roots check of the decode worker (VERIFY_ROOTS, on by default): before a block's rows are
 * encoded, its records are held to its header.
 *
 *  - keccak256(header RLP) = the block hash (the header's roots are then the block's own);
 *  - keccak256(envelope) = the hash of each transaction;
 *  - the ordered trie of the canonical transaction envelopes has the header's `transactionsRoot`,
 *    and that of the receipts' consensus encodings its `receiptsRoot`.
 *
 * Encodings and tries come from @chain-indexer/proofs. A transaction type (or header field) the
 * encoder does not know leaves the part it touches unchecked: the block is `not_checkable`, with
 * the type named; it is not a failure. A mismatch is a node fault: the block is fetched again
 * (from the same node: the chains file names one node per chain) and, if it persists, the task
 * fails with a {@link RootsMismatchError} that halts ingest before anything of the block is
 * committed (ingest/index.ts).
 */
import {
  bytesToHex,
  encodeHeader,
  encodeReceipt,
  encodeTransaction,
  encodeTransactionLeaf,
  keccak,
  orderedTrieRoot,
  typeName,
  typeOf,
  unknownHeaderFields,
} from '@chain-indexer/proofs';

type Json = Record<string, unknown>;

/** How ingest checked a block's roots (stored per block in the ROOTS table). */
export type { RootsCheck } from '../../schema/rows/chain.js';

import type { RootsCheck } from '../../schema/rows/chain.js';

/** One disagreement between a block's records and its header. */
export interface RootsMismatchDetail {
  what: 'header_hash' | 'transaction_hash' | 'transactions_root' | 'receipts_root';
  /** What the header (or the record) states. */
  expected: string;
  /** What the records rebuild to. */
  got: string;
  /** Transaction index, for a transaction hash. */
  index?: number;
}

/** What {@link RootsMismatchError} carries across the thread boundary (Error `cause` survives a structured clone). */
export interface RootsMismatchCause {
  kind: 'roots_mismatch';
  block: number;
  hash: string;
  attempts: number;
  mismatches: RootsMismatchDetail[];
}

/** A block whose records do not match its header after every refetch. */
export class RootsMismatchError extends Error {
  constructor(cause: RootsMismatchCause) {
    const m = cause.mismatches[0];
    super(
      `roots_mismatch: block ${cause.block} (${cause.hash}) after ${cause.attempts} fetches: ${m.what}${m.index === undefined ? '' : ` ${m.index}`} rebuilds to ${m.got}, header states ${m.expected}`,
      { cause },
    );
    this.name = 'RootsMismatchError';
  }
}

/**
 * The {@link RootsMismatchCause} of an error, if it is (or was, before crossing a thread) a
 * {@link RootsMismatchError}; null otherwise.
 */
export function rootsMismatchOf(err: unknown): RootsMismatchCause | null {
  const c = (err as { cause?: { kind?: unknown } } | null)?.cause;
  return c && c.kind === 'roots_mismatch' ? (c as RootsMismatchCause) : null;
}

const lower = (v: unknown) => String(v).toLowerCase();

/** A transaction without a signature (r = s = 0): a development node's impersonated send. */
const unsigned = (t: Json): boolean =>
  typeof t.r === 'string' &&
  typeof t.s === 'string' &&
  BigInt(t.r) === 0n &&
  BigInt(t.s) === 0n &&
  (t.type === undefined || Number(t.type) <= 4);

/**
 * Checks one block (eth_getBlockByNumber(n, true)) and its receipts (eth_getBlockReceipts)
 * against its header. Pure CPU (keccak over every envelope and receipt: see bench/roots.ts).
 * @returns the outcome, and the mismatches (empty when none).
 */
export function checkRoots(
  block: Json,
  receipts: Json[],
): { check: RootsCheck; mismatches: RootsMismatchDetail[] } {
  const mismatches: RootsMismatchDetail[] = [];
  const unknown = new Set<string>();
  const unchecked = new Set<'header' | 'transactions' | 'receipts'>();
  const extra = unknownHeaderFields(block);
  if (extra.length) {
    for (const k of extra) unknown.add(`header:${k}`);
    unchecked.add('header');
  } else {
    const got = bytesToHex(keccak(encodeHeader(block)));
    if (got !== lower(block.hash)) mismatches.push({ what: 'header_hash', expected: lower(block.hash), got });
  }
  const txs = block.transactions as Json[];
  const envelopes = txs.map((t) => encodeTransaction(t));
  const leaves = txs.map((t, i) => (envelopes[i]?.[0] === 0x03 ? encodeTransactionLeaf(t) : envelopes[i]));
  if (envelopes.some((e) => e === null)) {
    for (let i = 0; i < txs.length; i++) if (envelopes[i] === null) unknown.add(typeName(typeOf(txs[i])));
    unchecked.add('transactions');
  } else if (txs.some(unsigned)) {
    // A development node's impersonated transaction (anvil_impersonateAccount) carries no
    // signature (r = s = 0): the node hashed it with the sender it was told to use, so neither its
    // hash nor the transactions root can be rebuilt from the envelope. No network accepts one.
    unknown.add('unsigned');
    unchecked.add('transactions');
  } else {
    for (let i = 0; i < txs.length; i++) {
      const got = bytesToHex(keccak(envelopes[i] as Uint8Array));
      if (got !== lower(txs[i].hash))
        mismatches.push({ what: 'transaction_hash', index: i, expected: lower(txs[i].hash), got });
    }
    const got = bytesToHex(orderedTrieRoot(leaves as Uint8Array[]));
    if (got !== lower(block.transactionsRoot))
      mismatches.push({ what: 'transactions_root', expected: lower(block.transactionsRoot), got });
  }
  const encoded = receipts.map((r) => encodeReceipt(r));
  if (encoded.some((e) => e === null)) {
    for (let i = 0; i < receipts.length; i++)
      if (encoded[i] === null) unknown.add(typeName(typeOf(receipts[i])));
    unchecked.add('receipts');
  } else {
    const got = bytesToHex(orderedTrieRoot(encoded as Uint8Array[]));
    if (got !== lower(block.receiptsRoot))
      mismatches.push({ what: 'receipts_root', expected: lower(block.receiptsRoot), got });
  }
  const check: RootsCheck = unchecked.size
    ? { status: 'not_checkable', types: [...unknown].sort(), unchecked: [...unchecked] }
    : { status: 'verified' };
  return { check, mismatches };
}

/** Fetches block `number` and its receipts again (null: the node does not have it any more). */
export type Refetch = (number: string) => Promise<{ block: Json; receipts: Json[] } | null>;

/** Fetches of a block whose roots mismatch, the first included, before the task fails. */
export const ROOTS_FETCH_ATTEMPTS = 3;
/** Pause before each refetch, milliseconds (a node behind a load balancer may answer from another backend). */
const REFETCH_PAUSE_MS = 250;

/**
 * Checks every block of a decode task; a block that mismatches is fetched again (up to
 * {@link ROOTS_FETCH_ATTEMPTS} fetches in all) and replaced in `blocks`/`receipts` by the copy
 * that matches. With `verify` false every block is `unchecked`.
 * @returns the check of each block, in order.
 * @throws RootsMismatchError when a block still mismatches after the last fetch.
 */
export async function verifyBlocks(
  blocks: Json[],
  receipts: Json[][],
  verify: boolean,
  refetch: Refetch,
): Promise<RootsCheck[]> {
  if (!verify) return blocks.map(() => ({ status: 'unchecked' }));
  const out: RootsCheck[] = [];
  for (let i = 0; i < blocks.length; i++) {
    let r = checkRoots(blocks[i], receipts[i]);
    let attempts = 1;
    while (r.mismatches.length && attempts < ROOTS_FETCH_ATTEMPTS) {
      await new Promise((res) => setTimeout(res, REFETCH_PAUSE_MS));
      const again = await refetch(blocks[i].number as string);
      attempts++;
      if (!again) continue;
      blocks[i] = again.block;
      receipts[i] = again.receipts;
      r = checkRoots(again.block, again.receipts);
    }
    if (r.mismatches.length)
      throw new RootsMismatchError({
        kind: 'roots_mismatch',
        block: Number(blocks[i].number),
        hash: lower(blocks[i].hash),
        attempts,
        mismatches: r.mismatches,
      });
    out.push(r.check);
  }
  return out;
}
