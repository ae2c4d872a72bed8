/**
 * The packed row codecs round-trip every row they can be given, field for field and key order
 * kept (a route serialising the decoded object writes the same JSON as from the old JSON rows).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TRANSFER } from './tables/tokens.js';
import { EDGE_IN, WALLET_TRANSFER } from './tables/wallets.js';

const hex = (bytes: number) =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => `0x${Buffer.from(b).toString('hex')}`);
const uint256 = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }).map((v) => v.toString());
const u32 = fc.integer({ min: 0, max: 0xffff_fffe });
const block = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });

describe('packed row codecs', () => {
  it('TransferRow round-trips, keys in order', () => {
    fc.assert(
      fc.property(
        block,
        u32,
        u32,
        hex(32),
        hex(20),
        hex(20),
        uint256,
        fc.constantFrom('transfer', 'mint', 'burn'),
        (b, t, l, h, f, to, v, k) => {
          const row = {
            block: b,
            txIndex: t,
            logIndex: l,
            txHash: h,
            from: f,
            to,
            value: v,
            kind: k as 'transfer',
          };
          const back = TRANSFER.value.decode(TRANSFER.value.encode(row));
          expect(JSON.stringify(back)).toBe(JSON.stringify(row));
        },
      ),
    );
  });
  it('WalletTransferRow round-trips (native and ERC-20, every direction), keys in order', () => {
    fc.assert(
      fc.property(
        block,
        u32,
        u32,
        fc.boolean(),
        hex(32),
        hex(20),
        hex(20),
        hex(20),
        uint256,
        fc.constantFrom('in', 'out', 'self'),
        (b, t, l, erc20, h, asset, f, to, v, dir) => {
          const row = {
            block: b,
            txIndex: t,
            logIndex: erc20 ? l : null,
            txHash: h,
            assetKind: erc20 ? 'erc20' : 'native',
            asset: erc20 ? asset : null,
            from: f,
            to,
            value: v,
            direction: dir,
          } as Parameters<typeof WALLET_TRANSFER.value.encode>[0];
          const back = WALLET_TRANSFER.value.decode(WALLET_TRANSFER.value.encode(row));
          expect(JSON.stringify(back)).toBe(JSON.stringify(row));
        },
      ),
    );
  });
  it('refuses a log index of 0xffffffff, the native marker, rather than reading it back as native', () => {
    const row = {
      block: 1,
      txIndex: 0,
      logIndex: 0xffff_ffff,
      txHash: `0x${'11'.repeat(32)}`,
      assetKind: 'erc20',
      asset: `0x${'22'.repeat(20)}`,
      from: `0x${'33'.repeat(20)}`,
      to: `0x${'44'.repeat(20)}`,
      value: '1',
      direction: 'in',
    } as Parameters<typeof WALLET_TRANSFER.value.encode>[0];
    expect(() => WALLET_TRANSFER.value.encode(row)).toThrow(RangeError);
  });
  it('FundingEdge round-trips (native and ERC-20), keys in order', () => {
    fc.assert(
      fc.property(
        hex(20),
        fc.boolean(),
        hex(20),
        block,
        u32,
        hex(32),
        uint256,
        block,
        u32,
        uint256,
        (f, erc20, a, b, t, h, v, last, n, total) => {
          const edge = {
            funder: f,
            assetKind: erc20 ? 'erc20' : 'native',
            asset: erc20 ? a : null,
            first: { block: b, txIndex: t, logIndex: erc20 ? t : null, txHash: h, value: v },
            lastBlock: last,
            count: n,
            total,
          } as Parameters<typeof EDGE_IN.value.encode>[0];
          expect(JSON.stringify(EDGE_IN.value.decode(EDGE_IN.value.encode(edge)))).toBe(JSON.stringify(edge));
        },
      ),
    );
  });
});
