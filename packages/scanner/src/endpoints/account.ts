/**
 * Dashboard endpoints for the account and its billing (a dashboard session, never a key: with a
 * key they answer 403 API_KEY_ROUTE_NOT_ALLOWED): the account, its plan, cancelling the plan, its
 * credit ledger, and its activity list.
 */
import { Type } from '@sinclair/typebox';
import { defineEndpoint } from '../endpoint.js';
import { keyState } from '../model.js';
import { planView } from '../plans.js';
import { ActivitySchema, IsoTime, PlanViewSchema } from './schemas.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** The query of the dashboard's newest-first lists: `limit` 1..500 (default 100). */
const LIMIT_QUERY = { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })) };

export const AccountResponse = Type.Object({
  account: Type.Object({
    id: Type.String(),
    name: Type.String(),
    email: Type.String({ description: 'where key notifications go' }),
    createdAt: IsoTime('when the account was created'),
    apiAccess: Type.Boolean({ description: 'false: every key answers 403 FORBIDDEN' }),
  }),
  plan: PlanViewSchema,
  remainingScans: Type.Integer({ minimum: 0 }),
  keys: Type.Object({
    active: Type.Integer({ minimum: 0, maximum: 5, description: 'counts toward the 5 active keys' }),
    grace: Type.Integer({ minimum: 0, description: 'rolled keys still in their 24 h grace' }),
    revoked: Type.Integer({ minimum: 0 }),
  }),
});

export const getAccount = defineEndpoint({
  id: 'account.get',
  method: 'GET',
  path: '/v1/account',
  auth: 'session',
  tag: 'Dashboard',
  summary: 'The account, its plan, scans left and key counts (dashboard session)',
  response: AccountResponse,
  handler: ({ caller, now, services }) => {
    const a = caller.account;
    const keys = { active: 0, grace: 0, revoked: 0 };
    for (const k of services.directory.keysOf(a.id)) keys[keyState(k, now)]++;
    return {
      account: {
        id: a.id,
        name: a.name,
        email: a.email,
        createdAt: iso(a.createdAt),
        apiAccess: a.apiAccess,
      },
      plan: planView(a.plan, now),
      remainingScans: services.ledger.balance(a.id),
      keys,
    };
  },
});

export const PlanResponse = Type.Object({
  plan: PlanViewSchema,
  upgradeUrl: Type.String({ description: 'where to renew or upgrade' }),
});

export const getPlan = defineEndpoint({
  id: 'account.plan.get',
  method: 'GET',
  path: '/v1/account/plan',
  auth: 'session',
  tag: 'Dashboard',
  summary: 'The plan, its state at this instant and where to renew (dashboard session)',
  response: PlanResponse,
  handler: ({ caller, now, services }) => ({
    plan: planView(caller.account.plan, now),
    upgradeUrl: services.upgradeUrl,
  }),
});

export const cancelPlan = defineEndpoint({
  id: 'account.plan.cancel',
  method: 'POST',
  path: '/v1/account/plan/cancel',
  auth: 'session',
  tag: 'Dashboard',
  summary: 'Cancels the plan: it keeps working until the paid period ends, with no renewal grace',
  response: PlanResponse,
  errors: ['INVALID_INPUT'],
  handler: ({ caller, now, services }) => ({
    plan: planView(services.accounts.cancelPlan(caller.account.id).plan, now),
    upgradeUrl: services.upgradeUrl,
  }),
});

export const CreditsResponse = Type.Object({
  remainingScans: Type.Integer({ minimum: 0 }),
  entries: Type.Array(
    Type.Object({
      at: IsoTime('when'),
      delta: Type.Integer({ description: 'positive: grant; negative: charge' }),
      balance: Type.Integer({ description: 'scans left after this movement' }),
      reason: Type.Union([Type.Literal('grant'), Type.Literal('charge')]),
      requestId: Type.Union([Type.String(), Type.Null()]),
      endpoint: Type.Union([Type.String(), Type.Null()]),
      note: Type.Union([Type.String(), Type.Null()]),
    }),
    { description: 'newest first' },
  ),
});

export const getCredits = defineEndpoint({
  id: 'account.credits',
  method: 'GET',
  path: '/v1/account/credits',
  auth: 'session',
  tag: 'Dashboard',
  summary: 'Scans left and the credit ledger, newest first (dashboard session)',
  query: LIMIT_QUERY,
  response: CreditsResponse,
  handler: ({ caller, query, services }) => ({
    remainingScans: services.ledger.balance(caller.account.id),
    entries: services.ledger
      .entries(caller.account.id, query.limit ?? 100)
      .map((e) => ({ ...e, at: iso(e.at) })),
  }),
});

export const ActivityResponse = Type.Object({
  activity: Type.Array(ActivitySchema, { description: 'newest first' }),
});

export const getActivity = defineEndpoint({
  id: 'account.activity',
  method: 'GET',
  path: '/v1/account/activity',
  auth: 'session',
  tag: 'Dashboard',
  summary: 'Key changes and blocked attempts (at most once per 10 minutes per key per kind), newest first',
  query: LIMIT_QUERY,
  response: ActivityResponse,
  handler: ({ caller, query, services }) => ({
    activity: services.directory
      .activity(caller.account.id, query.limit ?? 100)
      .map((e) => ({ ...e, at: iso(e.at) })),
  }),
});
