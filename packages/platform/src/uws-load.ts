/**
 * Which native uWebSockets.js binary this process may load, and loading it only after its bytes
 * were checked: the SHA-256 of every binary the service may run is pinned here, by build and by
 * `<platform>_<arch>_<ABI>`, and a binary is read, hashed and compared before `process.dlopen`
 * ever sees it (a swapped binary's initialisers never run). SECURITY.md ("HTTP core") says where
 * each build comes from, what could be checked against upstream, and how to pin a build of one's own.
 */

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** One npm build of uWebSockets.js: where its binaries sit and the SHA-256 of each one the service may load. */
export interface UwsBuild {
  /** Human name: upstream version and the npm package that ships it. */
  name: string;
  /** The module id the binaries are resolved from (an npm alias in packages/platform/package.json). */
  module: string;
  /** Path of a binary inside the package, by `<platform>_<arch>_<ABI>`. */
  file(id: string): string;
  /** SHA-256 (hex) of each binary this build may load, by `<platform>_<arch>_<ABI>`. */
  sha256: Readonly<Record<string, string>>;
}

/**
 * uWebSockets.js v20.57.0 as `@btc-vision/uwebsockets.js@20.57.0` (npm alias `uWebSockets.js`):
 * binaries for Node 20, 22 and 24 (ABI 115, 127, 137). Its Linux binaries need glibc ≥ 2.38
 * (`__isoc23_strtol` and kin are versioned GLIBC_2.38): Debian 13, Ubuntu 24.04 or newer.
 * ABI 141 (Node 25, not an LTS line) ships in the package but is not pinned, so it never loads.
 */
export const UWS_V20_57: UwsBuild = {
  name: 'uWebSockets.js v20.57.0 (npm @btc-vision/uwebsockets.js@20.57.0)',
  module: 'uWebSockets.js',
  file: (id) => `uws_${id}.node`,
  sha256: {
    darwin_arm64_115: 'e92644395ac8d37cb078098f843fb1b82e59701832f38fed00a9bdcfb87ba939',
    darwin_arm64_127: '6180345d453e2e113feb2b0d76376493cd6a90056c3483fc22de7b0c340dc231',
    darwin_arm64_137: '2187391c702fa7ad3bf685eff7712c15cf24fa7cf324a131dfcbae3fd0f20a9a',
    darwin_x64_115: 'f661b97951ffdf54324e514becda0a2740f723c9fd3c7098e812a0e7714651ed',
    darwin_x64_127: 'fd551673f3ce1f104d7cec3ba8f628d9d04853eff1045c9d95983372ed90bca0',
    darwin_x64_137: '98fd7e9456e2d37d3262b05b053d673830927f91c63c0c2ae73bde8d19eef293',
    linux_arm64_115: '6bdbc8ff976b4371af1906175e9025804bacc38a414969f4f02314e6b99f206c',
    linux_arm64_127: '82b79bd18d1e3563de336156005bd01b7f39fc387b65173d69a29da4ee79f895',
    linux_arm64_137: '88618b30ddf6b2b62310db89f40a701616676352aac5e0f6184dd8ef876199ce',
    linux_x64_115: '5b126ee00bf754b02e97e4c27090365a8562c5820c93f93918ac2212d4503e91',
    linux_x64_127: '4b55b1f2cb7a7913febbb65a89496412b96af77e838552980092ba6b33723aac',
    linux_x64_137: '98128405dba2fb608448e921a979530f70c946a2cc9889c15f2fa70c2d00ab05',
    win32_x64_115: '1ffbe9b09607fd9c90e98661383de2bd844b06d4f25ab502f3361d8d8fac559f',
    win32_x64_127: 'b4fa85dd015d6d32655f75e9d5b2480124b7649d9265a2b84d8dafe37f88f838',
    win32_x64_137: '84ae72d2149e6ffa2a44063344073599027b1ce8bffaab3957903f966b0c6bb9',
  },
};

/**
 * uWebSockets.js v20.30.0 as `@trufflesuite/uws-js-unofficial@20.30.0-unofficial.0` (npm alias
 * `uws-legacy-glibc`): kept for Node 20 (ABI 115) on Linux with glibc < 2.38 (its binaries need
 * glibc 2.27), where v20.57.0's binary does not load. Only its ABI-115 binaries are pinned.
 */
