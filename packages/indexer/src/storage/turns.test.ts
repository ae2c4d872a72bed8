/**
 * Background slices share one pass per event-loop iteration: jobs queued together do not all run
 * back to back before the loop serves I/O; a pass stops once its budget is spent or once it has
 * resumed an awaiting job.
 */
import { describe, expect, it } from 'vitest';
import { laterSlice, nextSlice, setTurnBudget, turnBudget } from './turns.js';

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};
/** Resolves in the check phase that runs the pass already scheduled (queued after it). */
const afterPass = () => new Promise<void>((r) => setImmediate(r));

describe('laterSlice / nextSlice', () => {
  it('a pass stops once its budget is spent: slices over budget run one per iteration', async () => {
    const ran: number[] = [];
    for (let i = 0; i < 4; i++)
      laterSlice(() => {
        ran.push(i);
        busy(turnBudget() + 1);
      });
    await afterPass();
    expect(ran).toEqual([0]);
    await afterPass();
    expect(ran).toEqual([0, 1]);
    await new Promise((r) => setTimeout(r, 50));
    expect(ran).toEqual([0, 1, 2, 3]);
  });

  it('short slices share a pass; a job that queues itself again waits for the next pass', async () => {
    // A budget no descheduling of this process reaches: at the default 2 ms, a loaded machine
    // (CI runs three Node tiers at once) could pause the thread between the two slices long
    // enough to end the pass after the first one, which is the budget's rule, not this one's.
    const budget = turnBudget();
    setTurnBudget(10_000);
    try {
      const ran: string[] = [];
      const again = () => ran.push('again');
      laterSlice(() => {
        ran.push('a');
        laterSlice(again);
      });
      laterSlice(() => ran.push('b'));
      await afterPass();
      expect(ran).toEqual(['a', 'b']);
      await afterPass();
      expect(ran).toEqual(['a', 'b', 'again']);
    } finally {
      setTurnBudget(budget);
    }
  });

  it('a resumed await ends the pass (its slice runs right after it)', async () => {
    const ran: string[] = [];
    const waiting = nextSlice().then(() => ran.push('resumed'));
    laterSlice(() => ran.push('later'));
    await afterPass();
    expect(ran).toEqual(['resumed']);
    await waiting;
    await afterPass();
    expect(ran).toEqual(['resumed', 'later']);
  });
});
