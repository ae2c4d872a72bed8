/**
 * Issue AC item 3, HISTORY_RETENTION kept on disk (storage/history-prune.ts), on the real anvil
 * devnet indexed from a late start (history segments, then block by block) with
 * HISTORY_RETENTION=40 and a 24-block unfinalised window:
 *
 *  - while it indexes, the pruner's mark (/health history.prunedBelow) follows the head at
 *    head − 40, and reads at N inside the range equal the node at N: `balanceOf` (the balance
 *    route and each top holder's balance, so balance_history and the holder walks), `totalSupply`
 *    (token detail's supplyFromTransfers, from stats_history) and a V2 pair's `getReserves`
 *    (pool detail, from state_history) — the oldest retained block included;
 *  - kill -9 while it prunes, restart: the mark never goes back and the answers stay exact;
 *  - frozen at the node's head H: below H − 40 answers 410 history_pruned naming H − 40;
 *  - stopped: the versions no read at or after the mark reaches are gone from the store (each
 *    subject keeps at most one version older than the mark, none of the retired intervals ends at
 *    or below it — counted by tools/history-versions.ts on its own, not by the pruner's code), and
 *    the pruner logged rows deleted.
 */
import { historyVersions } from '@chain-indexer/indexer/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hex, sleep } from '../faults/lib.js';
import { startLate } from '../harness/as-of-devnet.js';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import type { IndexerProcess } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';
import { freezeNode, jsonRpc } from '../harness/rpc.js';
import { mulberry32 } from '../harness/rpc-proxy.js';

const RETENTION = 40;
const WINDOW = 24;

let dev: TestDevnet;
let idx: IndexerProcess;
const rand = mulberry32(20261201);

const rpc = <T = any>(method: string, params: unknown[] = []) => jsonRpc<T>(dev.rpcUrl, method, params);
const word = async (to: string, data: string, n: number) =>
  BigInt((await rpc<string>('eth_call', [{ to, data }, hex(n)])).slice(0, 66)).toString();
const balanceOf = (t: string, w: string, n: number) =>
  word(t, `0x70a08231${w.slice(2).padStart(64, '0')}`, n);
const totalSupply = (t: string, n: number) => word(t, '0x18160ddd', n);
const reserves = async (pair: string, n: number) => {
  const out = await rpc<string>('eth_call', [{ to: pair, data: '0x0902f1ac' }, hex(n)]);
  return (out.slice(2).match(/.{64}/g) ?? []).slice(0, 2).map((w) => BigInt(`0x${w}`).toString());
};

/** Standard tokens with holders, and V2 pairs that traded (at the head when the suite starts). */
const tokens: Array<{ address: string; wallets: string[] }> = [];
const pairs: string[] = [];

const history = async () => (await idx.get('/health')).body.history;

/** A GET as of block n that must answer 200 anchored at n. */
async function at(path: string, n: number): Promise<any> {
  const sep = path.includes('?') ? '&' : '?';
  const r = await idx.get(`${path}${sep}atBlock=${n}`);
  expect(r.status, `${path} at ${n}: ${r.text}`).toBe(200);
  expect(r.body.anchor.block).toBe(n);
  return r.body.data;
}

/** Every figure of the suite at block n against the node; returns the pairs checked. */
async function checkAt(n: number): Promise<number> {
  let checked = 0;
  for (const t of tokens) {
    const d = await at(`/tokens/${t.address}`, n);
    expect({ n, t: t.address, supply: d.supplyFromTransfers }).toEqual({
      n,
      t: t.address,
      supply: await totalSupply(t.address, n),
    });
    for (const w of t.wallets) {
      const b = await at(`/tokens/${t.address}/balance/${w}`, n);
      expect({ n, w, balance: b.balance }).toEqual({ n, w, balance: await balanceOf(t.address, w, n) });
    }
    const top = await at(`/tokens/${t.address}/top-holders?limit=3`, n);
    for (const h of top as Array<{ wallet: string; balance: string }>)
      expect({ n, w: h.wallet, balance: h.balance }).toEqual({
        n,
        w: h.wallet,
        balance: await balanceOf(t.address, h.wallet, n),
      });
    checked += 1 + t.wallets.length + top.length;
  }
  for (const p of pairs) {
    const d = await at(`/pools/${p}`, n);
    expect({ n, p, r: [d.state.reserve0, d.state.reserve1] }).toEqual({ n, p, r: await reserves(p, n) });
    checked++;
  }
  return checked;
}

/** Waits until /health history.prunedBelow is at least `min`; returns the history record. */
async function markAtLeast(min: number, timeoutMs = 60_000): Promise<any> {
  for (const t0 = Date.now(); ; await sleep(100)) {
    const h = await history();
    if (h.prunedBelow !== null && h.prunedBelow >= min) return h;
    if (Date.now() - t0 > timeoutMs) throw new Error(`the mark did not reach ${min}: ${JSON.stringify(h)}`);
  }
}

