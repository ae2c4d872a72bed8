/**
 * Renderings of the tokens domain's rows, each written once: the token identity (with the typed
 * absence vocabulary of metadata), the catalogue row and the launch. Every route, stream frame and
 * reader answer that shows one of these builds it here (amounts as decimal strings).
 */
import type { AbsenceReason, Coordinate, LaunchRow, TokenRow } from '../schema/rows/tokens.js';

/** Why an identity field is null: the probe's reason, or `not_probed` when no probe was made. */
type FieldReason = AbsenceReason | TokenRow['metadataReason'];

/** The token identity object of the token routes (detail, market overview). */
export interface TokenIdentity {
  address: string;
  name: string | null;
  nameReason: FieldReason;
  nameEncoding: 'string' | 'bytes32' | null;
  symbol: string | null;
  symbolReason: FieldReason;
  symbolEncoding: 'string' | 'bytes32' | null;
  decimals: number | null;
  decimalsReason: FieldReason;
  /** totalSupply() at the probe block, base units. */
  totalSupplyAtProbe: string | null;
  totalSupplyAtProbeReason: FieldReason;
  metadataProbedAtBlock: number | null;
  kind: 'erc20' | 'candidate';
  confirmedErc20: boolean;
  confirmedAt: Coordinate | null;
}

/** A catalogue row. */
export interface TokenListRow {
  address: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  kind: 'erc20' | 'candidate';
  confirmedErc20: boolean;
  firstSeen: TokenRow['firstSeen'];
  deployer: string | null;
  deployerReason: 'creation_not_observed' | null;
}

/** Identity fields of `t` with the typed absence vocabulary. */
export function tokenIdentity(t: TokenRow): TokenIdentity {
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

/** Compact catalogue row of `t`. */
export function tokenListRow(t: TokenRow): TokenListRow {
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

/** A launch as the routes and the `launches` stream show it (the stored row's fields, in order). */
export function launchJson(l: LaunchRow): LaunchRow {
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
