/**
 * Private files (SECURITY.md, "Files"): everything the services write — RocksDB files, the cursor
 * secret, the scanner's outbox `.eml` files, the admin socket — is readable by the service's own
 * user only: files 0600, directories 0700.
 *
 * The process umask is set to 077 at start ({@link restrictUmask}), so every file any library
 * creates (RocksDB's SSTs, WAL, MANIFEST and LOCK included, whose modes we do not choose) comes out
 * 0600 and every directory 0700; a data directory of an earlier build is tightened once
 * ({@link tightenTree}). Sockets are bound under an even narrower mask ({@link withUmask}).
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The umask of the services: no bit for group or others. */
export const PRIVATE_UMASK = 0o077;
/** Mode of the services' directories and files. */
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/**
 * Sets the process umask to {@link PRIVATE_UMASK} (main thread only: workers share it).
 * @returns the previous umask.
 */
export function restrictUmask(): number {
  return process.umask(PRIVATE_UMASK);
}

/** Runs `fn` (synchronous: the bind of a socket) under `mask`, then restores the umask. */
export function withUmask<T>(mask: number, fn: () => T): T {
  const old = process.umask(mask);
  try {
    return fn();
  } finally {
    process.umask(old);
  }
}

/** Creates `dir` (and parents) 0700, and makes an existing one 0700. */
export function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  chmodSync(dir, DIR_MODE);
}

/**
 * Makes every directory under `root` (itself included) 0700 and every regular file 0600; sockets,
 * symbolic links and other entries are left alone. Bounded by `maxEntries` (a data directory
 * holds thousands of files at most; a larger tree is a misconfiguration, not walked whole).
 * @returns the number of entries whose mode changed.
 */
export function tightenTree(root: string, maxEntries = 1_000_000): number {
  let changed = 0;
  let seen = 0;
  const visit = (p: string) => {
    if (++seen > maxEntries) return;
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(p);
    } catch {
      return; // vanished while walking (a compaction removed an SST)
    }
    const want = st.isDirectory() ? DIR_MODE : st.isFile() ? FILE_MODE : null;
    if (want === null) return;
    if ((st.mode & 0o777) !== want) {
      chmodSync(p, want);
      changed++;
    }
    if (st.isDirectory()) for (const n of readdirSync(p)) visit(join(p, n));
  };
  visit(root);
  return changed;
}
