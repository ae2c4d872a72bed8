/**
 * Where verified ABIs live: VERIFIED_ABIS_DIR, else the repository's `abis/` (from
 * packages/indexer/dist/decode or packages/indexer/src/decode alike).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function defaultVerifiedAbisDir(): string {
  if (process.env.VERIFIED_ABIS_DIR) return process.env.VERIFIED_ABIS_DIR;
  for (const up of ['../../../../abis']) {
    const p = fileURLToPath(new URL(up, import.meta.url));
    if (existsSync(p)) return p;
  }
  return 'abis';
}
