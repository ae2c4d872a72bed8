/**
 * The cursor registry: every paginated walk's page-cursor key, declared once (src/schema/cursor.ts)
 * with its routes, order, anchor and key parts. Readers hand their sinks resume keys only from
 * these declarations (`encode`, or `tail` of a table key) and read `page.after` only through
 * `decode`; a route that links to another route's page mints that route's cursor from its
 * declaration (`tokens.overview` → {@link TOKEN_POOLS_RANKED}). The key bytes are the ones the
 * routes handed out before the registry existed, so cursors minted by an earlier build stay valid.
 * Ordered by domain, as the table registry is (src/schema/tables).
 */
import { K, type KeyPart } from './codec.js';
import { type AnyCursor, type CursorSpec, defineCursor, tableCursor } from './cursor.js';
import type { Table } from './table.js';
import { GAP, LOG, TX } from './tables/chain.js';
import { LIQ_EVENT, POOL_BY_COORD, POOL_BY_CURRENCY, SWAP, TOKEN_SWAP } from './tables/markets.js';
import { AUTHORITY, CREATOR_TOKEN, PAD_LAUNCH, TOKEN_BY_COORD, TRANSFER } from './tables/tokens.js';
import { TRACE_BY_ADDRESS, TRACE_FRAME, TRACE_INTERNAL } from './tables/traces.js';
import {
  ACTIVITY,
  DAILY,
  EDGE_OUT,
  FIRST_FUNDING,
  POSITION,
  WALLET_TRADE,
  WALLET_TRANSFER,
  WALLET_TX,
} from './tables/wallets.js';

/**
 * The registry's shorthands, so that one cursor is one line (as one table is in src/schema/tables):
 * `tail(name, table, under, doc, routes?)` for {@link tableCursor} and `keyed(name, routes, key
 * parts, key part names, doc, extras?)` for {@link defineCursor}; `routes` defaults to the one route
 * named `name`.
 */
const tail = <K extends unknown[], V>(
  name: string,
  table: Table<K, V>,
  under: number,
  doc: string,
  routes: string[] = [name],
) => tableCursor({ name, routes, doc, table, under });
// biome-ignore lint/suspicious/noExplicitAny: key parts of any value type (as defineCursor)
const keyed = <const P extends readonly KeyPart<any>[]>(
  name: string,
  routes: string[],
  key: P,
  keyNames: string[],
  doc: string,
  extras: Pick<CursorSpec, 'order' | 'anchor' | 'subject'> = {},
) => defineCursor({ name, routes, doc, key, keyNames, ...extras });

/**
 * Route tags shared by routes whose cursors are interchangeable (not route ids): pool ticks and
 * bars resume each other (the (block, logIndex) coordinate), /holders by balance and /top-holders.
 */
export const TICK_TAG = 'pools.tickCoordinate';
export const HOLDERS_BALANCE_TAG = 'tokens.holders.balance';

const POOL_ROUTES = (name: string) => [`pools.${name}`, `pools.v4${name[0].toUpperCase()}${name.slice(1)}`];
const CHAIN_LOG_ROUTES = [
  'chain.blockLogs',
  'chain.blockLogsDecoded',
  'chain.transactionLogs',
  'chain.transactionLogsDecoded',
];
const RANK = [K.u32] as const;

// ── chain ───────────────────────────────────────────────────────────────────────────────────────

/** A block's transactions in index order. */
// biome-ignore format: the registry keeps one cursor a line
export const CHAIN_BLOCK_TRANSACTIONS = tail('chain.blockTransactions', TX, 1, 'transactions of one block by index');
/** Logs of one block (or of one transaction's span of it) by log index, raw or decoded. */
// biome-ignore format: the registry keeps one cursor a line
export const CHAIN_LOGS = tail('chain.logs', LOG, 1, 'logs of one block by log index (a transaction: its range of the block)', CHAIN_LOG_ROUTES);
/** A transaction's call frames in pre-order. */
// biome-ignore format: the registry keeps one cursor a line
export const CHAIN_CALL_FRAMES = tail('chain.transactionCalls', TRACE_FRAME, 2, 'call frames of one transaction by ordinal');
/** A transaction's internal transfers by frame ordinal. */
// biome-ignore format: the registry keeps one cursor a line
export const CHAIN_INTERNAL = tail('chain.transactionInternal', TRACE_INTERNAL, 2, 'internal value transfers of one transaction by ordinal');
/** Ingest gaps by lane and first block (process bookkeeping, read as of the view). */
// biome-ignore format: the registry keeps one cursor a line
export const MONITORING_GAPS = tail('monitoring.gaps', GAP, 0, 'ingest gaps by (lane, fromBlock)');

