/**
 * Decode subsystem: pure, synchronous decoders for event logs and call inputs, shared by ingest
 * worker threads and the decoded chain-view routes. Lookup tables are built at module load;
 * verified ABIs are loaded once at start-up with {@link loadVerifiedAbis}.
 *
 * Outputs are JSON-safe: amounts are decimal strings in raw base units, addresses lowercase.
 * Anything that cannot be decoded is a typed `unknown` result, never an omission or a throw.
 */
import { type CallDecoderName, type CalldataDecoder, createCalldataDecoder } from './calldata.js';
import { createLogDecoder, type LogDecoder } from './logs.js';
import { NO_VERIFIED_ABIS, type VerifiedAbis } from './verified-abis.js';

export interface DecodersDeps {
  /** From {@link loadVerifiedAbis}; default none. */
  verifiedAbis?: VerifiedAbis;
  /** Lowercase address → calldata decoder the contract is known to be (breaks selector ties). */
  knownContracts?: ReadonlyMap<string, CallDecoderName>;
}

export interface Decoders {
  decodeLog: LogDecoder;
  decodeCalldata: CalldataDecoder;
  verifiedAbis: VerifiedAbis;
}

/** Builds both decoders over the same verified-ABI set. */
export function createDecoders(deps: DecodersDeps = {}): Decoders {
  const verifiedAbis = deps.verifiedAbis ?? NO_VERIFIED_ABIS;
  return {
    decodeLog: createLogDecoder({ verifiedAbis }),
    decodeCalldata: createCalldataDecoder({ verifiedAbis, knownContracts: deps.knownContracts }),
    verifiedAbis,
  };
}

export {
  CALL_DECODER_PRIORITY,
  type CallDecoded,
  type CallDecoderName,
  type CalldataDecoder,
  type CalldataDecoderDeps,
  type CallUnknown,
  type CallUnknownReason,
  createCalldataDecoder,
  type DecodedCall,
  decodeCalldata,
  MAX_MULTICALL_DEPTH,
} from './calldata.js';
export type { JsonValue } from './codec.js';
export { DecodeError, type DecodeErrorCode } from './errors.js';
export {
  createLogDecoder,
  type DecodedLog,
  decodeLog,
  type LogDecoded,
  type LogDecoder,
  type LogDecoderDeps,
  type LogStandard,
  type LogUnknown,
  type LogUnknownReason,
  type RawLog,
  TOPIC0,
} from './logs.js';
export {
  compileVerifiedAbis,
  loadVerifiedAbis,
  NO_VERIFIED_ABIS,
  type VerifiedAbiEntry,
  type VerifiedAbis,
} from './verified-abis.js';
