/**
 * The cursor secret of a chain: the HMAC key of its page cursors (src/cursor). It never travels in
 * the change log, so no one who can read the replication stream or a snapshot can forge a cursor:
 *  - `CURSOR_SECRET` (required for ROLE=writer and ROLE=replica, ops/SCALE-OUT.md "Secrets"): the
 *    same value on the writer and its replicas, from their secrets file;
 *  - otherwise (ROLE=all) one generated per chain and kept in `<chain data dir>/cursor-secret`
 *    (mode 0600), beside the store and outside it.
 * Stores of earlier builds kept the secret in their META table (and so in the change log and the
 * snapshots). It is moved to the file (cursors minted under it stay valid) and deleted from META.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { CURSOR_SECRET_RE } from '../config/index.js';

export { CURSOR_SECRET_RE };
/** The META row earlier builds kept the secret in. */
const LEGACY_META = 'cursorSecret';
/** File name of a generated secret in the chain's data directory. */
export const CURSOR_SECRET_FILE = 'cursor-secret';

/** What {@link resolveCursorSecret} needs of the store (getMeta / deleteMeta of src/storage). */
export interface SecretStore {
  getMeta<T>(name: string): T | undefined;
  deleteMeta(name: string): void;
}

/**
 * The cursor secret (hex) of a chain.
 * @param o.configured CURSOR_SECRET (validated by the config), or null.
 * @param o.dataDir the chain's data directory (the file lives there).
 * @param o.store the chain's store: a legacy META secret is migrated out of it.
 * @param o.generate whether a missing secret may be generated (false on a replica).
 * @throws Error when no secret can be had, or the file holds something that is not a secret.
 */
export function resolveCursorSecret(o: {
  configured: string | null;
  dataDir: string;
  store: SecretStore;
  generate: boolean;
}): string {
  const legacy = o.store.getMeta<string>(LEGACY_META);
  const file = join(o.dataDir, CURSOR_SECRET_FILE);
  let secret = o.configured;
  if (!secret) {
    secret = readSecretFile(file);
    if (!secret && legacy && CURSOR_SECRET_RE.test(legacy)) secret = legacy;
    if (!secret && !o.generate)
      throw new Error(
        'no cursor secret: set CURSOR_SECRET (the writer’s, from the secrets file of ops/SCALE-OUT.md)',
      );
    secret ??= randomBytes(32).toString('hex');
    if (!readSecretFile(file)) writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  }
  // Out of the store, so out of every later change-log entry and snapshot.
  if (legacy !== undefined) o.store.deleteMeta(LEGACY_META);
  return secret;
}

/** The secret kept in `file`, or null when there is none. @throws Error when the file is not one. */
function readSecretFile(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  if (!CURSOR_SECRET_RE.test(text)) throw new Error(`${file} does not hold a hex secret of ≥ 32 bytes`);
  chmodSync(file, 0o600);
  return text;
}
