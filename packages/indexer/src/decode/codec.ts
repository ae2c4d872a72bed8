/**
 * ABI codec shared by the log and calldata decoders: compiles ABI items ONCE (at module load or
 * at verified-ABI load) into small descriptors with precomputed selectors and per-parameter
 * converters, so the hot path never hashes a signature or re-parses a type string.
 *
 * Output values are JSON-safe ({@link JsonValue}):
 *  - every integer type (uintN/intN, any width) → decimal string, e.g. "-1500000000000000000"
 *    (amounts stay in the token's base units; no decimals are applied, no JS numbers are used);
 *  - address → lowercase 0x-hex (never checksummed);
 *  - bool → boolean; bytes/bytesN → lowercase 0x-hex; string → as decoded (UTF-8);
 *  - arrays → arrays; tuples → objects keyed by component name (arrays if any component is unnamed).
 */
import {
  type AbiEvent,
  type AbiFunction,
  type AbiParameter,
  decodeAbiParameters,
  type Hex,
  keccak256,
  toHex,
} from 'viem';

/** A JSON-safe decoded value. Amounts are decimal strings, never numbers. */
export type JsonValue = string | boolean | null | JsonValue[] | { [key: string]: JsonValue };

type Converter = (value: unknown) => JsonValue;
/** Decodes one 32-byte word (64 hex chars, no 0x, already checked to be hex) of an elementary static type; throws on bad padding or range. */
type WordDecoder = (word: string) => string | boolean;

const ELEMENTARY = /^(address|bool|u?int(\d*)|bytes(\d+))$/;
const PAD24 = '000000000000000000000000';
/** Whole-payload hex check; word decoders assume hex input (callers validate once per payload). */
export const HEX_DATA = /^0x(?:[0-9a-fA-F]{2})*$/;
/** A topic or ABI word with its 0x prefix. */
export const HEX_WORD = /^0x[0-9a-fA-F]{64}$/;

const VALID_BASE =
  /^(address|bool|string|bytes([1-9]|[12]\d|3[0-2])?|u?int(8|16|24|32|40|48|56|64|72|80|88|96|104|112|120|128|136|144|152|160|168|176|184|192|200|208|216|224|232|240|248|256)?|tuple)(\[\d*\])*$/;

/** Throws a TypeError unless `p` (and its components) are well-formed Solidity ABI types. */
export function assertValidParam(p: AbiParameter): void {
  if (typeof p.type !== 'string' || !VALID_BASE.test(p.type))
    throw new TypeError(`invalid ABI type ${String(p.type)}`);
  if (p.type.startsWith('tuple')) {
    const comps = (p as { components?: readonly AbiParameter[] }).components;
    if (!Array.isArray(comps)) throw new TypeError('tuple without components');
    comps.forEach(assertValidParam);
  }
}

/** Canonical ABI type as it appears in a signature: tuples expanded, names dropped. */
export function canonicalType(p: AbiParameter): string {
  if (p.type.startsWith('tuple')) {
    const comps = (p as { components?: readonly AbiParameter[] }).components ?? [];
    return `(${comps.map(canonicalType).join(',')})${p.type.slice(5)}`;
  }
  return p.type;
}

/** Canonical signature, e.g. `Transfer(address,address,uint256)`; the preimage of topic0/selector. */
export function canonicalSignature(item: AbiEvent | AbiFunction): string {
  return `${item.name}(${item.inputs.map(canonicalType).join(',')})`;
}

function hashSignature(sig: string): Hex {
  return keccak256(toHex(sig));
}

/** Word decoder for an elementary static type, or null when the type is dynamic or composite. */
export function wordDecoder(type: string): WordDecoder | null {
  const m = ELEMENTARY.exec(type);
  if (!m) return null;
  if (type === 'address') {
    return (w) => {
      if (w.length !== 64 || !w.startsWith(PAD24)) throw new RangeError('address word not left-padded');
      return `0x${w.slice(24).toLowerCase()}`;
    };
  }
  if (type === 'bool') {
    return (w) => {
      const v = BigInt(`0x${w}`);
      if (w.length !== 64 || v > 1n) throw new RangeError('bool word not 0 or 1');
      return v === 1n;
    };
  }
  if (m[3] !== undefined) {
    const n = Number(m[3]);
    if (n < 1 || n > 32) return null;
    const zeros = '0'.repeat(64 - 2 * n);
    return (w) => {
      if (w.length !== 64 || !w.endsWith(zeros)) throw new RangeError(`bytes${n} word not right-padded`);
      return `0x${w.slice(0, 2 * n).toLowerCase()}`;
    };
  }
  const bits = m[2] ? Number(m[2]) : 256;
  if (type.startsWith('u')) {
    const max = (1n << BigInt(bits)) - 1n;
    return (w) => {
      const v = BigInt(`0x${w}`);
      if (w.length !== 64 || v > max) throw new RangeError(`${type} out of range`);
      return v.toString();
    };
  }
  const min = -(1n << BigInt(bits - 1));
  const max = (1n << BigInt(bits - 1)) - 1n;
  return (w) => {
    const v = BigInt.asIntN(256, BigInt(`0x${w}`));
    if (w.length !== 64 || v < min || v > max) throw new RangeError(`${type} out of range`);
    return v.toString();
  };
}

