/**
 * Transaction / call-frame input decoder. Source: `input` of `eth_getBlockByNumber` full txs and
 * of callTracer frames, with the call's `to` (null for contract creation).
 *
 * Dispatch is one Map lookup on the 4-byte selector, built once at module load from `tables.ts`.
 * When several decoders share a selector, candidates are tried in this order and the first that
 * decodes wins:
 *  1. the decoder that `knownContracts` names for `to` (or, for an inner multicall call, the
 *     decoder of the enclosing multicall, since multicall delegate-calls itself);
 *  2. built-in tables in the fixed priority of {@link CALL_DECODER_PRIORITY};
 *  3. verified ABIs bound to `to`, then every verified ABI (file-name order).
 *
 * `multicall(bytes[] data)` (SwapRouter, NonfungiblePositionManager) additionally gets
 * `args.calls`: each element of `data` decoded the same way, recursively, down to
 * {@link MAX_MULTICALL_DEPTH} levels; deeper levels keep only the raw `data`.
 *
 * Never throws: every input comes back `decoded` or `unknown` with a reason (spec R10).
 */
import { type AbiFunction, parseAbiItem } from 'viem';
import { compileFunction, type FunctionDescriptor, type JsonValue, pushTo } from './codec.js';
import { type BuiltinCallDecoder, FUNCTION_TABLES } from './tables.js';
import { NO_VERIFIED_ABIS, type VerifiedAbis } from './verified-abis.js';

/** Which table decoded the call: a built-in table, or `verified_abi:<name>`. */
export type CallDecoderName = BuiltinCallDecoder | `verified_abi:${string}`;

/**
 * A decoded call. `args` holds every input in ABI order keyed by name (`arg<i>` if unnamed):
 * integers as decimal strings in raw units (wei, token base units), addresses lowercase, bytes as
 * lowercase hex, tuples as objects. A multicall also has `args.calls: DecodedCall[]`.
 */
export type CallDecoded = {
  status: 'decoded';
  /** Function name, e.g. `swapExactTokensForTokens`. */
  function: string;
  /** Canonical signature, e.g. `transfer(address,uint256)`. */
  signature: string;
  /** 0x + 8 lowercase hex. */
  selector: string;
  decoder: CallDecoderName;
  args: { [name: string]: JsonValue };
};

/**
 * Why an input was not decoded:
 * - `contract_creation`: `to` is null, so `input` is init code, not a call;
 * - `empty_calldata`: `0x` (a plain value transfer);
 * - `no_decoder_for_selector`: no table has the selector, or the input is shorter than 4 bytes
 *   (then `selector` is null);
 * - `calldata_does_not_match_abi`: the selector is known but the arguments do not decode.
 */
export type CallUnknownReason =
  | 'empty_calldata'
  | 'no_decoder_for_selector'
  | 'calldata_does_not_match_abi'
  | 'contract_creation';

export type CallUnknown = { status: 'unknown'; reason: CallUnknownReason; selector: string | null };

export type DecodedCall = CallDecoded | CallUnknown;

/** Dependencies of {@link createCalldataDecoder}. */
export interface CalldataDecoderDeps {
  /** Lowercase address → the decoder that contract is known to be (deployment registry). */
  knownContracts?: ReadonlyMap<string, CallDecoderName>;
  /** Fallback ABIs from `loadVerifiedAbis`; default none. */
  verifiedAbis?: VerifiedAbis;
}

export type CalldataDecoder = (input: string, to: string | null) => DecodedCall;

/** Fixed tie-break order of the built-in tables for a shared selector (table order in `tables.ts`). */
export const CALL_DECODER_PRIORITY: readonly BuiltinCallDecoder[] = FUNCTION_TABLES.map((t) => t.decoder);

/** Nesting bound of multicall decoding: a multicall's inner calls are depth 1; depth 3 is the last decoded. */
export const MAX_MULTICALL_DEPTH = 3;

const BUILTIN: ReadonlyMap<string, readonly FunctionDescriptor[]> = (() => {
  const map = new Map<string, FunctionDescriptor[]>();
  for (const table of FUNCTION_TABLES) {
    for (const sig of table.functions) {
      const d = compileFunction(parseAbiItem(sig) as AbiFunction, table.decoder);
      pushTo(map, d.selector, d);
    }
  }
  return map;
})();

/** Every built-in function descriptor (for tests and docs). */
export function builtinFunctions(): FunctionDescriptor[] {
  return [...BUILTIN.values()].flat();
}

const EMPTY: readonly FunctionDescriptor[] = [];

/** Builds a calldata decoder with an optional address registry and verified-ABI fallback. */
export function createCalldataDecoder(deps: CalldataDecoderDeps = {}): CalldataDecoder {
  const known = deps.knownContracts;
  const verified = deps.verifiedAbis ?? NO_VERIFIED_ABIS;

  function decode(input: string, to: string, depth: number, preferred: string | undefined): DecodedCall {
    if (!input || input === '0x') return { status: 'unknown', reason: 'empty_calldata', selector: null };
    if (input.length < 10) return { status: 'unknown', reason: 'no_decoder_for_selector', selector: null };
    const selector = input.slice(0, 10).toLowerCase();
    const builtin = BUILTIN.get(selector) ?? EMPTY;
    const bound = verified.functionsByAddress.get(to)?.get(selector) ?? EMPTY;
    const any = verified.functions.get(selector) ?? EMPTY;
    if (builtin.length + bound.length + any.length === 0)
      return { status: 'unknown', reason: 'no_decoder_for_selector', selector };

    const args = `0x${input.slice(10)}`;
    let hit: CallDecoded | null = null;
    if (preferred) {
      hit =
        tryList(builtin, args, preferred) ?? tryList(bound, args, preferred) ?? tryList(any, args, preferred);
    }
    hit ??=
      tryList(builtin, args, undefined, preferred) ??
      tryList(bound, args, undefined, preferred) ??
      tryList(any, args, undefined, preferred);
    if (!hit) return { status: 'unknown', reason: 'calldata_does_not_match_abi', selector };
    if (
      hit.signature === 'multicall(bytes[])' &&
      depth < MAX_MULTICALL_DEPTH &&
      Array.isArray(hit.args.data)
    ) {
      hit.args.calls = (hit.args.data as string[]).map((inner) => decode(inner, to, depth + 1, hit.decoder));
    }
    return hit;
  }

  return (input, to) => {
    if (to === null) return { status: 'unknown', reason: 'contract_creation', selector: null };
    if (typeof input !== 'string') return { status: 'unknown', reason: 'empty_calldata', selector: null };
    const addr = to.toLowerCase();
    return decode(input, addr, 0, known?.get(addr));
  };
}

/** Decodes one call input with the built-in tables only. See {@link createCalldataDecoder}. */
export const decodeCalldata: CalldataDecoder = createCalldataDecoder();

/** Tries `list` in order; `only` keeps just that decoder, `skip` drops one already tried. */
function tryList(
  list: readonly FunctionDescriptor[],
  args: string,
  only?: string,
  skip?: string,
): CallDecoded | null {
  for (const d of list) {
    if (only !== undefined && d.source !== only) continue;
    if (skip !== undefined && d.source === skip) continue;
    try {
      const out: { [name: string]: JsonValue } = {};
      d.inputs.decodeInto(args, out);
      return {
        status: 'decoded',
        function: d.fn,
        signature: d.signature,
        selector: d.selector,
        decoder: d.source as CallDecoderName,
        args: out,
      };
    } catch {
      // try the next candidate
    }
  }
  return null;
}
