/**
 * The cursor secret never travels in the change log (nor in a snapshot, which copies the store):
 * generated into a 0600 file beside the store, taken from CURSOR_SECRET when set; the secret an
 * earlier build kept in the META table (and so in change logs and snapshots) is replaced, never
 * used again: cursors minted under it answer bad_cursor.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CursorState, createCursorCodec } from '../cursor/index.js';
import { createStore, type Store } from '../storage/index.js';
import { CURSOR_SECRET_FILE, resolveCursorSecret } from './cursor-secret.js';

/** A page cursor's content (any route: the codec's MAC is what is tested). */
const CURSOR: CursorState = {
  chainId: 1,
  route: 'r',
  order: 'asc',
  anchor: { number: 7, hash: `0x${'11'.repeat(32)}` },
  key: Buffer.from('0102', 'hex'),
};

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

  it('replaces the META secret of an earlier build (it lingers in change logs and snapshots): cursors minted under it answer bad_cursor', async () => {
    const dir = tmp();
    const store = await writerStore(dir);
    const legacy = 'cd'.repeat(32);
    store.putMeta('cursorSecret', legacy);
    const old = createCursorCodec(Buffer.from(legacy, 'hex')).encode(CURSOR);
    const before = store.changeLog.last();
    const secret = resolveCursorSecret({ configured: null, dataDir: dir, store, generate: true });
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(secret).not.toBe(legacy);
    expect(store.getMeta('cursorSecret')).toBeUndefined();
    expect(readFileSync(join(dir, CURSOR_SECRET_FILE), 'utf8').trim()).toBe(secret);
    const codec = createCursorCodec(Buffer.from(secret, 'hex'));
    expect(() => codec.decode(old, { chainId: 1, route: 'r' })).toThrow(
      expect.objectContaining({ code: 'bad_cursor' }),
    );
    expect(codec.decode(codec.encode(CURSOR), { chainId: 1, route: 'r' }).key).toEqual(CURSOR.key);
    // The entries after the migration carry the delete, never the secret.
    const after = store.changeLog
      .read(before, 100)
      .flatMap((e) => e.ops.map((o) => o.value?.toString('hex') ?? ''))
      .join('');
    expect(after).not.toContain(hexOf(legacy));
    expect(after).not.toContain(hexOf(secret));
    // Kept from then on.
    expect(resolveCursorSecret({ configured: null, dataDir: dir, store, generate: true })).toBe(secret);
  });

  it('replaces, once, a secret file an earlier build may have moved out of META; keeps one this build generated', async () => {
    const dir = tmp();
    const store = await writerStore(dir);
    // The previous build moved META's secret into the file and deleted the row: nothing in the
    // store tells the file apart from a generated one, so it is replaced once.
    const moved = 'ef'.repeat(32);
    writeFileSync(join(dir, CURSOR_SECRET_FILE), `${moved}\n`, { mode: 0o600 });
    const secret = resolveCursorSecret({ configured: null, dataDir: dir, store, generate: true });
    expect(secret).not.toBe(moved);
    expect(readFileSync(join(dir, CURSOR_SECRET_FILE), 'utf8').trim()).toBe(secret);
    expect(statSync(join(dir, CURSOR_SECRET_FILE)).mode & 0o777).toBe(0o600);
    expect(resolveCursorSecret({ configured: null, dataDir: dir, store, generate: true })).toBe(secret);
    // A fresh store: generated once, then kept.
    const fresh = tmp();
    const s2 = await writerStore(fresh);
    const g = resolveCursorSecret({ configured: null, dataDir: fresh, store: s2, generate: true });
    expect(resolveCursorSecret({ configured: null, dataDir: fresh, store: s2, generate: true })).toBe(g);
  });

  it('refuses to start when CURSOR_SECRET is the secret an earlier build kept in META', async () => {
    const dir = tmp();
    const store = await writerStore(dir);
    const legacy = 'ab'.repeat(32);
    store.putMeta('cursorSecret', legacy);
    expect(() => resolveCursorSecret({ configured: legacy, dataDir: dir, store, generate: false })).toThrow(
      /CURSOR_SECRET is the secret an earlier build kept in the store/,
    );
    expect(() =>
      resolveCursorSecret({ configured: legacy.toUpperCase(), dataDir: dir, store, generate: true }),
    ).toThrow(/earlier build/);
    // Another configured secret: the META row is deleted, the configured one used.
    expect(resolveCursorSecret({ configured: 'ba'.repeat(32), dataDir: dir, store, generate: true })).toBe(
      'ba'.repeat(32),
    );
    expect(store.getMeta('cursorSecret')).toBeUndefined();
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
