/**
 * Key and value codecs of the table registry (reth's habit: every table declares how its key and
 * value are laid out, once). Keys sort correctly as bytes: integers big-endian and fixed width,
 * addresses and hashes raw fixed-width bytes, so RocksDB's lexicographic order is the logical
 * order of the key tuple.
 */

/** One part of a composite key. `width` is its byte width, or null for a variable-width part. */
export interface KeyPart<T> {
  readonly width: number | null;
  /** Bytes `v` takes (fixed parts: `width`). */
  size(v: T): number;
  /** Writes `v` at `off`; returns the offset after it. */
  write(b: Buffer, off: number, v: T): number;
  /** Reads the part at `off`; `end` is the end of the key. Returns the value and the next offset. */
  read(b: Buffer, off: number, end: number): [T, number];
}

type Hex = `0x${string}`;

function fixed<T>(
  width: number,
  write: (b: Buffer, off: number, v: T) => void,
  read: (b: Buffer, off: number) => T,
): KeyPart<T> {
  return {
    width,
    size: () => width,
    write(b, off, v) {
      write(b, off, v);
      return off + width;
    },
    read: (b, off) => [read(b, off), off + width],
  };
}

/** Fixed-width raw bytes rendered as lowercase `0x` hex (addresses, hashes, pool keys). */
function hexBytes(width: number): KeyPart<Hex> {
  return fixed<Hex>(
    width,
    (b, off, v) => {
      if (b.write(v.slice(2), off, width, 'hex') !== width)
        throw new Error(`key part: expected ${width} bytes of hex, got "${v.slice(0, 80)}"`);
    },
    (b, off) => `0x${b.toString('hex', off, off + width)}`,
  );
}

const MAX_U256 = (1n << 256n) - 1n;

/** Key part codecs. */
export const K = {
  u8: fixed<number>(
    1,
    (b, o, v) => b.writeUInt8(v, o),
    (b, o) => b.readUInt8(o),
  ),
  u16: fixed<number>(
    2,
    (b, o, v) => b.writeUInt16BE(v, o),
    (b, o) => b.readUInt16BE(o),
  ),
  u32: fixed<number>(
    4,
    (b, o, v) => b.writeUInt32BE(v >>> 0, o),
    (b, o) => b.readUInt32BE(o),
  ),
  /** 0 ≤ n < 2^53, 8 bytes big-endian. */
  u64: fixed<number>(
    8,
    (b, o, v) => {
      b.writeUInt32BE(Math.floor(v / 0x1_0000_0000), o);
      b.writeUInt32BE(v >>> 0, o + 4);
    },
    (b, o) => b.readUInt32BE(o) * 0x1_0000_0000 + b.readUInt32BE(o + 4),
  ),
  /** 20-byte address as lowercase 0x hex. */
  address: hexBytes(20),
  /** 32-byte hash / word as lowercase 0x hex. */
  hash: hexBytes(32),
  /** n raw bytes as lowercase 0x hex. */
  bytes: hexBytes,
  /**
   * A uint256 stored as 2^256 − 1 − v (32 bytes): ascending key order is descending value, so a
   * forward walk reads the largest first (balance-ranked indices).
   */
  u256Desc: fixed<bigint>(
    32,
    (b, o, v) => {
      b.write((MAX_U256 - v).toString(16).padStart(64, '0'), o, 32, 'hex');
    },
    (b, o) => MAX_U256 - BigInt(`0x${b.toString('hex', o, o + 32)}`),
  ),
  /** A uint256 as 32 bytes big-endian (ascending value order; wider values keep their low 256 bits). */
  u256: fixed<bigint>(
    32,
    (b, o, v) => {
      b.write((v & MAX_U256).toString(16).padStart(64, '0'), o, 32, 'hex');
    },
    (b, o) => BigInt(`0x${b.toString('hex', o, o + 32)}`),
  ),
  /** UTF-8 text terminated by 0x00 (the text itself never contains NUL), variable width. */
  textz: {
    width: null,
    size: (v: string) => Buffer.byteLength(v) + 1,
    write(b: Buffer, off: number, v: string) {
      const n = b.write(v, off, 'utf8');
      b[off + n] = 0;
      return off + n + 1;
    },
    read(b: Buffer, off: number, end: number): [string, number] {
      let z = b.indexOf(0, off);
      if (z < 0 || z >= end) z = end;
      return [b.toString('utf8', off, z), Math.min(z + 1, end)];
    },
  } satisfies KeyPart<string>,
  /** UTF-8 text to the end of the key (last part only), variable width. */
  textTail: {
    width: null,
    size: (v: string) => Buffer.byteLength(v),
    write: (b: Buffer, off: number, v: string) => off + b.write(v, off, 'utf8'),
    read: (b: Buffer, off: number, end: number): [string, number] => [b.toString('utf8', off, end), end],
  } satisfies KeyPart<string>,
} as const;

