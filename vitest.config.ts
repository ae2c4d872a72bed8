import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

// Recorded mainnet fixtures live in shared/ beside the repository (../shared/fixtures).
// CI clones the repository with shared/ beside it; a work tree elsewhere falls back to /work/shared.
const fixtures =
  process.env.FIXTURES_DIR ??
  [resolve(import.meta.dirname, '../shared/fixtures'), '/work/shared/fixtures'].find((p) => existsSync(p)) ??
  resolve(import.meta.dirname, '../shared/fixtures');
if (!existsSync(fixtures)) process.stderr.write(`warning: fixtures not found at ${fixtures} (set FIXTURES_DIR)\n`);

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**', '**/*.tmp.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    env: { FIXTURES_DIR: fixtures },
    // End-to-end suites each start their own anvil and indexer process; run files one at a time
    // so two cores are not oversubscribed and timings stay meaningful.
    fileParallelism: false,
    pool: 'forks',
  },
});
