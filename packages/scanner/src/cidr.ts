/**
 * IP addresses, CIDR ranges and key allowlists: the platform's module (packages/platform/src/cidr.ts),
 * shared with the indexer's proxy handling (platform/src/proxy.ts).
 */
export * from '@chain-indexer/platform/cidr.js';
