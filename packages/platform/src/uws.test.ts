/**
 * The HTTP core: a native uWebSockets.js binary loads only when its SHA-256 is the pinned one
 * (checked before it is loaded), the builds are tried newest first, the stand-in serves with the
 * reason when none loads, the pure-JS fallback and `ws` never load, and every `ws` the lockfile
 * installs is the one pinned version, past the 8.17.1 fix. With `EXPECT_HTTP_CORE=uws` (CI's
 * Node 22/24 lanes on a glibc ≥ 2.38 root), this process must be served by the native core.
 */

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { loadUws, uwsBinding, uwsIsNative, uwsPlatformId, uwsStandInWarning } from './uws.js';
import {
  defaultUwsLoadHooks,
  loadNativeUws,
  UWS_BUILDS,
  UWS_V20_30_LEGACY,
  UWS_V20_57,
  type UwsLoadHooks,
} from './uws-load.js';

const require = createRequire(import.meta.url);
const id = uwsPlatformId();
const pinned = UWS_BUILDS.some((b) => id in b.sha256);

/** Hooks over fake files: `files` maps a path to its bytes; `dlopen` records what it was asked to load. */
function fakeHooks(files: Record<string, Buffer>, fail: Record<string, string> = {}) {
  const loaded: string[] = [];
  const hooks: UwsLoadHooks = {
    packageDir: (b) => `/pkg/${b.module}`,
    readFile: (f) => {
      const bytes = files[f];
      if (!bytes) throw new Error(`ENOENT: no such file, open '${f}'`);
      return bytes;
    },
    dlopen: (f) => {
      loaded.push(f);
      if (fail[f]) throw new Error(fail[f]);
      return { App: () => null, file: f };
    },
  };
  return { hooks, loaded };
}

describe('HTTP core loader', () => {
  it('never loads a binary whose SHA-256 is not pinned, and says why', () => {
    const file = `/pkg/uWebSockets.js/${UWS_V20_57.file('linux_x64_127')}`;
    const { hooks, loaded } = fakeHooks({ [file]: Buffer.from('a swapped binary') });
    const r = loadNativeUws(hooks, 'linux_x64_127');
    expect(loaded).toEqual([]);
    expect(r.module).toBeNull();
    expect(r.attempts).toHaveLength(1);
    expect(r.attempts[0].reason).toMatch(/is not the pinned .*not loaded/);
  });

  it('tries the legacy Node 20 build when the newest one does not load (glibc < 2.38)', () => {
    // The pinned hashes cannot be forged, so the real bytes are read from the installed packages.
    const realDir = defaultUwsLoadHooks.packageDir;
    const newest = `${realDir(UWS_V20_57)}/${UWS_V20_57.file('linux_x64_115')}`;
    const legacy = `${realDir(UWS_V20_30_LEGACY)}/${UWS_V20_30_LEGACY.file('linux_x64_115')}`;
    const loaded: string[] = [];
    const hooks: UwsLoadHooks = {
      packageDir: realDir,
      readFile: (f) => readFileSync(f),
      dlopen: (f) => {
        loaded.push(f);
        if (f === newest)
          throw new Error("/lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.38' not found\nmore");
        return { legacy: true };
      },
    };
    const r = loadNativeUws(hooks, 'linux_x64_115');
    expect(loaded).toEqual([newest, legacy]);
    expect(r.module).toEqual({ legacy: true });
    expect(r.loaded?.build).toBe(UWS_V20_30_LEGACY.name);
    expect(r.attempts[0].reason).toBe("/lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.38' not found");
  });

  it('gives the stand-in, with every reason, when no pinned binary loads', () => {
    const { hooks } = fakeHooks({});
    const none = loadUws(hooks);
    expect(none.native).toBe(false);
    expect(none.core).toBe('node_http');
    if (pinned) expect(none.reason).toMatch(/not installed: ENOENT/);
    const w = uwsStandInWarning(none);
    expect(w).toContain('node:http stand-in');
    expect(w).toContain('glibc >= 2.38');
    expect(w).toContain('Debian 13 or Ubuntu 24.04');
    expect(w).toContain('Node 20');
    expect(w).not.toContain('\n');
    // An ABI no build pins (Node 25: 141 ships in the package but is not pinned).
    expect(loadNativeUws(hooks, 'linux_x64_141').attempts).toEqual([]);
  });

  it('pins Node 20, 22 and 24 on linux-x64, and the pins are what the packages ship and SECURITY.md records', () => {
    for (const abi of [115, 127, 137])
      expect(UWS_V20_57.sha256[`linux_x64_${abi}`]).toMatch(/^[0-9a-f]{64}$/);
    const doc = readFileSync(new URL('../../../SECURITY.md', import.meta.url), 'utf8');
    for (const b of UWS_BUILDS) {
      const dir = defaultUwsLoadHooks.packageDir(b);
      for (const [pid, sha] of Object.entries(b.sha256)) {
        const got = createHash('sha256')
          .update(readFileSync(`${dir}/${b.file(pid)}`))
          .digest('hex');
        expect(got, `${b.name} ${pid}`).toBe(sha);
        if (pid.startsWith('linux_x64')) expect(doc, `${b.name} ${pid}`).toContain(sha);
      }
    }
  });
});

describe('HTTP core of this process', () => {
  it.runIf(process.env.EXPECT_HTTP_CORE === 'uws')('is the native core (EXPECT_HTTP_CORE=uws)', () => {
    expect(uwsBinding().reason).toBeNull();
    expect(uwsBinding().core).toBe('uws');
  });

  it('a native binary that loaded is the pinned one; the pure-JS fallback and ws never load', () => {
    const b = uwsBinding();
    const cache = Object.keys(require.cache);
    if (b.native) {
      const a = b.attempts.find((x) => x.reason === null)!;
      expect(a.sha256).toBe(a.expected);
      expect(createHash('sha256').update(readFileSync(b.binary!)).digest('hex')).toBe(a.expected);
      expect(cache).toContain(b.binary);
    } else {
      expect(cache.some((f) => f.endsWith('.node') && f.includes('uws_'))).toBe(false);
    }
    expect(cache.some((f) => /uws-legacy-glibc\/(dist|src)\//.test(f))).toBe(false);
    expect(cache.some((f) => /node_modules\/ws\//.test(f))).toBe(false);
    expect(uwsIsNative()).toBe(b.native);
  });

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
