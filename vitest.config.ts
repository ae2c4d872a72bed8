import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const ROOT = fileURLToPath(new URL('.', import.meta.url));

/**
 * Workspace packages run from their TypeScript sources (no build needed for unit tests): each
 * entry point of a package's `exports` map (`@chain-indexer/<pkg>` or `@chain-indexer/<pkg>/<name>`,
 * built to `./dist/<path>.js`) → its source `packages/<pkg>/src/<path>.ts` (the console's, a
 * source entry, to itself). Only entry points
 * resolve: a deep import fails here as it fails under Node (docs/CONTRIBUTING.md, "Front doors").
 */
function entryAliases(): { find: RegExp; replacement: string }[] {
  const out: { find: RegExp; replacement: string }[] = [];
  for (const pkg of readdirSync(`${ROOT}packages`)) {
    let exports: Record<string, unknown> = {};
    try {
      exports = JSON.parse(readFileSync(`${ROOT}packages/${pkg}/package.json`, 'utf8')).exports ?? {};
    } catch {
      continue;
    }
    for (const [key, target] of Object.entries(exports)) {
      const built = typeof target === 'object' && target ? (target as { default?: string }).default : null;
      // A built entry (./dist/<path>.js) runs from its source; a source entry (the console's) as is.
      if (!built?.startsWith('./dist/') && !built?.startsWith('./src/')) continue;
      const spec = key === '.' ? `@chain-indexer/${pkg}` : `@chain-indexer/${pkg}/${key.slice(2)}`;
      const source = built.startsWith('./src/')
        ? `${ROOT}packages/${pkg}/${built.slice(2)}`
        : `${ROOT}packages/${pkg}/src/${built.slice('./dist/'.length).replace(/\.js$/, '.ts')}`;
      out.push({ find: new RegExp(`^${spec.replaceAll('/', '\\/')}$`), replacement: source });
    }
  }
  return out;
}
const alias = entryAliases();

/**
 * Test files colocated with the sources (and the scanner suites under test/e2e that run the
 * scanner in-process) that nevertheless start a node: anvil. They run with the end-to-end files.
 */
const STARTS_A_NODE = [
  'packages/devnet/src/devnet.test.ts',
  'packages/indexer/src/ingest/heads.test.ts',
  'packages/indexer/src/workers/replay/trace-block.test.ts',
];
/**
 * Files under test/e2e that start no anvil, node, NATS server, browser or child process: the
 * scanner service in-process (real uWS listener, RocksDB in a temp dir, in-process SMTP server).
 */
const IN_PROCESS_E2E = [
  'test/e2e/scanner-keys.test.ts',
  'test/e2e/scanner-limits.test.ts',
  'test/e2e/scanner-credits.test.ts',
];

const shared = {
  exclude: ['**/node_modules/**', '**/dist/**', '**/*.tmp.test.ts'],
  testTimeout: 120_000,
  hookTimeout: 180_000,
  pool: 'forks' as const,
};

/**
 * A project whose files run two at a time (the two cores), `exclude` added to the shared one, in
 * group `groupOrder`.
 */
const twoAtATime = (name: string, include: string[], exclude: string[], groupOrder: number) => ({
  extends: true as const,
  test: {
    ...shared,
    name,
    include,
    exclude: [...shared.exclude, ...exclude],
    fileParallelism: true,
    maxWorkers: 2,
    sequence: { groupOrder },
  },
});

/**
 * Three projects, run in this order by `npm test` (build, then `vitest run`):
 *  - `unit` (`npm run test:unit`, no build needed): every file that starts no anvil, node, NATS
 *    server or browser — the colocated *.test.ts of packages/, bench/, and the in-process scanner
 *    suites above. Under a minute on two cores.
 *  - `e2e` and `faults` (`npm run test:e2e`, after a build: they start dist/app/main.js and the
 *    scanner's dist/ entry points).
 */
export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      twoAtATime(
        'unit',
        ['packages/*/src/**/*.test.ts', 'app/**/*.test.ts', 'bench/**/*.test.ts', 'ops/**/*.test.ts', ...IN_PROCESS_E2E],
        STARTS_A_NODE,
        0,
      ),
      // End-to-end suites: e2e files each start their own anvil and indexer process and spend
      // most of their time waiting on blocks, so two files run at a time (CI stays under 20
      // minutes on two cores). No test asserts a timing (speed lives in bench/).
      twoAtATime('e2e', ['test/e2e/**/*.test.ts', ...STARTS_A_NODE], IN_PROCESS_E2E, 1),
      {
        extends: true,
        // Fault campaigns (kill -9 mid-rollback, SSE churn with memory bounds, hostile input) run
        // after the rest, one file at a time, with the machine to themselves.
        test: {
          ...shared,
          name: 'faults',
          include: ['test/faults/**/*.test.ts', 'test/*.test.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
