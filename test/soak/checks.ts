/**
 * The soak's checks of one indexer against the node, made while the node stands still and the
 * indexer is at its head:
 *  - every holder balance of every standard token equals `balanceOf` at the response's anchor;
 *  - every token supply (mints minus burns) equals `totalSupply()` at the anchor;
 *  - every V2 pool's reserves equal `getReserves()`, every V3 pool's slot0 and liquidity equal
 *    `slot0()`/`liquidity()`, every V4 pool's equal the PoolManager's storage (extsload);
 *  - every stream consumer's surviving frames equal the records the read routes serve.
 * Every response goes through the harness's `get`, which validates it against its route's
 * contract (test/harness/contract.ts). A check returns the comparisons made and the divergences.
 */
import { encodeAbiParameters, keccak256 } from 'viem';
import type { IndexerProcess } from '../harness/indexer.js';
import { hex, int24, rpcBatch, word } from './node.js';
import type { Consumer, KeptFrame } from './streams.js';

/** One row where the index and the node (or a stream and a route) disagree. */
export interface Divergence {
  check: string;
  indexer: string;
  /** The anchor block the compared figure was read at. */
  block: number;
  row: string;
  index: string;
  truth: string;
  /** Asks the node again for the truth at the same block (see {@link confirm}). */
  recheck?: () => Promise<string>;
}

export interface CheckResult {
  /** Comparisons made, by check. */
  made: Record<string, number>;
  divergences: Divergence[];
  /** Mismatches the node took back when asked again about the same block (see {@link confirm}). */
  nodeRaces?: Divergence[];
}

const result = (): CheckResult => ({ made: {}, divergences: [] });
const count = (r: CheckResult, check: string, n = 1) => {
  r.made[check] = (r.made[check] ?? 0) + n;
};

