/**
 * The table registry: every table of the store, declared once with its id, key layout and value
 * codec (one file per owner). Ids are never reused: data written under an id may still be on disk.
 *
 * | ids | owner |
 * |---|---|
 * | 0x01–0x0c | chain records, meta, undo, gaps, probes (chain.ts) |
 * | 0x20–0x33 | tokens (tokens.ts) |
 * | 0x40–0x41, 0x50–0x53 | decoded views, traces lane (traces.ts) |
 * | 0x5f–0x6f | markets (markets.ts; grows down from 0x5f) |
 * | 0x70–0x71 | stream log (streams.ts) |
 * | 0x80–0x91 | wallets (wallets.ts; grows up from 0x90) |
 */
import type { AnyTable } from '../table.js';
import { CHAIN_TABLES } from './chain.js';
import { MARKETS_TABLES } from './markets.js';
import { STREAM_TABLES } from './streams.js';
import { TOKENS_TABLES } from './tokens.js';
import { TRACE_TABLES } from './traces.js';
import { WALLETS_TABLES } from './wallets.js';

export * as chainTables from './chain.js';
export * as marketsTables from './markets.js';
export * as streamTables from './streams.js';
export * as tokensTables from './tokens.js';
export * as traceTables from './traces.js';
export * as walletsTables from './wallets.js';

/** Every table, in id order. */
export const ALL_TABLES: readonly AnyTable[] = [
  ...CHAIN_TABLES,
  ...TOKENS_TABLES,
  ...TRACE_TABLES,
  ...MARKETS_TABLES,
  ...STREAM_TABLES,
  ...WALLETS_TABLES,
].sort((a, b) => a.id - b.id);

/** Tables written by one owner (a projection's tables are wiped and rebuilt together). */
export function tablesOf(owner: string): AnyTable[] {
  return ALL_TABLES.filter((t) => t.owner === owner);
}

/** The table with id `id`, or undefined. */
export function tableById(id: number): AnyTable | undefined {
  return ALL_TABLES.find((t) => t.id === id);
}
