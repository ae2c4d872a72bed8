import { describe, expect, test } from 'vitest';
import { addRefusals, FundsBook, noRefusals, refusalCause, worstCaseCost } from './funds.js';

const E18 = 10n ** 18n;

describe('refusal causes (anvil messages)', () => {
  test.each([
    ['eth_sendRawTransaction: Insufficient funds for gas * price + value', 'insufficientFunds'],
    ['nonce too low', 'nonce'],
    ['Nonce too high', 'nonce'],
    ['max fee per gas less than block base fee', 'fee'],
    ['replacement transaction underpriced', 'fee'],
    ['intrinsic gas too low', 'gas'],
    ['transaction gas limit exceeds block gas limit', 'gas'],
    ['execution reverted', 'other'],
  ] as const)('%s → %s', (msg, cause) => {
    expect(refusalCause(msg)).toBe(cause);
  });

  test('counts add up by cause', () => {
    const a = { ...noRefusals(), nonce: 2, other: 1 };
    const b = { ...noRefusals(), nonce: 1, insufficientFunds: 3 };
    expect(addRefusals(a, b)).toEqual({ insufficientFunds: 3, nonce: 3, fee: 0, gas: 0, other: 1 });
  });
});

describe('FundsBook', () => {
  const fee = 30_000_000_000n;

  test('unknown until read; each send takes its worst case off; a read settles what was mined', () => {
    const b = new FundsBook();
    expect(b.spendable()).toBeNull();
    expect(b.canPay(1n)).toBe(false);
    expect(b.needsRead()).toBe(true);
    b.read(10n * E18, 5, 5);
    expect(b.needsRead()).toBe(false);
    const c1 = worstCaseCost(21_000n, fee, 2n * E18);
    const c2 = worstCaseCost(300_000n, fee, 0n);
    b.spend(5, c1);
    b.spend(6, c2);
    expect(b.spendable()).toBe(10n * E18 - c1 - c2);
    expect(b.needsRead()).toBe(true);
    // Nonce 5 mined (its real cost is in the balance), nonce 6 still pending.
    b.read(8n * E18, 6, 7);
    expect(b.spendable()).toBe(8n * E18 - c2);
    expect(b.canPay(8n * E18)).toBe(false);
    expect(b.canPay(7n * E18)).toBe(true);
  });

  test('sends above a reset local nonce were dropped: they no longer count', () => {
    const b = new FundsBook();
    b.read(E18, 0, 0);
    b.spend(0, E18 / 4n);
    b.spend(1, E18 / 4n);
    b.read(E18, 0, 1); // the nonce was reset to 1: nonce 1 was dropped, nonce 0 is pending
    expect(b.spendable()).toBe((3n * E18) / 4n);
  });

  test('a reorg forgets everything', () => {
    const b = new FundsBook();
    b.read(E18, 0, 0);
    b.topUpPending = true;
    b.forget();
    expect(b.spendable()).toBeNull();
    expect(b.topUpPending).toBe(false);
    expect(b.needsRead()).toBe(true);
  });
});
