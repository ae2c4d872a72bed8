/**
 * `@chain-indexer/platform/security`: what keeps secrets and access in check — redaction of known
 * secrets and secret-shaped text in logs and bodies, IP ranges (CIDR) of allowlists, and
 * owner-only files and directories.
 */

/** IP addresses and CIDR ranges: parsing, formatting, containment. */
/** Key allowlists of CIDR ranges: normalised, bounded (MAX_ALLOWLIST_ENTRIES), compiled to a check. */
export {
  type Cidr,
  cidrContains,
  compileAllowlist,
  formatCidr,
  formatIp,
  type IpAddress,
  MAX_ALLOWLIST_ENTRIES,
  normaliseAllowlist,
  parseCidr,
  parseIp,
} from '../cidr.js';
/** Owner-only files: the umask, private directories, tightening a tree's modes. */
export { FILE_MODE, privateDir, restrictUmask, tightenTree, withUmask } from '../private-files.js';
/** Redaction: remembers the configured secrets, masks them and secret-shaped text in text, values and logs. */
export {
  redact,
  redactDeep,
  redactingLoggerOptions,
  redactKnown,
  redactRecord,
  rememberSecrets,
  secretsOfUrl,
} from '../redact.js';
