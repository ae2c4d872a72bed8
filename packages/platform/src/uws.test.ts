/**
 * The HTTP core is the pinned native build: the binary this process loads has the SHA-256 that
 * SECURITY.md records, the pure-JS fallback (and `ws` under it) is never loaded, and every `ws`
 * the lockfile installs is the one pinned version, past the 8.17.1 fix.
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { UWS_BINARY_SHA256, uwsBinaryCheck, uwsIsNative } from './uws.js';

/** Whether this build ships a pinned binary for this platform and Node ABI (Node 20 here; not 22/24). */
const pinned = `${process.platform}_${process.arch}_${process.versions.modules}` in UWS_BINARY_SHA256;

describe('HTTP core', () => {
  it.runIf(!pinned)(
    'on a Node ABI without a pinned binary, the node:http stand-in serves and no binary loads',
    () => {
      expect(uwsIsNative()).toBe(false);
      const c = uwsBinaryCheck();
      expect(c.expected).toBeNull();
      expect(c.ok).toBe(false);
      const require = createRequire(import.meta.url);
      expect(Object.keys(require.cache).some((f) => f.endsWith('.node') && f.includes('uws_'))).toBe(false);
    },
  );

  it.runIf(pinned)('serves from the native binary, never loading the fallback', () => {
    expect(uwsIsNative()).toBe(true);
    const require = createRequire(import.meta.url);
    const fallback = require.resolve('uWebSockets.js/dist/index');
    expect(Object.keys(require.cache)).not.toContain(fallback);
  });

  it.runIf(pinned)(
    'loads the binary whose SHA-256 is pinned, and the pin is what SECURITY.md records',
    () => {
      const c = uwsBinaryCheck();
      expect(c.sha256, c.file).toBe(c.expected);
      expect(c.ok).toBe(true);
      const doc = readFileSync(new URL('../../../SECURITY.md', import.meta.url), 'utf8');
      for (const [id, sha] of Object.entries(UWS_BINARY_SHA256))
        if (id.startsWith('linux_x64')) expect(doc).toContain(sha);
    },
  );

  it('installs one pinned ws everywhere, at or past 8.17.1', () => {
    const lock = JSON.parse(readFileSync(new URL('../../../package-lock.json', import.meta.url), 'utf8')) as {
      packages: Record<string, { version?: string }>;
    };
    const ws = Object.entries(lock.packages).filter(([p]) => /(^|\/)node_modules\/ws$/.test(p));
    expect(ws.length).toBeGreaterThan(0);
    const root = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    for (const [path, { version }] of ws) {
      expect(version, path).toBe(root.overrides.ws);
      const [maj, min, pat] = version!.split('.').map(Number);
      expect(maj > 8 || (maj === 8 && (min > 17 || (min === 17 && pat >= 1))), path).toBe(true);
    }
  });
});
