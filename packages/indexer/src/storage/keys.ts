/**
 * Byte-sortable key codecs. Every integer is big-endian and fixed width so RocksDB's
 * lexicographic order equals numeric order; hashes and addresses are raw fixed-width bytes.
 */

/** Encodes `n` (0 ≤ n < 2^53) as 8 big-endian bytes into `buf` at `offset`. */
export function writeU64(buf: Buffer, offset: number, n: number): void {
  buf.writeUInt32BE(Math.floor(n / 0x1_0000_0000), offset);
  buf.writeUInt32BE(n >>> 0, offset + 4);
}

/** Decodes 8 big-endian bytes at `offset` as a safe integer. */
export function readU64(buf: Buffer, offset: number): number {
  return buf.readUInt32BE(offset) * 0x1_0000_0000 + buf.readUInt32BE(offset + 4);
}

/** `0x`-prefixed hex of a fixed-width byte string → bytes. Caller has validated the hex. */
export function hexBytes(hex: string): Buffer {
  return Buffer.from(hex.slice(2), 'hex');
}

/** bytes → lowercase `0x`-prefixed hex. */
export function bytesHex(buf: Buffer, start = 0, end = buf.length): `0x${string}` {
  return `0x${buf.toString('hex', start, end)}`;
}

/** Builds a key from a table id followed by parts (numbers are u64 unless given as [n, width]). */
export class KeyBuilder {
  private readonly buf: Buffer;
  private off = 0;
  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }
  u8(n: number): this {
    this.buf[this.off++] = n;
    return this;
  }
  u16(n: number): this {
    this.buf.writeUInt16BE(n, this.off);
    this.off += 2;
    return this;
  }
  u32(n: number): this {
    this.buf.writeUInt32BE(n >>> 0, this.off);
    this.off += 4;
    return this;
  }
  u64(n: number): this {
    writeU64(this.buf, this.off, n);
    this.off += 8;
    return this;
  }
  bytes(b: Buffer): this {
    b.copy(this.buf, this.off);
    this.off += b.length;
    return this;
  }
  hex(h: string): this {
    this.off += this.buf.write(h.slice(2), this.off, 'hex');
    return this;
  }
  done(): Buffer {
    return this.off === this.buf.length ? this.buf : this.buf.subarray(0, this.off);
  }
}

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
