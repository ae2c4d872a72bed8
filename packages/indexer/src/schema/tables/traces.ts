/**
 * Tables of the decoded views (0x40–0x41) and the traces lane (0x50–0x53). Decoded views are
 * written with each block; trace rows are appended to the block's undo record by the traces lane.
 */

import { K, V } from '../codec.js';
import type { StoredFrame, StoredInternal, TraceStatus } from '../rows/traces.js';
import { tableDeclarer } from '../table.js';

const table = tableDeclarer('traces');
const decodedViewsTable = tableDeclarer('decoded_views');

// biome-ignore format: the registry keeps one table a line
export const DECODED_LOG = decodedViewsTable(0x40, 'log', [K.u64, K.u32], ['number', 'logIndex'], V.text, 'decoded log JSON (src/decode DecodedLog; unknown logs with their typed reason)');

// biome-ignore format: the registry keeps one table a line
export const DECODED_TX = decodedViewsTable(0x41, 'transaction', [K.u64, K.u32], ['number', 'txIndex'], V.text, 'decoded calldata JSON (src/decode DecodedCall; unknown inputs with their typed reason)');

// biome-ignore format: the registry keeps one table a line
export const TRACE_STATUS = table(0x50, 'status', [K.u64, K.u32], ['number', 'txIndex'], V.json<TraceStatus>(), 'per-transaction trace retention state');

// biome-ignore format: the registry keeps one table a line
export const TRACE_FRAME = table(0x51, 'frame', [K.u64, K.u32, K.u32], ['number', 'txIndex', 'ordinal'], V.json<StoredFrame>(), 'call frames of a transaction in pre-order, decoded calldata included');

// biome-ignore format: the registry keeps one table a line
export const TRACE_INTERNAL = table(0x52, 'internal', [K.u64, K.u32, K.u32], ['number', 'txIndex', 'ordinal'], V.json<StoredInternal>(), 'internal value transfers and creations of a transaction, by frame ordinal');

// biome-ignore format: the registry keeps one table a line
export const TRACE_BY_ADDRESS = table(0x53, 'by_address', [K.address, K.u64, K.u32, K.u32, K.u8], ['address', 'number', 'txIndex', 'ordinal', 'role'], V.empty, 'internal activity by address; role 1 sender, 2 recipient, 3 creator, 4 created');

export const TRACE_TABLES = [
  DECODED_LOG,
  DECODED_TX,
  TRACE_STATUS,
  TRACE_FRAME,
  TRACE_INTERNAL,
  TRACE_BY_ADDRESS,
];
