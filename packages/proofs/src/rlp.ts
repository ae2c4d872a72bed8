/**
 * RLP encoding (Yellow Paper appendix B) in two passes over the item: the first measures every
 * list's payload, the second writes the whole encoding into one buffer of the exact size. The
 * decode workers encode every transaction, receipt and trie node of every block to check its
 * roots; `@ethereumjs/rlp`'s encoder allocates and concatenates a buffer per list level, which was
 * most of that check's time in the ingest profile (bench/results/engine-thread-2026-11-28-third.md).
 * Decoding stays with `@ethereumjs/rlp`. The output is byte-identical to `RLP.encode` for byte
 * strings and lists of them (rlp.test.ts holds it to that on random items).
 */

/** An RLP item: a byte string, or a list of items. */
export type RlpItem = Uint8Array | RlpItem[];

/** Bytes of the big-endian length `n` (n ≥ 56 here: 1 to 4 bytes for anything a block holds). */
const lengthBytes = (n: number): number => (n < 0x100 ? 1 : n < 0x10000 ? 2 : n < 0x1000000 ? 3 : 4);

/** Encoded size of a string or list whose payload is `n` bytes (header included). */
const framed = (n: number): number => (n < 56 ? 1 + n : 1 + lengthBytes(n) + n);

/**
 * Measures `item`: returns its encoded size, and appends the payload size of every list in it to
 * `lists` in pre-order (the order {@link write} consumes them).
 */
function measure(item: RlpItem, lists: number[]): number {
  if (item instanceof Uint8Array) return item.length === 1 && item[0] < 0x80 ? 1 : framed(item.length);
  const at = lists.length;
  lists.push(0);
  let payload = 0;
  for (let i = 0; i < item.length; i++) payload += measure(item[i], lists);
  lists[at] = payload;
  return framed(payload);
}

/** Writes a string (`short` 0x80) or list (`short` 0xc0) header for payload `n` at `off`. */
function header(out: Uint8Array, off: number, n: number, short: number): number {
  if (n < 56) {
    out[off] = short + n;
    return off + 1;
  }
  const ll = lengthBytes(n);
  out[off] = short + 55 + ll;
  for (let i = ll, v = n; i > 0; i--, v >>>= 8) out[off + i] = v & 0xff;
  return off + 1 + ll;
}

/** Writes `item` at `off` with the list sizes measured in `lists` from `cursor.i` on. */
function write(item: RlpItem, out: Uint8Array, off: number, lists: number[], cursor: { i: number }): number {
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0] < 0x80) {
      out[off] = item[0];
      return off + 1;
    }
    off = header(out, off, item.length, 0x80);
    out.set(item, off);
    return off + item.length;
  }
  off = header(out, off, lists[cursor.i++], 0xc0);
  for (let i = 0; i < item.length; i++) off = write(item[i], out, off, lists, cursor);
  return off;
}

/**
 * The RLP encoding of `item`; with `prefix`, that byte first (an EIP-2718 envelope:
 * `type ‖ rlp(fields)`), in the same single buffer.
 */
export function encodeRlp(item: RlpItem, prefix?: number): Uint8Array {
  const lists: number[] = [];
  const size = measure(item, lists);
  const lead = prefix === undefined ? 0 : 1;
  const out = new Uint8Array(lead + size);
  if (lead) out[0] = prefix as number;
  write(item, out, lead, lists, { i: 0 });
  return out;
}

/** The minimal big-endian bytes of a non-negative safe integer (0 → empty), as RLP encodes numbers. */
export function integerBytes(n: number): Uint8Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a non-negative safe integer: ${n}`);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Uint8Array.from(bytes);
}
