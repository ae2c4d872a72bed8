/**
 * The seam between the scanner and the index: everything scanner endpoints read from the
 * indexer goes through an {@link IndexPort}, handed to every handler as `ctx.index`.
 *
 * Phase 1 (this service's infrastructure: keys, plans, limits, credits, whoami, usage, health)
 * needs only which chains are indexed and the head each has committed, so that is all the port
 * declares today. Phase 2 (the scan endpoints: /scan, /contracts, /funding-chain, /cross-chain,
 * /analyze, /explorer, /detect, /identities, /holdings, /wallet-finder, /alpha, /kol, /bundles and
 * the /rh/ family) fills it with the domain readers the indexer's routes use — opened at one
 * anchor per answer, so each answer carries the `(chain, block, hash)` it was read at — without
 * changing the endpoint-definition API or the request pipeline.
 *
 * Implementations: the indexer builds one over its chains when it starts the scanner in-process
 * (src/main.ts); the standalone scanner (`node dist/src/scanner/main.js`) runs with
 * {@link NO_INDEX} until phase 2 gives it a way to read an index from another process.
 */

/** A canonical block an answer was read at: the scanner's form of the indexer's anchor (R1). */
export interface ChainAnchor {
  /** Chain name as served by the indexer under /index/v1/{chain}. */
  chain: string;
  block: number;
  hash: `0x${string}`;
}

/** One chain the index serves. */
export interface IndexedChain {
  /** Chain name (the indexer's `{chain}`). */
  name: string;
  /** EIP-155 chain id. */
  chainId: number;
  /**
   * The scanner's role of this chain: `main` answers the unprefixed endpoints, `rh` the `/rh/`
   * family (Robinhood Chain), `other` is indexed but not routed by the scanner.
   */
  role: 'main' | 'rh' | 'other';
}

/** What the scanner reads from the index. Synchronous: reads sit between two committed blocks. */
export interface IndexPort {
  /** The chains the index serves. */
  chains(): readonly IndexedChain[];
  /** The head the chain's index has committed, or null when nothing is indexed yet (or unknown). */
  head(chain: string): ChainAnchor | null;
}

/** The port of a scanner with no index attached (standalone, phase 1): no chains. */
export const NO_INDEX: IndexPort = {
  chains: () => [],
  head: () => null,
};

/**
 * The scanner role of each served chain: `main` is SCANNER_MAIN_CHAIN (default: the first chain),
 * `rh` is SCANNER_RH_CHAIN (default: the second embedded devnet of DEVNET_CHAINS=2, otherwise no
 * chain, and the /rh/ family will answer a typed refusal naming the missing configuration); the
 * rest are `other`.
 * @throws Error when a named chain is not served, or main and rh are the same chain.
 */
export function chainRoles(
  names: readonly string[],
  env: NodeJS.ProcessEnv,
  embeddedDevnet: boolean,
): Map<string, IndexedChain['role']> {
  const main = env.SCANNER_MAIN_CHAIN || names[0];
  const rh = env.SCANNER_RH_CHAIN || (embeddedDevnet && names.length > 1 ? names[1] : null);
  for (const [v, n] of [
    ['SCANNER_MAIN_CHAIN', main],
    ['SCANNER_RH_CHAIN', rh],
  ] as const)
    if (n !== null && n !== undefined && !names.includes(n))
      throw new Error(`${v}: chain "${n}" is not served (served: ${names.join(', ')})`);
  if (rh !== null && rh === main) throw new Error(`SCANNER_RH_CHAIN and SCANNER_MAIN_CHAIN are both "${rh}"`);
  return new Map(names.map((n) => [n, n === main ? 'main' : n === rh ? 'rh' : 'other']));
}
