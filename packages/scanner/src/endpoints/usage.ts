/**
 * GET /v1/usage?days=1..90 (default 30) — scans left, the effective per-minute limit, and daily
 * request counts by endpoint and status class over the last `days` UTC days (today included, every
 * day listed, quiet days with no rows). Counts toward the rate limit; costs no scans. The counts
 * include every answered request of the account up to the previous one.
 */
import { Type } from '@sinclair/typebox';
import { defineEndpoint } from '../endpoint.js';
import { dayOf, isoDay } from '../model.js';
import { IsoDay } from './schemas.js';

export const UsageResponse = Type.Object({
  remainingScans: Type.Integer({ minimum: 0, description: 'scans left on the account' }),
  limitPerMinute: Type.Integer({ minimum: 1, description: 'effective requests per minute' }),
  from: IsoDay('first UTC day listed'),
  to: IsoDay('last UTC day listed (today)'),
  daily: Type.Array(
    Type.Object({
      date: IsoDay(),
      requests: Type.Array(
        Type.Object({
          endpoint: Type.String({ description: 'endpoint path, e.g. /v1/whoami' }),
          statusClass: Type.Union([Type.Literal('2xx'), Type.Literal('4xx'), Type.Literal('5xx')]),
          count: Type.Integer({ minimum: 1 }),
        }),
      ),
    }),
    { description: 'one entry per day, oldest first' },
  ),
});

export const usage = defineEndpoint({
  id: 'usage',
  method: 'GET',
  path: '/v1/usage',
  auth: 'key',
  tag: 'Account',
  summary:
    'Scans left, effective limit, daily request counts by endpoint and status class (free; rate-limited)',
  query: {
    days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 90, default: 30, description: 'days to list, 1..90' }),
    ),
  },
  response: UsageResponse,
  handler: ({ caller, query, now, services }) => {
    const days = query.days ?? 30;
    const today = dayOf(now);
    const first = today - days + 1;
    const rows = services.ledger.usage(caller.account.id, first, today);
    const byDay = new Map<
      number,
      Array<{ endpoint: string; statusClass: '2xx' | '4xx' | '5xx'; count: number }>
    >();
    for (const r of rows) {
      const list = byDay.get(r.day) ?? [];
      list.push({ endpoint: r.endpoint, statusClass: r.statusClass, count: r.requests });
      byDay.set(r.day, list);
    }
    const daily = [];
    for (let d = first; d <= today; d++) daily.push({ date: isoDay(d), requests: byDay.get(d) ?? [] });
    return {
      remainingScans: services.ledger.balance(caller.account.id),
      limitPerMinute: caller.limitPerMinute,
      from: isoDay(first),
      to: isoDay(today),
      daily,
    };
  },
});
