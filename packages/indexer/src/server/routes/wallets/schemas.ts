/**
 * Response schemas of the wallet routes (history, activity, funding graph, positions and PnL,
 * holdings). Amounts are base units as decimal strings (R6); PnL figures are exact rationals in
 * quote base units; null fields carry a sibling reason or say when they are null (R7).
 */
// biome-ignore lint/correctness/noUnusedImports: named so the emitted .d.ts can name TypeBox's symbol keys (TS4023)
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { type TSchema, Type } from '@sinclair/typebox';
import {
  Address,
  Amount,
  Approx,
  Count,
  Enum,
  Hash,
  IntString,
  Nullable,
  Obj,
  ReasonOf,
  UnixSeconds,
} from '../../schemas.js';
import { InternalTransfer, TransactionEnvelope } from '../chain/schemas.js';
import { BalanceFidelity } from '../tokens/schemas.js';

/** The projection every wallet route reads. */
export const WALLETS = 'wallets';

/** The as-of note of the wallet holdings routes (appended to their summaries). */
export const AS_OF_HOLDINGS =
  ' As of a block: atBlock / atBlockHash (balances = the latest tokens.balance_history row of each held token at or below N; metadata, registered pools and authority events at or below N; reconciliation stays the token’s latest verdict).';
/** The as-of note of the positions and PnL routes (appended to their summaries). */
export const AS_OF_POSITIONS =
  ' As of a block: atBlock / atBlockHash (each position = the latest wallets.position_history version at or below N, one reverse seek; marks from the default venue’s state and 24h volumes at N).';

const Block = Type.Integer({ minimum: 0, description: 'block number' });
const TxIndex = Type.Integer({ minimum: 0, description: 'transaction index in the block' });
const Positive = Type.String({ pattern: '^[1-9][0-9]*$' });

/** An exact rational with its floor (quote base units). */
export const RationalWithFloor = (what: string) =>
  Obj(
    {
      numerator: { ...IntString, description: 'numerator, decimal string' },
      denominator: { ...Positive, description: 'denominator (> 0), decimal string' },
      floor: { ...IntString, description: '⌊numerator / denominator⌋, for convenience' },
      approx: Approx(`${what}, quote base units`),
    },
    { description: `${what}: exact rational, quote base units` },
  );

/** An exact rational `{priceNumerator, priceDenominator}` in the stated unit. */
export const PriceRational = (unit: string) =>
  Obj(
    {
      priceNumerator: { ...IntString, description: 'numerator, decimal string' },
      priceDenominator: { ...Positive, description: 'denominator (> 0), decimal string' },
      approx: Approx(unit),
    },
    { description: `exact rational: ${unit}` },
  );

const AssetKind = Enum(
  ['native', 'erc20'],
  'native: top-level value (a reserved kind, not a zero address); erc20: a token (WETH deposits/withdrawals included)',
);
const AssetOf = Nullable(Address, 'the token; null for native value (assetKind native)');

/** A top-level transaction of the wallet. */
export const WalletTransaction = Obj({
  block: Block,
  txIndex: TxIndex,
  role: Enum(['origin', 'recipient', 'origin_and_recipient'], 'the wallet signed it, received it, or both'),
  transaction: TransactionEnvelope,
});

const transferProps = {
  block: Block,
  txIndex: TxIndex,
  logIndex: Nullable(Type.Integer({ minimum: 0 }), 'log index; null for native value (no log)'),
  txHash: Hash,
  assetKind: AssetKind,
  asset: AssetOf,
  from: Address,
  to: Address,
  value: { ...Amount, description: 'base units of the asset (wei for native), decimal string' },
  direction: Enum(['in', 'out', 'self'], 'from the wallet: received, sent, or sent to itself'),
};
/** A direction-aware transfer of the wallet. */
export const WalletTransfer = Obj(transferProps);

