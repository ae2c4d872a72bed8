/**
 * Plans and API access, checked on every key request (spec, "Scanner API keys" 5):
 * Scale 120 requests/minute, Enterprise 600 by default with a per-account override; an active
 * plan keeps working for a 3-day renewal grace after its period ends; a cancelled plan works until
 * its paid period ends; past that the plan has lapsed and keys are paused (403 API_PLAN_REQUIRED,
 * still viewable and revocable, resuming when the plan does). An operator switch turns API access
 * off (403 FORBIDDEN) whatever the plan.
 */
import type { AccountRecord, PlanRecord, PlanTier } from './model.js';

/** Default requests per minute of each paid tier (spec, Limits → Scanner API). */
export const PLAN_RATES: Readonly<Record<Exclude<PlanTier, 'none'>, number>> = {
  scale: 120,
  enterprise: 600,
};

/** How long an active (renewing) plan keeps working after its period ends. */
export const RENEWAL_GRACE_MS = 3 * 86_400_000;

/** Bounds of an Enterprise per-account override, requests per minute. */
export const MIN_RATE = 1;
export const MAX_RATE = 100_000;

/** Where a plan stands at an instant. */
export type PlanState = 'none' | 'active' | 'renewal_grace' | 'cancelled_until_period_end' | 'lapsed';

/** A plan as shown to its account (whoami, dashboard). */
export interface PlanView {
  tier: PlanTier;
  status: PlanRecord['status'];
  state: PlanState;
  /** End of the paid period (ISO 8601), null without a plan. */
  periodEnd: string | null;
  /** Last instant keys work without a renewal (ISO 8601), null without a plan. */
  usableUntil: string | null;
  /** Requests per minute of each of the key's and the account's windows; 0 without a plan. */
  limitPerMinute: number;
}

/** The requests-per-minute number of a plan (override for Enterprise, else the tier's). */
export function planRate(p: PlanRecord): number {
  if (p.tier === 'none') return 0;
  if (p.tier === 'enterprise' && p.ratePerMinute !== null) return p.ratePerMinute;
  return PLAN_RATES[p.tier];
}

/** Last instant (exclusive) a plan gives API access. */
function usableUntil(p: PlanRecord): number {
  return p.status === 'cancelled' ? p.periodEnd : p.periodEnd + RENEWAL_GRACE_MS;
}

/** Where `p` stands at `now`. */
export function planState(p: PlanRecord, now: number): PlanState {
  if (p.tier === 'none') return 'none';
  if (now >= usableUntil(p)) return 'lapsed';
  if (p.status === 'cancelled') return 'cancelled_until_period_end';
  return now < p.periodEnd ? 'active' : 'renewal_grace';
}

/** The account-facing view of `p` at `now`. */
export function planView(p: PlanRecord, now: number): PlanView {
  const has = p.tier !== 'none';
  return {
    tier: p.tier,
    status: p.status,
    state: planState(p, now),
    periodEnd: has ? new Date(p.periodEnd).toISOString() : null,
    usableUntil: has ? new Date(usableUntil(p)).toISOString() : null,
    limitPerMinute: planRate(p),
  };
}

/** API access of an account at an instant: the per-minute limit, or the refusal and its reason. */
export type Access =
  | { ok: true; limitPerMinute: number }
  | { ok: false; code: 'API_PLAN_REQUIRED' | 'FORBIDDEN'; reason: string };

/** Whether `a`'s keys may be used at `now` (checked on every key request). */
export function apiAccess(a: AccountRecord, now: number): Access {
  if (!a.apiAccess)
    return { ok: false, code: 'FORBIDDEN', reason: 'API access is switched off for this account' };
  const state = planState(a.plan, now);
  if (state === 'none')
    return { ok: false, code: 'API_PLAN_REQUIRED', reason: 'API access needs the Scale or Enterprise plan' };
  if (state === 'lapsed')
    return {
      ok: false,
      code: 'API_PLAN_REQUIRED',
      reason:
        a.plan.status === 'cancelled'
          ? 'the plan was cancelled and its paid period has ended; keys are paused until a plan resumes'
          : 'the plan lapsed (renewal grace of 3 days after the period end is over); keys are paused until it is renewed',
    };
  return { ok: true, limitPerMinute: planRate(a.plan) };
}