/** Converter from viem's decoded value (bigint, number, checksummed address, nested) to JSON. */
export function converterFor(p: AbiParameter): Converter {
  const t = p.type;
  if (t.endsWith(']')) {
    const inner = converterFor({ ...p, type: t.slice(0, t.lastIndexOf('[')) } as AbiParameter);
    return (v) => (v as unknown[]).map(inner);
  }
  if (t === 'tuple') {
    const comps = (p as { components?: readonly AbiParameter[] }).components ?? [];
    const convs = comps.map(converterFor);
    const names = comps.map((c) => c.name ?? '');
    const named = names.every((n) => n !== '');
    return (v) => {
      if (named) {
        const out: { [k: string]: JsonValue } = {};
        for (let i = 0; i < convs.length; i++) {
          const raw = Array.isArray(v) ? v[i] : (v as Record<string, unknown>)[names[i]];
          out[names[i]] = convs[i](raw);
        }
        return out;
      }
      return convs.map((c, i) => c((v as unknown[])[i]));
    };
  }
  if (t === 'address') return (v) => (v as string).toLowerCase();
  if (t.startsWith('uint') || t.startsWith('int')) return (v) => (v as bigint | number).toString();
  if (t === 'bool') return (v) => v as boolean;
  if (t === 'string') return (v) => v as string;
  return (v) => (v as string).toLowerCase(); // bytes, bytesN
}

/** Name of the i-th parameter in output objects: its ABI name, or `arg<i>` when unnamed. */
export function paramName(p: AbiParameter, i: number): string {
  return p.name ? p.name : `arg${i}`;
}

/**
 * Decodes `params` from ABI-encoded `data` (0x-hex) into `out` keyed by `names`.
 * Static elementary lists take a hand-rolled word path (length, padding and range checked);
 * anything else goes through viem's `decodeAbiParameters`. Throws on mismatch.
 */
export interface ParamsCodec {
  readonly params: readonly AbiParameter[];
  readonly names: readonly string[];
  decodeInto(data: string, out: { [k: string]: JsonValue }): void;
}

export function compileParams(
  params: readonly AbiParameter[],
  names: readonly string[],
  /** Event data must be exactly the static size; calldata may carry trailing bytes (ignored, as the EVM does). */
  exactLength: boolean,
): ParamsCodec {
  const words = params.map((p) => wordDecoder(p.type));
  if (words.every((w) => w !== null)) {
    const fast = words as WordDecoder[];
    const hexLen = 2 + 64 * fast.length;
    return {
      params,
      names,
      decodeInto(data, out) {
        if (exactLength ? data.length !== hexLen : data.length < hexLen) throw new RangeError('data length');
        if (!HEX_DATA.test(data)) throw new RangeError('data not hex');
        for (let i = 0; i < fast.length; i++) out[names[i]] = fast[i](data.slice(2 + 64 * i, 66 + 64 * i));
      },
    };
  }
  const convs = params.map(converterFor);
  return {
    params,
    names,
    decodeInto(data, out) {
      const values = decodeAbiParameters(params, data as Hex) as readonly unknown[];
      for (let i = 0; i < convs.length; i++) out[names[i]] = convs[i](values[i]);
    },
  };
}

/** A compiled event: what {@link decodeLog} needs to recognise and decode one event shape. */
export interface EventDescriptor {
  readonly source: string;
  readonly event: string;
  readonly signature: string;
  readonly topic0: Hex;
  /** topics.length this shape emits: 1 + number of indexed inputs (anonymous events are not compiled). */
  readonly topicCount: number;
  /** Per indexed input: its output name and a word decoder, or null for a dynamic type (topic = keccak of value). */
  readonly indexed: readonly { name: string; word: WordDecoder | null }[];
  readonly data: ParamsCodec;
  /** Output key order: ABI input order. */
  readonly order: readonly string[];
}

export function compileEvent(item: AbiEvent, source: string): EventDescriptor {
  item.inputs.forEach(assertValidParam);
  const signature = canonicalSignature(item);
  const names = item.inputs.map(paramName);
  const indexed: { name: string; word: WordDecoder | null }[] = [];
  const dataParams: AbiParameter[] = [];
  const dataNames: string[] = [];
  item.inputs.forEach((p, i) => {
    if ((p as { indexed?: boolean }).indexed) indexed.push({ name: names[i], word: wordDecoder(p.type) });
    else {
      dataParams.push(p);
      dataNames.push(names[i]);
    }
  });
  return {
    source,
    event: item.name,
    signature,
    topic0: hashSignature(signature),
    topicCount: 1 + indexed.length,
    indexed,
    data: compileParams(dataParams, dataNames, true),
    order: names,
  };
}

/** A compiled function: selector plus an input codec. `multicall` marks `multicall(bytes[] data)`. */
export interface FunctionDescriptor {
  readonly source: string;
  readonly fn: string;
  readonly signature: string;
  readonly selector: Hex;
  readonly inputs: ParamsCodec;
  readonly multicall: boolean;
}

export function compileFunction(item: AbiFunction, source: string): FunctionDescriptor {
  item.inputs.forEach(assertValidParam);
  const signature = canonicalSignature(item);
  return {
    source,
    fn: item.name,
    signature,
    selector: hashSignature(signature).slice(0, 10) as Hex,
    inputs: compileParams(item.inputs, item.inputs.map(paramName), false),
    multicall: signature === 'multicall(bytes[])',
  };
}

/** Appends `value` to the list under `key`, creating it; used to build the dispatch maps. */
export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
