/**
 * L1 gas normalisation on real recorded L2 receipts (test/fixtures: Base, OP Mainnet,
 * Arbitrum One) and Ethereum receipts (no L1 accounting).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../../../../test/fixtures/index.js';
import { l1GasOf, l1GasOfRaw } from './l1-gas.js';

const FIX = FIXTURES_DIR;
const load = (dir: string) =>
  readdirSync(join(FIX, dir))
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({
      file: f,
      r: JSON.parse(readFileSync(join(FIX, dir, f), 'utf8')) as Record<string, unknown>,
    }));

/** The OP Stack L1 fee fields every receipt in the fixtures converts from hex (in two halves). */
const L1_FEE_FIELDS = ['l1Fee', 'l1GasUsed', 'l1GasPrice'] as const;
const L1_SCALAR_FIELDS = ['l1BaseFeeScalar', 'l1BlobBaseFee', 'l1BlobBaseFeeScalar'] as const;

describe('l1GasOf', () => {
  it('OP Stack receipts (Base, OP Mainnet): every hex field becomes an exact decimal string', () => {
    const all = [...load('base/receipts'), ...load('optimism/receipts')];
    expect(all.length).toBeGreaterThan(15);
    let withFee = 0;
    for (const { r } of all) {
      const { l1Gas, l1GasReason } = l1GasOf(r);
      expect(l1GasReason).toBeNull();
      expect(l1Gas?.kind).toBe('op_stack');
      if (l1Gas?.kind !== 'op_stack') continue;
      for (const f of [...L1_FEE_FIELDS, ...L1_SCALAR_FIELDS]) {
        const raw = r[f];
        if (typeof raw === 'string') expect(l1Gas[f]).toBe(BigInt(raw).toString());
        else expect(l1Gas[f]).toBeNull();
      }
      if (typeof r.l1FeeScalar === 'string') expect(l1Gas.l1FeeScalar).toBe(r.l1FeeScalar);
      if (l1Gas.l1Fee !== null) withFee++;
    }
    expect(withFee).toBeGreaterThan(10);
  });

  it('pre-Ecotone OP fee equals l1GasUsed × l1GasPrice × l1FeeScalar, computed exactly', () => {
    let checked = 0;
    for (const { r } of [...load('optimism/receipts'), ...load('base/receipts')]) {
      const g = l1GasOf(r).l1Gas;
      if (
        g?.kind !== 'op_stack' ||
        !g.l1FeeScalar ||
        g.l1BaseFeeScalar ||
        !g.l1Fee ||
        !g.l1GasUsed ||
        !g.l1GasPrice
      )
        continue;
      const [int, frac = ''] = g.l1FeeScalar.split('.');
      const scale = 10n ** BigInt(frac.length);
      const expected = (BigInt(g.l1GasUsed) * BigInt(g.l1GasPrice) * BigInt(int + frac)) / scale;
      // Nodes floor the product; allow the one-wei truncation difference.
      expect(BigInt(g.l1Fee) - expected <= 1n && expected - BigInt(g.l1Fee) <= 1n).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('Arbitrum receipts carry gasUsedForL1 and l1BlockNumber', () => {
    const all = load('arbitrum/receipts');
    expect(all.length).toBeGreaterThan(5);
    for (const { r } of all) {
      const g = l1GasOf(r).l1Gas;
      expect(g?.kind).toBe('arbitrum');
      if (g?.kind !== 'arbitrum') continue;
      expect(g.gasUsedForL1).toBe(BigInt(r.gasUsedForL1 as string).toString());
      expect(g.l1BlockNumber).toBe(BigInt(r.l1BlockNumber as string).toString());
    }
  });

  it('Ethereum receipts: null with reason not_an_l2_receipt', () => {
    const rs = JSON.parse(readFileSync(join(FIX, 'ethereum/18000000/receipts.json'), 'utf8')) as Record<
      string,
      unknown
    >[];
    for (const r of rs) expect(l1GasOf(r)).toEqual({ l1Gas: null, l1GasReason: 'not_an_l2_receipt' });
  });
});

describe('l1GasOfRaw (no parse for L1 receipts)', () => {
  it('equals l1GasOf on every recorded receipt: L2 (Base, OP, Arbitrum) and Ethereum block receipts', () => {
    const l2 = [...load('base/receipts'), ...load('optimism/receipts'), ...load('arbitrum/receipts')].map(
      ({ r }) => r,
    );
    const eth = ['17000000', '18000000', '18500000'].flatMap(
      (n) =>
        JSON.parse(readFileSync(join(FIX, 'ethereum', n, 'receipts.json'), 'utf8')) as Record<
          string,
          unknown
        >[],
    );
    expect(l2.length).toBeGreaterThan(20);
    expect(eth.length).toBeGreaterThan(100);
    for (const r of [...l2, ...eth]) expect(l1GasOfRaw(JSON.stringify(r))).toEqual(l1GasOf(r));
    expect(eth.every((r) => l1GasOfRaw(JSON.stringify(r)).l1GasReason === 'not_an_l2_receipt')).toBe(true);
  });
});
