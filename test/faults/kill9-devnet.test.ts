/**
 * kill -9 at seeded random instants while the indexer backfills and follows the full devnet (real
 * Uniswap V2/V3/V4 swaps and liquidity, launchpad launches, ERC-20 and native transfers, funding
 * chains), restarting on the same data directory each time. A backfill cycle lets the process run
 * for 80–700 ms, kills it wherever it is (mid-decode, mid-commit, mid-trace), and keeps it down for
 * up to 2.5 s while traffic piles up, so the restart backfills a backlog; a follow cycle waits
 * until it has caught up, kills it within 600 ms and restarts it within 300 ms. Afterwards:
 *  - no block, transaction or log is missing (row counts equal the node's);
 *  - the store's projection digest equals a fresh, uninterrupted index of the same chain, table by
 *    table (blocks, receipts, logs, traces, balances and holders, pools, candles and stats,
 *    positions and PnL, funding graph, cohorts; stream history aside, see lib.ts).
 *
 * Seeded by FAULTS_SEED (kill instants, down times and the devnet's traffic); the long mode
 * (`npm run faults -- --long`) runs it once per seed with more kills.
 */
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { cleanupAfterAll } from '../harness/lifecycle.js';
import { jsonRpc } from '../harness/rpc.js';
import { mulberry32 } from '../harness/rpc-proxy.js';
import {
  chainTables,
  compareWithFresh,
  hex,
  LONG,
  nodeTotals,
  recordScenario,
  rowsLostOf,
  SEED,
  sleep,
  tempDir,
  waitConverged,
} from './lib.js';

const KILLS = LONG ? 30 : 12;

const cleanup = cleanupAfterAll();

describe('kill -9 during backfill and live follow on the full devnet', () => {
  it(
    `${KILLS} kills: no row lost, store digest equals an uninterrupted index`,
    async () => {
      const t0 = Date.now();
      const rand = mulberry32(SEED ^ 0x6b696c6c);
      const dev: TestDevnet = await startTestDevnet({
        blockTimeMs: 250,
        traffic: true,
        txPerSecond: 25,
        seed: SEED,
      });
      cleanup.push(() => dev.stop());
      const rpc = <T = any>(method: string, params: unknown[] = []) => jsonRpc<T>(dev.rpcUrl, method, params);
      const nodeHead = async () => Number.parseInt(await rpc<string>('eth_blockNumber'), 16);
      await dev.traffic?.ready;
      // A backlog before the first start, so the first kills land in a backfill.
      const backlogTo = (await nodeHead()) + 60;
      while ((await nodeHead()) < backlogTo) await sleep(250);

      const env = devnetIndexerEnv(dev);
      const dataDir = tempDir('idx-kill9-devnet-');
      cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
      const idx: IndexerProcess = await startIndexer({ rpcUrl: dev.rpcUrl, dataDir, env });
      cleanup.push(() => idx.stop());

      const tally = { backfilling: 0, following: 0 };
      const lags: number[] = [];
      const kill = async (downMs: number) => {
        const at = (await idx.get('/checkpoints').catch(() => null))?.body?.anchor?.block ?? -1;
        const lag = (await nodeHead()) - at;
        lags.push(lag);
        // A follow-phase kill lands within ~3 blocks of the tip (250 ms blocks, up to 600 ms of
        // sleep); backfill-phase lags are in the tens.
        if (lag > 8) tally.backfilling++;
        else tally.following++;
        await idx.kill9();
        await sleep(downMs);
        await idx.restart();
      };
      // First half: kills during backfill (the backlog grows while the process is down).
      for (let k = 0; k < KILLS / 2; k++) {
        await sleep(80 + rand() * 620);
        await kill(rand() * 2_500);
      }
      // Second half: kills during live follow, once caught up (new blocks every 250 ms).
      for (let k = KILLS / 2; k < KILLS; k++) {
        await idx.waitForHead(await nodeHead(), 120_000);
        await sleep(rand() * 600);
        await kill(rand() * 300);
      }

      // Freeze the chain (traffic and interval mining off) so both indexers converge on one head.
      await dev.traffic?.stop();
      await rpc('evm_setIntervalMining', [0]);
      await rpc('evm_mine');
      const final = await nodeHead();
      const finalHash = (await rpc<{ hash: string }>('eth_getBlockByNumber', [hex(final), false])).hash;
      await waitConverged(idx, final, finalHash, 180_000);
      const health = (await idx.get('/health')).body;
      await idx.stop();

      const { got, want, diff } = await compareWithFresh(dataDir, dev.rpcUrl, final, env);
      const totals = await nodeTotals({ rpc }, final);
      const rowsLost = rowsLostOf(got, final, totals);
      recordScenario({
        scenario: 'kill9-backfill-follow',
        seed: SEED,
        ok: diff === '' && rowsLost.blocks === 0 && rowsLost.txs === 0 && rowsLost.logs === 0,
        restarts: KILLS,
        rowsLost,
        notes:
          `${diff ? `DIGEST MISMATCH: ${diff.slice(0, 1500)}; ` : ''}full devnet, head ${final}, node txs ` +
          `${totals.txs}, logs ${totals.logs}; kills ${KILLS}: while backfilling ${tally.backfilling}, ` +
          `while following ${tally.following}; lag at each kill ${lags.join(',')}`,
        seconds: Math.round((Date.now() - t0) / 1000),
      });
      expect(health.ingest.reorgs, 'no false reorg after kills').toBe(0);
      expect(idx.strayRejections().join('\n').slice(0, 3000), 'unhandled rejections').toBe('');
      expect(tally.backfilling, 'kills that landed in a backfill').toBeGreaterThan(0);
      expect(tally.following, 'kills that landed in live follow').toBeGreaterThan(0);
      expect(totals.logs, 'the devnet produced real traffic').toBeGreaterThan(500);
      expect(rowsLost).toEqual({ blocks: 0, txs: 0, logs: 0 });
      expect(got.head).toEqual({ number: final, hash: finalHash });
      expect(diff, 'rows that differ from a fresh index (A: killed 12+ times, B: fresh)').toBe('');
      expect(chainTables(got)).toEqual(chainTables(want));
    },
    LONG ? 900_000 : 420_000,
  );
});
