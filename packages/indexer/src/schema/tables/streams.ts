/**
 * Tables of the durable stream log (0x70–0x71): append-only per topic, written without undo (a
 * reorg appends a frame naming the removed blocks; delivered frames are never deleted).
 */
import { K, V } from '../codec.js';
import { defineTable } from '../table.js';

/**
 * A stored frame: a header line `{"event","block","keys"}` then the frame's JSON verbatim (the
 * header is JSON.stringify output, which never holds a raw newline), so the frame JSON is never
 * escaped twice.
 */
export const STREAM_FRAME = defineTable({
  id: 0x70,
  owner: 'streams',
  name: 'frame',
  doc: 'stream frames per topic by sequence (bounded ring)',
  key: [K.u8, K.u64],
  keyNames: ['topic', 'sequence'],
  value: V.text,
  kind: 'process',
});

export const STREAM_SEQ = defineTable({
  id: 0x71,
  owner: 'streams',
  name: 'sequence',
  doc: 'last written sequence per topic',
  key: [K.u8],
  keyNames: ['topic'],
  value: V.u64,
  kind: 'process',
});

export const STREAM_TABLES = [STREAM_FRAME, STREAM_SEQ];
