/**
 * The scanner's state without its listener: the store opened and checked, the key directory, the
 * ledger, the notifier and the account operations. Shared by the service (index.ts) and the
 * operator CLI's direct mode (cli.ts), so both apply the same rules to the same store.
 */
import { join } from 'node:path';
import { compileAllowlist } from '@chain-indexer/platform/security';
import type { Logger } from 'pino';
import { type Accounts, createAccounts } from './accounts.js';
import type { ScannerConfig } from './config.js';
import { createEmbeddedDirectory, type KeyDirectory } from './directory.js';
import { checkLedger, createEmbeddedLedger, type Ledger } from './ledger.js';
import { createNotifier, type Notifier } from './mailer.js';
import { openScannerStore, type ScannerStore, TABLES } from './store.js';

/** Replaceable implementations of the three seams (a shared deployment passes its own). */
export interface Seams {
  directory?: (store: ScannerStore, now: () => number) => KeyDirectory;
  ledger?: (store: ScannerStore) => Ledger;
  /**
   * True when the ledger is shared (shared/ledger.ts): balances live in the KV bucket, the local
   * store only copies rows, so the start-up ledger invariant is not checked on it.
   */
  shared?: boolean;
}

export interface ScannerCore {
  store: ScannerStore;
  directory: KeyDirectory;
  ledger: Ledger;
  notifier: Notifier;
  accounts: Accounts;
  now: () => number;
  /** Flushes pending e-mails and closes the store. */
  close(): Promise<void>;
}

/**
 * Start-up invariants of the store (docs/CONTRIBUTING.md habit 6): every key belongs to an existing account and
 * has a valid stored allowlist; the ledger sums to the balances. Returns the violations.
 */
export function checkStore(store: ScannerStore, o: { ledger?: boolean } = {}): string[] {
  const problems = o.ledger === false ? [] : checkLedger(store);
  const accounts = new Set<string>();
  store.each(TABLES.account, ([id]) => accounts.add(id));
  store.each(TABLES.key, ([id], k) => {
    if (!accounts.has(k.accountId)) problems.push(`key ${id} belongs to a missing account ${k.accountId}`);
    try {
      compileAllowlist(k.allowlist);
    } catch (err) {
      problems.push(`key ${id}: ${(err as Error).message}`);
    }
  });
  return problems;
}

/**
 * Opens the store in `config.dataDir`, checks it, and builds the directory, ledger, notifier
 * and account operations.
 * @throws StoreLockedError when another process holds the store; Error on a failed invariant.
 */
export async function openScannerCore(
  config: ScannerConfig,
  log: Logger,
  now: () => number = Date.now,
  seams: Seams = {},
): Promise<ScannerCore> {
  // The RocksDB files live in their own subdirectory, beside the outbox and the admin socket.
  const store = await openScannerStore(join(config.dataDir, 'rocks'));
  const problems = checkStore(store, { ledger: !seams.shared });
  if (problems.length) {
    await store.close();
    throw new Error(
      `scanner store ${config.dataDir} failed its start-up checks:\n  ${problems.join('\n  ')}`,
    );
  }
  const directory = (seams.directory ?? createEmbeddedDirectory)(store, now);
  const ledger = (seams.ledger ?? createEmbeddedLedger)(store);
  const notifier = createNotifier({
    smtpUrl: config.smtpUrl,
    outboxDir: config.outboxDir,
    from: config.mailFrom,
    log,
  });
  const accounts = createAccounts({ directory, notifier, now });
  return {
    store,
    directory,
    ledger,
    notifier,
    accounts,
    now,
    async close() {
      await notifier.close();
      await store.close();
    },
  };
}
