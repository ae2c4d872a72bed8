/**
 * Tables of the decoded views (0x40–0x41) and the traces lane (0x50–0x53). Decoded views are
 * written with each block; trace rows are appended to the block's undo record by the traces lane.
 */

import { K, V } from '../codec.js';
import type { StoredFrame, StoredInternal, TraceStatus } from '../rows/traces.js';
import { defineTable } from '../table.js';

export const DECODED_LOG = defineTable({
  id: 0x40,
  owner: 'decoded_views',
  name: 'log',
  doc: 'decoded log JSON (src/decode DecodedLog; unknown logs with their typed reason)',
  key: [K.u64, K.u32],
  keyNames: ['number', 'logIndex'],
  value: V.text,
});

export const DECODED_TX = defineTable({
  id: 0x41,
  owner: 'decoded_views',
  name: 'transaction',
  doc: 'decoded calldata JSON (src/decode DecodedCall; unknown inputs with their typed reason)',
  key: [K.u64, K.u32],
  keyNames: ['number', 'txIndex'],
  value: V.text,
});

export const TRACE_STATUS = defineTable({
  id: 0x50,
  owner: 'traces',
  name: 'status',
  doc: 'per-transaction trace retention state',
  key: [K.u64, K.u32],
  keyNames: ['number', 'txIndex'],
  value: V.json<TraceStatus>(),
});

export const TRACE_FRAME = defineTable({
  id: 0x51,
  owner: 'traces',
  name: 'frame',
  doc: 'call frames of a transaction in pre-order, decoded calldata included',
  key: [K.u64, K.u32, K.u32],
  keyNames: ['number', 'txIndex', 'ordinal'],
  value: V.json<StoredFrame>(),
});

export const TRACE_INTERNAL = defineTable({
  id: 0x52,
  owner: 'traces',
  name: 'internal',
  doc: 'internal value transfers and creations of a transaction, by frame ordinal',
  key: [K.u64, K.u32, K.u32],
  keyNames: ['number', 'txIndex', 'ordinal'],
  value: V.json<StoredInternal>(),
});

export const TRACE_BY_ADDRESS = defineTable({
  id: 0x53,
  owner: 'traces',
  name: 'by_address',
  doc: 'internal activity by address; role 1 sender, 2 recipient, 3 creator, 4 created',
  key: [K.address, K.u64, K.u32, K.u32, K.u8],
  keyNames: ['address', 'number', 'txIndex', 'ordinal', 'role'],
  value: V.empty,
});

export const TRACE_TABLES = [
  DECODED_LOG,
  DECODED_TX,
  TRACE_STATUS,
  TRACE_FRAME,
  TRACE_INTERNAL,
  TRACE_BY_ADDRESS,
];
