/**
 * The decoded-views projection: every log and every transaction input of a block, decoded in the
 * decode pool (src/decode: hand-written decoders plus verified ABIs) and stored beside the raw
 * records, so the decoded routes serve stored JSON (no decoding on the HTTP thread). Unknown logs
 * and inputs are stored with their typed reason, never omitted (R10). A new decoder or ABI is a
 * version bump: the projection re-decodes from the stored blocks.
 */
import type { BlockDelta } from '../ingest/delta.js';
import type { Projection } from '../projections/index.js';
import { KeyBuilder } from '../storage/keys.js';

export const DecodedTable = {
  /** u64 number, u32 logIndex → DecodedLog JSON. */
  LOG: 0x40,
  /** u64 number, u32 txIndex → DecodedCall JSON. */
  TX: 0x41,
} as const;

export const decodedLogKey = (n: number, i: number) =>
  new KeyBuilder(13).u8(DecodedTable.LOG).u64(n).u32(i).done();
export const decodedTxKey = (n: number, i: number) =>
  new KeyBuilder(13).u8(DecodedTable.TX).u64(n).u32(i).done();

export function createDecodedViewsProjection(): Projection {
  return {
    name: 'decoded_views',
    version: 1,
    backs: [
      '/blocks/{number}/logs/decoded',
      '/transactions/{hash}/logs/decoded',
      '/transactions/{hash}/decoded',
    ],
    apply(batch, d: BlockDelta) {
      for (const l of d.logs) batch.insertRaw(decodedLogKey(d.number, l.logIndex), Buffer.from(l.decoded));
      for (let i = 0; i < d.txs.length; i++)
        batch.insertRaw(decodedTxKey(d.number, i), Buffer.from(d.txs[i].decoded));
    },
  };
}
