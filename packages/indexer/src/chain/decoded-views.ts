/**
 * The decoded-views projection: every log and every transaction input of a block, decoded in the
 * decode pool (src/decode: hand-written decoders plus verified ABIs) and stored beside the raw
 * records, so the decoded routes serve stored JSON (no decoding on the HTTP thread). Unknown logs
 * and inputs are stored with their typed reason, never omitted (R10). A new decoder or ABI is a
 * version bump: the projection re-decodes from the stored blocks.
 */

import type { Projection } from '../projections/index.js';
import { projectionIdentity } from '../projections/index.js';
import type { BlockDelta } from '../schema/delta.js';
import { PROJECTION_IDENTITIES } from '../schema/projections.js';
import { DECODED_LOG, DECODED_TX } from '../schema/tables/traces.js';

export function createDecodedViewsProjection(): Projection {
  return {
    ...projectionIdentity(PROJECTION_IDENTITIES.decoded_views),
    apply(batch, d: BlockDelta) {
      // Encoded by the decode worker: added whole (a rebuild from stored blocks writes row by row).
      if (d.parts) {
        batch.addPart(d.parts.decodedViews);
        return;
      }
      // Block-keyed rows above the checkpoint: guaranteed absent, so `insert` (no prior read).
      for (const l of d.logs) batch.insert(DECODED_LOG, [d.number, l.logIndex], l.decoded);
      for (let i = 0; i < d.txs.length; i++) batch.insert(DECODED_TX, [d.number, i], d.txs[i].decoded);
    },
  };
}
