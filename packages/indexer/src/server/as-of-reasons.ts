/**
 * Why a route does not answer as of a block: the contract's `x-as-of.reason` and the detail of
 * the 400 a route answers when `atBlock` / `atBlockHash` are given to it anyway.
 *
 * A route that declares `asOf` takes the parameters (as-of.ts); every other route says why not.
 * The reason is the route's kind where that settles it (live RPC, stream, monitoring, batch), else
 * the entry of {@link NOT_STATE} naming what the route answers instead of state at a block, else
 * the default for a state route whose reads are not all block-versioned yet. An entry is read
 * only while its route does not take the parameters: a route that comes to declare `asOf` is
 * listed as taking them whatever the table says.
 */
import type { Route } from './route.js';

/** The media type of Server-Sent Events streams (the same constant the contract publishes). */
const EVENT_STREAM = 'text/event-stream';

const RECORD =
  'an immutable chain record (a block, a transaction, its receipt, logs or calls) named by its number or hash: it reads the same at every block after its own';
const EVENTS =
  'a list of past events, each row carrying its own block: history, not state at a block (the rows as of N are the rows whose block is at or below N)';
const SERIES =
  'a time series of buckets over [from, to], each dated: bound it with `to`; it is history, not state at a block';
const FACT =
  'a fact fixed when it happened (creation, first sighting), the same at every block after it and dated by its own block';
const DISCOVERY =
  'a discovery list of registered tokens or pools, each row dated by its registration block; state of one of them at a block is on its own route';
const FUNDING =
  'the funding graph: first-funding edges, each dated by the block that made it and never changed after';
const COHORTS =
  'cohorts are clustered over the whole index at the head (funding and co-trading), not versioned per block';
const CONFIG = 'service configuration (a file the operator loads), not chain state';
const CATALOGUE =
  'a static catalogue of the named rankings (each preset’s formula, parameters and the screener query it equals), the same at every block: a ranking as of a block is GET /rankings/{preset} with atBlock';

/**
 * The routes that answer something other than state at a block, by route id, with what they
 * answer instead. Every id names a registered route (as-of-reasons.test.ts).
 */
export const NOT_STATE: Readonly<Record<string, string>> = {
  'chain.block': RECORD,
  'chain.blockByHash': RECORD,
  'chain.blockTransactions': RECORD,
  'chain.blockLogs': RECORD,
  'chain.blockLogsDecoded': RECORD,
  'chain.transaction': RECORD,
  'chain.receipt': RECORD,
  'chain.transactionLogs': RECORD,
  'chain.transactionLogsDecoded': RECORD,
  'chain.transactionDecoded': RECORD,
  'chain.transactionCalls': RECORD,
  'chain.transactionInternal': RECORD,
  'chain.blockAt':
    'resolves a timestamp to the block at or before it: the way to find the block an as-of read names',
  'tokens.transfers': EVENTS,
  'tokens.authorityEvents': EVENTS,
  'tokens.swaps': EVENTS,
  'tokens.ticks': EVENTS,
  'pools.swaps': EVENTS,
  'pools.v4Swaps': EVENTS,
  'pools.liquidityEvents': EVENTS,
  'wallets.activity': EVENTS,
  'wallets.trades': EVENTS,
  'wallets.transactions': EVENTS,
  'wallets.transfers': EVENTS,
  'wallets.internal': EVENTS,
  'monitoring.gaps': 'ingest bookkeeping (open and closed gaps), not chain state at a block',
  'tokens.ohlcv': SERIES,
  'tokens.candles': SERIES,
  'tokens.mcapSeries': SERIES,
  'pools.ohlcv': SERIES,
  'pools.v4Ohlcv': SERIES,
  'pools.bars': 'bars of a fixed number of ticks or volume, each closed at its own block: history, not state',
  'pools.v4Bars':
    'bars of a fixed number of ticks or volume, each closed at its own block: history, not state',
  'tokens.creator': FACT,
  'tokens.firstSeen': FACT,
  'wallets.firstSeen': FACT,
  'tokens.list': DISCOVERY,
  'tokens.search': DISCOVERY,
  'tokens.creatorTokens': DISCOVERY,
  'tokens.launchpadLaunches': DISCOVERY,
  'pools.new': DISCOVERY,
  'pools.search': DISCOVERY,
  'pools.byCurrency': DISCOVERY,
  'tokens.poolsByCurrency': DISCOVERY,
  'wallets.fundedBy': FUNDING,
  'wallets.fundedByAll': FUNDING,
  'wallets.fundedSiblings': FUNDING,
  'wallets.funderOf': FUNDING,
  'cohorts.byToken': COHORTS,
  'cohorts.detail': COHORTS,
  'cohorts.edges': COHORTS,
  'cohorts.members': COHORTS,
  'tokens.launchpads': CONFIG,
  'addresses.label': CONFIG,
  'screener.rankings': CATALOGUE,
};

/** The reason of a state route that does not take the parameters yet. */
export const NOT_VERSIONED_YET =
  'state at a block not served yet: some of its reads are not block-versioned; atBlock/atBlockHash answer 400 bad_request, never the head';

/**
 * Why `r` does not answer as of a block (a non-empty sentence), or null when it does (it declares
 * `asOf`).
 */
export function asOfReason(r: Route): string | null {
  if (r.asOf) return null;
  if (r.kind === 'node') return 'reads the node at the block it observes (live RPC), not the index';
  if (r.mediaType === EVENT_STREAM) return 'a live stream, not a read at a block';
  const listed = NOT_STATE[r.id];
  if (listed) return listed;
  if (r.group === 'Monitoring' || !r.anchored) return 'process or service state, not chain state at a block';
  if (r.method === 'POST')
    return 'each item of a batch takes atBlock on its own route (the item is answered at its block; the batch anchor is the head)';
  return NOT_VERSIONED_YET;
}

/**
 * Whether a route answers as of a block (`atBlock` / `atBlockHash`, as-of.ts), and if not, why:
 * `{supported: true}` or `{supported: false, reason}` (the contract's `x-as-of`).
 */
export function asOfSupport(r: Route): { supported: true } | { supported: false; reason: string } {
  const reason = asOfReason(r);
  return reason === null ? { supported: true } : { supported: false, reason };
}
