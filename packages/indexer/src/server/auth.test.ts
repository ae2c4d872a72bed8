/** Keys load with unique names (a name is the key's identity for limits and the stream ceiling). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAuth, hashKey, loadKeysFile } from './auth.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const keysFile = (rows: unknown) => {
  const d = mkdtempSync(join(tmpdir(), 'keys-'));
  dirs.push(d);
  const f = join(d, 'keys.json');
  writeFileSync(f, JSON.stringify(rows));
  return f;
};

describe('hashKey', () => {
  it('is the hex SHA-256 of the key text (FIPS 180-2 vectors)', () => {
    expect(hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashKey('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    // UTF-8, not latin1: "é" is two bytes.
    expect(hashKey('\u00e9')).toBe('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
  });
});

describe('keys', () => {
  it('refuses two keys of one name in a keys file', () => {
    const f = keysFile([
      { name: 'bot', key: 'k1', scopes: ['read'] },
      { name: 'bot', key: 'k2', scopes: ['stream'] },
    ]);
    expect(() => loadKeysFile(f)).toThrow(/"bot" is given to two keys/);
    expect(() => loadKeysFile(keysFile([{ key: 'k1' }]))).toThrow(/needs a name/);
    expect(
      loadKeysFile(
        keysFile([
          { name: 'a', key: 'k1' },
          { name: 'b', key: 'k2' },
        ]),
      ),
    ).toHaveLength(2);
  });

  it('refuses a keys-file key named like the dev key, and one key given twice', () => {
    const dev = { name: 'dev', sha256: hashKey('devkey'), scopes: ['read' as const] };
    expect(() => createAuth([{ name: 'dev', sha256: hashKey('other'), scopes: ['read'] }, dev])).toThrow(
      /two keys are named "dev"/,
    );
    expect(() =>
      createAuth([
        { name: 'x', sha256: hashKey('same'), scopes: ['read'] },
        { ...dev, sha256: hashKey('same') },
      ]),
    ).toThrow(/same key/);
    expect(createAuth([dev]).authenticate('devkey').name).toBe('dev');
  });
});
