/**
 * `node packages/indexer/dist/tools/digest.js <DATA_DIR>`: prints the projection digest of a stopped indexer's
 * store as JSON `{head, all, tables}`. Used by the reorg-convergence and crash tests.
 */
import { join } from 'node:path';
import { openRocks } from '../storage/binding.js';
import { digestStore } from '../storage/digest.js';
import { metaKey } from '../storage/tables.js';
import { TokenTable } from '../tokens/tables.js';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: digest <DATA_DIR>\n');
  process.exit(2);
}
const rocks = await openRocks(join(dir, 'rocks'));
const head = rocks.get(metaKey('checkpoint:blocks'));
// Excluded beside META/UNDO/GAP: reconciliation verdicts (node observations made on a timer) and
// the stream logs (0x70 frames, 0x71 sequences: they record the process's reorg history).
const d = digestStore(rocks, [TokenTable.RECON, 0x70, 0x71]);
await rocks.close();
process.stdout.write(`${JSON.stringify({ head: head ? JSON.parse(head.toString()) : null, ...d })}\n`);
