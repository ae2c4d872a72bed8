import { Type } from '@sinclair/typebox';
import { KeyBuilder, prefixEnd, readU64 } from '../../../storage/keys.js';
import { LAUNCHPADS } from '../../../tokens/launchpads.js';
import { launchAt } from '../../../tokens/read.js';
import { launchJson } from '../../../tokens/render.js';
import { TokenTable } from '../../../tokens/tables.js';
import { ApiError } from '../../errors.js';
import { pageRequest, walkRange } from '../../page.js';
import { requireProjection } from '../../projections.js';
import { defineRoute } from '../../route.js';
import { Paged, pageQuery } from '../../schemas.js';
import { TOKENS } from './common.js';

/**
 * GET /launchpads/{pad}/launches (PAGE): launches across the pad's factory deployments in chain
 * coordinate order (block, log index) — oldest first by default, `order=desc` newest first — with
 * state as of the anchor and normalised URIs.
 */
export const launchpadLaunchesRoute = defineRoute({
  id: 'tokens.launchpadLaunches',
  method: 'GET',
  path: '/launchpads/{pad}/launches',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Launches of a registered pad in chain-coordinate order (oldest first; order=desc newest first), with state as of the anchor, normalised metadataUri/imageUri and imageProvenance.',
  params: {
    pad: Type.String({ pattern: '^[a-z0-9][a-z0-9_.-]{0,47}$', description: 'canonical launchpad name' }),
  },
  query: pageQuery(),
  response: Paged(Type.Object({}, { additionalProperties: true }), {
    orderedBy: Type.Literal('chain_coordinate'),
  }),
  errors: ['not_found', 'bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    requireProjection(ctx.chain, TOKENS);
    const pad = LAUNCHPADS.find((l) => l.name === ctx.params.pad);
    if (!pad) throw new ApiError('not_found', `no registered launchpad "${ctx.params.pad}"; see /launchpads`);
    const req = pageRequest(ctx, `${this.id}:${pad.name}`);
    const p = new KeyBuilder(3).u8(TokenTable.PAD_LAUNCH).u16(pad.index).done();
    const rocks = ctx.chain.store.rocks;
    return walkRange(ctx, req, { prefix: p, gte: p, lt: prefixEnd(p) }, (k, v) => {
      if (readU64(k, 3) > req.anchor.number) return null;
      const l = launchAt(ctx.view, `0x${v.toString('hex')}`, req.anchor.number);
      return l ? [JSON.stringify(launchJson(l)), k.subarray(3)] : null;
    }).finish('"orderedBy":"chain_coordinate"');
  },
});
