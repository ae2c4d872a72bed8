/** Plan states at their boundaries, and API access. */
import { describe, expect, it } from 'vitest';
import type { AccountRecord, PlanRecord } from './model.js';
import { apiAccess, PLAN_RATES, planRate, planState, RENEWAL_GRACE_MS } from './plans.js';

const END = Date.parse('2026-03-01T00:00:00Z');
const plan = (p: Partial<PlanRecord>): PlanRecord => ({
  tier: 'scale',
  status: 'active',
  periodEnd: END,
  ratePerMinute: null,
  ...p,
});
const account = (p: Partial<PlanRecord>, apiAccessOn = true): AccountRecord => ({
  id: 'acc_x',
  email: 'a@b.c',
  name: 'a',
  createdAt: 0,
  plan: plan(p),
  apiAccess: apiAccessOn,
});

describe('plans', () => {
  it('Scale 120, Enterprise 600 by default or its override', () => {
    expect(PLAN_RATES).toEqual({ scale: 120, enterprise: 600 });
    expect(planRate(plan({}))).toBe(120);
    expect(planRate(plan({ tier: 'enterprise' }))).toBe(600);
    expect(planRate(plan({ tier: 'enterprise', ratePerMinute: 2400 }))).toBe(2400);
    expect(planRate(plan({ tier: 'none' }))).toBe(0);
  });

  it('an active plan renews with 3 days of grace after its period end, then lapses', () => {
    expect(planState(plan({}), END - 1)).toBe('active');
    expect(planState(plan({}), END)).toBe('renewal_grace');
    expect(planState(plan({}), END + RENEWAL_GRACE_MS - 1)).toBe('renewal_grace');
    expect(planState(plan({}), END + RENEWAL_GRACE_MS)).toBe('lapsed');
    expect(RENEWAL_GRACE_MS).toBe(3 * 86_400_000);
  });

  it('a cancelled plan works until its paid period ends, without grace', () => {
    expect(planState(plan({ status: 'cancelled' }), END - 1)).toBe('cancelled_until_period_end');
    expect(planState(plan({ status: 'cancelled' }), END)).toBe('lapsed');
  });

  it('access: FORBIDDEN when switched off (whatever the plan), API_PLAN_REQUIRED without or past a plan', () => {
    expect(apiAccess(account({}), END - 1)).toEqual({ ok: true, limitPerMinute: 120 });
    expect(apiAccess(account({}, false), END - 1)).toMatchObject({ ok: false, code: 'FORBIDDEN' });
    expect(apiAccess(account({ tier: 'none' }), 0)).toMatchObject({ ok: false, code: 'API_PLAN_REQUIRED' });
    expect(apiAccess(account({}), END + RENEWAL_GRACE_MS)).toMatchObject({
      ok: false,
      code: 'API_PLAN_REQUIRED',
    });
    expect(apiAccess(account({ status: 'cancelled' }), END)).toMatchObject({
      ok: false,
      code: 'API_PLAN_REQUIRED',
    });
  });
});
