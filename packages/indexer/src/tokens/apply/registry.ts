/**
 * Token registration: a token enters the registry the first time it is seen — a top-level
 * creation whose metadata probe looks like a token, a launchpad launch, or its first Transfer /
 * WETH Deposit log. Metadata comes from the probe made at that block (eth_call name, symbol,
 * decimals, totalSupply; stored with the block so rebuilds never call the node).
 */

import type { Coordinate, TokenRow } from '../../schema/rows/tokens.js';
import { CREATOR_TOKEN, SEARCH, TOKEN_BY_COORD } from '../../schema/tables/tokens.js';
import { coordOf, saveToken, type TokensBlock, tokenOf } from './block.js';

type Hex = `0x${string}`;
/** Search terms are bounded so keys stay small; longer names are indexed by their prefix, bytes. */
const MAX_TERM_BYTES = 64;

/** Registers `address` if it is not yet a token; returns its row (null: not token-like). */
export function register(
  b: TokensBlock,
  address: string,
  at: Coordinate,
  evidence: TokenRow['firstSeen']['evidence'],
  creation: TokenRow['creation'],
): TokenRow | null {
  const have = tokenOf(b, address);
  if (have) return have;
  const meta = b.d.probes[address] ?? null;
  // A creation that answers none of symbol/decimals/totalSupply does not look like a token.
  if (
    evidence === 'top_level_creation' &&
    (!meta || (meta.symbol.value === null && meta.decimals.value === null && meta.totalSupply.value === null))
  )
    return null;
  const row: TokenRow = {
    address,
    firstSeen: { ...at, evidence },
    creation,
    creationReason: creation ? null : 'creation_not_observed',
    confirmedAt: null,
    metadata: meta,
    metadataReason: meta ? null : 'not_probed',
    metadataBlock: meta ? b.d.number : null,
    ...(b.seeds?.predating.includes(address) ? { predatesIndexedRange: true } : {}),
  };
  saveToken(b, row);
  const a = address as Hex;
  b.batch.put(TOKEN_BY_COORD, [at.block, at.txIndex, at.logIndex ?? 0xffffffff, a], null);
  if (creation)
    b.batch.put(CREATOR_TOKEN, [creation.deployer as Hex, creation.block, creation.txIndex, a], null);
  for (const [kind, term] of [
    [1, meta?.symbol.value],
    [2, meta?.name.value],
  ] as const) {
    if (!term) continue;
    const t = Buffer.from(term.toLowerCase()).subarray(0, MAX_TERM_BYTES).toString().replaceAll('\0', '');
    if (t) b.batch.put(SEARCH, [kind, t, a], null);
  }
  return row;
}

/** Registers the block's successful top-level creations that look like tokens. */
export function registerCreations(b: TokensBlock): void {
  const { d } = b;
  for (let i = 0; i < d.txs.length; i++) {
    const tx = d.txs[i];
    if (!tx.contractAddress || tx.status !== 1) continue;
    const at = coordOf(b, i, null);
    register(b, tx.contractAddress, at, 'top_level_creation', {
      ...at,
      deployer: tx.from,
      via: 'transaction',
      factory: null,
    });
  }
}
