/**
 * The wallet family of the scan schemas: holdings with their USD marks, PnL, counterparties,
 * bundles and the wallet scan.
 */
import { Type } from '@sinclair/typebox';
import {
  Address,
  Amount,
  ApproxSchema,
  FractionSchema,
  FundingChainSchema,
  Hash,
  Int,
  LabelSchema,
  Lit,
  MarkMethodSchema,
  Nullable,
  ShareSchema,
  UnmarkedReasonSchema,
  UsdMarkSchema,
  WalletFirstSeenSchema,
} from './common.js';

/** A held token with its USD mark. */
export const AssetSchema = Type.Object({
  token: Address(),
  symbol: Nullable(Type.String()),
  decimals: Nullable(Int()),
  balance: Amount('transfer-sum balance, token base units (negative when transfers never credited it)'),
  balanceUnit: Type.Literal('token base units'),
  valueUsd: Nullable(FractionSchema('balance × mark.usdPerBaseUnit, USD, exact')),
  valueUsdApprox: Nullable(ApproxSchema('USD (null when unmarked: see unmarkedReason)')),
  mark: Nullable(UsdMarkSchema),
  unmarkedReason: Nullable(UnmarkedReasonSchema),
});

export const HoldingsSchema = Type.Object({
  address: Address(),
  assets: Type.Array(AssetSchema, {
    description: 'marked holdings by USD value desc first, then unmarked ones by token',
  }),
  more: Type.Boolean({ description: 'more holdings than listed' }),
  limit: Int('holdings listed at most'),
  netWorthUsd: FractionSchema('sum of the marked holdings’ USD values, exact'),
  netWorthUsdApprox: ApproxSchema('USD'),
  coverage: Type.Object({
    marked: Type.Array(Type.Object({ token: Address(), method: MarkMethodSchema })),
    unmarked: Type.Array(
      Type.Object({
        token: Address(),
        reason: UnmarkedReasonSchema,
        tried: Type.Array(Type.Object({ quote: Address(), reason: UnmarkedReasonSchema }), {
          description: 'every quote asset tried, in priority order, with why it did not mark',
        }),
      }),
    ),
    assetsExamined: Int('held tokens examined (at most 500)'),
    complete: Type.Boolean({ description: 'false when the wallet holds more tokens than examined' }),
  }),
  pricing: Type.Object({
    rule: Type.String({ description: 'the USD mark rule' }),
    unit: Type.String(),
    usdStablecoins: Type.Array(Address()),
    quoteAssets: Type.Array(Address(), { description: 'quote assets in the priority the rule tries them' }),
  }),
});

const QuoteSum = Type.Object({
  priceNumerator: Amount('quote base units, numerator'),
  priceDenominator: Amount('denominator'),
  unpricedPositions: Int('positions without a mark (not in the sum)'),
});

export const PnlSchema = Type.Object({
  realisedByQuote: Type.Record(Type.String(), QuoteSum, { description: 'quote asset → realised PnL' }),
  unrealisedByQuote: Type.Record(Type.String(), QuoteSum, { description: 'quote asset → unrealised PnL' }),
  scanBounds: Type.Object({ positionsScanned: Int(), positionBound: Int() }),
  complete: Type.Boolean(),
  incompleteReason: Nullable(Type.Literal('position_bound_reached')),
});

export const CounterpartySchema = Type.Object({
  address: Address(),
  transfersIn: Int(),
  transfersOut: Int(),
  assets: Type.Array(Nullable(Address()), { description: 'assets moved with it (null = native)' }),
});

const BundleMemberSchema = Type.Object({
  wallet: Address(),
  funding: Nullable(
    Type.Object({
      from: Address(),
      to: Address(),
      block: Int(),
      txIndex: Int(),
      txHash: Hash(),
      value: Amount('wei'),
    }),
  ),
  buy: Type.Object({ block: Int(), txIndex: Int(), logIndex: Int(), txHash: Hash() }),
  balance: Amount('token base units at the anchor'),
});

/** A bundle's own properties (fresh schema objects on each call): cohort, funder, first-buy block, members, balance. */
const bundleProps = () => ({
  cohortId: Type.String(),
  funder: Address(),
  block: Int('the block of every member’s first buy'),
  size: Int(),
  members: Type.Array(BundleMemberSchema),
  balance: Amount("members' balance at the anchor, token base units"),
});

export const WalletScanSchema = Type.Object({
  kind: Type.Literal('wallet'),
  address: Address(),
  depth: Lit(['quick', 'deep', 'max']),
  firstSeen: Nullable(WalletFirstSeenSchema),
  firstSeenReason: Nullable(Type.Literal('not_observed')),
  labels: Type.Array(LabelSchema),
  fundingChain: FundingChainSchema,
  cohorts: Type.Object({
    memberships: Type.Array(
      Type.Object({ id: Type.String(), token: Address(), funder: Address(), size: Int() }),
    ),
    screenedOut: Type.Array(Type.Object({ id: Type.String(), reason: Type.Literal('entity_override') })),
    complete: Type.Boolean(),
    rule: Type.String(),
  }),
  bundles: Type.Object({
    rule: Type.String(),
    rows: Type.Array(
      Type.Object({
        token: Address(),
        ...bundleProps(),
      }),
    ),
    complete: Type.Boolean(),
  }),
  counterparties: Type.Object({
    rows: Type.Array(CounterpartySchema),
    transfersRead: Int('most recent transfers read'),
    complete: Type.Boolean(),
  }),
  pnl: PnlSchema,
  holdings: HoldingsSchema,
});

/** A first buy from a venue. */
export const BuySchema = Type.Object({
  wallet: Address(),
  venue: Address('pool or launchpad curve the tokens came from'),
  venueLabel: Type.String(),
  amount: Amount('token base units received'),
  block: Int(),
  txIndex: Int(),
  logIndex: Int(),
  txHash: Hash(),
});

export const BundleSchema = Type.Object({
  ...bundleProps(),
  shareOfSupply: Nullable(ShareSchema),
});

export const BundlesSchema = Type.Object({
  token: Address(),
  bundles: Type.Array(BundleSchema),
  wallets: Int(),
  balance: Amount('every bundle’s balance at the anchor'),
  supply: Amount('supply from transfers at the anchor'),
  shareOfSupply: Nullable(ShareSchema),
  cohortsRead: Int(),
  complete: Type.Boolean(),
  rule: Type.String(),
});
