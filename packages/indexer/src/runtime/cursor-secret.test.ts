/**
 * The cursor secret never travels in the change log (nor in a snapshot, which copies the store):
 * generated into a 0600 file beside the store, taken from CURSOR_SECRET when set, and moved out of
 * the META table of a store of an earlier build.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createStore, type Store } from '../storage/index.js';
import { CURSOR_SECRET_FILE, resolveCursorSecret } from './cursor-secret.js';

/** What a test opened: its stores (closed first after it) and temp dirs (removed then). */
const opened = { stores: [] as Store[], dirs: [] as string[] };
afterEach(async () => {
  for (const s of opened.stores.splice(0)) await s.close().catch(() => undefined);
  for (const d of opened.dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'cursor-secret-'));
  opened.dirs.push(d);
  return d;
};
const writerStore = async (dir: string) => {
  const s = await createStore({ dataDir: join(dir, 'rocks'), unfinalisedWindow: 4, changeLog: true });
  opened.stores.push(s);
  return s;
};
/** Every byte the change log would ship, as hex. */
const shipped = (s: Store) =>
  s.changeLog
    .read(0, 10_000)
    .flatMap((e) => e.ops.map((o) => `${o.key.toString('hex')}=${o.value?.toString('hex') ?? ''}`))
    .join('\n');
const hexOf = (secret: string) => Buffer.from(secret).toString('hex');

describe('cursor secret', () => {
  it('is generated once into a 0600 file, never into the store or its change log', async () => {
    const dir = tmp();
    const store = await writerStore(dir);
    const a = resolveCursorSecret({ configured: null, dataDir: dir, store, generate: true });
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    const file = join(dir, CURSOR_SECRET_FILE);
    expect(readFileSync(file, 'utf8').trim()).toBe(a);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(resolveCursorSecret({ configured: null, dataDir: dir, store, generate: true })).toBe(a);
    expect(store.getMeta('cursorSecret')).toBeUndefined();
    expect(shipped(store)).not.toContain(hexOf(a));
  });

  it('takes CURSOR_SECRET when set, and a replica without one refuses to start', async () => {
    const dir = tmp();
    const store = await writerStore(dir);
    const configured = 'ab'.repeat(32);
    expect(resolveCursorSecret({ configured, dataDir: dir, store, generate: true })).toBe(configured);
    expect(() => resolveCursorSecret({ configured: null, dataDir: tmp(), store, generate: false })).toThrow(
      /CURSOR_SECRET/,
    );
  });

  it('moves the META secret of an earlier build to the file and deletes it from the store', async () => {
    const dir = tmp();
    const store = await writerStore(dir);
    const legacy = 'cd'.repeat(32);
    store.putMeta('cursorSecret', legacy);
    const before = store.changeLog.last();
    expect(resolveCursorSecret({ configured: null, dataDir: dir, store, generate: true })).toBe(legacy);
    expect(store.getMeta('cursorSecret')).toBeUndefined();
    expect(readFileSync(join(dir, CURSOR_SECRET_FILE), 'utf8').trim()).toBe(legacy);
    // The entries after the migration carry the delete, never the secret.
    const after = store.changeLog
      .read(before, 100)
      .flatMap((e) => e.ops.map((o) => o.value?.toString('hex') ?? ''))
      .join('');
    expect(after).not.toContain(hexOf(legacy));
  });

  it('refuses a file that does not hold a secret', async () => {
    const dir = tmp();
    const store = await writerStore(dir);
    writeFileSync(join(dir, CURSOR_SECRET_FILE), 'changeme\n');
    expect(() => resolveCursorSecret({ configured: null, dataDir: dir, store, generate: true })).toThrow(
      /hex secret/,
    );
  });
});
