/**
 * What every thread knows of the projections without their build code: name, layout version and
 * the route groups each backs (R5, /health). The projections (built in the ingest engine thread
 * only) take their identity from here, so the serving thread and a read replica hold the same
 * versions without loading a line of build code. Bump a version here when a projection's stored
 * layout or semantics change: it is then rebuilt from the stored blocks.
 */

/** A projection's identity. */
export interface ProjectionIdentity {
  readonly name: string;
  readonly version: number;
  readonly backs: readonly string[];
}

/** The projections of a chain, in dependency order (the order they apply a block in). */
export const PROJECTION_IDENTITIES = {
  decoded_views: {
    name: 'decoded_views',
    version: 1,
    backs: [
      '/blocks/{number}/logs/decoded',
      '/transactions/{hash}/logs/decoded',
      '/transactions/{hash}/decoded',
    ],
  },
  tokens: {
    name: 'tokens',
    // 2: the zero address is never a holder (mint source / burn sink).
    // 3: Transfer(0x0, 0x0, v) is a mint to the zero address (supply and its balance go up).
    // 4: typed tables; search terms never hold a NUL byte; tokens older than START_BLOCK seeded.
    // 5: LAUNCH_LAST (ingest reads the latest launch row by a point read).
    // 6: TRANSFER rows packed (binary codec, schema/pack.ts).
    version: 6,
    backs: ['Tokens (registry, balances, holders, transfers, authority events, launches)'],
  },
  markets: {
    name: 'markets',
    // 2: candle first/last trade coordinates; token swap index. 3: block swap index. 4: buy volumes in candles.
    // 5: pools first seen after START_BLOCK registered (verified, seeded); provenance on every pool row.
    // 6: window state at ingest (running totals per pool and block, minute → first block, last swap per origin).
    // 7: POOL_CUM_LAST (ingest reads the latest totals row by a point read).
    // 8: the pool state carries its all-time high and low (the extreme at a block is one seek).
    version: 8,
    backs: ['Pools', 'Tokens (market routes)'],
  },
  wallets: {
    name: 'wallets',
    // 2: ACTIVITY index (one row per activity parent, so the feed pages in O(page)).
    // 3: WALLET_TRANSFER rows packed (binary codec, schema/pack.ts).
    // 4: POSITION_HIST and GENERATION_HIST (positions, PnL and cohorts as of a block).
    version: 4,
    backs: ['Wallets', 'Cohorts', 'Addresses'],
  },
} as const satisfies Record<string, ProjectionIdentity>;

/** The identities in dependency order. */
export const PROJECTION_LIST: readonly ProjectionIdentity[] = Object.values(PROJECTION_IDENTITIES);
