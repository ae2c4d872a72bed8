/**
 * Tables of the durable stream log (0x70–0x71): append-only per topic, written without undo (a
 * reorg appends a frame naming the removed blocks; delivered frames are never deleted).
 */
import { K, V } from '../codec.js';
import { tableDeclarer } from '../table.js';

const table = tableDeclarer('streams');

/**
 * A stored frame: a header line `{"event","block","keys"}` then the frame's JSON verbatim (the
 * header is JSON.stringify output, which never holds a raw newline), so the frame JSON is never
 * escaped twice.
 */
// biome-ignore format: the registry keeps one table a line
export const STREAM_FRAME = table(0x70, 'frame', [K.u8, K.u64], ['topic', 'sequence'], V.text, 'stream frames per topic by sequence (bounded ring)', { kind: 'process' });

// biome-ignore format: the registry keeps one table a line
export const STREAM_SEQ = table(0x71, 'sequence', [K.u8], ['topic'], V.u64, 'last written sequence per topic', { kind: 'process' });

export const STREAM_TABLES = [STREAM_FRAME, STREAM_SEQ];
