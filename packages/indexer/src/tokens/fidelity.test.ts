/**
 * Balance fidelity from a reconciliation verdict (tokens/fidelity.ts): a mismatch found while the
 * node contradicted itself names the node fault instead of blaming the token.
 */
import { describe, expect, it } from 'vitest';
import type { Reconciliation } from '../schema/rows/tokens.js';
import { fidelityFrom } from './fidelity.js';

const verdict = (over: Partial<Reconciliation>): Reconciliation => ({
  status: 'mismatch',
  checkedAtBlock: 148,
  supplyOnChain: '100',
  supplyFromTransfers: '100',
  holdersChecked: 100,
  holdersMismatched: 22,
  reason: null,
  metadataNow: null,
  metadataChanged: false,
  ...over,
});

describe('balance fidelity', () => {
  it('a mismatch without a node fault: balances move without transfers', () => {
    expect(fidelityFrom(verdict({}))).toMatchObject({
      status: 'diverges',
      reason: 'balances_move_without_transfers',
      nodeFault: null,
    });
  });

  it('a mismatch while the node contradicts itself names the node fault', () => {
    const fault =
      'block_missing at block 120: the node (head 148) returns no block 120, by number nor by hash';
    expect(fidelityFrom(verdict({ nodeFault: fault }))).toMatchObject({
      status: 'diverges',
      reason: 'node_inconsistent',
      nodeFault: fault,
    });
  });

  it('an exact verdict carries no fault; an old verdict without the field reads as none', () => {
    expect(
      fidelityFrom(verdict({ status: 'consistent', holdersMismatched: 0, nodeFault: 'x' })),
    ).toMatchObject({
      status: 'exact',
      reason: null,
      nodeFault: null,
    });
    const old = verdict({});
    delete old.nodeFault;
    expect(fidelityFrom(old).nodeFault).toBeNull();
  });
});
