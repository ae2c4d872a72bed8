/**
 * The folder's boundaries: only store.ts touches storage; of the indexer's server only the uWS
 * adapter is used; domains never import the scanner.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('.', import.meta.url).pathname;
const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return sources(p);
    return n.endsWith('.ts') && !n.endsWith('.test.ts') ? [p] : [];
  });
const importsOf = (file: string) =>
  [...readFileSync(file, 'utf8').matchAll(/^import[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1]);

describe('scanner package boundaries', () => {
  it('only store.ts imports storage, and only the uWS adapter of src/server is used', () => {
    for (const f of sources(ROOT)) {
      const rel = f.slice(ROOT.length);
      for (const i of importsOf(f)) {
        if (i.includes('/storage/')) expect(rel, `${rel} imports ${i}`).toBe('store.ts');
        if (i.includes('/server/')) expect(i, `${rel} imports ${i}`).toMatch(/\/server\/uws\.js$/);
        expect(i, `${rel} imports ${i}`).not.toMatch(/@nxtedition\/rocksdb|rocksdb-native/);
      }
    }
  });

  it('no domain or indexer server module imports the scanner', () => {
    const src = join(ROOT, '../../indexer/src');
    for (const dir of ['tokens', 'markets', 'wallets', 'chain', 'screener', 'streams', 'server', 'storage'])
      for (const f of sources(join(src, dir)))
        for (const i of importsOf(f)) expect(i, `${f} imports ${i}`).not.toContain('scanner');
  });
});
