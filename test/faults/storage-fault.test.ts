/**
 * Storage write failure (disk full / I/O error) on a real RocksDB, no test hook in the service.
 *
 * The fault is a real operating-system limit: `prlimit --fsize` lowers the running indexer's
 * RLIMIT_FSIZE (soft limit only, no root needed) to just above the current size of RocksDB's
 * write-ahead log. The next block batch that would grow the WAL past it gets EFBIG ("File too
 * large") from write(2) — the same I/O error path as ENOSPC on a full disk: RocksDB refuses the
 * batch (possibly after writing part of the record, a torn WAL tail) and goes read-only.
 * (Node ignores SIGXFSZ, so the process is not killed by the signal.)
 *
 * Asserted:
 *  - no crash: the process keeps answering; nothing logs `handler failed` or fatal;
 *  - /health says so: ingest halted with `storage_write_failed`, `storage.writable` false with the
 *    RocksDB error; /health/ready answers 503;
 *  - anchored reads keep answering from committed data: every block 0..H (H = last committed
 *    block) and its transactions equal the node's; projection-backed routes answer the typed
 *    503 `projection_unavailable` (stale: `ingest_halted:storage_write_failed`, rule R5);
 *  - no half-written block: after stop, the store's head is H and every chain-state row equals a
 *    fresh index of the same chain up to H (blocks above H hidden by the fault proxy's stale head);
 *    trace rows may be missing only above the traces lane's checkpoint;
 *  - after restart with the fault removed, ingest resumes and the store equals a fresh index of
 *    the final chain.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Anvil, startAnvil } from '../harness/anvil.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { cleanupAfterAll } from '../harness/lifecycle.js';
import { mulberry32, startRpcProxy } from '../harness/rpc-proxy.js';
import {
  chainTables,
  compareWithFresh,
  deployEmitter,
  describeDiff,
  differing,
  diffTables,
  digestOf,
  freshDigest,
  hex,
  LONG,
  nodeTotals,
  type RowDiff,
  rowsLostOf,
  SEED,
  STATS,
  sleep,
  TABLES,
  tempDir,
  traffic,
  waitConverged,
} from './lib.js';

/** Fault rounds (fault, checks, restart) on one store: long mode tears the WAL at more points. */
const ROUNDS = LONG ? 3 : 1;
/** Headroom above the WAL's size when the limit is set: a handful of blocks fit, then EFBIG. */
const WAL_HEADROOM_BYTES = 24 * 1024;
/** Trace tables (packages/indexer/src/schema/tables/traces.ts): written by the traces lane behind the blocks lane. */
const TRACE_TABLES = ['0x50', '0x51', '0x52', '0x53'];

const cleanup = cleanupAfterAll();

/** Size of RocksDB's current write-ahead log (the highest-numbered *.log) in a data dir, bytes. */
function walBytes(dataDir: string): number {
  const dir = join(dataDir, 'rocks');
  const logs = readdirSync(dir)
    .filter((f) => /^\d+\.log$/.test(f))
    .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
  if (!logs.length) throw new Error(`no WAL in ${dir}: ${readdirSync(dir).join(', ')}`);
  return statSync(join(dir, logs[logs.length - 1])).size;
}

const blockHash = async (anvil: Anvil, n: number): Promise<string> =>
  (await anvil.rpc<{ hash: string }>('eth_getBlockByNumber', [hex(n), false])).hash;

/** Block number encoded in a trace-table key (u64 after the table byte; after the address for 0x53). */
const traceKeyBlock = (table: string, keyHex: string): number => {
  const k = Buffer.from(keyHex, 'hex');
  return Number(k.readBigUInt64BE(table === '0x53' ? 21 : 1));
};

