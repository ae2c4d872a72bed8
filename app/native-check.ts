/**
 * Side-effect module imported first by main.ts: checks the required native modules before the rest
 * of the service is evaluated; on a failure prints one error line per module (name, reason, fix)
 * to stderr and exits with code 1.
 */
import { checkNativeModules, nativeFailureMessage } from './native.js';

const failed = checkNativeModules();
if (failed.length > 0) {
  for (const f of failed) process.stderr.write(`fatal: ${nativeFailureMessage(f)}\n`);
  process.exit(1);
}
