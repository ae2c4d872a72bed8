/** Cohorts (4) — issue F. Typed 503 until the cohort projection lands. */
import { Type } from '@sinclair/typebox';
import { pendingRoute } from '../../pending.js';
import { Address, CohortId } from '../../schemas.js';

const cl = { cursor: Type.Optional(Type.String({ maxLength: 1024 })), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) };
const C = (id: string, path: string, summary: string, params: object, query: object) =>
  pendingRoute({ id: `cohorts.${id}`, path, group: 'Cohorts', scope: 'read', summary, projection: 'cohorts', params: params as never, query: query as never, batchable: true });

export const cohortRoutes = [
  C('byToken', '/cohorts', 'Funding cohorts seeded by members funded in this token, ascending cohort id.', {}, { token: Address, ...cl }),
  C('detail', '/cohorts/{id}', 'Cohort metadata: kind, size, primary asset, generation, freshness.', { id: CohortId }, {}),
  C('edges', '/cohorts/{id}/edges', 'Evidence edges; screened members’ edges withheld.', { id: CohortId }, cl),
  C('members', '/cohorts/{id}/members', 'Member wallets with admittedBy; screened members dropped and listed.', { id: CohortId }, cl),
];
