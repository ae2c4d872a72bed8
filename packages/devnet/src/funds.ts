/**
 * What the traffic generator's wallets can spend, and why the node refuses a send. A wallet is
 * topped up from a funded dev account before its next send could be refused for funds: each send's
 * worst case (gas limit × fee cap + value, wei) is taken off the balance read last, until the next
 * read (native balance and mined nonce at one block) shows what was mined.
 */

/** Why the node refused a send, from its error message. */
export type RefusalCause = 'insufficientFunds' | 'nonce' | 'fee' | 'gas' | 'other';

/** Refused sends by cause (counts). */
export type RefusedBy = Record<RefusalCause, number>;

/** A zero count for every cause. */
export const noRefusals = (): RefusedBy => ({ insufficientFunds: 0, nonce: 0, fee: 0, gas: 0, other: 0 });

/** Adds counts by cause (a restarted worker's counts onto the earlier ones). */
export function addRefusals(a: RefusedBy, b: RefusedBy): RefusedBy {
  const out = noRefusals();
  for (const k of Object.keys(out) as RefusalCause[]) out[k] = a[k] + b[k];
  return out;
}

/**
 * The cause of a refusal from the node's message (anvil: "Insufficient funds for gas * price +
 * value", "nonce too low", "max fee per gas less than block base fee", "intrinsic gas too low", …).
 */
export function refusalCause(message: string): RefusalCause {
  if (/insufficient funds/i.test(message)) return 'insufficientFunds';
  if (/nonce/i.test(message)) return 'nonce';
  if (/underpriced|fee cap|base fee|max fee|priority fee|gas price|fee too low/i.test(message)) return 'fee';
  if (/gas limit|intrinsic gas|out of gas|gas too low|exceeds block gas/i.test(message)) return 'gas';
  return 'other';
}

/** Worst-case native cost of a send, wei: every unit of its gas limit at the fee cap, plus its value. */
export const worstCaseCost = (gas: bigint, maxFeePerGas: bigint, value: bigint) => gas * maxFeePerGas + value;

/**
 * One wallet's spendable native balance, worst case: the balance at the last read minus the
 * worst-case cost of every send not mined at that read (by nonce). Unknown until the first read.
 */
export class FundsBook {
  private balance: bigint | null = null;
  /** Worst-case cost of each send by nonce, not yet mined at the last read. */
  private readonly unmined = new Map<number, bigint>();
  private stale = true;
  /** A top-up to this wallet is sent and not yet mined. */
  topUpPending = false;

  /** Spendable wei now, worst case; null before the first read. */
  spendable(): bigint | null {
    if (this.balance === null) return null;
    let s = this.balance;
    for (const c of this.unmined.values()) s -= c;
    return s;
  }

  /** Whether a send of worst-case `cost` wei cannot be refused for funds (false while unknown). */
  canPay(cost: bigint): boolean {
    const s = this.spendable();
    return s !== null && s >= cost;
  }

  /** Records an accepted send (its nonce and worst-case cost, wei). */
  spend(nonce: number, cost: bigint): void {
    this.unmined.set(nonce, cost);
    this.stale = true;
  }

  /**
   * Records a read at one block: the native balance (wei) and the mined nonce (transaction count)
   * there. Sends below that nonce are in the balance; sends at or above the wallet's local nonce
   * were dropped (the nonce was reset below them).
   */
  read(balance: bigint, minedNonce: number, localNonce: number): void {
    this.balance = balance;
    for (const n of [...this.unmined.keys()]) if (n < minedNonce || n >= localNonce) this.unmined.delete(n);
    this.stale = this.unmined.size > 0 || this.topUpPending;
  }

  /** Whether the next read is due (a send, a top-up, or nothing known yet). */
  needsRead(): boolean {
    return this.stale || this.balance === null;
  }

  /** Marks the book for a read (a top-up was mined). */
  touch(): void {
    this.stale = true;
  }

  /** Forgets everything (after a reorg: balances and pending sends may be gone). */
  forget(): void {
    this.balance = null;
    this.unmined.clear();
    this.topUpPending = false;
    this.stale = true;
  }
}
