/**
 * Event log decoder. Source: receipt / `eth_getLogs` log objects `{address, topics, data}` (0x-hex).
 *
 * Dispatch is one Map lookup on topic0, built once at module load from `tables.ts`. Within one
 * topic0 the candidates are tried in table order and the first whose topic count matches and
 * whose data decodes wins; that is how the shared ERC-20 / ERC-721 `Transfer` topic0 is split
 * (3 topics: ERC-20, `value` in data; 4 topics: ERC-721, `tokenId` indexed). Verified ABIs
 * (see `verified-abis.ts`) are a fallback after the built-ins: first those bound to the log's
 * address, then all.
 *
 * Never throws: every log comes back `decoded` or `unknown` with a reason (spec R10: decoded
 * views report undecodable items as unknown rather than omitting them).
 */

import { type AbiEvent, parseAbiItem } from 'viem';
import type { JsonValue } from './codec.js';
import { compileEvent, type EventDescriptor, HEX_WORD, pushTo } from './codec.js';
import { type BuiltinLogStandard, EVENT_TABLES } from './tables.js';
import { NO_VERIFIED_ABIS, type VerifiedAbis } from './verified-abis.js';

/** A raw log as found in receipts and `eth_getLogs` results. */
export interface RawLog {
  address: string;
  topics: readonly string[];
  data: string;
}

/** Which table decoded the log: a built-in family, or `verified_abi:<name>`. */
export type LogStandard = BuiltinLogStandard | `verified_abi:${string}`;

/**
 * A decoded log. `args` holds every input in ABI order, keyed by input name (`arg<i>` if unnamed):
 * integers as decimal strings in raw base units (never numbers), addresses lowercase, bytes as
 * lowercase hex. An indexed dynamic input (string, bytes, array, tuple) is its topic: the keccak256
 * of the value, as hex.
 */
export type LogDecoded = {
  status: 'decoded';
  /** Event name, e.g. `Transfer`. */
  event: string;
  standard: LogStandard;
  /** Canonical signature, the preimage of topic0, e.g. `Transfer(address,address,uint256)`. */
  signature: string;
  args: { [name: string]: JsonValue };
};

/**
 * Why a log was not decoded:
 * - `anonymous_or_no_topics`: no topics (anonymous event), so nothing to dispatch on;
 * - `no_decoder_for_topic0`: no built-in or verified event has this topic0;
 * - `data_does_not_match_abi`: events with this topic0 exist, but none fits the log's topic
 *   count, topic words or data (length, padding, range).
 */
export type LogUnknownReason = 'no_decoder_for_topic0' | 'anonymous_or_no_topics' | 'data_does_not_match_abi';

export type LogUnknown = { status: 'unknown'; reason: LogUnknownReason; topic0: string | null };

export type DecodedLog = LogDecoded | LogUnknown;

/** Dependencies of {@link createLogDecoder}. */
export interface LogDecoderDeps {
  /** Fallback ABIs from `loadVerifiedAbis`; default none. */
  verifiedAbis?: VerifiedAbis;
}

export type LogDecoder = (log: RawLog) => DecodedLog;

/** Well-known topic0 values, for ingest filters. Each is keccak256 of the signature in its comment. */
export const TOPIC0 = {
  /** Transfer(address,address,uint256) */
  Transfer: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
  /** Approval(address,address,uint256) */
  Approval: '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925',
  /** ApprovalForAll(address,address,bool) */
  ApprovalForAll: '0x17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31',
  /** Deposit(address,uint256) */
  Deposit: '0xe1fffcc4923d04b559f4d29a8bfc6cda04eb5b0d3c460751c2402c5c5cc9109c',
  /** Withdrawal(address,uint256) */
  Withdrawal: '0x7fcf532c15f0a6db0bd6d0e038bea71d30d808c7d98cb3bf7268a95bf5081b65',
  /** OwnershipTransferred(address,address) */
  OwnershipTransferred: '0x8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e0',
  /** PairCreated(address,address,address,uint256) */
  V2PairCreated: '0x0d3648bd0f6ba80134a33ba9275ac585d9d315f0ad8355cddefde31afa28d0e9',
  /** Swap(address,uint256,uint256,uint256,uint256,address) */
  V2Swap: '0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822',
  /** Sync(uint112,uint112) */
  V2Sync: '0x1c411e9a96e071241c2f21f7726b17ae89e3cab4c78be50e062b03a9fffbbad1',
  /** Mint(address,uint256,uint256) */
  V2Mint: '0x4c209b5fc8ad50758f13e2e1088ba56a560dff690a1c6fef26394f4c03821c4f',
  /** Burn(address,uint256,uint256,address) */
  V2Burn: '0xdccd412f0b1252819cb1fd330b93224ca42612892bb3f4f789976e6d81936496',
  /** PoolCreated(address,address,uint24,int24,address) */
  V3PoolCreated: '0x783cca1c0412dd0d695e784568c96da2e9c22ff989357a2e8b1d9b2b4e6b7118',
  /** Initialize(uint160,int24) */
  V3Initialize: '0x98636036cb66a9c19a37435efc1e90142190214e8abeb821bdba3f2990dd4c95',
  /** Swap(address,address,int256,int256,uint160,uint128,int24) */
  V3Swap: '0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67',
  /** Mint(address,address,int24,int24,uint128,uint256,uint256) */
  V3Mint: '0x7a53080ba414158be7ec69b987b5fb7d07dee101fe85488f0853ae16239d0bde',
  /** Burn(address,int24,int24,uint128,uint256,uint256) */
  V3Burn: '0x0c396cd989a39f4459b5fa1aed6a9a8dcdbc45908acfd67e028cd568da98982c',
  /** Collect(address,address,int24,int24,uint128,uint128) */
  V3Collect: '0x70935338e69775456a85ddef226c395fb668b63fa0115f5f20610b388e6ca9c0',
  /** Flash(address,address,uint256,uint256,uint256,uint256) */
  V3Flash: '0xbdbdb71d7860376ba52b25a5028beea23581364a40522f6bcfb86bb1f2dca633',
  /** Initialize(bytes32,address,address,uint24,int24,address,uint160,int24) */
  V4Initialize: '0xdd466e674ea557f56295e2d0218a125ea4b4f0f6f3307b95f85e6110838d6438',
  /** Swap(bytes32,address,int128,int128,uint160,uint128,int24,uint24) */
  V4Swap: '0x40e9cecb9f5f1f1c5b9c97dec2917b7ee92e57ba5563708daca94dd84ad7112f',
  /** ModifyLiquidity(bytes32,address,int24,int24,int256,bytes32) */
  V4ModifyLiquidity: '0xf208f4912782fd25c7f114ca3723a2d5dd6f3bcc3ac8db5af63baa85f711d5ec',
  /** Donate(bytes32,address,uint256,uint256) */
  V4Donate: '0x29ef05caaff9404b7cb6d1c0e9bbae9eaa7ab2541feba1a9c4248594c08156cb',
  /** LaunchCreated(address,address,uint256,string,string,string,string) */
  LaunchCreated: '0x4f88ea46b85af7b8ed43d12d6cdc680aa54ad680882282e104778e8f94ccaa09',
  /** CurveTrade(address,address,bool,uint256,uint256,uint256,uint256) */
  CurveTrade: '0xf2349dcbdc966f0572ba4e9592c91b95458574147bd63698f00bb0d004ef17b2',
  /** GraduationStarted(address,uint256) */
  GraduationStarted: '0x9ab11b57d37bd4a9704d32c9cba6bbee909bb16739f081f9efe5b92bf71c7195',
  /** Graduated(address,address,uint256,uint256) */
  Graduated: '0x18a56450d3c666e2bae9e0829fcada82a9ab0deef6e33c2496752c88d4155c9d',
} as const;

