/**
 * The two-pass RLP encoder against `@ethereumjs/rlp` on random items: byte strings of every
 * length class (single bytes below and above 0x80, short, long with 1 to 3 length bytes), nested
 * lists (short and long payloads), and the EIP-2718 prefix; and integer bytes against RLP's
 * number encoding.
 */
import { RLP } from '@ethereumjs/rlp';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeRlp, integerBytes, type RlpItem } from './rlp.js';

const bytes = fc.oneof(
  fc.uint8Array({ minLength: 0, maxLength: 2 }),
  fc.uint8Array({ minLength: 50, maxLength: 60 }),
  fc.uint8Array({ minLength: 250, maxLength: 300 }),
  fc.uint8Array({ minLength: 65_530, maxLength: 65_560 }),
);
const item: fc.Arbitrary<RlpItem> = fc.letrec<{ item: RlpItem }>((tie) => ({
  item: fc.oneof({ depthSize: 'small' }, bytes, fc.array(tie('item'), { maxLength: 20 })),
})).item;

describe('encodeRlp', () => {
  it('encodes every item as @ethereumjs/rlp does', () => {
    fc.assert(
      fc.property(item, (x) => {
        expect(Buffer.from(encodeRlp(x)).toString('hex')).toBe(Buffer.from(RLP.encode(x)).toString('hex'));
      }),
      { numRuns: 300 },
    );
  });
  it('writes the envelope type byte first, then the list', () => {
    fc.assert(
      fc.property(fc.array(bytes, { maxLength: 12 }), fc.integer({ min: 0, max: 0x7f }), (fields, type) => {
        const want = Buffer.concat([Buffer.of(type), RLP.encode(fields)]);
        expect(Buffer.from(encodeRlp(fields, type)).equals(want)).toBe(true);
      }),
    );
  });
  it('encodes a payload of 2^24 bytes and more with a 4-byte length', () => {
    const big = new Uint8Array(0x1000001);
    expect(Buffer.from(encodeRlp(big).subarray(0, 5)).toString('hex')).toBe(
      Buffer.from(RLP.encode(big).subarray(0, 5)).toString('hex'),
    );
  });
  it('gives the minimal big-endian bytes RLP gives a number', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (n) => {
        expect(Buffer.from(encodeRlp(integerBytes(n))).equals(Buffer.from(RLP.encode(n)))).toBe(true);
      }),
    );
    expect(() => integerBytes(-1)).toThrow(RangeError);
  });
});