const tradeProps = {
  block: Block,
  timestamp: UnixSeconds('block timestamp, unix seconds'),
  txIndex: TxIndex,
  logIndex: Type.Integer({ minimum: 0, description: 'log index of the swap event' }),
  txHash: Hash,
  pool: Type.String({ pattern: '^0x[0-9a-f]{104}$', description: 'pool key (52 bytes hex)' }),
  protocol: Enum(['v2', 'v3', 'v4', 'launchpad']),
  side: Enum(['buy', 'sell'], 'buy: the wallet received the token; sell: it gave the token'),
  token: Address,
  amountToken: { ...Amount, description: 'token base units moved, decimal string' },
  amountQuote: { ...Amount, description: 'quote base units moved, decimal string' },
  priceNumerator: {
    ...IntString,
    description: 'price after the trade, quote base units per token base unit: numerator',
  },
  priceDenominator: { ...Positive, description: 'price after the trade: denominator' },
  priceApprox: Approx('price after the trade, quote base units per token base unit'),
  quote: Obj({
    address: { ...Address, description: 'quote asset (the zero address is native currency)' },
    decimals: Nullable(Type.Integer({ minimum: 0 }), 'null when decimalsProvenance is unavailable'),
    decimalsProvenance: Enum(
      ['native_currency', 'token_metadata_fallback', 'unavailable'],
      'native_currency: 18; token_metadata_fallback: decimals() of the quote token; unavailable: not probed or absent',
    ),
  }),
  origin: { ...Address, description: 'the transaction sender (the wallet), never the router' },
  routerRecipient: Nullable(Address, 'recipient the swap event reports; null when the protocol reports none'),
};
/** A swap the wallet originated. */
export const WalletTrade = Obj(tradeProps);

/** A parent of the activity feed with its typed children. */
export const ActivityParent = Obj({
  block: Block,
  txIndex: TxIndex,
  txHash: Nullable(Hash, 'null only when the transaction record is missing from the index'),
  events: Type.Array(
    Type.Union([
      Obj({ type: Type.Literal('transaction'), transaction: TransactionEnvelope }),
      Obj({ type: Type.Literal('transfer'), ...transferProps }),
      Obj({ type: Type.Literal('trade'), ...tradeProps }),
    ]),
    {
      description: 'transaction (origin or recipient), then transfers (log order, native last), then trades',
    },
  ),
});

/** When and how a wallet was first observed. */
export const FirstSeenProps = {
  block: Block,
  txIndex: TxIndex,
  logIndex: Nullable(Type.Integer({ minimum: 0 }), 'null for transaction-level evidence'),
  txHash: Hash,
  timestamp: UnixSeconds('block timestamp, unix seconds'),
  evidence: Enum(
    ['transaction_origin', 'incoming_native_transfer', 'incoming_token_transfer'],
    'how the wallet was first observed',
  ),
};
export const FirstSeen = Obj(FirstSeenProps);

const FirstTransfer = Obj(
  {
    block: Block,
    txIndex: TxIndex,
    logIndex: Nullable(Type.Integer({ minimum: 0 }), 'null for native value'),
    txHash: Hash,
    value: { ...Amount, description: 'base units of the asset (wei for native)' },
  },
  { description: 'the first transfer of the edge' },
);

/** The earliest incoming value transfer in one asset. */
export const FirstFunding = Obj({
  funder: { ...Address, description: 'sender of the transfer' },
  assetKind: AssetKind,
  asset: AssetOf,
  block: Block,
  txIndex: TxIndex,
  logIndex: Nullable(Type.Integer({ minimum: 0 }), 'null for native value'),
  txHash: Hash,
  value: { ...Amount, description: 'base units of the asset (wei for native)' },
});

const edgeProps = {
  funder: Address,
  assetKind: AssetKind,
  asset: AssetOf,
  first: FirstTransfer,
  lastBlock: { ...Block, description: 'block of the latest transfer of the edge' },
  count: Count('transfers on the edge'),
  total: { ...Amount, description: 'sum of the edge transfers, base units of the asset' },
};
/** A funder edge into a wallet. */
export const FundingEdge = Obj(edgeProps);
/** A funder edge naming the funded wallet. */
export const FundedEdge = Obj({ ...edgeProps, wallet: { ...Address, description: 'the funded wallet' } });

