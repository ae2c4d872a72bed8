/**
 * `node dist/src/tools/digest.js <DATA_DIR>`: prints the projection digest of a stopped indexer's
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
// Reconciliation verdicts are node observations made on a timer, not chain data.
const d = digestStore(rocks, [TokenTable.RECON]);
await rocks.close();
process.stdout.write(`${JSON.stringify({ head: head ? JSON.parse(head.toString()) : null, ...d })}\n`);
