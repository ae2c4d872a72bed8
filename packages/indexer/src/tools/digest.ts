/**
 * `node packages/indexer/dist/tools/digest.js <DATA_DIR>`: prints the projection digest of a stopped indexer's
 * store as JSON `{head, all, tables}` (storage/digest.ts). Used by the reorg-convergence and crash tests.
 */
import { digestDataDir } from '../storage/digest.js';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: digest <DATA_DIR>\n');
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(await digestDataDir(dir))}\n`);
