/**
 * Hex ↔ bytes without Buffer (the package also runs in browsers, under the typed client).
 * Inputs are JSON-RPC hex strings: `0x`-prefixed, either case.
 */

const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) NIBBLE[48 + i] = i;
for (let i = 0; i < 6; i++) {
  NIBBLE[65 + i] = 10 + i;
  NIBBLE[97 + i] = 10 + i;
}
/** Node's Buffer when present (absent in browsers). */
const NativeBuffer = (globalThis as { Buffer?: { from(s: string, enc: 'hex'): Uint8Array } }).Buffer;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** A malformed hex field of a record (names the field). */
export class HexError extends Error {
  constructor(field: string, value: unknown) {
    super(`${field}: not a hex string (${JSON.stringify(value)?.slice(0, 80)})`);
    this.name = 'HexError';
  }
}

const nib = (s: string, i: number, field: string): number => {
  const c = s.charCodeAt(i);
  const v = c < 128 ? NIBBLE[c] : -1;
  if (v < 0) throw new HexError(field, s);
  return v;
};

/**
 * Bytes of a hex DATA string (`0x` + an even number of digits; an odd count is read with a
 * leading zero, as nodes never send one for data but some send `0x0` for an empty value).
 * @throws HexError when `s` is not a `0x` hex string.
 */
export function hexToBytes(s: unknown, field = 'value'): Uint8Array {
  if (typeof s !== 'string' || s[0] !== '0' || (s[1] !== 'x' && s[1] !== 'X')) throw new HexError(field, s);
  const odd = s.length % 2;
  // Node's native decoder where there is one: it stops at the first bad digit, so a short
  // result is the sign of one.
  if (NativeBuffer && !odd) {
    const b = NativeBuffer.from(s.slice(2), 'hex');
    if (b.length * 2 !== s.length - 2) throw new HexError(field, s);
    return b;
  }
  const out = new Uint8Array((s.length - 2 + odd) / 2);
  let j = 2;
  let o = 0;
  if (odd) out[o++] = nib(s, j++, field);
  for (; j < s.length; j += 2) out[o++] = (nib(s, j, field) << 4) | nib(s, j + 1, field);
  return out;
}

/**
 * Bytes of a hex QUANTITY as RLP encodes an integer: big-endian, no leading zero byte (0 → empty).
 * @throws HexError when `s` is not a `0x` hex string.
 */
export function quantityToBytes(s: unknown, field = 'quantity'): Uint8Array {
  const b = hexToBytes(s, field);
  let i = 0;
  while (i < b.length && b[i] === 0) i++;
  return i === 0 ? b : b.subarray(i);
}

/** `0x`-prefixed lowercase hex of `b`. */
export function bytesToHex(b: Uint8Array): `0x${string}` {
  let s = '0x';
  for (let i = 0; i < b.length; i++) s += HEX[b[i]];
  return s as `0x${string}`;
}

/** Whether two byte strings are equal. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
