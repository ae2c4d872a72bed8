/**
 * Stores on fresh temporary directories, for the unit tests (a `.fixture.ts`: not part of the
 * build). A test file makes one set and closes it after each test: `afterEach(stores.closeAll)`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore } from './index.js';
import type { Store, StoreOptions } from './store-types.js';

export function tempStores() {
  const dirs: string[] = [];
  const opened: Store[] = [];
  /** A new temporary directory named `prefix…`, removed by `closeAll`. */
  const dir = (prefix: string): string => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
  return {
    dir,
    /** A store on a new temporary directory, closed by `closeAll`. */
    async open(prefix: string, options: Omit<StoreOptions, 'dataDir'>): Promise<Store> {
      const s = await createStore({ dataDir: dir(prefix), ...options });
      opened.push(s);
      return s;
    },
    /** Closes every store opened and removes every directory made. */
    async closeAll(): Promise<void> {
      for (const s of opened.splice(0)) await s.close().catch(() => undefined);
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}