/** The value type of a key part. */
export type PartValue<P> = P extends KeyPart<infer T> ? T : never;
/** The tuple type of a list of key parts. */
export type KeyTuple<P extends readonly KeyPart<unknown>[]> = { -readonly [I in keyof P]: PartValue<P[I]> };
/** Every leading sub-tuple of `T` ([], [a], [a, b], … T): what a prefix bound may name. */
export type Prefix<T extends readonly unknown[]> = T extends readonly [...infer H, unknown]
  ? T | Prefix<H>
  : T;

/** How a table's value is stored. */
export interface ValueCodec<V> {
  /** A short name for the registry listing (e.g. `json`, `u64`, `binary:ActivityRefs`). */
  readonly name: string;
  encode(v: V): Buffer;
  decode(b: Buffer): V;
}

const EMPTY = Buffer.alloc(0);

/** Value codecs. */
export const V = {
  /** JSON text (stored rows whose shape is documented by `T`). */
  json: <T>(): ValueCodec<T> => ({
    name: 'json',
    encode: (v) => Buffer.from(JSON.stringify(v)),
    decode: (b) => JSON.parse(b.toString('utf8')) as T,
  }),
  /** No value: the key is the row (index tables). */
  empty: {
    name: 'empty',
    encode: () => EMPTY,
    decode: () => null,
  } as ValueCodec<null>,
  /** u64 big-endian. */
  u64: {
    name: 'u64',
    encode(v: number) {
      const b = Buffer.allocUnsafe(8);
      K.u64.write(b, 0, v);
      return b;
    },
    decode: (b: Buffer) => K.u64.read(b, 0, 8)[0],
  } as ValueCodec<number>,
  /** A signed integer as decimal text (balances in base units). */
  decimal: {
    name: 'decimal',
    encode: (v: bigint) => Buffer.from(v.toString()),
    decode: (b: Buffer) => BigInt(b.toString('latin1')),
  } as ValueCodec<bigint>,
  /** Raw bytes as lowercase 0x hex (hashes, addresses, pool keys). */
  hex: {
    name: 'hex',
    encode: (v: Hex) => Buffer.from(v.slice(2), 'hex'),
    decode: (b: Buffer) => `0x${b.toString('hex')}` as Hex,
  } as ValueCodec<Hex>,
  /** UTF-8 text stored as is (records kept byte-exact as the node sent them). */
  text: {
    name: 'text',
    encode: (v: string) => Buffer.from(v),
    decode: (b: Buffer) => b.toString('utf8'),
  } as ValueCodec<string>,
  /** A binary layout of the table's own (hot tables; see the codec's docstring). */
  binary: <T>(name: string, encode: (v: T) => Buffer, decode: (b: Buffer) => T): ValueCodec<T> => ({
    name: `binary:${name}`,
    encode,
    decode,
  }),
};

/** The smallest key strictly greater than every key starting with `prefix` (exclusive upper bound). */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
}

/** An address or hash lowercased, typed as 0x hex (the form table keys hold). */
export const lowerHex = (a: string): `0x${string}` => a.toLowerCase() as `0x${string}`;

/** A string already in lowercase 0x hex form, typed as such (no conversion). */
export const asHex = (s: string): `0x${string}` => s as `0x${string}`;
