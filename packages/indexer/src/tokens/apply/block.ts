/**
 * The per-block state the tokens projection's event families share while they apply one block:
 * the batch, the delta, a cache of token rows read or written in this block, and the chain
 * coordinate helper. Families write only through the batch (typed tables), so the block's undo
 * record covers every change.
 */

import type { Emit } from '../../projections/index.js';
import type { BlockDelta } from '../../schema/delta.js';
import type { Coordinate, TokenRow } from '../../schema/rows/tokens.js';
import { TOKEN } from '../../schema/tables/tokens.js';
import type { BlockBatch } from '../../storage/index.js';

type Hex = `0x${string}`;

export interface TokensBlock {
  batch: BlockBatch;
  d: BlockDelta;
  emit?: Emit;
  /** Token rows of this block (read once, written back by `saveToken`). */
  tokens: Map<string, TokenRow | null>;
  /** First-sight seeds of tokens older than the indexed range (null: none needed). */
  seeds: import('./seeds.js').TokenSeeds | null;
}

export const newBlock = (
  batch: BlockBatch,
  d: BlockDelta,
  seeds: TokensBlock['seeds'],
  emit?: Emit,
): TokensBlock => ({ batch, d, emit, tokens: new Map(), seeds });

/** The chain coordinate of a log (or a transaction-level fact when `logIndex` is null). */
export const coordOf = (b: TokensBlock, txIndex: number, logIndex: number | null): Coordinate => ({
  block: b.d.number,
  txIndex,
  logIndex,
  txHash: b.d.txs[txIndex].hash,
});

/** The token row as of this block's pending writes, or null when the address is not a token. */
export function tokenOf(b: TokensBlock, address: string): TokenRow | null {
  let t = b.tokens.get(address);
  if (t === undefined) {
    t = b.batch.get(TOKEN, address as Hex) ?? null;
    b.tokens.set(address, t);
  }
  return t;
}

/** Writes a token row (registration or confirmation). */
export function saveToken(b: TokensBlock, t: TokenRow): void {
  b.tokens.set(t.address, t);
  b.batch.put(TOKEN, [t.address as Hex], t);
}
