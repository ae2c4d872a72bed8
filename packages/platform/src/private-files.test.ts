/** Private files: a tree tightened to 0700/0600 (links and sockets left alone), and a bind under a mask. */
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { privateDir, tightenTree, withUmask } from './private-files.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const mode = (p: string) => statSync(p).mode & 0o777;

describe('private files', () => {
  it('tightens a data directory of an earlier build: directories 0700, files 0600', () => {
    const root = mkdtempSync(join(tmpdir(), 'private-'));
    dirs.push(root);
    mkdirSync(join(root, 'rocks', 'sub'), { recursive: true, mode: 0o755 });
    writeFileSync(join(root, 'rocks', '000001.sst'), 'x', { mode: 0o644 });
    writeFileSync(join(root, 'rocks', 'sub', 'LOG'), 'x', { mode: 0o666 });
    writeFileSync(join(root, 'elsewhere'), 'x', { mode: 0o644 });
    symlinkSync(join(root, 'elsewhere'), join(root, 'rocks', 'link'));
    expect(tightenTree(join(root, 'rocks'))).toBe(4);
    expect(mode(join(root, 'rocks'))).toBe(0o700);
    expect(mode(join(root, 'rocks', 'sub'))).toBe(0o700);
    expect(mode(join(root, 'rocks', '000001.sst'))).toBe(0o600);
    expect(mode(join(root, 'rocks', 'sub', 'LOG'))).toBe(0o600);
    expect(mode(join(root, 'elsewhere'))).toBe(0o644); // only reached through a link: untouched
    expect(tightenTree(join(root, 'rocks'))).toBe(0);
    privateDir(join(root, 'new', 'deep'));
    expect(mode(join(root, 'new', 'deep'))).toBe(0o700);
  });

  it('binds a socket under a narrow umask: 0600 from its first instant', async () => {
    const root = mkdtempSync(join(tmpdir(), 'private-sock-'));
    dirs.push(root);
    const path = join(root, 's.sock');
    const server = createServer();
    const before = process.umask();
    await new Promise<void>((resolve) => withUmask(0o177, () => server.listen(path, () => resolve())));
    expect(process.umask()).toBe(before);
    expect(mode(path)).toBe(0o600);
    await new Promise<void>((r) => server.close(() => r()));
  });
});