beforeAll(async () => {
  dev = await startTestDevnet({ blockTimeMs: 250, traffic: true, txPerSecond: 25, seed: 17 });
  idx = await startLate(dev, {
    ...devnetIndexerEnv(dev),
    HISTORY_RETENTION: String(RETENTION),
    UNFINALISED_WINDOW: String(WINDOW),
    FINALITY: 'window',
    TRACES: 'off',
  });
  for (const t of dev.deployment.tokens.filter((x) => x.kind === 'standard')) {
    const address = t.address.toLowerCase();
    const r = await idx.get(`/tokens/${address}/top-holders?limit=5`);
    if (r.status === 200 && r.body.data.length >= 2)
      tokens.push({ address, wallets: r.body.data.map((h: { wallet: string }) => h.wallet) });
    if (tokens.length === 3) break;
  }
  for (const d of dev.deployment.pools.filter((p) => p.protocol === 'uniswap-v2')) {
    const r = await idx.get(`/pools/${d.address.toLowerCase()}`);
    if (r.status === 200 && r.body.data.state.swaps > 0) pairs.push(d.address.toLowerCase());
    if (pairs.length === 2) break;
  }
  expect({ tokens: tokens.length, pairs: pairs.length }).toEqual({ tokens: 3, pairs: 2 });
}, 300_000);

afterAll(stopAll(() => [idx, dev]));

describe('HISTORY_RETENTION=40: the store keeps what reads in range reach', () => {
  it('while indexing, the mark follows the head and reads in range equal the node', async () => {
    const h0 = await markAtLeast(100);
    expect(h0).toMatchObject({ retention: RETENTION, enforcement: 'pruned' });
    expect(h0.prunedBelow).toBeLessThanOrEqual(h0.oldestRetainedBlock);
    let pairsChecked = 0;
    for (let i = 0; i < 4; i++) {
      const h = await history();
      // The oldest retained block and the blocks just above it (a margin: the head moves meanwhile).
      for (const n of [h.oldestRetainedBlock + 4, h.oldestRetainedBlock + 5 + Math.floor(rand() * 30)])
        pairsChecked += await checkAt(n);
    }
    expect(pairsChecked).toBeGreaterThan(50);
  }, 300_000);

  it('kill -9 while it prunes, restart: the mark never goes back, answers stay exact', async () => {
    const before = (await history()).prunedBelow as number;
    // Right after the mark moved: a pass is under way (it walks every versioned table).
    await markAtLeast(before + 1);
    await idx.kill9();
    await idx.restart();
    const h = await markAtLeast(before + 1);
    expect(h.prunedBelow).toBeGreaterThanOrEqual(before);
    await idx.waitForHead(h.headBlock + 10, 60_000);
    const after = await markAtLeast(h.prunedBelow + 1);
    for (const n of [after.oldestRetainedBlock + 3, after.headBlock - 20, after.headBlock - 1])
      await checkAt(n);
  }, 300_000);

  it('frozen: every block in range equals the node, below it 410 with the oldest retained block', async () => {
    await dev.traffic?.stop();
    const head = await freezeNode(dev.rpcUrl);
    await idx.waitForHead(head, 60_000);
    const oldest = head - RETENTION;
    // The head stopped: within a catch-up period the pruner prunes to the cutoff itself, so the
    // oldest block a read may name is read from what the pruner kept of it.
    const h = await markAtLeast(oldest);
    expect(h).toMatchObject({
      retention: RETENTION,
      oldestRetainedBlock: oldest,
      headBlock: head,
      prunedBelow: oldest,
    });
    for (let n = oldest; n <= oldest + 5; n++) await checkAt(n);
    for (let i = 0; i < 4; i++) await checkAt(oldest + 6 + Math.floor(rand() * (RETENTION - 6)));
    const t = tokens[0];
    for (const path of [
      `/tokens/${t.address}/balance/${t.wallets[0]}`,
      `/tokens/${t.address}`,
      `/pools/${pairs[0]}`,
    ]) {
      const r = await idx.get(`${path}?atBlock=${oldest - 1}`);
      expect(r.status, r.text).toBe(410);
      expect(r.body).toMatchObject({
        error: 'history_pruned',
        requestedBlock: oldest - 1,
        oldestRetainedBlock: oldest,
        headBlock: head,
      });
    }
  }, 300_000);

  it('stopped: the versions below the mark no read reaches are gone from the store', async () => {
    const mark = (await history()).prunedBelow as number;
    await idx.sigterm();
    const v = await historyVersions(idx.dataDir);
    expect(v.mark).toBe(mark);
    const by = new Map(v.tables.map((t) => [t.name, t]));
    for (const t of v.tables)
      expect({ table: t.name, unreachable: t.unreachable }).toEqual({ table: t.name, unreachable: 0 });
    // A subject keeps one version older than the mark at most: the state at the mark.
    for (const name of ['tokens.balance_history', 'tokens.stats_history', 'markets.state_history']) {
      const t = by.get(name)!;
      expect(t.rows, name).toBeGreaterThan(0);
      expect({ name, below: t.rowsBelowMark }).toEqual({ name, below: t.subjectsBelowMark });
    }
    // The pruner deleted rows (its passes' log lines).
    const deleted = idx
      .logs()
      .split('\n')
      .filter((l) => l.includes('history pruned to the cutoff'))
      .map((l) => JSON.parse(l).deleted as number)
      .reduce((a, b) => a + b, 0);
    expect(deleted).toBeGreaterThan(0);
  }, 120_000);
});
