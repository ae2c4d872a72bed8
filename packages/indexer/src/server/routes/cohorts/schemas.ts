/**
 * Response schemas of the cohort routes and of the wallet routes that list cohort memberships.
 * Values are wei (decimal strings); blocks are block numbers.
 */
// biome-ignore lint/correctness/noUnusedImports: named so the emitted .d.ts can name TypeBox's symbol keys (TS4023)
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { type TSchema, Type } from '@sinclair/typebox';
import { Address, Amount, Count, Enum, Hash, Nullable, Obj, ReasonOf } from '../../schemas.js';

/** The projection the cohort routes read. */
export const WALLETS = 'wallets';

const Block = Type.Integer({ minimum: 0, description: 'block number' });
const CohortIdOut = Type.String({ pattern: '^[0-9a-f]{16}$', description: 'cohort id, 16 hex digits' });
const Signals = Type.Array(Enum(['shared_first_native_funder', 'bought_token']), {
  description: 'the admission signals, all required',
});
const NativeAsset = {
  assetKind: Type.Literal('native'),
  asset: Type.Null({ description: 'native value (a reserved kind, not a zero address)' }),
};

/** A cohort membership of a wallet. */
export const WalletCohort = Obj({
  id: CohortIdOut,
  token: Address,
  funder: { ...Address, description: 'the shared first native funder' },
  size: Count('members at the anchor (screened members included)'),
});

/** A membership dropped by an entity override. */
export const ScreenedCohort = Obj({ id: CohortIdOut, reason: Type.Literal('entity_override') });

/** The published admission rule. */
export const AdmissionRule = Obj({
  ruleVersion: Type.Integer({ minimum: 1, description: 'version of the admission rule' }),
  kind: Type.Literal('Funding'),
  signals: Signals,
  thresholds: Obj({ minMembers: Count('members a cohort needs') }),
  description: Type.String({ description: 'the rule in words' }),
});

/** Whether a cohort answer reflects the current rule and overrides. */
export const Freshness = Obj({
  ruleVersion: Type.Integer({ minimum: 1, description: 'rule version the answer was computed with' }),
  overridesVersion: Type.String({ description: 'entity-overrides version the answer was computed with' }),
  currentRuleVersion: Type.Integer({ minimum: 1 }),
  currentOverridesVersion: Type.String(),
  stale: Type.Boolean({
    description: 'computed with an older rule or overrides (never: answers are computed at read)',
  }),
  staleReasons: Type.Array(Type.String()),
});

/** A cohort of a token. */
export const CohortRow = Obj({
  id: CohortIdOut,
  kind: Type.Literal('Funding'),
  token: Address,
  funder: { ...Address, description: 'the shared first native funder' },
  size: Count('members at the anchor'),
  primaryAsset: Obj({ ...NativeAsset, primary: Type.Literal(true) }),
  generation: Count('funding generation of the token the cursor is bound to'),
});

/** Cohort metadata. */
export const CohortDetail = Obj({
  id: CohortIdOut,
  kind: Type.Literal('Funding'),
  token: Address,
  funder: Address,
  size: Count('members at the anchor, screened members excluded'),
  primaryAsset: Obj(NativeAsset),
  generation: Count('funding generation of the token'),
  freshness: Freshness,
  stale: Type.Boolean({ description: 'freshness.stale, hoisted' }),
  admissionRule: AdmissionRule,
});

const coordinate = {
  block: Block,
  txIndex: Type.Integer({ minimum: 0 }),
  txHash: Hash,
};
const FirstBuy = Obj(
  { ...coordinate, logIndex: Type.Integer({ minimum: 0 }) },
  { description: 'first buy of the token by the member (swap log)' },
);
const fundingProps = {
  ...coordinate,
  logIndex: Nullable(Type.Integer({ minimum: 0 }), 'null: native value has no log'),
  value: { ...Amount, description: 'wei, decimal string' },
};

/** A member with its evidence. */
export const MemberRow = Obj({
  wallet: Address,
  admittedBy: Obj({
    signals: Signals,
    edge: Nullable(
      Obj(
        { from: Address, to: Address, ...fundingProps },
        { description: 'the first native transfer funder → member' },
      ),
      'null only when the funding edge is missing (the candidacy requires it)',
    ),
    funder: Address,
    ...NativeAsset,
    firstBlock: Nullable(Block, 'block of the funding transfer; null with edge'),
    lastBlock: { ...Block, description: 'block of the first buy' },
  }),
  firstBuy: FirstBuy,
});

/** An evidence edge. */
export const EvidenceEdge = Type.Union([
  Obj(
    { kind: Type.Literal('funding'), from: Address, to: Address, ...NativeAsset, ...fundingProps },
    { description: 'funder → member: the first native transfer' },
  ),
  Obj(
    { kind: Type.Literal('buy'), from: Address, to: Address, ...FirstBuy.properties },
    { description: 'member → token: the first buy' },
  ),
]);

/** Page extras of the member and edge pages. */
export const CohortPageExtras: Record<string, TSchema> = {
  freshness: Freshness,
  screened: Type.Boolean({ description: 'some members are screened out' }),
  screenedOut: Type.Array(Obj({ wallet: Address, reason: Type.Literal('entity_override') })),
  cohortsComplete: Type.Boolean({ description: 'every candidate was read (at most 10,000)' }),
  cohortsIncompleteReason: ReasonOf(['member_bound_reached']),
  fundingGeneration: Count('funding generation of the token'),
};