/** topic0 → built-in candidates in table order. Built once per module load (per worker thread). */
const BUILTIN: ReadonlyMap<string, readonly EventDescriptor[]> = (() => {
  const map = new Map<string, EventDescriptor[]>();
  for (const table of EVENT_TABLES) {
    for (const sig of table.events) {
      const d = compileEvent(parseAbiItem(sig) as AbiEvent, table.standard);
      pushTo(map, d.topic0, d);
    }
  }
  return map;
})();

/** Every built-in event descriptor (for tests and docs). */
export function builtinEvents(): EventDescriptor[] {
  return [...BUILTIN.values()].flat();
}

/**
 * Builds a log decoder with an optional verified-ABI fallback. The returned function is pure and
 * allocation-light; call it from worker threads or request handlers alike.
 */
export function createLogDecoder(deps: LogDecoderDeps = {}): LogDecoder {
  const verified = deps.verifiedAbis ?? NO_VERIFIED_ABIS;
  const hasVerified = verified.events.size > 0;
  return (log) => {
    const topics = log.topics;
    if (!topics || topics.length === 0)
      return { status: 'unknown', reason: 'anonymous_or_no_topics', topic0: null };
    if (typeof topics[0] !== 'string' || typeof log.data !== 'string' || typeof log.address !== 'string')
      return { status: 'unknown', reason: 'data_does_not_match_abi', topic0: null };
    const topic0 = topics[0].toLowerCase();
    const builtin = BUILTIN.get(topic0);
    let tried = false;
    if (builtin) {
      tried = true;
      const r = tryAll(builtin, log);
      if (r) return r;
    }
    if (hasVerified) {
      const bound = verified.eventsByAddress.get(log.address.toLowerCase())?.get(topic0);
      if (bound) {
        tried = true;
        const r = tryAll(bound, log);
        if (r) return r;
      }
      const any = verified.events.get(topic0);
      if (any) {
        tried = true;
        const r = tryAll(any, log);
        if (r) return r;
      }
    }
    return { status: 'unknown', reason: tried ? 'data_does_not_match_abi' : 'no_decoder_for_topic0', topic0 };
  };
}

/** Decodes one log with the built-in tables only. See {@link createLogDecoder}. */
export const decodeLog: LogDecoder = createLogDecoder();

function tryAll(candidates: readonly EventDescriptor[], log: RawLog): LogDecoded | null {
  for (const d of candidates) {
    if (d.topicCount !== log.topics.length) continue;
    const r = tryOne(d, log);
    if (r) return r;
  }
  return null;
}

function tryOne(d: EventDescriptor, log: RawLog): LogDecoded | null {
  try {
    const args: { [name: string]: JsonValue } = {};
    for (const name of d.order) args[name] = null; // fixes key order to ABI order
    for (let i = 0; i < d.indexed.length; i++) {
      const { name, word } = d.indexed[i];
      const topic = log.topics[i + 1];
      if (!HEX_WORD.test(topic)) return null;
      args[name] = word ? word(topic.slice(2)) : topic.toLowerCase();
    }
    d.data.decodeInto(log.data || '0x', args);
    return {
      status: 'decoded',
      event: d.event,
      standard: d.source as LogStandard,
      signature: d.signature,
      args,
    };
  } catch {
    return null;
  }
}
