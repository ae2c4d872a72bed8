// Storage benchmark adapters: what each binding implements (same phases, each binding's fastest
// correct API), and what a child reports for its binding.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { BindingName } from './config.js';
import type { Stats } from './measure.js';

export const require = createRequire(import.meta.url);

export interface ConsistencyResult {
  method: string;
  reads: number;
  torn: number; // pairs (A, B) read with A !== B although every commit writes A === B
  commits: number; // writer commits that happened during the reads
  note: string;
}

export interface BindingResult {
  binding: BindingName;
  version: string;
  write: { rows: number; batches: number; rowsPerSecStore: number; rowsPerSecWall: number; batch: Stats };
  get: Record<string, Stats>;
  scan: Record<string, Stats>;
  packedWrite: { blocks: number; seconds: number; valueBytes: number };
  packedScan: Record<string, Stats>;
  consistency: ConsistencyResult[];
  snapshotApi: string;
  memory: {
    rssEndMB: number;
    maxRssMB: number;
    heapUsedMB: number;
    externalMB: number;
    rssAfterPackedExtraMB: number;
  };
  disk: { dbBytes: number };
  rocksdbProperties: Record<string, string>;
  phaseSeconds: Record<string, number>;
  rssAfterPhaseMB: Record<string, number>;
}

export interface Adapter {
  name: BindingName;
  version: string;
  open(dir: string): Promise<void>;
  close(): Promise<void>;
  writeBatch(keys: Buffer[], values: Buffer[]): Promise<void>;
  gets(keys: Buffer[], rowsPerBatch: number): Promise<Record<string, Stats>>;
  scans(starts: number[], rowsPerBatch: number): Promise<Record<string, Stats>>;
  packedScans(starts: number[], rowsPerBatch: number): Promise<Record<string, Stats>>;
  consistency(): Promise<ConsistencyResult[]>;
  props(): Promise<Record<string, string>>;
  snapshotApi: string;
}

export function pkgVersion(name: string): string {
  // Both packages keep index.js at the package root; rocksdb-native does not export ./package.json.
  const file = path.join(path.dirname(require.resolve(name)), 'package.json');
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
}