// ── tokens ──────────────────────────────────────────────────────────────────────────────────────

/** A token's transfers in chain order. */
// biome-ignore format: the registry keeps one cursor a line
export const TOKEN_TRANSFERS = tail('tokens.transfers', TRANSFER, 1, "a token's transfers by (block, logIndex)");
/** A token's privileged-action events in chain order. */
// biome-ignore format: the registry keeps one cursor a line
export const TOKEN_AUTHORITY_EVENTS = tail('tokens.authorityEvents', AUTHORITY, 1, "a token's authority events by (block, logIndex)");
/** Tokens of one deployer by creation coordinate. */
// biome-ignore format: the registry keeps one cursor a line
export const TOKEN_CREATOR_TOKENS = tail('tokens.creatorTokens', CREATOR_TOKEN, 1, 'tokens by (block, txIndex, token) under one deployer');
/** The token catalogue by first-seen coordinate. */
// biome-ignore format: the registry keeps one cursor a line
export const TOKEN_CATALOGUE = tail('tokens.list', TOKEN_BY_COORD, 0, 'the catalogue by (block, txIndex, logIndex, token)');
/** Launches of one registered launchpad in chain order. */
// biome-ignore format: the registry keeps one cursor a line
export const TOKEN_PAD_LAUNCHES = tail('tokens.launchpadLaunches', PAD_LAUNCH, 1, 'launches by (block, logIndex) under one launchpad');
/**
 * Holders by balance: the versioned index's sort key (inverted balance, wallet) and the rank of
 * the row, so the next page counts on. Paged under the shared tag of /holders (sort=balance) and
 * /top-holders: their cursors are interchangeable.
 */
// biome-ignore format: the registry keeps one cursor a line
export const TOKEN_HOLDERS_BY_BALANCE = keyed('tokens.holdersByBalance', [HOLDERS_BALANCE_TAG], [K.u256Desc, K.address, K.u32], ['balanceDesc', 'wallet', 'rank'], 'holders by balance descending: sort key (balance inverted, wallet) then rank', { order: 'asc' });
/** Holders in interned wallet-id order (the versioned index's sort key). */
// biome-ignore format: the registry keeps one cursor a line
export const TOKEN_HOLDERS_BY_WALLET_ID = keyed('tokens.holdersByWalletId', ['tokens.holders.wallet_id'], [K.u64], ['walletId'], 'holders by interned wallet id');

// ── markets ─────────────────────────────────────────────────────────────────────────────────────