/** A position valued at the anchor. */
export const Position = Obj({
  token: Address,
  symbol: Nullable(Type.String(), "token symbol; null when the token's metadata is not probed or absent"),
  quote: { ...Address, description: 'quote asset the position is valued in (zero address: native)' },
  quantity: { ...Amount, description: 'token base units held from trades' },
  cost: RationalWithFloor('cost of the held quantity'),
  averageCost: Nullable(
    PriceRational('quote base units per token base unit'),
    'null when nothing is held (quantity 0)',
  ),
  realised: RationalWithFloor('realised PnL'),
  unrealised: Nullable(
    RationalWithFloor('mark value minus cost (0 when nothing is held)'),
    'see unrealisedReason',
  ),
  unrealisedReason: ReasonOf(['no_price_on_default_venue']),
  markPrice: Nullable(
    PriceRational('quote base units per token base unit on the default venue at the anchor'),
    'see markReason',
  ),
  markVenue: Nullable(
    Type.String({ pattern: '^0x[0-9a-f]{104}$' }),
    'pool key of the default venue; see markReason',
  ),
  markReason: ReasonOf(['nothing_held', 'no_price_on_default_venue']),
  buys: Count('buy trades'),
  sells: Count('sell trades'),
  boughtQuantity: { ...Amount, description: 'token base units bought in trades' },
  soldQuantity: { ...Amount, description: 'token base units sold in trades' },
  unexplainedSold: {
    ...Amount,
    description:
      'token base units sold beyond what trades bought (inventory from transfers: zero cost basis)',
  },
  abnormal: Type.Boolean({ description: 'sold more than trades bought' }),
  abnormalReason: ReasonOf(
    ['sold_more_than_bought_in_trades'],
    'why abnormal is true (inventory from transfers carries zero cost basis); null otherwise',
  ),
  firstBlock: { ...Block, description: 'block of the first trade' },
  lastBlock: { ...Block, description: 'block of the latest trade' },
  reconciliation: BalanceFidelity,
});

/** A per-quote sum (keys: quote asset addresses). */
export const ByQuote = (what: string) =>
  Type.Record(
    Type.String({ pattern: '^0x[0-9a-f]{40}$' }),
    Obj({
      priceNumerator: { ...IntString, description: `${what}: numerator, quote base units` },
      priceDenominator: { ...Positive, description: `${what}: denominator` },
      approx: Approx(`${what}, quote base units`),
      unpricedPositions: Count('positions without a mark (not in the unrealised sum)'),
    }),
    { additionalProperties: false, description: `${what} per quote asset (never blended across quotes)` },
  );

/** A held token. */
export const Asset = Obj({
  token: Address,
  symbol: Nullable(Type.String(), "token symbol; null when the token's metadata is not probed or absent"),
  decimals: Nullable(
    Type.Integer({ minimum: 0 }),
    "token decimals; null when the token's metadata is not probed or absent",
  ),
  balance: { ...Amount, description: 'transfer-sum balance (R9), token base units, non-zero' },
  balanceUnit: Type.Literal('token base units'),
  balanceUsd: Obj({
    value: Nullable(PriceRational('USD (stablecoins at par)'), 'see reason'),
    reason: ReasonOf(
      ['decimals_unknown', 'no_usd_route'],
      'decimals_unknown: a stablecoin without decimals; no_usd_route: not a USD stablecoin; null when value is present',
    ),
  }),
  reconciliation: BalanceFidelity,
});

/** An internal transfer or creation the address took part in. */
export const AddressInternal = Obj({
  block: Block,
  txIndex: TxIndex,
  role: Enum(['sender', 'recipient', 'creator', 'created'], "the address's part in the frame"),
  ...InternalTransfer.properties,
});

/** `{wallet}` page extra. */
export const WalletExtra: Record<string, TSchema> = {
  wallet: { ...Address, description: 'the wallet (lowercase)' },
};
