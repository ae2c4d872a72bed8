/**
 * Standalone entry: `node packages/scanner/dist/main.js` runs the scanner service alone, configured
 * from the environment (config.ts: SCANNER_PORT, SCANNER_DATA_DIR, SMTP_URL, SCANNER_OUTBOX_DIR,
 * SCANNER_UPGRADE_URL, …). No index is attached in this mode (index-port.ts): key management,
 * plans, limits, credits, whoami and usage all work; scan endpoints need the in-process mode
 * (they answer 404 CHAIN_NOT_CONFIGURED here, `missing: "index"`).
 */

import { exitUnlessHttpCore, uwsStandInWarning } from '@chain-indexer/platform/http';
import { redact, redactingLoggerOptions, restrictUmask } from '@chain-indexer/platform/security';
import { pino } from 'pino';
import { loadScannerConfig, printableScannerConfig } from './config.js';
import { createScannerService } from './service.js';

async function main(): Promise<void> {
  const config = loadScannerConfig(process.env);
  const log = pino({ level: config.logLevel, base: { component: 'scanner' }, ...redactingLoggerOptions() });
  // A native binary loads only when its SHA-256 is pinned; otherwise the stand-in serves, with one warning.
  const uwsWarning = uwsStandInWarning();
  if (uwsWarning) log.warn(uwsWarning);
  exitUnlessHttpCore((obj, msg) => log.fatal(obj, msg));
  log.info({ config: printableScannerConfig(config) }, 'scanner configuration');
  restrictUmask(); // the store, the outbox, the admin socket: 0600 files, 0700 directories
  const service = await createScannerService({ config, log });
  await service.listen();
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'scanner shutting down');
    const err = await service.close().then(
      () => null,
      (e: Error) => e,
    );
    if (err) log.error({ err: err.message }, 'scanner store did not close cleanly');
    process.exit(err ? 1 : 0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err) => {
  process.stderr.write(`fatal: ${redact(String((err as Error).stack ?? err))}\n`);
  process.exit(1);
});