export const UWS_V20_30_LEGACY: UwsBuild = {
  name: 'uWebSockets.js v20.30.0 (npm @trufflesuite/uws-js-unofficial@20.30.0-unofficial.0)',
  module: 'uws-legacy-glibc',
  file: (id) => `binaries/uws_${id}.node`,
  sha256: {
    linux_arm64_115: 'fa46518766a985c6a79daef039f40cccd8e98e9a288f2ceaf31a0a18901bbfd5',
    linux_arm_115: 'e1c6907fe5877bfdc3bcaa29fa78ab9dd142c4ca8d65102fbc18c9a47e478d31',
    linux_x64_115: 'f158fb441f7e2e37b3ab9a56782fe37f4c0d33b5cd32e96ee5c0120ce7db7ced',
  },
};

/** The builds tried in order: the newest first, the legacy one only where the newest does not load. */
export const UWS_BUILDS: readonly UwsBuild[] = [UWS_V20_57, UWS_V20_30_LEGACY];

/** One binary tried by {@link loadNativeUws}: where it is, what it hashed to, and why it was not used. */
export interface UwsAttempt {
  build: string;
  file: string;
  sha256: string | null;
  expected: string;
  /** Null when this binary loaded. */
  reason: string | null;
}

/** What {@link loadNativeUws} found: the module (null when no binary loaded) and every attempt in order. */
export interface NativeUwsResult {
  module: unknown | null;
  /** The attempt that loaded, or null. */
  loaded: UwsAttempt | null;
  attempts: UwsAttempt[];
  /** `<platform>_<arch>_<ABI>` of this process. */
  id: string;
}

/** `<platform>_<arch>_<ABI>` of this process (`linux_x64_127` on Node 22 on x86-64 Linux). */
export function uwsPlatformId(): string {
  return `${process.platform}_${process.arch}_${process.versions.modules}`;
}

/** Hooks {@link loadNativeUws} takes so a test can swap a binary's bytes or the dlopen step. */
export interface UwsLoadHooks {
  /** Absolute path of a build's package directory; throws when it is not installed. */
  packageDir(build: UwsBuild): string;
  readFile(file: string): Buffer;
  /** Loads a checked binary (Node's module loader by default, which calls `process.dlopen`). */
  dlopen(file: string): unknown;
}

const req = createRequire(import.meta.url);

/** The real hooks: packages resolved from this module, files read from disk, binaries loaded by `require`. */
export const defaultUwsLoadHooks: UwsLoadHooks = {
  packageDir: (build) => {
    try {
      return dirname(req.resolve(`${build.module}/package.json`));
    } catch {
      // v20.57.0's exports map hides package.json; its main file (uws.js) sits at the package root.
      return dirname(req.resolve(build.module));
    }
  },
  readFile: (file) => readFileSync(file),
  dlopen: (file) => req(file),
};

/**
 * Tries each build in {@link UWS_BUILDS} that pins a binary for this process's platform and ABI.
 * A binary is read and hashed first; one whose SHA-256 is not the pinned one is never loaded (its
 * reason says so). One that fails to load (for example `GLIBC_2.38' not found`) gives its first
 * error line as the reason, and the next build is tried.
 * `id` is this process's {@link uwsPlatformId} (a test may name another).
 * @returns the module of the first binary that loaded, or `module: null` with every attempt's reason.
 */
export function loadNativeUws(
  hooks: UwsLoadHooks = defaultUwsLoadHooks,
  id: string = uwsPlatformId(),
): NativeUwsResult {
  const attempts: UwsAttempt[] = [];
  for (const build of UWS_BUILDS) {
    const expected = build.sha256[id];
    if (!expected) continue;
    const attempt: UwsAttempt = {
      build: build.name,
      file: build.file(id),
      sha256: null,
      expected,
      reason: null,
    };
    attempts.push(attempt);
    try {
      attempt.file = join(hooks.packageDir(build), build.file(id));
      const bytes = hooks.readFile(attempt.file);
      attempt.sha256 = createHash('sha256').update(bytes).digest('hex');
    } catch (err) {
      attempt.reason = `not installed: ${firstLine(err)}`;
      continue;
    }
    if (attempt.sha256 !== expected) {
      attempt.reason = `SHA-256 ${attempt.sha256} is not the pinned ${expected}; not loaded`;
      continue;
    }
    try {
      const module = hooks.dlopen(attempt.file);
      return { module, loaded: attempt, attempts, id };
    } catch (err) {
      attempt.reason = firstLine(err);
    }
  }
  return { module: null, loaded: null, attempts, id };
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0];
}
