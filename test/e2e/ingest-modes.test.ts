/**
 * Issue T: the two ingest modes against real nodes.
 *
 *  - Hand-over under traffic, reorgs and kill -9: the embedded devnet's full traffic (ERC-20s,
 *    WETH, Uniswap V2/V3/V4, the launchpad) indexed from a late start with `FINALITY=window` and a
 *    16-block window, so the first ~150 blocks go through history segments and the rest through
 *    the live window. The indexer is killed (-9) inside history, at the hand-over and in the live
 *    window; reorgs (depth 1–12, above the end of history) land while it follows. At the end the
 *    store equals, table by table, a fresh index of the same final chain, and every holder balance
 *    of every devnet token equals `balanceOf` at the anchor.
 *  - kill -9 in the middle of history segments: a 600-block chain in segments of 60 blocks,
 *    killed at moments when /health shows a segment being built or written, restarted each time;
 *    the store converges to a fresh index's, table by table.
 */
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  chainTables,
  compareWithFresh,
  deployEmitter,
  hex,
  sleep,
  tempDir,
  traffic,
  waitConverged,
} from '../faults/lib.js';
import { startAnvil } from '../harness/anvil.js';
import { devnetIndexerEnv, startTestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { cleanupAfterAll } from '../harness/lifecycle.js';
import { freezeNode, jsonRpc } from '../harness/rpc.js';
import { mulberry32 } from '../harness/rpc-proxy.js';

const cleanup = cleanupAfterAll();

type Health = { ingest: any; storage: any };
const health = async (idx: IndexerProcess): Promise<Health | null> => {
  const r = await idx.get('/health').catch(() => null);
  return r && r.status === 200 ? (r.body as Health) : null;
};

/** Waits until `pred` holds on /health (polled every 20 ms). */
async function until(idx: IndexerProcess, pred: (h: Health) => boolean, what: string, ms = 120_000) {
  for (const t0 = Date.now(); ; ) {
    const h = await health(idx);
    if (h && pred(h)) return h;
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(h?.ingest)}`);
    await sleep(20);
  }
}

const BALANCE_OF = '0x70a08231';

describe('ingest modes', () => {
  it('hand-over from history to live under traffic, reorgs and kill -9 converges to a fresh index', async () => {
    const rand = mulberry32(20261126);
    const dev = await startTestDevnet({ blockTimeMs: 250, traffic: true, txPerSecond: 30, seed: 7 });
    cleanup.push(() => dev.stop());
    const env = {
      ...devnetIndexerEnv(dev),
      FINALITY: 'window',
      UNFINALISED_WINDOW: '16',
      SEGMENT_BLOCKS: '25',
      HISTORY_FRAME_BLOCKS: '8',
      TRACES: 'off',
      BLOCKS_PER_TASK: '5',
    };
    // A late start: the first ~150 blocks are history by the time the indexer comes up.
    for (
      const t0 = Date.now();
      (await jsonRpc<string>(dev.rpcUrl, 'eth_blockNumber', []).then(Number)) < 170;
    ) {
      if (Date.now() - t0 > 120_000) throw new Error('devnet did not reach block 170');
      await sleep(200);
    }
    const dataDir = tempDir('idx-modes-');
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const idx = await startIndexer({ rpcUrl: dev.rpcUrl, dataDir, env });
    cleanup.push(() => idx.stop());

    const seen = { history: 0, live: 0, segments: 0, kills: [] as string[], reorgs: [] as number[] };
    const note = (h: Health) => {
      if (h.ingest.mode === 'history') seen.history++;
      if (h.ingest.mode === 'live') seen.live++;
      seen.segments = Math.max(seen.segments, h.ingest.segments.committed);
    };
    // 1. Inside history: once a segment is committed and another is being built.
    note(await until(idx, (h) => h.ingest.segments.committed >= 1 && h.ingest.mode === 'history', 'history'));
    await idx.kill9();
    seen.kills.push('history');
    await idx.restart();
    // 2. At the hand-over: history has ended (historyEnd set) and the first live blocks are coming.
    note(await until(idx, (h) => h.ingest.historyEnd >= 100, 'the end of history'));
    await idx.kill9();
    seen.kills.push('hand-over');
    await idx.restart();
    // 3. In the live window, with reorgs above the end of history while it follows.
    for (let i = 0; i < 4; i++) {
      const h = await until(idx, (x) => x.ingest.state === 'following', 'following');
      note(h);
      const head = await freezeNode(dev.rpcUrl);
      const depth = 1 + Math.floor(rand() * 12);
      if (head - depth > h.ingest.historyEnd) {
        await jsonRpc(dev.rpcUrl, 'anvil_reorg', [depth, []]);
        seen.reorgs.push(depth);
      }
      await jsonRpc(dev.rpcUrl, 'evm_setAutomine', [false]);
      await jsonRpc(dev.rpcUrl, 'evm_setIntervalMining', [1]);
      await sleep(1_200 + rand() * 1_500);
      if (i % 2 === 1) {
        await idx.kill9();
        seen.kills.push('live');
        await idx.restart();
      }
    }
    const final = await freezeNode(dev.rpcUrl);
    await dev.traffic?.stop();
    const finalHash = (
      await jsonRpc<{ hash: string }>(dev.rpcUrl, 'eth_getBlockByNumber', [hex(final), false])
    ).hash;
    await idx.waitForHead(final, 120_000);
    await waitConverged(idx, final, finalHash);
    const end = await health(idx);
    note(end!);
    expect(end!.ingest.historyEnd).toBeGreaterThanOrEqual(100);
    expect(end!.ingest.historyEnd).toBeLessThanOrEqual(final - 16);
    expect(seen.segments, 'history segments committed').toBeGreaterThanOrEqual(2);
    expect(seen.reorgs.length, 'reorgs in the live window').toBeGreaterThanOrEqual(2);

    // Every holder balance of every devnet token equals balanceOf at the anchor.
    let checked = 0;
    // Tokens that follow their events (fee-on-transfer and rebasing ones are built not to).
    for (const t of dev.deployment.tokens.filter((x) => ['standard', 'stable', 'weth'].includes(x.kind))) {
      const r = await idx.get(`/tokens/${t.address}/holders?sort=wallet_id&limit=1000`);
      expect(r.status).toBe(200);
      const at = hex(r.body.anchor.block);
      for (const row of r.body.data as Array<{ wallet: string; balance: string }>) {
        const w = row.wallet;
        const data = `${BALANCE_OF}${w.slice(2).padStart(64, '0')}`;
        const onChain = BigInt(await jsonRpc<string>(dev.rpcUrl, 'eth_call', [{ to: t.address, data }, at]));
        expect({ token: t.address, w, balance: row.balance }).toEqual({
          token: t.address,
          w,
          balance: onChain.toString(),
        });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);

    await idx.stop();
    expect(idx.strayRejections().join('\n').slice(0, 3000), 'unhandled rejections').toBe('');
    const { got, want, diff } = await compareWithFresh(dataDir, dev.rpcUrl, final, env);
    expect(got.head).toEqual({ number: final, hash: finalHash });
    expect(diff, 'rows that differ from a fresh index (A: this store, B: fresh)').toBe('');
    expect(chainTables(got)).toEqual(chainTables(want));
    console.log(
      `hand-over: final ${final}, history end ${end!.ingest.historyEnd}, segments ${seen.segments}, ` +
        `kills ${seen.kills.join(',')}, reorgs ${seen.reorgs.join(',')}, balances checked ${checked}`,
    );
    // ~45 s of it is the devnet reaching block 170; four restarts and the balance checks take the
    // rest: 95–115 s on a loaded 2-core machine, so the default 120 s left no margin.
  }, 240_000);

  it('kill -9 in the middle of history segments converges to a fresh index, table by table', async () => {
    const rand = mulberry32(42);
    const anvil = await startAnvil();
    cleanup.push(() => anvil.stop());
    const emitter = await deployEmitter(anvil);
    for (let b = 0; b < 600; b += 2) await traffic(anvil, rand, emitter, 2);
    const final = await anvil.head();
    const env = {
      FINALITY: 'window',
      UNFINALISED_WINDOW: '16',
      SEGMENT_BLOCKS: '60',
      BLOCKS_PER_TASK: '5',
      DECODE_THREADS: '1',
      TRACES: 'off',
    };
    const dataDir = tempDir('idx-segkill-');
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const idx = await startIndexer({ rpcUrl: anvil.rpcUrl, dataDir, env });
    cleanup.push(() => idx.stop());
    let inSegment = 0;
    let kills = 0;
    while (kills < 8) {
      const h = await health(idx);
      if (!h) {
        await sleep(10);
        continue;
      }
      if (h.ingest.historyEnd >= final - 16) break; // history done
      // A segment being built or handed to the writer: kill now.
      if (h.ingest.segments.open || h.storage.writesInFlight > 0) {
        await sleep(rand() * 30);
        inSegment++;
        await idx.kill9();
        kills++;
        await idx.restart();
      } else await sleep(5);
    }
    expect(kills, 'kills inside history').toBeGreaterThanOrEqual(4);
    expect(inSegment).toBe(kills);
    const finalHash = (await anvil.rpc<{ hash: string }>('eth_getBlockByNumber', [hex(final), false])).hash;
    await idx.waitForHead(final, 120_000);
    await waitConverged(idx, final, finalHash);
    const end = await health(idx);
    expect(end!.ingest.historyEnd).toBeGreaterThanOrEqual(final - 32);
    await idx.stop();
    expect(idx.strayRejections().join('\n').slice(0, 3000), 'unhandled rejections').toBe('');
    const { got, diff } = await compareWithFresh(dataDir, anvil.rpcUrl, final, env);
    expect(got.head).toEqual({ number: final, hash: finalHash });
    expect(diff, 'rows that differ from a fresh index (A: killed store, B: fresh)').toBe('');
    console.log(`segment kills: ${kills} (history end ${end!.ingest.historyEnd}, head ${final})`);
  });
});
