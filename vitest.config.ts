import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'console/src/**/*.test.ts', 'bench/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**', '**/*.tmp.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // End-to-end suites each start their own anvil and indexer process; run files one at a time
    // so two cores are not oversubscribed and timings stay meaningful.
    fileParallelism: false,
    pool: 'forks',
  },
});
