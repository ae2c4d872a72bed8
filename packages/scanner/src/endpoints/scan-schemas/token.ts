/**
 * The token family of the scan schemas: the token list row, authority events, launches, venues and
 * the token scan.
 */
import { Type } from '@sinclair/typebox';
import {
  Address,
  Amount,
  ApproxSchema,
  CoordinateSchema,
  FractionSchema,
  Hash,
  Int,
  Lit,
  Nullable,
  ShareSchema,
  UnmarkedReasonSchema,
  UsdMarkSchema,
  VenueIdentityProps,
} from './common.js';
import { BundlesSchema, BuySchema } from './wallet.js';

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

export const AuthorityEventSchema = Type.Union([
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
