/**
 * Schemas shared by the scanner's endpoint files (TypeBox; the OpenAPI document is generated from
 * them). The schema const and its `Static` type share a name.
 */
import { type Static, Type } from '@sinclair/typebox';

/** An instant as ISO 8601 UTC with milliseconds (`Date.prototype.toISOString`). */
export const IsoTime = (description: string) =>
  Type.String({
    pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$',
    description,
  });
/** A UTC day, `YYYY-MM-DD`. */
export const IsoDay = (description?: string) =>
  Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description });

/** An account's plan as shown to it (plans.ts PlanView). */
export const PlanViewSchema = Type.Object({
  tier: Type.Union([Type.Literal('none'), Type.Literal('scale'), Type.Literal('enterprise')]),
  status: Type.Union([Type.Literal('active'), Type.Literal('cancelled')]),
  state: Type.Union(
    ['none', 'active', 'renewal_grace', 'cancelled_until_period_end', 'lapsed'].map((s) => Type.Literal(s)),
    {
      description:
        'active: in the paid period; renewal_grace: up to 3 days after the period end of a renewing plan; cancelled_until_period_end: cancelled, works until the period end; lapsed/none: keys paused (API_PLAN_REQUIRED)',
    },
  ),
  periodEnd: Type.Union([IsoTime('end of the paid period'), Type.Null()]),
  usableUntil: Type.Union([IsoTime('last instant keys work without a renewal'), Type.Null()]),
  limitPerMinute: Type.Integer({
    minimum: 0,
    description: 'requests per minute of each window; 0 without a plan',
  }),
});
export type PlanViewSchema = Static<typeof PlanViewSchema>;

/** A key as shown to its account: never its secret or hash. */
export const KeyViewSchema = Type.Object({
  id: Type.String({ description: 'key id (public)' }),
  name: Type.String(),
  prefix: Type.String({ description: 'display prefix of the secret: sk_live_ and 4 characters' }),
  state: Type.Union([Type.Literal('active'), Type.Literal('grace'), Type.Literal('revoked')], {
    description: 'grace: rolled, still works until graceUntil, does not count toward the 5 active keys',
  }),
  createdAt: IsoTime('creation time'),
  revokedAt: Type.Union([IsoTime('when it stopped working'), Type.Null()]),
  graceUntil: Type.Union([IsoTime('rolled with grace: works until then'), Type.Null()]),
  rolledTo: Type.Union([Type.String({ description: 'id of the key that replaced it' }), Type.Null()]),
  allowlist: Type.Array(Type.String(), { description: 'normalised CIDR ranges; empty = any IP' }),
});
export type KeyViewSchema = Static<typeof KeyViewSchema>;

/** A secret shown once, on create and roll. */
export const SecretSchema = Type.String({
  pattern: '^sk_live_[0-9A-Za-z]{43}$',
  description: 'the new secret key: shown once, never again (only its SHA-256 is stored)',
});

/** An allowlist as sent: addresses or CIDR ranges, normalised on the way in. */
export const AllowlistInput = Type.Array(Type.String({ maxLength: 64 }), {
  maxItems: 50,
  description:
    'IPv4/IPv6 addresses or CIDR ranges, ≤ 50; /0 refused; stored as /32 or /128 and by network address',
});

/** A key id path parameter. */
export const KeyIdParam = Type.String({ pattern: '^key_[0-9A-Za-z]{16}$', description: 'key id' });

/** An activity entry. */
export const ActivitySchema = Type.Object({
  at: IsoTime('when'),
  kind: Type.Union(
    [
      'key_created',
      'key_rolled',
      'key_revoked',
      'keys_revoked_all',
      'key_renamed',
      'allowlist_changed',
      'key_in_url',
      'ip_not_allowed',
      'revoked_key_used',
      'no_api_access',
    ].map((k) => Type.Literal(k)),
  ),
  keyId: Type.Union([Type.String(), Type.Null()]),
  keyName: Type.Union([Type.String(), Type.Null()]),
  keyPrefix: Type.Union([Type.String(), Type.Null()]),
  ip: Type.Union([Type.String({ description: 'caller IP, or cli for operator commands' }), Type.Null()]),
  detail: Type.Union([Type.String(), Type.Null()]),
});
export type ActivitySchema = Static<typeof ActivitySchema>;
