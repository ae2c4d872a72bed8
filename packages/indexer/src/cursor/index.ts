/**
 * Opaque, authenticated, fork-bound page cursors.
 *
 * Layout (then base64url): u8 version | u64 chainId | u32 route tag | u8 order | u64 anchor block |
 * 32-byte anchor hash | u16 key length | key | 16-byte HMAC-SHA256 (truncated) over everything
 * before it, under the deployment's secret. A forged, truncated, cross-chain or cross-route cursor
 * fails before storage is touched.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { DomainError } from '../errors/index.js';
import type { BlockRef } from '../storage/index.js';

const VERSION = 1;
/** Truncated MAC length, bytes: 128 bits is far beyond brute force for a cursor. */
const MAC_BYTES = 16;
const FIXED = 1 + 8 + 4 + 1 + 8 + 32 + 2;

/** What a cursor carries. `key` is the last row's sort key (route-specific encoding). */
export interface CursorState {
  chainId: number;
  /** Route id plus sort name: a cursor minted for one route/sort is refused on another. */
  route: string;
  order: 'asc' | 'desc';
  anchor: BlockRef;
  key: Buffer;
}

/** Stable 32-bit tag of a route/sort name. */
function routeTag(route: string): number {
  return Buffer.from(sha256(Buffer.from(route))).readUInt32BE(0);
}

export interface CursorCodec {
  encode(state: CursorState): string;
  /**
   * Decodes and authenticates a cursor for `expect.route` on `expect.chainId`.
   * @throws DomainError `bad_cursor` (400) when malformed, forged or minted for another chain/route/order.
   */
  decode(cursor: string, expect: { chainId: number; route: string; order?: 'asc' | 'desc' }): CursorState;
}

/** Creates a codec under `secret` (≥ 32 bytes, per deployment). */
export function createCursorCodec(secret: Uint8Array): CursorCodec {
  const mac = (data: Uint8Array) => hmac(sha256, secret, data).subarray(0, MAC_BYTES);
  return {
    encode(s) {
      const buf = Buffer.allocUnsafe(FIXED + s.key.length + MAC_BYTES);
      let o = buf.writeUInt8(VERSION, 0);
      o = buf.writeBigUInt64BE(BigInt(s.chainId), o);
      o = buf.writeUInt32BE(routeTag(s.route), o);
      o = buf.writeUInt8(s.order === 'asc' ? 0 : 1, o);
      o = buf.writeBigUInt64BE(BigInt(s.anchor.number), o);
      o += buf.write(s.anchor.hash.slice(2), o, 'hex');
      o = buf.writeUInt16BE(s.key.length, o);
      o += s.key.copy(buf, o);
      Buffer.from(mac(buf.subarray(0, o))).copy(buf, o);
      return buf.toString('base64url');
    },
    decode(cursor, expect) {
      const bad = (why: string) => new DomainError('bad_cursor', `cursor refused: ${why}`);
      if (cursor.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad('not a cursor of this service');
      const buf = Buffer.from(cursor, 'base64url');
      if (buf.length < FIXED + MAC_BYTES) throw bad('truncated');
      const keyLen = buf.readUInt16BE(FIXED - 2);
      if (buf.length !== FIXED + keyLen + MAC_BYTES) throw bad('truncated');
      const body = buf.subarray(0, FIXED + keyLen);
      const expected = mac(body);
      const given = buf.subarray(FIXED + keyLen);
      let diff = 0;
      for (let i = 0; i < MAC_BYTES; i++) diff |= expected[i] ^ given[i];
      if (diff !== 0) throw bad('authentication failed (forged or altered)');
      if (buf[0] !== VERSION) throw bad('unknown cursor version');
      if (Number(buf.readBigUInt64BE(1)) !== expect.chainId) throw bad('minted for another chain');
      if (buf.readUInt32BE(9) !== routeTag(expect.route)) throw bad('minted for another route or sort');
      const order = buf[13] === 0 ? 'asc' : 'desc';
      if (expect.order && expect.order !== order) throw bad(`minted for order=${order}`);
      return {
        chainId: expect.chainId,
        route: expect.route,
        order,
        anchor: { number: Number(buf.readBigUInt64BE(14)), hash: `0x${buf.toString('hex', 22, 54)}` },
        key: Buffer.from(buf.subarray(FIXED, FIXED + keyLen)),
      };
    },
  };
}