describe('storage write failure (RLIMIT_FSIZE on the WAL: a real EFBIG from RocksDB)', () => {
  it(
    'refuses writes cleanly, keeps serving reads, says so in health; no half-written block; resumes after restart',
    async () => {
      const t0 = Date.now();
      const rand = mulberry32(SEED ^ 0xd15c);
      const anvil = await startAnvil();
      cleanup.push(() => anvil.stop());
      const emitter = await deployEmitter(anvil);
      for (let b = 0; b < 30; b++) await traffic(anvil, rand, emitter, 1);
      const dataDir = tempDir('idx-diskfull-');
      cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
      const idx: IndexerProcess = await startIndexer({ rpcUrl: anvil.rpcUrl, dataDir });
      cleanup.push(() => idx.stop());

      /** One fault round on the running indexer; leaves it restarted, following and converged. */
      const faultRound = async (round: number): Promise<{ reads: number; bad: RowDiff[]; note: string }> => {
        // ---- the fault: the WAL may grow by a few KiB, then every write gets EFBIG.
        const before = await anvil.head();
        await idx.waitForHead(before);
        await waitConverged(idx, before, await blockHash(anvil, before));
        expect((await idx.get('/health')).body.storage).toMatchObject({ writable: true, writeError: null });
        const pid = idx.pid;
        expect(pid).toBeGreaterThan(0);
        const headroom = round === 0 ? WAL_HEADROOM_BYTES : 4096 + Math.floor(rand() * 60 * 1024);
        const limit = walBytes(dataDir) + headroom;
        execFileSync('prlimit', ['--pid', String(pid), `--fsize=${limit}:`]);
        const faultAt = Date.now();
        let reads = 0;
        let health: any = null;
        for (;;) {
          await traffic(anvil, rand, emitter, 1);
          health = (await idx.get('/health')).body;
          reads++;
          if (health.ingest.state === 'halted') break;
          if (Date.now() - faultAt > 45_000)
            throw new Error(
              `no write failure within 45 s: ${JSON.stringify(health)}\n${idx.logs().slice(-3000)}`,
            );
          await sleep(100);
        }
        const minedAfterFault = (await anvil.head()) - before;
        // The node moves on; the indexer must not (nothing can be committed).
        for (let i = 0; i < 3; i++) await traffic(anvil, rand, emitter, 1);
        await sleep(1500);
        const nodeHead = await anvil.head();

        const H: number = (await idx.get('/checkpoints')).body.anchor.block;
        expect(H).toBeGreaterThanOrEqual(before);
        expect(H).toBeLessThan(nodeHead);
        health = (await idx.get('/health')).body;
        reads++;
        expect(health.ingest.state).toBe('halted');
        expect(health.ingest.haltReason).toBe('storage_write_failed');
        expect(health.anchor).toEqual({ block: H, hash: await blockHash(anvil, H) });
        expect(health.storage.writable).toBe(false);
        expect(health.storage.writeError).toMatch(/File too large|EFBIG|IO error/i);
        expect(health.ingest.lastError).toMatch(/RocksDB refused the batch/);
        expect(health.ingest.nodeHead).toBeGreaterThan(H);
        for (const p of health.projections) {
          expect(p.status, p.name).toBe('stale');
          expect(p.reason, p.name).toBe('ingest_halted:storage_write_failed');
        }
        expect(health.traces.checkpoint).toBeLessThanOrEqual(H);
        const ready = await idx.get('/health/ready', { key: null });
        expect(ready.status).toBe(503);
        expect(ready.body).toEqual({ ready: false });
        expect((await idx.get('/health/live', { key: null })).status).toBe(200);

        // ---- anchored reads answer from committed data, equal to the node.
        const totals = await nodeTotals(anvil, H);
        let txs = 0;
        for (let n = 0; n <= H; n++) {
          const b = await idx.get(`/blocks/${n}`);
          const t = await idx.get(`/blocks/${n}/transactions?limit=1000`);
          reads += 2;
          expect(b.status, b.text).toBe(200);
          expect(b.body.anchor).toEqual({ block: H, hash: health.anchor.hash });
          expect(b.body.data.hash).toBe(totals.hashes[n]);
          expect(t.status, t.text).toBe(200);
          txs += t.body.data.length;
          if (n === H && t.body.data.length) {
            const h = t.body.data[0].hash;
            const tx = await idx.get(`/transactions/${h}`);
            const rc = await idx.get(`/transactions/${h}/receipt`);
            reads += 2;
            expect([tx.status, rc.status]).toEqual([200, 200]);
            expect(rc.body.data.transactionHash ?? rc.body.data.receipt?.transactionHash).toBe(h);
          }
        }
        expect(txs).toBe(totals.txs);
        const above = await idx.get(`/blocks/${H + 1}`);
        reads++;
        expect(above.status).toBe(404);
        expect(above.body.error).toBe('not_found');
        // Projection-backed routes: typed 503 (R5: the projection is stale), never a partial answer.
        for (const path of ['/tokens', `/wallets/${emitter}/activity`, `/blocks/${H}/logs/decoded`]) {
          const r = await idx.get(path);
          reads++;
          expect({ path, status: r.status, error: r.body?.error }).toEqual({
            path,
            status: 503,
            error: 'projection_unavailable',
          });
          expect(r.body.reason ?? r.body.detail).toMatch(/storage_write_failed/);
        }
        const tracesCheckpoint: number | null = (await idx.get('/health')).body.traces.checkpoint;
        const writeError = String(health.storage.writeError).slice(0, 160);
        reads++;
        expect(idx.pid, 'the process survived the write failure').toBe(pid);
        expect(idx.logs()).not.toMatch(/handler failed|"level":60|fatal/);

        // ---- stop; the store holds exactly blocks 0..H (a torn WAL tail, if any, is dropped).
        await idx.stop();
        expect(idx.logs()).toMatch(/shutting down/);
        const got = await digestOf(dataDir);
        expect(got.head).toEqual({ number: H, hash: totals.hashes[H] });
        const proxy = await startRpcProxy({ upstream: anvil.rpcUrl });
        cleanup.push(() => proxy.close());
        proxy.setStaleHead(H);
        const freshDir = tempDir('idx-diskfull-fresh-');
        cleanup.push(() => rmSync(freshDir, { recursive: true, force: true }));
        const want = await freshDigest(proxy.url, H, { WS_URL: 'off' }, freshDir);
        await proxy.close();
        expect(want.head).toEqual({ number: H, hash: totals.hashes[H] });
        const rows = await diffTables(dataDir, freshDir, differing(got, want));
        // Trace rows may be absent above the traces checkpoint (the lane follows the blocks lane);
        // anything else that differs is a half-written or corrupted block.
        const tolerated = (r: (typeof rows)[number]) =>
          TRACE_TABLES.includes(r.table) &&
          r.a === null &&
          traceKeyBlock(r.table, r.key) > (tracesCheckpoint ?? -1);
        const bad = rows.filter((r) => !tolerated(r));
        expect(
          describeDiff(bad),
          'rows ≤ H that differ from a fresh index (A: faulted store, B: fresh)',
        ).toBe('');
        for (const t of Object.keys(chainTables(want)).filter((t) => !TRACE_TABLES.includes(t)))
          expect(got.tables[t]?.rows, `rows of table ${t}`).toBe(want.tables[t].rows);
        expect(got.tables[TABLES.CANON].rows).toBe(H + 1);

        // ---- restart with the fault removed (a new process has the default limit): ingest resumes.
        await idx.restart();
        for (let i = 0; i < 3; i++) await traffic(anvil, rand, emitter, 1);
        const resumed = await anvil.head();
        await idx.waitForHead(resumed, 60_000);
        await waitConverged(idx, resumed, await blockHash(anvil, resumed));
        const after = (await idx.get('/health')).body;
        expect(after.ingest.state).toBe('following');
        expect(after.ingest.haltReason).toBeNull();
        expect(after.storage).toMatchObject({ writable: true, writeError: null, writesInFlight: 0 });
        expect((await idx.get('/health/ready', { key: null })).status).toBe(200);
        return {
          reads,
          bad,
          note:
            `round ${round}: EFBIG with ${headroom} B of WAL headroom after ${minedAfterFault} more mined blocks ` +
            `(health: "${writeError}"); halted at H=${H} (node ${nodeHead}), traces checkpoint ${tracesCheckpoint}; ` +
            `${reads} HTTP reads during the fault; store ≤ H equal to a fresh index (${rows.length - bad.length} ` +
            `trace rows above the traces checkpoint absent); resumed to ${resumed}`,
        };
      };

      // Rounds of fault → checks → restart (long mode: several, each tearing the WAL at another point).
      const notes: string[] = [];
      let reads = 0;
      let bad: RowDiff[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const r = await faultRound(round);
        reads += r.reads;
        bad = bad.concat(r.bad);
        notes.push(r.note);
      }

      // ---- after the last restart: more blocks; the store equals a fresh index of the final chain.
      for (let i = 0; i < 3; i++) await traffic(anvil, rand, emitter, 1);
      const final = await anvil.head();
      await idx.waitForHead(final, 60_000);
      await waitConverged(idx, final, await blockHash(anvil, final));
      await idx.stop();
      expect(idx.strayRejections().join('\n').slice(0, 3000), 'unhandled rejections').toBe('');
      const end = await compareWithFresh(dataDir, anvil.rpcUrl, final);
      const finalTotals = await nodeTotals(anvil, final);
      const rowsLost = rowsLostOf(end.got, final, finalTotals);
      const stats = {
        scenario: 'storage-write-failure',
        seed: SEED,
        ok: end.diff === '' && bad.length === 0,
        faults: { storageWriteError: ROUNDS },
        totalFaults: ROUNDS,
        apiRequests: reads,
        restarts: ROUNDS,
        rowsLost,
        notes: `${notes.join('; ')}; final head ${final} equal to a fresh index`,
        seconds: Math.round((Date.now() - t0) / 1000),
      };
      if (STATS) appendFileSync(STATS, `${JSON.stringify(stats)}\n`);
      console.log(JSON.stringify(stats));
      expect(rowsLost).toEqual({ blocks: 0, txs: 0, logs: 0 });
      expect(end.diff, 'rows that differ from a fresh index after resume (A: under test, B: fresh)').toBe('');
      expect(chainTables(end.got)).toEqual(chainTables(end.want));
    },
    LONG ? 400_000 : 150_000,
  );
});
