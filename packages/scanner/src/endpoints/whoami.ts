/**
 * GET /v1/whoami — the calling key's account, the key (id, name, prefix), the plan and the
 * effective per-minute limit. Counts toward the rate limit; costs no scans.
 */
import { Type } from '@sinclair/typebox';
import { defineEndpoint } from '../endpoint.js';
import { planView } from '../plans.js';
import { PlanViewSchema } from './schemas.js';

export const WhoamiResponse = Type.Object({
  account: Type.Object({ id: Type.String(), name: Type.String() }),
  key: Type.Object({
    id: Type.String(),
    name: Type.String(),
    prefix: Type.String({ description: 'display prefix: sk_live_ and 4 characters' }),
  }),
  plan: PlanViewSchema,
  limitPerMinute: Type.Integer({
    minimum: 1,
    description: "effective requests per minute: each of the key's and the account's rolling 60 s windows",
  }),
});

export const whoami = defineEndpoint({
  id: 'whoami',
  method: 'GET',
  path: '/v1/whoami',
  auth: 'key',
  tag: 'Account',
  summary: 'The calling key, its account, plan and effective per-minute limit (free; rate-limited)',
  response: WhoamiResponse,
  handler: ({ caller, now }) => ({
    account: { id: caller.account.id, name: caller.account.name },
    key: { id: caller.key.id, name: caller.key.name, prefix: caller.key.prefix },
    plan: planView(caller.account.plan, now),
    limitPerMinute: caller.limitPerMinute,
  }),
});
