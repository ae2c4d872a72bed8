// Storage benchmark configuration: the command line (--quick, --child <binding>, --only <binding>),
// the sizes of each phase, and the key/value layout constants both bindings share.

export const BINDINGS = ['nxtedition', 'rocksdb-native'] as const;
export type BindingName = (typeof BINDINGS)[number];

export const argv = process.argv.slice(2);
export const QUICK = argv.includes('--quick');
export const childIdx = argv.indexOf('--child');
export const CHILD: BindingName | null = childIdx >= 0 ? (argv[childIdx + 1] as BindingName) : null;
export const onlyIdx = argv.indexOf('--only');
export const ONLY: string | null = onlyIdx >= 0 ? (argv[onlyIdx + 1] ?? null) : null;

export const CFG = QUICK
  ? { batches: 2_000, rowsPerBatch: 50, gets: 10_000, scans: 1_000, scanRows: 1_000, extraScans: 200 }
  : { batches: 20_000, rowsPerBatch: 50, gets: 100_000, scans: 10_000, scanRows: 1_000, extraScans: 1_000 };
// `scans` iterations for each binding's main range-read path; `extraScans` for secondary variants.
export const VALUE_SIZE = 200;
export const TABLE = 0x01; // 1-byte table prefix of the bench rows
export const META = 0x09; // prefix of the two keys used by the consistency test
export const FIRST_BLOCK = 20_000_000;
export const GET_BATCH = 20;
export const CONCURRENCY = 16;
export const CACHE_BYTES = 32 * 1024 * 1024; // nxtedition default is 8 MiB; RocksDB's own default (used by rocksdb-native) is 32 MiB

export const log = (msg: string): void => {
  process.stderr.write(`[${CHILD ?? 'main'}] ${msg}\n`);
};
