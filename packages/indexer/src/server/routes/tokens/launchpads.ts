import { Type } from '@sinclair/typebox';
import { anchorJson, defineRoute } from '../../route.js';
import { Address, Anchor, Count, Nullable, Obj } from '../../schemas.js';

const Deployment = Obj({
  factories: Type.Array(Address, { description: 'contracts that emit the pad launch events' }),
  curve: Address,
  graduationTargetWei: Nullable(
    Type.String({ pattern: '^(0|[1-9][0-9]*)$' }),
    'native reserve (wei) that triggers graduation; null when unknown',
  ),
});

/** GET /launchpads: the registered launchpad table with this chain's deployments. */
export const launchpadsRoute = defineRoute({
  id: 'tokens.launchpads',
  method: 'GET',
  path: '/launchpads',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Registered launchpad table (29 entries), by canonical name, with deployments on this chain (factories, shared curve address, graduation target in wei) or deploymentsReason.',
  response: Obj({
    anchor: Anchor,
    data: Type.Array(
      Obj({
        name: Type.String(),
        displayName: Type.String(),
        deployments: Type.Array(Deployment),
        deploymentsReason: Nullable(Type.Literal('not_configured_for_this_chain')),
      }),
    ),
    count: Count('launchpads in the table'),
  }),
  errors: [],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const rows = ctx.readers.tokens.launchpads();
    return {
      json: `{"anchor":${anchorJson(ctx.anchor)},"data":${JSON.stringify(rows)},"count":${rows.length}}`,
    };
  },
});
