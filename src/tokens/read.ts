/**
 * Reads of the tokens projection as of an anchor block (R1/R2). Mutable state is read through
 * per-block history rows (latest row ≤ anchor), so a walk at an older anchor sees that block.
 */
import type { Rocks } from '../storage/index.js';
import { KeyBuilder } from '../storage/keys.js';
import type { LaunchRow, TokenRow, TokenStats } from './model.js';
import { balanceHistKey, launchHistKey, statsHistKey, tokenKey } from './tables.js';

/** The token row if the token was first seen at or before `anchor`. */
export function tokenAt(rocks: Rocks, address: string, anchor: number): TokenRow | null {
  const v = rocks.get(tokenKey(address));
  if (!v) return null;
  const row = JSON.parse(v.toString()) as TokenRow;
  if (row.firstSeen.block > anchor) return null;
  if (row.confirmedAt && row.confirmedAt.block > anchor) row.confirmedAt = null;
  return row;
}

/** Latest value of a per-block history row whose key is `prefix` + u64 block, at or before `anchor`. */
function latestAt(rocks: Rocks, prefix: Buffer, anchor: number): Buffer | null {
  const rows = rocks.scan({
    gte: prefix,
    lt: Buffer.concat([prefix, new KeyBuilder(8).u64(anchor + 1).done()]),
    reverse: true,
    limit: 1,
  });
  return rows.length ? rows[0][1] : null;
}

export function statsAt(rocks: Rocks, token: string, anchor: number): TokenStats | null {
  const v = latestAt(rocks, statsHistKey(token, 0).subarray(0, 21), anchor);
  return v ? (JSON.parse(v.toString()) as TokenStats) : null;
}

/** Signed balance (base units) of `wallet` in `token` at the end of block `anchor`. */
export function balanceAt(rocks: Rocks, token: string, wallet: string, anchor: number): bigint {
  const v = latestAt(rocks, balanceHistKey(token, wallet, 0).subarray(0, 41), anchor);
  return v ? BigInt(v.toString()) : 0n;
}

export function launchAt(rocks: Rocks, token: string, anchor: number): LaunchRow | null {
  const v = latestAt(rocks, launchHistKey(token, 0).subarray(0, 21), anchor);
  return v ? (JSON.parse(v.toString()) as LaunchRow) : null;
}

/** holderCount in the uniform shape of every holder-bearing route. */
export function holderCountJson(
  stats: TokenStats | null,
  token: TokenRow | null,
  anchor: number,
  fullCoverage: boolean,
): string {
  if (!token)
    return `{"value":null,"status":"token_not_indexed","asOfBlock":${anchor},"burnSinkHolders":null}`;
  const status = fullCoverage || token.creation ? 'exact' : 'backfilling';
  return `{"value":${stats?.holders ?? 0},"status":"${status}","asOfBlock":${anchor},"burnSinkHolders":${stats?.burnSinkHolders ?? 0}}`;
}
