/** The PAGE routes over one token's rows (`/tokens/{address}/…`). */

import type { TSchema } from '@sinclair/typebox';
import type { AnyCursor } from '../../../schema/cursor.js';
import type { PageQuery, PageSink } from '../../page.js';
import type { Ctx, Route } from '../../route.js';
import { type PagedRouteSpec, pagedRoute } from '../../route-shapes.js';
import { Address } from '../../schemas.js';
import { TOKENS } from './common.js';

/**
 * A PAGE route of one token's rows: scope read, group Tokens, the tokens projection, 404
 * `not_found` for a token not indexed, the cursor bound to the lowercase address. `walk` pages
 * the rows of the address as the path gives it.
 */
export function tokenPage<R>(o: {
  id: string;
  /** The walk's declared cursor (src/schema/cursors.ts). */
  cursor: AnyCursor;
  path: string;
  summary: string;
  row: TSchema;
  walk: (
    ctx: Ctx<{ address: string }>,
    token: string,
    q: PageQuery,
    sink: PageSink<R>,
  ) => ReturnType<PagedRouteSpec<{}, {}, R>['walk']>;
}): Route {
  const { walk, ...rest } = o;
  return pagedRoute({
    requires: [TOKENS],
    errors: ['not_found'],
    params: { address: Address },
    scope: 'read',
    group: 'Tokens',
    ...rest,
    subject: (ctx) => ctx.params.address.toLowerCase(),
    walk: (ctx, q, sink: PageSink<R>) => walk(ctx, ctx.params.address, q, sink),
  });
}
