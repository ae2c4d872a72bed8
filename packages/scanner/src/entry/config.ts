/**
 * `@chain-indexer/scanner/config`: the scanner's configuration from the environment (SCANNER_*),
 * whether it runs, and its printable (secrets masked) form.
 */

/** Reads and validates the scanner's configuration; throws on an invalid value. */
/** The configuration as printed at boot, secrets masked. */
/** Whether the environment asks for the scanner (SCANNER_PORT set). */
export { loadScannerConfig, printableScannerConfig, type ScannerConfig, scannerEnabled } from '../config.js';