/** Every row of a paged route (the first page's anchor kept by the cursor), with that anchor. */
export async function walk(
  idx: IndexerProcess,
  path: string,
  stop?: (row: any) => boolean,
): Promise<{ rows: any[]; anchor: { block: number; hash: string } }> {
  const rows: any[] = [];
  let anchor: { block: number; hash: string } | null = null;
  let cursor: string | null = null;
  const sep = path.includes('?') ? '&' : '?';
  do {
    const r = await idx.get(`${path}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (r.status !== 200) throw new Error(`${path} → ${r.status}: ${r.text.slice(0, 300)}`);
    anchor ??= r.body.anchor;
    for (const row of r.body.data) {
      if (stop?.(row)) return { rows, anchor: anchor! };
      rows.push(row);
    }
    cursor = r.body.page?.nextCursor ?? null;
  } while (cursor);
  return { rows, anchor: anchor! };
}

const BALANCE_OF = '0x70a08231';
const TOTAL_SUPPLY = '0x18160ddd';
const GET_RESERVES = '0x0902f1ac';
const SLOT0 = '0x3850c7bd';
const LIQUIDITY = '0x1a686502';
const EXTSLOAD = '0x1e2eaeaf';

const asWord = (r: unknown, i = 0): string =>
  r instanceof Error ? `error: ${r.message}` : typeof r === 'string' ? String(word(r, i)) : String(r);

/**
 * Balances and supplies of every confirmed ERC-20 the index lists, except `skip` (tokens whose
 * balances move without Transfer events by design: the devnet's fee-on-transfer and rebasing ones).
 * Each mismatch carries its `recheck` (the same call again: see {@link confirm}).
 */
export async function checkTokens(
  name: string,
  idx: IndexerProcess,
  nodeUrl: string,
  skip: ReadonlySet<string>,
): Promise<CheckResult> {
  const out = result();
  const ask = async (call: { method: string; params: unknown[] }) =>
    asWord((await rpcBatch(nodeUrl, [call]))[0]);
  const { rows: tokens } = await walk(idx, '/tokens?limit=1000');
  for (const t of tokens) {
    if (!t.confirmedErc20 || skip.has(t.address.toLowerCase())) continue;
    const d = await idx.get(`/tokens/${t.address}`);
    if (d.status !== 200) throw new Error(`/tokens/${t.address} → ${d.status}: ${d.text.slice(0, 300)}`);
    const at = d.body.anchor.block;
    const supplyCall = { method: 'eth_call', params: [{ to: t.address, data: TOTAL_SUPPLY }, hex(at)] };
    const supply = await ask(supplyCall);
    count(out, 'supply');
    if (supply !== d.body.data.supplyFromTransfers)
      out.divergences.push({
        check: 'supply',
        indexer: name,
        block: at,
        row: `token ${t.symbol ?? ''} ${t.address} supplyFromTransfers (totalSupply)`,
        index: d.body.data.supplyFromTransfers,
        truth: supply,
        recheck: () => ask(supplyCall),
      });
    const { rows: holders, anchor } = await walk(
      idx,
      `/tokens/${t.address}/holders?sort=wallet_id&limit=1000`,
    );
    const calls = holders.map((h) => ({
      method: 'eth_call',
      params: [
        { to: t.address, data: `${BALANCE_OF}${h.wallet.slice(2).padStart(64, '0')}` },
        hex(anchor.block),
      ],
    }));
    const answers = await rpcBatch(nodeUrl, calls);
    count(out, 'balance', holders.length);
    holders.forEach((h, i) => {
      const truth = asWord(answers[i]);
      if (truth !== h.balance)
        out.divergences.push({
          check: 'balance',
          indexer: name,
          block: anchor.block,
          row: `token ${t.symbol ?? ''} ${t.address} holder ${h.wallet} (balanceOf)`,
          index: h.balance,
          truth,
          recheck: () => ask(calls[i]),
        });
    });
  }
  return out;
}

/** V4 pool state from the PoolManager's storage (StateLibrary: pools mapping at slot 6). */
function v4Calls(manager: string, poolId: string, at: number) {
  const slot = BigInt(
    keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }], [poolId as `0x${string}`, 6n])),
  );
  const load = (s: bigint) => ({
    method: 'eth_call',
    params: [{ to: manager, data: `${EXTSLOAD}${s.toString(16).padStart(64, '0')}` }, hex(at)],
  });
  return [load(slot), load(slot + 3n)];
}

/** A pool's state fields as the node answers them at block `at` (decimal strings). */
async function poolTruth(
  nodeUrl: string,
  p: { protocol: string; contract: string; poolId: string | null },
  at: number,
): Promise<Record<string, string>> {
  if (p.protocol === 'v2') {
    const [r] = await rpcBatch(nodeUrl, [
      { method: 'eth_call', params: [{ to: p.contract, data: GET_RESERVES }, hex(at)] },
    ]);
    return { reserve0: asWord(r, 0), reserve1: asWord(r, 1) };
  }
  if (p.protocol === 'v3') {
    const [s0, liq] = await rpcBatch(nodeUrl, [
      { method: 'eth_call', params: [{ to: p.contract, data: SLOT0 }, hex(at)] },
      { method: 'eth_call', params: [{ to: p.contract, data: LIQUIDITY }, hex(at)] },
    ]);
    return {
      sqrtPriceX96: asWord(s0, 0),
      tick: typeof s0 === 'string' ? String(int24(word(s0, 1) ?? 0n)) : asWord(s0),
      liquidity: asWord(liq),
    };
  }
  const [s0, liq] = await rpcBatch(nodeUrl, v4Calls(p.contract, p.poolId!, at));
  const w0 = typeof s0 === 'string' ? BigInt(s0) : null;
  const wl = typeof liq === 'string' ? BigInt(liq) : null;
  return {
    sqrtPriceX96: w0 === null ? asWord(s0) : String(w0 & ((1n << 160n) - 1n)),
    tick: w0 === null ? asWord(s0) : String(int24((w0 >> 160n) & 0xffffffn)),
    liquidity: wl === null ? asWord(liq) : String(wl & ((1n << 128n) - 1n)),
  };
}

/** Every V2/V3/V4 pool's state against the pool contracts at the response's anchor. */
export async function checkPools(name: string, idx: IndexerProcess, nodeUrl: string): Promise<CheckResult> {
  const out = result();
  const { rows: pools } = await walk(idx, '/pools/new?limit=500');
  for (const p of pools) {
    if (p.protocol === 'launchpad') continue;
    const path = p.protocol === 'v4' ? `/pools/v4/${p.contract}/${p.poolId}` : `/pools/${p.contract}`;
    const d = await idx.get(path);
    if (d.status !== 200) throw new Error(`${path} → ${d.status}: ${d.text.slice(0, 300)}`);
    const at = d.body.anchor.block;
    const s = d.body.data.state;
    const label = `${p.protocol} pool ${p.contract}${p.poolId ? ` ${p.poolId}` : ''}`;
    const truth = await poolTruth(nodeUrl, p, at);
    count(out, p.protocol === 'v2' ? 'v2_reserves' : `${p.protocol}_slot0_liquidity`);
    for (const [f, value] of Object.entries(truth))
      if (String(s[f]) !== value)
        out.divergences.push({
          check: 'pool_state',
          indexer: name,
          block: at,
          row: `${label} ${f}`,
          index: String(s[f]),
          truth: value,
          recheck: async () => (await poolTruth(nodeUrl, p, at))[f],
        });
  }
  return out;
}

/**
 * The mismatches that stand when the node is asked again about the same block once it has moved
 * on: the state at a past block is final, so a figure the node takes back was its own race (anvil
 * answering a call at its head block while the next block is being mined), not the index's.
 * `head()` reads the node's head; waits up to 15 s for it to pass the mismatches' blocks.
 */
export async function confirm(r: CheckResult, head: () => Promise<number>): Promise<CheckResult> {
  const pending = r.divergences.filter((d) => d.recheck);
  if (!pending.length) return r;
  const past = Math.max(...pending.map((d) => d.block)) + 2;
  for (const t0 = Date.now(); Date.now() - t0 < 15_000 && (await head()) < past; )
    await new Promise((x) => setTimeout(x, 250));
  const stand: Divergence[] = r.divergences.filter((d) => !d.recheck);
  const races: Divergence[] = [];
  for (const d of pending) {
    const again = await d.recheck!();
    if (again === d.index) races.push({ ...d, truth: `${d.truth}, then ${again} when asked again` });
    else stand.push({ ...d, truth: again === d.truth ? d.truth : `${d.truth}, then ${again}` });
  }
  return { made: r.made, divergences: stand, nodeRaces: [...(r.nodeRaces ?? []), ...races] };
}

/** Fields both records carry differ (the first such field), or null when they agree. */
function firstDifference(frame: any, row: any): string | null {
  if (frame === null || row === null || typeof frame !== 'object' || typeof row !== 'object')
    return JSON.stringify(frame) === JSON.stringify(row) ? null : '(value)';
  let common = 0;
  for (const k of Object.keys(frame)) {
    if (!(k in row)) continue;
    common++;
    if (JSON.stringify(frame[k]) !== JSON.stringify(row[k])) return k;
  }
  return common === 0 ? '(no common field)' : null;
}

const coord = (x: { block: number; logIndex: number }) => `${x.block}:${x.logIndex}`;

/**
 * The surviving frames of every consumer of `idx`, for blocks `from`..`to`, against the read
 * routes: block and head frames against /blocks/{n} (one per block, none missing), transactions and
 * logs against /blocks/{n}/transactions and /logs, transfers against /tokens/{t}/transfers, swaps and
 * liquidity events against the pool routes, new pools against /pools/new, creations against the
 * receipt or the launch (each launch's last frame: {@link checkLaunchFrames}). Made on a moving
 * chain: every route read is of blocks up to `to`, which the indexer holds.
 */
export async function checkStreams(
  name: string,
  idx: IndexerProcess,
  consumers: Consumer[],
  from: number,
  to: number,
): Promise<CheckResult> {
  const out = result();
  const diverge = (check: string, row: string, index: unknown, truth: unknown, block = to) =>
    out.divergences.push({
      check: `stream_${check}`,
      indexer: name,
      block,
      row,
      index: JSON.stringify(index)?.slice(0, 600) ?? 'none',
      truth: JSON.stringify(truth)?.slice(0, 600) ?? 'none',
    });
  const framesOf = (topic: string): KeptFrame[] =>
    (consumers.find((c) => c.topic === topic)?.frames() ?? []).filter(
      (f) => f.block >= from && f.block <= to,
    );
  const byBlock = (fs: KeptFrame[]) => {
    const m = new Map<number, KeptFrame[]>();
    for (const f of fs) m.set(f.block, [...(m.get(f.block) ?? []), f]);
    return m;
  };

  // Blocks and heads: exactly one frame per block, equal to the block route.
  const blocks = byBlock(framesOf('blocks'));
  const heads = byBlock(framesOf('heads'));
  const txs = byBlock(framesOf('transactions'));
  const logs = byBlock(framesOf('logs'));
  for (let n = from; n <= to; n++) {
    const b = await idx.get(`/blocks/${n}`);
    if (b.status !== 200) throw new Error(`/blocks/${n} → ${b.status}`);
    const blk = b.body.data;
    const bf = blocks.get(n) ?? [];
    count(out, 'stream_blocks');
    if (bf.length !== 1)
      diverge(
        'blocks',
        `block ${n}: ${bf.length} block frames`,
        bf.map((f) => f.data.hash),
        blk.hash,
        n,
      );
    else if (firstDifference(bf[0].data, blk))
      diverge('blocks', `block ${n} field ${firstDifference(bf[0].data, blk)}`, bf[0].data, blk, n);
    const hf = heads.get(n) ?? [];
    count(out, 'stream_heads');
    const headRow = {
      number: n,
      hash: blk.hash,
      parentHash: blk.parentHash,
      timestamp: Number.parseInt(blk.timestamp, 16),
    };
    if (hf.length !== 1)
      diverge(
        'heads',
        `block ${n}: ${hf.length} head frames`,
        hf.map((f) => f.data),
        headRow,
        n,
      );
    else if (JSON.stringify(hf[0].data) !== JSON.stringify(headRow))
      diverge('heads', `block ${n}`, hf[0].data, headRow, n);
    for (const [topic, path, got] of [
      ['transactions', `/blocks/${n}/transactions?limit=1000`, txs.get(n) ?? []],
      ['logs', `/blocks/${n}/logs?limit=1000`, logs.get(n) ?? []],
    ] as const) {
      const { rows } = await walk(idx, path);
      count(out, `stream_${topic}`, rows.length);
      if (rows.length !== got.length) {
        diverge(topic, `block ${n}: ${got.length} frames, ${rows.length} rows`, got.length, rows.length, n);
        continue;
      }
      rows.forEach((r, i) => {
        const k = firstDifference(got[i].data, r);
        if (k) diverge(topic, `block ${n} #${i} field ${k}`, got[i].data, r, n);
      });
    }
  }

  // Transfers by token: the frames of the range equal the token's transfer rows of the range.
  const transfers = framesOf('transfers');
  const byToken = new Map<string, KeptFrame[]>();
  for (const f of transfers) byToken.set(f.data.token, [...(byToken.get(f.data.token) ?? []), f]);
  const { rows: tokens } = await walk(idx, '/tokens?limit=1000');
  for (const t of tokens.map((x) => x.address as string)) {
    const { rows } = await walk(idx, `/tokens/${t}/transfers?order=desc&limit=1000`, (r) => r.block < from);
    const inRange = rows.filter((r) => r.block <= to);
    const fs = new Map((byToken.get(t) ?? []).map((f) => [coord(f.data), f]));
    count(out, 'stream_transfers', inRange.length);
    for (const r of inRange) {
      const f = fs.get(coord(r));
      if (!f) diverge('transfers', `token ${t} transfer ${coord(r)}: no frame`, null, r, r.block);
      else if (firstDifference(f.data, r))
        diverge('transfers', `token ${t} transfer ${coord(r)}`, f.data, r, r.block);
      fs.delete(coord(r));
    }
    for (const [c, f] of fs)
      diverge('transfers', `token ${t} transfer ${c}: frame without a row`, f.data, null, f.block);
  }

  // AMM events: swaps and liquidity events of V2/V3/V4 pools against the pool routes.
  const amm = framesOf('amm_events');
  const { rows: pools } = await walk(idx, '/pools/new?limit=500');
  for (const p of pools) {
    if (p.protocol === 'launchpad') continue;
    const base = p.protocol === 'v4' ? `/pools/v4/${p.contract}/${p.poolId}` : `/pools/${p.contract}`;
    const kinds: Array<['swap' | 'liquidity', string]> = [['swap', `${base}/swaps`]];
    if (p.protocol !== 'v4') kinds.push(['liquidity', `/pools/${p.contract}/liquidity-events`]);
    for (const [event, path] of kinds) {
      const { rows } = await walk(idx, `${path}?order=desc&limit=1000`, (r) => r.block < from);
      const inRange = rows.filter((r) => r.block <= to);
      const fs = new Map(
        amm.filter((f) => f.event === event && f.data.pool === p.key).map((f) => [coord(f.data), f]),
      );
      count(out, 'stream_amm_events', inRange.length);
      for (const r of inRange) {
        const f = fs.get(coord(r));
        if (!f) diverge('amm_events', `${event} ${p.key} ${coord(r)}: no frame`, null, r, r.block);
        else if (firstDifference(f.data, r))
          diverge(
            'amm_events',
            `${event} ${p.key} ${coord(r)} field ${firstDifference(f.data, r)}`,
            f.data,
            r,
            r.block,
          );
        fs.delete(coord(r));
      }
      for (const [c, f] of fs)
        diverge('amm_events', `${event} ${p.key} ${c}: frame without a row`, f.data, null, f.block);
    }
  }

  // New pools: every pool created in the range has its frame, equal to its /pools/new row.
  const poolFrames = new Map(framesOf('pools').map((f) => [f.data.key, f]));
  for (const p of pools.filter((x) => x.created.block >= from && x.created.block <= to)) {
    count(out, 'stream_pools');
    const f = poolFrames.get(p.key);
    if (!f) diverge('pools', `pool ${p.key}: no pool_new frame`, null, p, p.created.block);
    else if (firstDifference(f.data, p))
      diverge('pools', `pool ${p.key} field ${firstDifference(f.data, p)}`, f.data, p, p.created.block);
    poolFrames.delete(p.key);
  }
  for (const [k, f] of poolFrames) diverge('pools', `pool ${k}: frame without a row`, f.data, null, f.block);

  // Creations: by transaction against the receipt, by launchpad against the launch.
  for (const f of framesOf('creations')) {
    count(out, 'stream_creations');
    if (f.data.via === 'transaction') {
      const r = await idx.get(`/transactions/${f.data.txHash}/receipt`);
      const got = r.status === 200 ? r.body.data.receipt.contractAddress : `status ${r.status}`;
      if (got !== f.data.address) diverge('creations', `creation ${f.data.address}`, f.data, got, f.block);
    } else {
      const r = await idx.get(`/tokens/${f.data.address}/launch`);
      const got = r.status === 200 ? r.body.data.created : `status ${r.status}`;
      if (
        JSON.stringify(got) !==
        JSON.stringify({
          block: f.data.block,
          txIndex: f.data.txIndex,
          logIndex: f.data.logIndex,
          txHash: f.data.txHash,
        })
      )
        diverge('creations', `launch creation ${f.data.address}`, f.data, got, f.block);
    }
  }

  return out;
}

