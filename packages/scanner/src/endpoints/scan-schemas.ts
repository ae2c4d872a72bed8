/**
 * Schemas shared by the scan endpoints (TypeBox; published in the scanner's OpenAPI document):
 * the anchor every answer carries, addresses, shares, evidence coordinates, funding hops.
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

const Int = (description?: string) => Type.Integer({ minimum: 0, description });
const Lit = (xs: string[]) => Type.Union(xs.map((x) => Type.Literal(x)));

/** When a wallet was first observed. */
export const WalletFirstSeenSchema = Type.Object({
  block: Int(),
  txIndex: Int(),
  logIndex: Nullable(Int()),
  txHash: Hash(),
  timestamp: Int('unix seconds'),
  evidence: Type.String(),
});

const FractionSchema = (description: string) =>
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
const VenueIdentityProps = {
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

const MarkMethodSchema = Lit([
  'usd_stablecoin_par',
  'venue_price_in_usd_stablecoin',
  'venue_price_via_quote',
]);
const UnmarkedReasonSchema = Lit([
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

export const TokenListRowSchema = Type.Object({
  address: Address(),
  name: Nullable(Type.String()),
  symbol: Nullable(Type.String()),
  decimals: Nullable(Int()),
  kind: Lit(['erc20', 'candidate']),
  confirmedErc20: Type.Boolean(),
  firstSeen: Type.Object({ ...CoordinateSchema.properties, evidence: Type.String() }),
  deployer: Nullable(Address()),
  deployerReason: Nullable(Type.Literal('creation_not_observed')),
});

const AuthorityEventSchema = Type.Union([
  Type.Object({
    ...CoordinateSchema.properties,
    kind: Type.Literal('ownership_transferred'),
    previousOwner: Address(),
    newOwner: Address(),
  }),
  Type.Object({
    ...CoordinateSchema.properties,
    kind: Type.Literal('post_creation_mint'),
    to: Address(),
    value: Amount('base units'),
  }),
]);

const LaunchCoordinate = Type.Object({ ...CoordinateSchema.properties });
const LaunchSchema = Type.Object({
  launchpad: Type.String(),
  token: Address(),
  creator: Address(),
  launchSequence: Type.String(),
  state: Lit(['new', 'graduating', 'graduated']),
  name: Type.String(),
  symbol: Type.String(),
  metadataUri: Nullable(Type.String()),
  metadataUriReason: Nullable(Type.String()),
  imageUri: Nullable(Type.String()),
  imageUriReason: Nullable(Type.String()),
  imageProvenance: Type.Object({
    source: Type.Literal('launch_event'),
    scheme: Nullable(Type.String()),
    raw: Type.String(),
  }),
  created: LaunchCoordinate,
  graduationStarted: Nullable(LaunchCoordinate),
  graduated: Nullable(Type.Object({ ...CoordinateSchema.properties, pool: Address() })),
});

const MarkOutcomeSchema = Type.Union([
  Type.Object({ marked: Type.Literal(true), mark: UsdMarkSchema }),
  Type.Object({
    marked: Type.Literal(false),
    reason: UnmarkedReasonSchema,
    tried: Type.Array(Type.Object({ quote: Address(), reason: UnmarkedReasonSchema })),
  }),
]);

/** The token scan's venues and liquidity (markets reader). */
export const TokenVenuesSchema = Type.Object({
  evaluated: Type.Literal(true),
  rule: Type.String({ description: 'the default-venue rule' }),
  quotes: Type.Array(
    Type.Object({
      quote: Address('a currency the token trades against (0x0…0 = native)'),
      venue: Type.Object(VenueIdentityProps),
      price: Nullable(
        FractionSchema('quote base units per token base unit on the venue; null before any trade'),
      ),
      priceApprox: Nullable(ApproxSchema('whole quote units per whole token')),
      priceApproxReason: Nullable(Lit(['no_trade_yet', 'decimals_unknown'])),
      candidates: Type.Array(
        Type.Object({
          pool: Type.String(),
          protocol: Type.String(),
          volume24hQuote: Amount('trailing-24h quote-side volume, quote base units'),
          trades24h: Int(),
        }),
        { description: 'pools against this quote in venue order (first 20)' },
      ),
      candidatesCount: Int(),
      liquidity: Type.Object({
        tokenReserve: Amount('Σ token reserves of the V2 pools and curves, base units'),
        quoteReserve: Amount('Σ quote reserves of the V2 pools and curves, base units'),
        reservesPools: Type.Array(Type.String()),
        quoteReserveUsd: Nullable(FractionSchema('quoteReserve in USD through the quote’s mark')),
        quoteReserveUsdApprox: Nullable(ApproxSchema('USD (null when quoteReserveUsd is)')),
        concentratedPools: Type.Array(
          Type.Object({
            pool: Type.String(),
            protocol: Type.String(),
            activeLiquidity: Nullable(Amount('active liquidity L')),
            sqrtPriceX96: Nullable(Amount('Q64.96 square-root price')),
          }),
        ),
      }),
    }),
  ),
  usd: MarkOutcomeSchema,
  poolsConsidered: Int(),
  poolsTruncated: Type.Boolean(),
});

export const TokenScanSchema = Type.Object({
  kind: Type.Literal('token'),
  address: Address(),
  name: Nullable(Type.String()),
  symbol: Nullable(Type.String()),
  decimals: Nullable(Int()),
  firstSeen: Type.Object({ ...CoordinateSchema.properties, evidence: Type.String() }),
  supply: Amount('minted minus burned from transfers at the anchor, base units'),
  holders: Type.Object({
    value: Nullable(Int()),
    status: Lit(['exact', 'backfilling', 'token_not_indexed']),
    asOfBlock: Int(),
    burnSinkHolders: Nullable(Int()),
  }),
  concentration: Type.Object({
    rule: Type.String(),
    top: Type.Array(
      Type.Object({
        rank: Int(),
        wallet: Address(),
        balance: Amount('base units'),
        share: Nullable(ShareSchema),
      }),
    ),
    topShare: Nullable(ShareSchema),
    excluded: Type.Array(
      Type.Object({ wallet: Address(), balance: Amount('base units'), label: Type.String() }),
    ),
    complete: Type.Boolean(),
  }),
  creator: Type.Object({
    deployer: Nullable(Address()),
    deployerReason: Nullable(Type.Literal('creation_not_observed')),
    via: Nullable(Lit(['transaction', 'launchpad'])),
    created: Nullable(Type.Object({ block: Int(), txIndex: Int(), txHash: Hash() })),
    otherTokens: Type.Array(TokenListRowSchema),
    otherTokensComplete: Type.Boolean(),
  }),
  authorityEvents: Type.Object({ rows: Type.Array(AuthorityEventSchema), complete: Type.Boolean() }),
  launch: Nullable(LaunchSchema),
  launchReason: Nullable(Type.Literal('not_launched_on_a_registered_launchpad')),
  bundles: BundlesSchema,
  firstBuyers: Type.Object({
    rule: Type.String(),
    rows: Type.Array(BuySchema),
    transfersRead: Int(),
    complete: Type.Boolean(),
  }),
  venues: TokenVenuesSchema,
});

export const DetectionSchema = Type.Object({
  token: Address(),
  bundles: Type.Object({
    flagged: Type.Boolean(),
    rule: Type.String(),
    count: Int(),
    wallets: Int(),
    shareOfSupply: Nullable(ShareSchema),
    evidence: Type.Array(BundleSchema),
  }),
  snipers: Type.Object({
    evaluated: Type.Boolean(),
    notEvaluatedReason: Nullable(Type.Literal('no_launch_or_pool_observed')),
    flagged: Type.Boolean(),
    rule: Type.String(),
    inputs: Type.Object({
      reference: Nullable(Lit(['launch_created', 'first_pool_registered'])),
      referenceBlock: Nullable(Int('the block the sniper window starts at')),
      pool: Nullable(
        Type.Object({
          key: Type.String({ description: 'pool key (hex)' }),
          protocol: Type.String(),
          registeredBy: Lit(['factory_event', 'first_sight']),
        }),
      ),
      launchBlock: Nullable(Int()),
      withinBlocks: Int(),
    }),
    wallets: Type.Array(
      Type.Object({
        ...BuySchema.properties,
        blocksAfterLaunch: Type.Integer({ description: 'blocks after the reference block' }),
      }),
    ),
  }),
  freshWallets: Type.Object({
    flagged: Type.Boolean(),
    rule: Type.String(),
    inputs: Type.Object({ withinBlocks: Int(), buyersExamined: Int() }),
    wallets: Type.Array(
      Type.Object({
        wallet: Address(),
        firstSeen: Type.Object({ block: Int(), txHash: Hash(), evidence: Type.String() }),
        funder: Nullable(Address()),
        buy: Type.Object({ block: Int(), txIndex: Int(), logIndex: Int(), txHash: Hash() }),
        blocksBeforeBuy: Type.Integer(),
      }),
    ),
  }),
  buys: Type.Object({ rule: Type.String(), transfersRead: Int(), complete: Type.Boolean() }),
});

export const ContractScanSchema = Type.Object({
  address: Address(),
  isContract: Type.Boolean({ description: 'runtime code at the anchor block' }),
  codeHash: Nullable(Hash('keccak256 of the runtime code')),
  codeSize: Int('bytes'),
  proxy: Type.Object({
    rule: Type.String(),
    implementation: Nullable(Address()),
    admin: Nullable(Address()),
    beacon: Nullable(Address()),
    slots: Type.Record(Type.String(), Type.Object({ slot: Hash(), value: Hash('the storage word') })),
  }),
  creation: Type.Object({
    deployer: Nullable(Address()),
    block: Nullable(Int()),
    txIndex: Nullable(Int()),
    txHash: Nullable(Hash()),
    via: Nullable(Lit(['transaction', 'launchpad'])),
    reason: Nullable(Type.Literal('creation_not_observed')),
  }),
  verifiedAbi: Type.Object({
    present: Type.Boolean({ description: 'a verified ABI (VERIFIED_ABIS_DIR) is bound to this address' }),
    names: Type.Array(Type.String()),
  }),
  privilegedSelectors: Type.Object({
    rule: Type.String(),
    found: Type.Array(
      Type.Object({
        category: Lit(['mint', 'pause', 'blacklist', 'fees', 'ownership', 'upgrade']),
        signature: Type.String(),
        selector: Type.String({ pattern: '^0x[0-9a-f]{8}$' }),
      }),
    ),
  }),
  authorityEvents: Type.Object({ rows: Type.Array(AuthorityEventSchema), complete: Type.Boolean() }),
});

export const ExplorerSchema = Type.Object({
  query: Type.String(),
  kind: Lit(['transaction', 'block', 'address', 'tokens']),
  transaction: Nullable(
    Type.Object({
      hash: Hash(),
      block: Int(),
      txIndex: Int(),
      from: Nullable(Address()),
      to: Nullable(Address('null for a contract creation')),
      value: Amount('wei'),
      status: Nullable(Lit(['success', 'reverted'])),
      contractAddress: Nullable(Address()),
      logs: Int(),
    }),
  ),
  block: Nullable(
    Type.Object({
      number: Int(),
      hash: Hash(),
      parentHash: Hash(),
      timestamp: Int('unix seconds'),
      transactions: Int(),
      gasUsed: Amount('gas'),
      miner: Nullable(Address()),
    }),
  ),
  address: Nullable(
    Type.Object({
      address: Address(),
      kind: Lit(['EOA', 'contract', 'unobserved']),
      kindEvidence: Type.String(),
      labels: Type.Array(LabelSchema),
      firstSeen: Nullable(WalletFirstSeenSchema),
      firstSeenReason: Nullable(Type.Literal('not_observed')),
      observations: Type.Object({
        origin: Nullable(Int()),
        created: Nullable(Int()),
        emitted: Nullable(Int()),
      }),
      token: Nullable(TokenListRowSchema),
    }),
  ),
  tokens: Nullable(
    Type.Object({
      matches: Type.Array(
        Type.Object({ ...TokenListRowSchema.properties, matchClass: Int('1 exact symbol … 5 name prefix') }),
      ),
      truncated: Type.Boolean(),
    }),
  ),
});

const Counted = Type.Object({ count: Int(), complete: Type.Boolean() });
export const CrossChainSchema = Type.Object({
  address: Address(),
  chains: Type.Array(
    Type.Object({
      chain: Type.String(),
      chainId: Int(),
      role: Lit(['main', 'rh', 'other']),
      anchor: Nullable(AnchorSchema),
      unavailable: Nullable(Type.Object({ code: Type.String(), error: Type.String() })),
      kind: Nullable(Lit(['EOA', 'contract', 'unobserved'])),
      kindEvidence: Nullable(Type.String()),
      firstSeen: Nullable(
        Type.Object({ block: Int(), txHash: Hash(), timestamp: Int(), evidence: Type.String() }),
      ),
      activity: Nullable(Type.Object({ transactions: Counted, transfers: Counted, trades: Counted })),
      codeHash: Nullable(Hash('keccak256 of the runtime code at this chain’s anchor block')),
    }),
  ),
  sameCodeHash: Type.Array(Type.Object({ codeHash: Hash(), chains: Type.Array(Type.String()) })),
});

const RatioSchema = Type.Object(
  { numerator: Amount('quote base units, numerator'), denominator: Amount('denominator') },
  { description: 'an exact rational, quote base units' },
);

export const TradeSchema = Type.Object({
  block: Int(),
  timestamp: Int('unix seconds'),
  txIndex: Int(),
  logIndex: Int(),
  txHash: Hash(),
  pool: Type.String({ description: 'pool key (hex)' }),
  protocol: Type.String(),
  side: Lit(['buy', 'sell']),
  token: Address(),
  amountToken: Amount('token base units'),
  amountQuote: Amount('quote base units'),
  priceNumerator: Amount('quote base units per token base unit, numerator'),
  priceDenominator: Amount('denominator'),
  quote: Type.Object({
    address: Address(),
    decimals: Nullable(Int()),
    decimalsProvenance: Lit(['native_currency', 'token_metadata_fallback', 'unavailable']),
  }),
  origin: Address(),
  routerRecipient: Nullable(Address()),
  wallet: Address('the KOL wallet'),
});

export const KolSchema = Type.Object({
  rule: Type.String(),
  wallets: Type.Array(Type.Object({ wallet: Address(), labels: Type.Array(Type.String()) })),
  trades: Type.Array(TradeSchema),
  limit: Int(),
});

const WinRateSchema = Type.Object({
  wins: Int(),
  sold: Int('positions with at least one sell'),
  rate: Nullable(ShareSchema),
  complete: Type.Boolean(),
});

/** A first buy in an indexed swap. */
export const SwapBuySchema = Type.Object({
  wallet: Address('the swap’s transaction origin'),
  pool: Type.String({ description: 'pool key (hex)' }),
  protocol: Type.String(),
  quote: Address('the currency paid (0x0…0 = native)'),
  amountToken: Amount('token base units received'),
  amountQuote: Amount('quote base units paid'),
  block: Int(),
  txIndex: Int(),
  logIndex: Int(),
  txHash: Hash(),
});

export const FinderSchema = Type.Object({
  token: Address(),
  filters: Type.Object({
    earlyBuyers: Nullable(Int()),
    minRealised: Nullable(Amount('quote base units')),
    minWinRateBps: Nullable(Int()),
  }),
  rule: Type.String(),
  buys: Type.Object({
    rule: Type.String({ description: 'what a buy is (every indexed swap, any protocol and quote)' }),
    quotes: Type.Array(Address(), { description: 'the quotes whose swaps were read' }),
    swapsRead: Int(),
    complete: Type.Boolean({ description: 'false when a quote’s walk stopped at its bound' }),
  }),
  candidates: Int(),
  candidatesComplete: Type.Boolean(),
  matched: Int(),
  wallets: Type.Array(
    Type.Object({
      wallet: Address(),
      buyRank: Type.Integer({ minimum: 1 }),
      firstBuy: SwapBuySchema,
      positions: Type.Array(
        Type.Object({
          quote: Address(),
          realised: RatioSchema,
          buys: Int(),
          sells: Int(),
          quantity: Amount('token base units held from trades'),
        }),
      ),
      winRate: WinRateSchema,
    }),
  ),
});

export const AlphaSchema = Type.Object({
  formula: Type.String(),
  window: Type.Object({ days: Int(), fromDay: Int('UTC day index'), toDay: Int(), anchorTimestamp: Int() }),
  quote: Address(),
  candidates: Type.Object({
    rule: Type.String(),
    count: Int('distinct traders against the quote in the window'),
    tokens: Int('tokens paired with the quote in its registered pools'),
    swapsScanned: Int(),
    bounds: Type.Object({ pools: Int(), swaps: Int() }),
    complete: Type.Boolean({ description: 'false when a bound stopped the walk' }),
  }),
  wallets: Type.Array(
    Type.Object({
      rank: Type.Integer({ minimum: 1 }),
      wallet: Address(),
      realised: RatioSchema,
      inputs: Type.Array(
        Type.Object({
          token: Address(),
          days: Type.Array(Type.Object({ day: Int(), realised: RatioSchema })),
        }),
      ),
    }),
  ),
});

export const AnalysisSchema = Type.Object({
  subjects: Type.Array(Address()),
  subjectsFrom: Lit(['addresses', 'token_first_buyers']),
  token: Nullable(Address()),
  sharedFunders: Type.Array(
    Type.Object({
      funder: Address(),
      labels: Type.Array(LabelSchema),
      reachedBy: Type.Array(
        Type.Object({
          subject: Address(),
          hop: Type.Integer({ minimum: 1 }),
          path: Type.Array(FundingHopSchema),
        }),
      ),
    }),
  ),
  clusters: Type.Array(Type.Object({ members: Type.Array(Address()), via: Type.Array(Address()) })),
  commonTokens: Type.Array(
    Type.Object({
      token: Address(),
      symbol: Nullable(Type.String()),
      holders: Type.Array(Type.Object({ wallet: Address(), balance: Amount('token base units') })),
    }),
  ),
  coordinatedBuys: Type.Array(
    Type.Object({
      token: Address(),
      block: Int(),
      buys: Type.Array(
        Type.Object({
          wallet: Address(),
          txHash: Hash(),
          txIndex: Int(),
          logIndex: Int(),
          amountToken: Amount('token base units'),
        }),
      ),
    }),
  ),
  rules: Type.Object({
    sharedFunders: Type.String(),
    clusters: Type.String(),
    commonTokens: Type.String(),
    coordinatedBuys: Type.String(),
  }),
  bounds: Type.Object({ hops: Int(), perSubject: Int(), complete: Type.Boolean() }),
});
