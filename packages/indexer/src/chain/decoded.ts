/**
 * The decoded views as of an anchor: every log with its decoding, and a transaction's decoded
 * calldata, served from the rows the decoded-views projection stored beside the raw records
 * (src/chain/decoded-views.ts). Unknown items carry their typed reason, never omitted (R10).
 * Also the vocabularies of those decodings, for the contract.
 */
import type { CallUnknownReason, LogUnknownReason } from '../decode/index.js';
import { EVENT_TABLES, FUNCTION_TABLES } from '../decode/tables.js';
import { CHAIN_LOGS } from '../schema/cursors.js';
import { DECODED_LOG, DECODED_TX } from '../schema/tables/traces.js';
import type { View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';
import { envelopeAt, header, logTexts, txLocation } from './records.js';
import type { DecodedCallRecord, DecodedLogRow, NotDecoded } from './types.js';
import { walkPage } from './walk.js';

/** Built-in log standards (src/decode/tables.ts), besides `verified_abi:<name>`. */
export const LOG_STANDARDS: readonly string[] = [...new Set(EVENT_TABLES.map((t) => t.standard))];
/** Built-in calldata decoders (src/decode/tables.ts), besides `verified_abi:<name>`. */
export const CALL_DECODERS: readonly string[] = [...new Set(FUNCTION_TABLES.map((t) => t.decoder))];

/** Every reason a log is reported unknown. */
export const LOG_UNKNOWN_REASONS = [
  'no_decoder_for_topic0',
  'anonymous_or_no_topics',
  'data_does_not_match_abi',
  'not_decoded',
] as const satisfies readonly (LogUnknownReason | NotDecoded)[];
/** Every reason a call input is reported unknown. */
export const CALL_UNKNOWN_REASONS = [
  'empty_calldata',
  'no_decoder_for_selector',
  'calldata_does_not_match_abi',
  'contract_creation',
  'not_decoded',
] as const satisfies readonly (CallUnknownReason | NotDecoded)[];

// Both lists name every reason of src/decode (a new reason there fails to compile here).
type Missing<All, Listed> = Exclude<All, Listed> extends never ? true : never;
const _logReasons: Missing<LogUnknownReason, (typeof LOG_UNKNOWN_REASONS)[number]> = true;
const _callReasons: Missing<CallUnknownReason, (typeof CALL_UNKNOWN_REASONS)[number]> = true;
void _logReasons;
void _callReasons;

const NOT_DECODED_LOG = '{"status":"unknown","reason":"not_decoded","topic0":null}';
const NOT_DECODED_CALL = '{"status":"unknown","reason":"not_decoded","selector":null}';

/** `{log, decoded}` of the log at (n, i) whose raw JSON is `raw`. */
function decodedLogRow(view: View, n: number, i: number, raw: string): DecodedLogRow {
  return { log: raw, decoded: view.get(DECODED_LOG, n, i) ?? NOT_DECODED_LOG };
}

/**
 * One page of block `n`'s logs with their decodings, by log index.
 * @throws DomainError not_found when `n` is not indexed at the page's anchor.
 */
export function blockLogsDecoded(view: View, n: number, q: PageQuery, sink: PageSink<DecodedLogRow>): void {
  header(view, q.at, n);
  const text = logTexts(view, n);
  walkPage(view, CHAIN_LOGS, [n], { prefix: [n] }, q, sink, (row, [, i]) =>
    decodedLogRow(view, n, i, text(row, i)),
  );
}

/**
 * One page of transaction `hash`'s logs with their decodings, by log index.
 * @throws DomainError not_found when it is not canonical at the page's anchor.
 */
export function transactionLogsDecoded(
  view: View,
  hash: string,
  q: PageQuery,
  sink: PageSink<DecodedLogRow>,
): void {
  const loc = txLocation(view, q.at, hash);
  const n = loc.number;
  const range = {
    gte: [n, loc.firstLogIndex] as [number, number],
    lt: [n, loc.firstLogIndex + loc.logCount] as [number, number],
  };
  const text = logTexts(view, n);
  walkPage(view, CHAIN_LOGS, [n], range, q, sink, (row, [, i]) => decodedLogRow(view, n, i, text(row, i)));
}

/**
 * Transaction `hash`'s calldata decoded by the hand-written decoders or a verified ABI.
 * @throws DomainError not_found when it is not canonical at `at`.
 */
export function decodedCalldata(view: View, at: number, hash: string): DecodedCallRecord {
  const loc = txLocation(view, at, hash);
  const tx = JSON.parse(envelopeAt(view, loc)) as { hash: string; to: string | null };
  const to = tx.to ? tx.to.toLowerCase() : null;
  return {
    transactionHash: tx.hash.toLowerCase(),
    to,
    toReason: to ? null : 'contract_creation',
    decoded: view.get(DECODED_TX, loc.number, loc.txIndex) ?? NOT_DECODED_CALL,
  };
}
