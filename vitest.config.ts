import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const ROOT = fileURLToPath(new URL('.', import.meta.url));

/**
 * Workspace packages run from their TypeScript sources (no build needed for unit tests):
 * `@chain-indexer/<pkg>/<path>.js` → `packages/<pkg>/src/<path>.ts`, `@chain-indexer/<pkg>` →
 * `packages/<pkg>/src/index.ts`.
 */
const alias = [
  { find: /^@chain-indexer\/([a-z-]+)\/(.+)\.js$/, replacement: `${ROOT}packages/$1/src/$2.ts` },
  { find: /^@chain-indexer\/([a-z-]+)$/, replacement: `${ROOT}packages/$1/src/index.ts` },
];

const shared = {
  exclude: ['**/node_modules/**', '**/dist/**', '**/*.tmp.test.ts'],
  testTimeout: 120_000,
  hookTimeout: 180_000,
  pool: 'forks' as const,
};

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        extends: true,
        // Unit and end-to-end suites: e2e files each start their own anvil and indexer process and
        // spend most of their time waiting on blocks, so two files run at a time (CI stays under
        // 20 minutes on two cores). No test asserts a timing (speed lives in bench/).
        test: {
          ...shared,
          name: 'suite',
          include: ['test/e2e/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'bench/**/*.test.ts'],
          fileParallelism: true,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        // Fault campaigns (kill -9 mid-rollback, SSE churn with memory bounds, hostile input) run
        // after the rest, one file at a time, with the machine to themselves.
        test: {
          ...shared,
          name: 'faults',
          include: ['test/faults/**/*.test.ts', 'test/*.test.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