/** A pool's swaps in chain order (also the ticks of a pool, under the tick tag, and of a token's venue). */
// biome-ignore format: the registry keeps one cursor a line
export const POOL_SWAPS = tail('pools.swaps', SWAP, 1, "a pool's swaps by (block, logIndex)", [...POOL_ROUTES('swaps'), TICK_TAG, 'tokens.ticks']);
/** Bars folded over a pool's swaps: the last swap of the bar, (block, logIndex) as in {@link SWAP}. */
// biome-ignore format: the registry keeps one cursor a line
export const POOL_BARS = keyed('pools.bars', [TICK_TAG], [K.u64, K.u32], ['block', 'logIndex'], 'bars by the coordinate of their last trade', { order: 'asc' });
/** A pool's liquidity events in chain order. */
// biome-ignore format: the registry keeps one cursor a line
export const POOL_LIQUIDITY_EVENTS = tail('pools.liquidityEvents', LIQ_EVENT, 1, "a pool's liquidity events by (block, logIndex)");
/** Candles of one pool and frame, or a token's merged series: the bucket start (unix seconds). */
// biome-ignore format: the registry keeps one cursor a line
export const CANDLE_BUCKETS = keyed('candles', [...POOL_ROUTES('ohlcv'), 'tokens.candles', 'tokens.ohlcv', 'tokens.mcapSeries'], [K.u64], ['bucketStart'], 'candles by bucket start, unix seconds (the CANDLE key after pool and frame)');
/** The new-pools feed by creation coordinate. */
// biome-ignore format: the registry keeps one cursor a line
export const POOLS_NEW = tail('pools.new', POOL_BY_COORD, 0, 'pools by (block, logIndex, poolKey) of creation');
/** Pools holding one currency (either side) in pool-key order (the bounded pool search walks it too). */
// biome-ignore format: the registry keeps one cursor a line
export const POOLS_BY_CURRENCY = tail('pools.byCurrency', POOL_BY_CURRENCY, 1, 'pools by pool key under one currency', ['pools.byCurrency', 'tokens.poolsByCurrency', 'pools.search']);
/** A token's trades across its pools in chain order. */
// biome-ignore format: the registry keeps one cursor a line
export const TOKEN_SWAPS = tail('tokens.swaps', TOKEN_SWAP, 1, "a token's swaps by (block, logIndex)");
/**
 * A token's pools ranked (by 24h volume or liquidity): the rank of the page's last row. Handed out
 * by /tokens/{address}/pools/ranked and, for its listing's continuation, by /tokens/{address}/overview.
 */
// biome-ignore format: the registry keeps one cursor a line
export const TOKEN_POOLS_RANKED = keyed('tokens.poolsRanked', ['tokens.poolsRanked'], RANK, ['rank'], 'ranked pools by rank (1-based)', { order: 'desc', subject: ['token', 'sort', 'quote'] });
/** A token's traders ranked by quote volume in a window: the rank of the page's last row. */
// biome-ignore format: the registry keeps one cursor a line
export const TOKEN_TRADERS = keyed('tokens.traders', ['tokens.traders'], RANK, ['rank'], 'traders by rank (1-based)');

// ── screener, cohorts ───────────────────────────────────────────────────────────────────────────

/**
 * Screener rows in the sorted order: the position of the page's last row. /screener/rankings/{name}
 * pages under the screener's tag (a ranking is a screener query).
 */
// biome-ignore format: the registry keeps one cursor a line
export const SCREENER_ROWS = keyed('screener', ['screener.screener'], RANK, ['position'], 'screener rows by position (1-based) in the requested sort');
/** Cohorts of one token by id, within one funding generation. */
// biome-ignore format: the registry keeps one cursor a line
export const COHORTS_BY_TOKEN = keyed('cohorts.byToken', ['cohorts.byToken'], [K.bytes(8), K.u32], ['cohortId', 'generation'], 'cohorts by id (8 bytes), bound to the funding generation of the first page', { anchor: 'block+generation' });
/** Members of one cohort by wallet. */
// biome-ignore format: the registry keeps one cursor a line
export const COHORT_MEMBERS = keyed('cohorts.members', ['cohorts.members'], [K.address], ['wallet'], 'members by wallet address');
/** Evidence edges of one cohort: member wallet then edge kind (0 funding, 1 buy). */
// biome-ignore format: the registry keeps one cursor a line
export const COHORT_EDGES = keyed('cohorts.edges', ['cohorts.edges'], [K.address, K.u8], ['wallet', 'kind'], 'evidence edges by (wallet, kind)');

// ── wallets ─────────────────────────────────────────────────────────────────────────────────────

