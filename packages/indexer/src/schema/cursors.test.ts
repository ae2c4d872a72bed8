/**
 * The cursor registry (src/schema/cursors.ts): declarations are unique and keep the key bytes the
 * routes handed out before the registry, and no read-side file builds or reads a cursor key by
 * hand (the byte primitives a hand-built key needs appear only in the registry, the envelope codec
 * src/cursor and storage).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  ALL_CURSORS,
  CANDLE_BUCKETS,
  CHAIN_CALL_FRAMES,
  COHORT_EDGES,
  COHORTS_BY_TOKEN,
  MONITORING_GAPS,
  POOL_BARS,
  POOL_SWAPS,
  TOKEN_HOLDERS_BY_BALANCE,
  TOKEN_POOLS_RANKED,
  WALLET_ASSETS_RANKED,
  WALLET_PNL_DAILY,
} from './cursors.js';
import { GAP } from './tables/chain.js';
import { SWAP } from './tables/markets.js';
import { HOLDER_CUR } from './tables/tokens.js';
import { TRACE_FRAME } from './tables/traces.js';
import { DAILY } from './tables/wallets.js';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..');
const A = `0x${'ab'.repeat(20)}` as const;
const B = `0x${'cd'.repeat(20)}` as const;
const POOL = `0x${'11'.repeat(52)}` as const;

/** The read side: the domains' readers, the server and the query layer (write side excluded). */
const READ_SIDE = [
  'tokens',
  'markets',
  'wallets',
  'chain',
  'cohorts',
  'addresses',
  'screener',
  'streams',
  'server',
  'queries',
];
const WRITE_SIDE = /(^|\/)(apply\/|build\.ts$|projection\.ts$)/;
/** What a hand-built cursor key needs: byte buffers, integer writes/reads, slicing, the envelope. */
const HAND_BUILT =
  /\bBuffer\.(alloc|allocUnsafe|allocUnsafeSlow|concat|from)\(|\.(write|read)(Big)?U?Int(8|16|32|64)?(BE|LE)?\(|\.subarray\(|\bafter\.(toString|subarray|read|slice|copy)|cursors\.(encode|decode)\(/g;
/** The one file allowed the envelope calls: the page assembly (decode a cursor, mint the next). */
const ENVELOPE_OWNER = 'server/page.ts';

function sources(dir: string, out: string[] = []): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (name.endsWith('.ts') && !/\.(test|bench|d)\.ts$/.test(name)) out.push(p);
  }
  return out;
}

/** Every use of a cursor-key primitive on the read side outside the registry, as `file:line: match`. */
function handBuiltCursorKeys(): string[] {
  const bad: string[] = [];
  for (const folder of READ_SIDE)
    for (const f of sources(join(SRC, folder))) {
      const r = relative(SRC, f).replaceAll('\\', '/');
      if (WRITE_SIDE.test(r)) continue;
      readFileSync(f, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          for (const m of line.matchAll(HAND_BUILT)) {
            if (r === ENVELOPE_OWNER && m[0].startsWith('cursors.')) continue;
            bad.push(`${r}:${i + 1}: ${m[0]}`);
          }
        });
    }
  return bad;
}

describe('cursor registry', () => {
  it('declares each walk once, with routes', () => {
    const names = ALL_CURSORS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const c of ALL_CURSORS) expect(c.routes.length).toBeGreaterThan(0);
  });

  it('keeps the key bytes of the earlier hand-built keys', () => {
    expect(POOL_BARS.encode(5, 7).toString('hex')).toBe('0000000000000005' + '00000007');
    expect(CANDLE_BUCKETS.encode(1_700_000_000).toString('hex')).toBe('000000006553f100');
    expect(TOKEN_POOLS_RANKED.encode(32).toString('hex')).toBe('00000020');
    expect(COHORTS_BY_TOKEN.encode('0x0102030405060708', 9).toString('hex')).toBe(
      '0102030405060708' + '00000009',
    );
    expect(COHORT_EDGES.encode(A, 1).toString('hex')).toBe(`${A.slice(2)}01`);
    const sortKey = HOLDER_CUR.key(A, 1234n, B).subarray(21);
    const holders = TOKEN_HOLDERS_BY_BALANCE.encode(1234n, B, 3);
    expect(holders.toString('hex')).toBe(`${sortKey.toString('hex')}00000003`);
    expect(TOKEN_HOLDERS_BY_BALANCE.head(holders, 2)).toEqual(sortKey);
    expect(TOKEN_HOLDERS_BY_BALANCE.decodeHead(sortKey, 2)).toEqual([1234n, B]);
    expect(TOKEN_HOLDERS_BY_BALANCE.decode(holders)).toEqual([1234n, B, 3]);
    expect(WALLET_ASSETS_RANKED.encode(1, 5n, A).toString('hex')).toBe(
      `01${5n.toString(16).padStart(64, '0')}${A.slice(2)}`,
    );
  });

  it('table cursors are the key after the walk’s leading parts', () => {
    expect(POOL_SWAPS.tail(SWAP.key(POOL, 10, 2))).toEqual(SWAP.key(POOL, 10, 2).subarray(53));
    expect(WALLET_PNL_DAILY.tail(DAILY.key(A, B, A, 19000))).toEqual(DAILY.key(A, B, A, 19000).subarray(61));
    expect(CHAIN_CALL_FRAMES.tail(TRACE_FRAME.key(1, 2, 3)).toString('hex')).toBe('00000003');
    expect(MONITORING_GAPS.tail(GAP.key('traces', 4))).toEqual(GAP.key('traces', 4).subarray(1));
  });

  it('refuses a key of another layout', () => {
    expect(() => POOL_BARS.decode(TOKEN_POOLS_RANKED.encode(1))).toThrow(/too short|read/);
    expect(() => TOKEN_POOLS_RANKED.decode(POOL_BARS.encode(1, 1))).toThrow(/12 bytes, read 4/);
  });

  it('tags a walk with a declared route and its subject', () => {
    expect(TOKEN_POOLS_RANKED.tag('tokens.poolsRanked', A, 'volume_24h', '').tag).toBe(
      `tokens.poolsRanked:${A}:volume_24h:`,
    );
    expect(TOKEN_POOLS_RANKED.tag('tokens.poolsRanked').cursor).toBe(TOKEN_POOLS_RANKED);
    expect(() => TOKEN_POOLS_RANKED.tag('tokens.overview', A)).toThrow(/not declared/);
  });

  it('no read-side file builds or reads a cursor key by hand', () => {
    expect(handBuiltCursorKeys()).toEqual([]);
  });
});
