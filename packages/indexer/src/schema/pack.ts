/**
 * Field packing for binary row codecs (V.binary): fixed-width integers, 20-byte addresses,
 * 32-byte hashes and unsigned integers of any size as length-prefixed big-endian bytes. Hot and
 * high-volume rows use it instead of JSON: a transfer row is about a third of its JSON size and
 * decodes without a parser. Every packed field round-trips exactly (addresses and hashes are
 * stored lowercase, as the index holds them).
 */

/** Sequential writer into a buffer sized by the caller's upper bound. */
export class Packer {
  private readonly buf: Buffer;
  private off = 0;
  constructor(maxBytes: number) {
    this.buf = Buffer.allocUnsafe(maxBytes);
  }
  u8(n: number): this {
    this.buf[this.off++] = n;
    return this;
  }
  u32(n: number): this {
    this.off = this.buf.writeUInt32BE(n, this.off);
    return this;
  }
  /** A block number or any safe integer ≥ 0 (8 bytes). */
  u64(n: number): this {
    this.off = this.buf.writeUInt32BE(Math.floor(n / 0x1_0000_0000), this.off);
    this.off = this.buf.writeUInt32BE(n >>> 0, this.off);
    return this;
  }
  /** 0x-prefixed hex of a fixed byte width (20: address, 32: hash). */
  hex(h: string, bytes: number): this {
    const n = this.buf.write(h.slice(2), this.off, bytes, 'hex');
    if (n !== bytes) throw new Error(`pack: ${h} is not ${bytes} bytes of hex`);
    this.off += n;
    return this;
  }
  /** An unsigned integer (base units) as u8 length + big-endian bytes (up to 255 bytes). */
  uint(v: bigint): this {
    if (v < 0n) throw new Error(`pack: negative ${v}`);
    let h = v.toString(16);
    if (h.length % 2) h = `0${h}`;
    const len = v === 0n ? 0 : h.length / 2;
    this.buf[this.off++] = len;
    if (len) this.off += this.buf.write(h, this.off, len, 'hex');
    return this;
  }
  done(): Buffer {
    return this.buf.subarray(0, this.off);
  }
}

/** Sequential reader of a {@link Packer} layout. */
export class Unpacker {
  private off = 0;
  constructor(private readonly buf: Buffer) {}
  u8(): number {
    return this.buf[this.off++];
  }
  u32(): number {
    const v = this.buf.readUInt32BE(this.off);
    this.off += 4;
    return v;
  }
  u64(): number {
    const v = this.buf.readUInt32BE(this.off) * 0x1_0000_0000 + this.buf.readUInt32BE(this.off + 4);
    this.off += 8;
    return v;
  }
  hex(bytes: number): string {
    const v = `0x${this.buf.toString('hex', this.off, this.off + bytes)}`;
    this.off += bytes;
    return v;
  }
  /** The unsigned integer as a decimal string (base units). */
  uint(): string {
    const len = this.buf[this.off++];
    if (!len) return '0';
    const v = BigInt(`0x${this.buf.toString('hex', this.off, this.off + len)}`);
    this.off += len;
    return v.toString();
  }
}
