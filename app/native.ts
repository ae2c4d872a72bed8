/**
 * Native modules the service cannot run without, checked before anything imports them (main.ts
 * imports `native-check.ts` first), so a missing or wrong-ABI binary gives one clear error naming
 * the module and the fix instead of a loader stack from deep inside the storage layer.
 */
import { createRequire } from 'node:module';

/** A native module the service loads, and how to repair it when its binary does not load. */
export interface NativeModule {
  /** npm package name. */
  name: string;
  /** What is required to load its binary. */
  entry: string;
  /** The fix, shown to the operator. */
  fix: string;
}

/** The ones whose absence stops the service (uWebSockets.js has a stand-in: `uwsStandInWarning` in @chain-indexer/platform/uws.js). */
export const REQUIRED_NATIVE_MODULES: readonly NativeModule[] = [
  {
    name: '@nxtedition/rocksdb',
    entry: '@nxtedition/rocksdb/binding.js',
    fix:
      'reinstall it for this Node and platform: `npm ci` runs its install script (approved in package.json ' +
      '`allowScripts`), which uses the prebuilt binary (linux-x64 glibc, darwin-arm64; N-API, any Node ≥ 22) ' +
      'or builds one with node-gyp (needs python3, make and a C++ compiler); or `npm rebuild @nxtedition/rocksdb`',
  },
];

/** One module that did not load: its name, the loader's reason (first line) and the fix. */
export interface NativeFailure {
  name: string;
  reason: string;
  fix: string;
}

/**
 * Loads each module's binary through `load` (the CommonJS loader by default; a test passes one that
 * throws to simulate a missing build) and returns the ones that failed, in order. Never throws.
 */
export function checkNativeModules(
  load: (id: string) => unknown = createRequire(import.meta.url),
  modules: readonly NativeModule[] = REQUIRED_NATIVE_MODULES,
): NativeFailure[] {
  const failed: NativeFailure[] = [];
  for (const m of modules) {
    try {
      load(m.entry);
    } catch (err) {
      failed.push({
        name: m.name,
        reason: String((err as Error)?.message ?? err).split('\n')[0],
        fix: m.fix,
      });
    }
  }
  return failed;
}

/** The one start-up error line for a failed module: `native module X did not load (reason); fix: …`. */
export function nativeFailureMessage(f: NativeFailure): string {
  return `native module ${f.name} did not load on Node ${process.version} (${process.platform}-${process.arch}, ABI ${process.versions.modules}): ${f.reason}; fix: ${f.fix}`;
}