/** A wallet's top-level transactions in chain order. */
// biome-ignore format: the registry keeps one cursor a line
export const WALLET_TRANSACTIONS = tail('wallets.transactions', WALLET_TX, 1, "a wallet's transactions by (block, txIndex)");
/** A wallet's transfers in chain order. */
// biome-ignore format: the registry keeps one cursor a line
export const WALLET_TRANSFERS = tail('wallets.transfers', WALLET_TRANSFER, 1, "a wallet's transfers by (block, ordinal)");
/** Swaps a wallet originated in chain order. */
// biome-ignore format: the registry keeps one cursor a line
export const WALLET_TRADES = tail('wallets.trades', WALLET_TRADE, 1, "a wallet's trades by (block, logIndex)");
/** A wallet's activity feed (one row per transaction) in chain order. */
// biome-ignore format: the registry keeps one cursor a line
export const WALLET_ACTIVITY = tail('wallets.activity', ACTIVITY, 1, "a wallet's activity by (block, txIndex)");
/** Internal activity of an address (traces lane) in chain order. */
// biome-ignore format: the registry keeps one cursor a line
export const WALLET_INTERNAL = tail('wallets.internal', TRACE_BY_ADDRESS, 1, 'internal activity by (block, txIndex, ordinal, role)');
/** A wallet's first funding per asset, in asset order. */
// biome-ignore format: the registry keeps one cursor a line
export const WALLET_FUNDED_BY = tail('wallets.fundedBy', FIRST_FUNDING, 1, 'first fundings by asset');
/** Everything a funder funded, by (wallet, asset). */
// biome-ignore format: the registry keeps one cursor a line
export const WALLET_FUNDER_OF = tail('wallets.funderOf', EDGE_OUT, 1, 'funded edges by (wallet, asset)');
/** A wallet's positions by (token, quote). */
// biome-ignore format: the registry keeps one cursor a line
export const WALLET_POSITIONS = tail('wallets.positions', POSITION, 1, 'positions by (token, quote)');
/** Daily realised PnL of one (wallet, token, quote) by day. */
// biome-ignore format: the registry keeps one cursor a line
export const WALLET_PNL_DAILY = tail('wallets.pnlDaily', DAILY, 3, 'days (UTC day number) of one position');
/** A wallet's assets in token order (sort=token). */
// biome-ignore format: the registry keeps one cursor a line
export const WALLET_ASSETS_BY_TOKEN = keyed('wallets.assetsByToken', ['wallets.assets'], [K.address], ['token'], 'assets by token address');
/** A wallet's assets ranked (sort=balance|usd, desc): priced class first, value desc, then token. */
// biome-ignore format: the registry keeps one cursor a line
export const WALLET_ASSETS_RANKED = keyed('wallets.assetsRanked', ['wallets.assets'], [K.u8, K.u256, K.address], ['class', 'value', 'token'], 'assets by (class 0 priced / 1 unpriced, ranked value, token)', { order: 'desc' });

/** Every declared cursor (the registry test checks names are unique). */
export const ALL_CURSORS: readonly AnyCursor[] = [
  CHAIN_BLOCK_TRANSACTIONS,
  CHAIN_LOGS,
  CHAIN_CALL_FRAMES,
  CHAIN_INTERNAL,
  MONITORING_GAPS,
  TOKEN_TRANSFERS,
  TOKEN_AUTHORITY_EVENTS,
  TOKEN_CREATOR_TOKENS,
  TOKEN_CATALOGUE,
  TOKEN_PAD_LAUNCHES,
  TOKEN_HOLDERS_BY_BALANCE,
  TOKEN_HOLDERS_BY_WALLET_ID,
  POOL_SWAPS,
  POOL_BARS,
  POOL_LIQUIDITY_EVENTS,
  CANDLE_BUCKETS,
  POOLS_NEW,
  POOLS_BY_CURRENCY,
  TOKEN_SWAPS,
  TOKEN_POOLS_RANKED,
  TOKEN_TRADERS,
  SCREENER_ROWS,
  COHORTS_BY_TOKEN,
  COHORT_MEMBERS,
  COHORT_EDGES,
  WALLET_TRANSACTIONS,
  WALLET_TRANSFERS,
  WALLET_TRADES,
  WALLET_ACTIVITY,
  WALLET_INTERNAL,
  WALLET_FUNDED_BY,
  WALLET_FUNDER_OF,
  WALLET_POSITIONS,
  WALLET_PNL_DAILY,
  WALLET_ASSETS_BY_TOKEN,
  WALLET_ASSETS_RANKED,
];
