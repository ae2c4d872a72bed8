import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'console/src/**/*.test.ts', 'bench/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**', '**/*.tmp.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // End-to-end suites each start their own anvil and indexer process and spend most of their
    // time waiting on blocks: two files at a time keep CI under 20 minutes on two cores. No test
    // asserts a timing (speed lives in bench/), and every port comes from the OS.
    fileParallelism: true,
    maxWorkers: 2,
    pool: 'forks',
  },
});