/**
 * Each launch's last surviving frame against its launch route now: made when the node stands
 * still and the consumers hold every frame (a launch moving on after the frame would differ).
 */
export async function checkLaunchFrames(
  name: string,
  idx: IndexerProcess,
  consumers: Consumer[],
  from: number,
): Promise<CheckResult> {
  const out = result();
  const lastLaunch = new Map<string, KeptFrame>();
  for (const f of consumers.find((c) => c.topic === 'launches')?.frames() ?? [])
    if (f.block >= from) lastLaunch.set(f.data.token, f);
  for (const [token, f] of lastLaunch) {
    count(out, 'stream_launches');
    const r = await idx.get(`/tokens/${token}/launch`);
    const row = r.status === 200 ? r.body.data : { status: r.status };
    const k = firstDifference(f.data, row);
    if (k)
      out.divergences.push({
        check: 'stream_launches',
        indexer: name,
        block: f.block,
        row: `launch ${token} field ${k}`,
        index: JSON.stringify(f.data).slice(0, 600),
        truth: JSON.stringify(row).slice(0, 600),
      });
  }
  return out;
}

/** Adds `b` into `a` (made counts and divergences). */
export function merge(a: CheckResult, b: CheckResult): CheckResult {
  for (const [k, v] of Object.entries(b.made)) a.made[k] = (a.made[k] ?? 0) + v;
  a.divergences.push(...b.divergences);
  if (b.nodeRaces?.length) (a.nodeRaces ??= []).push(...b.nodeRaces);
  return a;
}

export const emptyResult = result;
