/** JSON renderings of token rows shared by the token routes (amounts as decimal strings). */
import type { LaunchRow, TokenRow } from '../schema/rows/tokens.js';

/** Compact catalogue row. */
export function tokenListRow(t: TokenRow): Record<string, unknown> {
  const m = t.metadata;
  return {
    address: t.address,
    name: m?.name.value ?? null,
    symbol: m?.symbol.value ?? null,
    decimals: m?.decimals.value ?? null,
    kind: t.confirmedAt ? 'erc20' : 'candidate',
    confirmedErc20: t.confirmedAt !== null,
    firstSeen: t.firstSeen,
    deployer: t.creation?.deployer ?? null,
    deployerReason: t.creation ? null : t.creationReason,
  };
}

/** Identity fields with the typed absence vocabulary. */
export function tokenIdentity(t: TokenRow): Record<string, unknown> {
  const m = t.metadata;
  return {
    address: t.address,
    name: m?.name.value ?? null,
    nameReason: m ? m.name.reason : t.metadataReason,
    nameEncoding: m?.name.encoding ?? null,
    symbol: m?.symbol.value ?? null,
    symbolReason: m ? m.symbol.reason : t.metadataReason,
    symbolEncoding: m?.symbol.encoding ?? null,
    decimals: m?.decimals.value ?? null,
    decimalsReason: m ? m.decimals.reason : t.metadataReason,
    totalSupplyAtProbe: m?.totalSupply.value ?? null,
    totalSupplyAtProbeReason: m ? m.totalSupply.reason : t.metadataReason,
    metadataProbedAtBlock: t.metadataBlock,
    kind: t.confirmedAt ? 'erc20' : 'candidate',
    confirmedErc20: t.confirmedAt !== null,
    confirmedAt: t.confirmedAt,
  };
}

export function launchJson(l: LaunchRow): Record<string, unknown> {
  return {
    launchpad: l.launchpad,
    state: l.state,
    token: l.token,
    creator: l.creator,
    launchSequence: l.launchSequence,
    name: l.name,
    symbol: l.symbol,
    metadataUri: l.metadataUri,
    metadataUriReason: l.metadataUriReason,
    imageUri: l.imageUri,
    imageUriReason: l.imageUriReason,
    imageProvenance: l.imageProvenance,
    created: l.created,
    graduationStarted: l.graduationStarted,
    graduated: l.graduated,
  };
}
