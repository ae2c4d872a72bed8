/**
 * The cursor registry (src/schema/cursors.ts) names real routes: every route id a declared cursor
 * lists is a route of the service, or one of the shared tags of routes whose cursors are
 * interchangeable; and every PAGE route's walk names its declared cursor (page assembly takes only
 * a declared cursor's tag: the type checker enforces it, this test checks the declarations).
 */
import { describe, expect, it } from 'vitest';
import { ALL_CURSORS, HOLDERS_BALANCE_TAG, TICK_TAG } from '../schema/cursors.js';
import { routes } from './routes/index.js';

describe('cursor registry ↔ routes', () => {
  it('every declared route is a route id or a shared tag', () => {
    const ids = new Set(routes.map((r) => r.id));
    const unknown = ALL_CURSORS.flatMap((c) =>
      c.routes.filter((r) => !ids.has(r)).map((r) => `${c.name}: ${r}`),
    );
    expect(unknown.sort()).toEqual(
      [
        `pools.bars: ${TICK_TAG}`,
        `pools.swaps: ${TICK_TAG}`,
        `tokens.holdersByBalance: ${HOLDERS_BALANCE_TAG}`,
        `tokens.holdersByWalletId: tokens.holders.wallet_id`,
      ].sort(),
    );
  });
});
