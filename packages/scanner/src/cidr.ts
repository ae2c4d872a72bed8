/**
 * IP addresses, CIDR ranges and key allowlists: the platform's module (packages/platform/src/cidr.ts),
 * shared with the indexer's proxy handling (platform/src/proxy.ts).
 */
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
} from '@chain-indexer/platform/security';
