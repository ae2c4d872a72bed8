// Storage benchmark: @nxtedition/rocksdb vs rocksdb-native for the indexer's access pattern.
//
//   npx tsc -p tsconfig.json && node dist/bench/storage/run.js [--quick] [--only nxtedition|rocksdb-native]
//
// The parent process runs each binding in its own child process (same script, `--child <name>`), so
// RSS, the libuv threadpool and V8 heap are per binding. Each child works in a fresh temp dir that
// is removed afterwards. The parent prints a table and writes bench/storage/results.json.
//
// Both packages ship no TypeScript types the bench can use (packages/indexer/src/storage has a narrow ambient
// declaration for @nxtedition/rocksdb that omits the async/iterator APIs measured here), so they
// are loaded with createRequire and typed locally below.
//
// The phases live beside this entry: config.ts (command line, sizes), measure.ts (timing, GC),
// rows.ts (key/value layouts, checks), adapter.ts with nxtedition.ts and rocksdb-native.ts (one
// adapter per binding), child.ts (the phases of one binding), parent.ts (table, results.json).

import { runChild } from './child.js';
import { CHILD } from './config.js';
import { MARK, runParent } from './parent.js';

if (CHILD) {
  runChild(CHILD).then(
    (res) => {
      process.stdout.write(`${MARK}${JSON.stringify(res)}\n`);
    },
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
} else {
  runParent().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
