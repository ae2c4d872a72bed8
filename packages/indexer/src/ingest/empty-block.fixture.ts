/**
 * An empty block as a decode worker hands it over, for the unit tests (a `.fixture.ts`: not part of
 * the build).
 */
import type { BlockDelta } from '../schema/delta.js';
import { encodeRows } from '../workers/decode/fetch-blocks.js';

type Hex = `0x${string}`;

/** Block `n` with no transactions, logs or probes, its rows encoded. */
export function emptyBlock(n: number, hash: Hex, parentHash: Hex): BlockDelta {
  const d: BlockDelta = {
    number: n,
    hash,
    parentHash,
    timestamp: 1_700_000_000 + n,
    header: JSON.stringify({ number: `0x${n.toString(16)}`, hash }),
    txs: [],
    logs: [],
    events: [],
    probes: {},
  };
  encodeRows(d, true);
  return d;
}
