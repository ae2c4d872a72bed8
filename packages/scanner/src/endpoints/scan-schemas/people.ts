/**
 * The trader family of the scan schemas: trades, KOLs, win rates, finders, alpha and the analysis
 * answer.
 */
import { Type } from '@sinclair/typebox';
import {
  Address,
  Amount,
  FundingHopSchema,
  Hash,
  Int,
  LabelSchema,
  Lit,
  Nullable,
  ShareSchema,
} from './common.js';

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
