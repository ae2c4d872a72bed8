/**
 * A chain indexed from a late START_BLOCK sees tokens that existed before it: their balances and
 * supply did not start at zero. At the first observed transfer of such a token (one whose
 * creation was not observed), each wallet it touches for the first time is seeded with
 * `balanceOf(wallet)` at the block before, and the token's supply with `totalSupply()` at the block
 * before (eth_call, `prepare`, live ingest only); from then on R9 holds (balances follow transfer
 * events). The observations are stored with the block (SEED table, owner `tokens`) so a rebuild
 * replays them without the node. Tokens created inside the indexed range need no seed.
 */

import type { Rpc } from '../../rpc/client.js';
import type { BlockDelta } from '../../schema/delta.js';
import { ZERO } from '../../schema/rows/tokens.js';
import { transferOf } from '../../schema/stateless.js';
import { SEED } from '../../schema/tables/chain.js';
import { BALANCE_HIST, TOKEN } from '../../schema/tables/tokens.js';
import type { BlockBatch, Store } from '../../storage/index.js';

type Hex = `0x${string}`;

/** Seeds of one block: supplies and first-sight balances of tokens that predate START_BLOCK (base units). */
export interface TokenSeeds {
  /** Block whose end state the values are (the block before this one). */
  atBlock: number;
  supplies: Record<string, string>;
  balances: Record<string, Record<string, string>>;
  /** `token` (supply) or `token:wallet` (balance) the node could not answer at `atBlock` (pruned state). */
  unavailable: string[];
  /** Tokens first seen in this block that had code before the indexed range (eth_getCode). */
  predating: string[];
}

const BALANCE_OF = '0x70a08231';
const TOTAL_SUPPLY = '0x18160ddd';
/** eth_calls in flight while seeding one block (bounded: a busy first block can touch thousands). */
const SEED_CONCURRENCY = 16;

/** Reads a uint256 return value; null when the call answered nothing usable. */
const word = (r: string): bigint | null => (r.length >= 66 ? BigInt(r.slice(0, 66)) : null);

/**
 * Gathers the seeds block `d` needs (live ingest, before apply). No-op on a chain indexed from
 * block 0 or for block START_BLOCK's own predecessor-less start.
 */
export async function gatherSeeds(d: BlockDelta, store: Pick<Store, 'view'>, rpc: Rpc): Promise<void> {
  // One view across the awaits below is safe here: prepare runs before this block's commit and
  // reads only rows of earlier blocks, which no later commit rewrites (a rollback re-plans).
  const view = store.view();
  const wanted = { supplies: new Set<string>(), balances: new Map<string, Set<string>>() };
  let predatingNew: string[] = [];
  try {
    const first = view.meta<{ firstBlock: number }>('identity')?.firstBlock ?? 0;
    if (first === 0 || d.number === 0) return;
    // Tokens created in this block (a top-level creation or a launch) have no history before it.
    const createdHere = new Set(
      d.txs.filter((t) => t.contractAddress).map((t) => t.contractAddress as string),
    );
    for (const e of d.events)
      if (e.standard === 'launchpad' && e.event === 'LaunchCreated') createdHere.add(String(e.args.token));
    // Tokens first seen in this block: did they have code before the indexed range? A token
    // created inside it (by any contract, a factory's pair included) needs no seed.
    const firstSeen = new Set<string>();
    for (const e of d.events)
      if (transferOf(e) && !createdHere.has(e.address) && !view.has(TOKEN, e.address as Hex))
        firstSeen.add(e.address);
    const predating = new Set<string>();
    const before = `0x${(first - 1).toString(16)}`;
    await Promise.all(
      [...firstSeen].map(async (a) => {
        const code = await rpc.call<string>('eth_getCode', [a, before]).catch(() => '0x');
        if (code !== '0x') predating.add(a);
      }),
    );
    predatingNew = [...predating];
    for (const e of d.events) {
      const m = transferOf(e);
      if (!m) continue;
      const token = e.address as Hex;
      const row = view.get(TOKEN, token);
      if (row ? !row.predatesIndexedRange : !predating.has(token)) continue; // every transfer was seen
      // Its supply is seeded at its first transfer, which registers its row (its counters are
      // written when the batch is sealed: not yet visible within a history segment).
      if (!row) wanted.supplies.add(token);
      for (const w of [m.from, m.to]) {
        if (w === ZERO) continue;
        // Never observed for this token: no balance history row at all.
        if (view.first(BALANCE_HIST, { prefix: [token, w as Hex], limit: 1 })) continue;
        let set = wanted.balances.get(token);
        if (!set) wanted.balances.set(token, (set = new Set()));
        set.add(w);
      }
    }
  } finally {
    view.close();
  }
  if (!wanted.supplies.size && !wanted.balances.size && !predatingNew.length) return;
  const tag = `0x${(d.number - 1).toString(16)}`;
  const seeds: TokenSeeds = {
    atBlock: d.number - 1,
    supplies: {},
    balances: {},
    unavailable: [],
    predating: predatingNew,
  };
  const calls: Array<() => Promise<void>> = [];
  for (const token of wanted.supplies)
    calls.push(async () => {
      const v = word(
        await rpc.call<string>('eth_call', [{ to: token, data: TOTAL_SUPPLY }, tag]).catch(() => '0x'),
      );
      if (v !== null) seeds.supplies[token] = v.toString();
      else seeds.unavailable.push(token);
    });
  for (const [token, wallets] of wanted.balances)
    for (const w of wallets)
      calls.push(async () => {
        const data = `${BALANCE_OF}${w.slice(2).padStart(64, '0')}`;
        const v = word(await rpc.call<string>('eth_call', [{ to: token, data }, tag]).catch(() => '0x'));
        if (v === null) seeds.unavailable.push(`${token}:${w}`);
        else if (v !== 0n) (seeds.balances[token] ??= {})[w] = v.toString();
      });
  for (let i = 0; i < calls.length; i += SEED_CONCURRENCY)
    await Promise.all(calls.slice(i, i + SEED_CONCURRENCY).map((c) => c()));
  d.seeds = { ...d.seeds, tokens: seeds };
}

/**
 * The block's seeds: from `prepare` (live; also stored with the block) or, on a rebuild, the ones
 * stored when the block was first applied.
 */
export function seedsOf(batch: BlockBatch, d: BlockDelta): TokenSeeds | null {
  return storedSeeds<TokenSeeds>(batch, d, 'tokens');
}

/**
 * The seeds of `projection` for block `d`: the live ones (stored with the block as they are used)
 * or, on a rebuild, the ones stored when the block was first applied; null when there are none.
 */
export function storedSeeds<T>(batch: BlockBatch, d: BlockDelta, projection: 'tokens' | 'markets'): T | null {
  const live = d.seeds?.[projection] as T | undefined;
  if (live) {
    batch.insert(SEED, [d.number, projection], live);
    return live;
  }
  return (batch.get(SEED, d.number, projection) as T | undefined) ?? null;
}
