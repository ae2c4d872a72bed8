import { Type } from '@sinclair/typebox';
import { LAUNCHPADS } from '../../../tokens/launchpads.js';
import { anchorJson, defineRoute } from '../../route.js';

/** GET /launchpads: the registered launchpad table (29 entries) with this chain's deployments. */
export const launchpadsRoute = defineRoute({
  id: 'tokens.launchpads',
  method: 'GET',
  path: '/launchpads',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Registered launchpad table (29 entries), by canonical name, with deployments on this chain (factories, shared curve address, graduation target in wei) or deploymentsReason.',
  response: Type.Object({
    anchor: Type.Object({}, { additionalProperties: true }),
    data: Type.Array(Type.Object({}, { additionalProperties: true })),
  }),
  errors: [],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const rows = LAUNCHPADS.map((l) => {
      const d = ctx.chain.launchpads.get(l.name);
      return {
        name: l.name,
        displayName: l.displayName,
        deployments: d ? [d] : [],
        deploymentsReason: d ? null : 'not_configured_for_this_chain',
      };
    });
    return {
      json: `{"anchor":${anchorJson(ctx.anchor)},"data":${JSON.stringify(rows)},"count":${rows.length}}`,
    };
  },
});
