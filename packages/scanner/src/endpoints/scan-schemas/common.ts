/**
 * The building blocks of the scan schemas: addresses, hashes, amounts, the anchor, shares, evidence
 * coordinates, labels, funding hops, approximations and USD marks.
 */
import { type TSchema, Type } from '@sinclair/typebox';

/** A 20-byte address as sent: 0x + 40 hex digits, either case (answers are lower-case). */
export const AddressInput = (description: string) =>
  Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description });
/** A lower-case address in an answer. */
export const Address = (description?: string) => Type.String({ pattern: '^0x[0-9a-f]{40}$', description });
export const Hash = (description?: string) => Type.String({ pattern: '^0x[0-9a-f]{64}$', description });
/** A base-unit amount, decimal string (may be negative where said). */
export const Amount = (description: string) => Type.String({ pattern: '^-?[0-9]+$', description });
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** The block an answer was read at. */
export const AnchorSchema = Type.Object(
  {
    chain: Type.String({ description: "the indexer's chain name" }),
    block: Type.Integer({ minimum: 0 }),
    hash: Hash('canonical hash of the block'),
  },
  { description: 'the one block every figure of this answer was read at (R1)' },
);

/** An exact share with basis points. */
export const ShareSchema = Type.Object(
  {
    numerator: Amount('part, base units'),
    denominator: Amount('whole, base units'),
    bps: Type.Integer({ description: 'floor of 10,000 × numerator / denominator' }),
  },
  { description: 'an exact fraction' },
);

/** A chain coordinate of evidence. */
export const CoordinateSchema = Type.Object({
  block: Type.Integer({ minimum: 0 }),
  txIndex: Type.Integer({ minimum: 0 }),
  logIndex: Nullable(Type.Integer({ minimum: 0 })),
  txHash: Hash(),
});

export const LabelSchema = Type.Object({
  label: Type.String(),
  evidence: Type.String({
    description: 'where the label comes from (labels_file, registry, configuration…)',
  }),
});

export const FundingHopSchema = Type.Object({
  hop: Type.Integer({ minimum: 1, description: "1 = the address's own funder" }),
  wallet: Address('the funded wallet'),
  funder: Address("the sender of the wallet's earliest incoming value transfer"),
  assetKind: Type.Union([Type.Literal('native'), Type.Literal('erc20')]),
  asset: Nullable(Address('token; null for native value')),
  amount: Amount('base units of the asset (wei for native)'),
  txHash: Hash(),
  block: Type.Integer({ minimum: 0 }),
  txIndex: Type.Integer({ minimum: 0 }),
  logIndex: Nullable(Type.Integer({ minimum: 0 })),
  funderLabels: Type.Array(LabelSchema),
});

export const FundingChainSchema = Type.Object({
  address: Address(),
  depth: Type.Integer({ minimum: 1 }),
  hops: Type.Array(FundingHopSchema, { description: 'closest funder first' }),
  stoppedBy: Type.Union(
    ['depth_reached', 'no_funder', 'labelled_exchange', 'labelled_bridge', 'cycle'].map((s) =>
      Type.Literal(s),
    ),
  ),
  stoppedAt: Address('the wallet the walk stopped at'),
  rule: Type.String({ description: 'the rule each hop follows' }),
});

/** Codes every index-reading endpoint may answer. */
export const INDEX_ERRORS = ['CHAIN_NOT_CONFIGURED', 'INDEX_UNAVAILABLE', 'NOT_FOUND'] as const;

export const Int = (description?: string) => Type.Integer({ minimum: 0, description });
export const Lit = (xs: string[]) => Type.Union(xs.map((x) => Type.Literal(x)));

/** When a wallet was first observed. */
export const WalletFirstSeenSchema = Type.Object({
  block: Int(),
  txIndex: Int(),
  logIndex: Nullable(Int()),
  txHash: Hash(),
  timestamp: Int('unix seconds'),
  evidence: Type.String(),
});

export const FractionSchema = (description: string) =>
  Type.Object({ numerator: Amount('numerator'), denominator: Amount('denominator') }, { description });

/**
 * The decimal sibling of an exact rational (R6: approximate values say so): the rational in
 * `unit`, rounded to 12 significant digits half away from zero, plain notation
 * (packages/platform/src/decimal.ts).
 */
export const ApproxSchema = (unit: string) =>
  Type.Object(
    {
      decimal: Type.String({ pattern: '^-?(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?$', description: unit }),
      approximate: Type.Literal(true),
      significantDigits: Type.Literal(12),
    },
    {
      additionalProperties: false,
      description: `${unit}: the exact rational beside it, rounded (approximate)`,
    },
  );
const ApproxReasonSchema = Nullable(Lit(['decimals_unknown']));

/** A venue as people look it up (20-byte pool, 32-byte V4 pool id) and the indexer's pool key. */
export const VenueIdentityProps = {
  pool: Nullable(
    Address('V2/V3 pool contract (20 bytes); null for V4 (see poolId) and launchpad curves (see contract)'),
  ),
  poolId: Nullable(Hash('V4 pool id (32 bytes); null otherwise')),
  contract: Address('pool contract (V2/V3), V4 PoolManager, or launchpad curve'),
  protocol: Type.String(),
  poolKey: Type.String({
    description: "the indexer's pool key (hex), as in /index/v1/{chain}/pools/{poolKey}",
  }),
};

export const MarkMethodSchema = Lit([
  'usd_stablecoin_par',
  'venue_price_in_usd_stablecoin',
  'venue_price_via_quote',
]);
export const UnmarkedReasonSchema = Lit([
  'decimals_unknown',
  'no_pool_against_a_quote_asset',
  'venue_has_no_price_yet',
  'quote_has_no_usd_route',
]);

/** A USD mark with its method and every venue price it multiplies. */
export const UsdMarkSchema = Type.Object({
  method: MarkMethodSchema,
  usdPerBaseUnit: FractionSchema('USD per token base unit, exact'),
  usdPerUnitApprox: Nullable(ApproxSchema('USD per whole token')),
  usdPerUnitApproxReason: ApproxReasonSchema,
  stablecoin: Type.Object(
    { address: Address(), decimals: Int() },
    { description: 'the USD stablecoin the mark ends in (1 whole unit = 1 USD by convention)' },
  ),
  legs: Type.Array(
    Type.Object({
      base: Address('the currency priced (0x0…0 = native)'),
      quote: Address('the currency it is priced in'),
      ...VenueIdentityProps,
      price: FractionSchema(
        'quote base units per base base unit, after the venue’s last trade at the anchor',
      ),
      priceApprox: Nullable(ApproxSchema('whole quote units per whole base unit')),
      priceApproxReason: ApproxReasonSchema,
    }),
    { description: 'venue prices multiplied, token first; empty for a stablecoin at par' },
  ),
});
