/**
 * Shared helpers of the fault and convergence suites: store digests (packages/indexer/dist/tools/digest.js), a
 * fresh clean index of the same chain for comparison, a log-emitting contract and seeded traffic.
 */
import { execFile } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Anvil, DEV_ACCOUNTS } from '../harness/anvil.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import type { ProxyStats } from '../harness/rpc-proxy.js';

/** The fault suites' seed (FAULTS_SEED, default 7). */
export const SEED = Number(process.env.FAULTS_SEED ?? 7);
/** The long mode of the fault suites (FAULTS_LONG=1). */
export const LONG = process.env.FAULTS_LONG === '1';
/** A file the fault suites append their statistics to (FAULTS_STATS), if any. */
export const STATS = process.env.FAULTS_STATS;

/** The repository root, from the sources (vitest) or from the build (dist/test/…: the soak runner). */
const ROOT = import.meta.url.includes('/dist/test/') ? '../../../' : '../../';
const DIGEST = new URL(`${ROOT}packages/indexer/dist/tools/digest.js`, import.meta.url).pathname;
const run = promisify(execFile);
export const hex = (n: number) => `0x${n.toString(16)}`;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface StoreDigest {
  head: { number: number; hash: string } | null;
  all: string;
  tables: Record<string, { rows: number; sha256: string }>;
}

/** Projection digest of a stopped indexer's data dir. */
export async function digestOf(dataDir: string): Promise<StoreDigest> {
  const { stdout } = await run(process.execPath, [DIGEST, dataDir], { maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout) as StoreDigest;
}

/** One scenario's figures, appended as a JSON line to FAULTS_STATS for run.ts (REPORT.md). */
export interface ScenarioStats {
  scenario: string;
  seed: number;
  ok: boolean;
  faults?: Partial<ProxyStats['faults']> & Record<string, number>;
  totalFaults?: number;
  requests?: number;
  items?: number;
  /** HTTP requests made to the indexer's API (not through the RPC proxy). */
  apiRequests?: number;
  restarts: number;
  rowsLost: { blocks: number; txs: number; logs: number };
  notes?: string;
  seconds: number;
}

/** Prints a scenario's figures and appends them to FAULTS_STATS when set (long mode). */
export const recordScenario = (s: ScenarioStats): void => {
  if (process.env.FAULTS_STATS) appendFileSync(process.env.FAULTS_STATS, `${JSON.stringify(s)}\n`);
  console.log(JSON.stringify(s));
};

/**
 * Rows missing from a stopped store that indexed blocks 0..head: blocks (canonical entries),
 * transactions and logs, against the node's totals ({@link nodeTotals}). Zero everywhere when nothing was lost.
 */
export const rowsLostOf = (
  got: StoreDigest,
  head: number,
  totals: { txs: number; logs: number },
): ScenarioStats['rowsLost'] => ({
  blocks: head + 1 - (got.tables[TABLES.CANON]?.rows ?? 0),
  txs: totals.txs - (got.tables[TABLES.TX]?.rows ?? 0),
  logs: totals.logs - (got.tables[TABLES.LOG]?.rows ?? 0),
});

export const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/**
 * Waits until the indexer has converged on the node's block `head` in every lane: the blocks
 * checkpoint is (head, hash), every following lane (traces, projections) is at head on the same
 * hash, and no gap outside the blocks lane is open (trace gaps heal). Lanes that are disabled or
 * not supported by the node are skipped. Throws with the last state after `timeoutMs`.
 */
export async function waitConverged(
  idx: IndexerProcess,
  head: number,
  hash: string,
  timeoutMs = 90_000,
): Promise<void> {
  const t0 = Date.now();
  let last = '';
  for (;;) {
    const cp = (await idx.get('/checkpoints').catch(() => null))?.body;
    const gaps = (await idx.get('/gaps?limit=1000').catch(() => null))?.body;
    const lanes: Array<{ lane: string; block: number | null; hash: string | null; reason: string | null }> =
      cp?.lanes ?? [];
    const pending = lanes.filter(
      (l) =>
        (l.reason === null || l.reason.startsWith('nothing_')) &&
        !(l.block === head && (l.hash === hash || l.hash === null)),
    );
    const openGaps = ((gaps?.data ?? []) as Array<{ lane: string; status: string }>).filter(
      (g) => g.status === 'open' && g.lane !== 'blocks',
    );
    if (
      cp?.anchor?.block === head &&
      cp.anchor.hash === hash &&
      pending.length === 0 &&
      openGaps.length === 0
    )
      return;
    last = JSON.stringify({ anchor: cp?.anchor, pending, openGaps });
    if (Date.now() - t0 > timeoutMs)
      throw new Error(`not converged on ${head} ${hash}: ${last}\n${idx.logs().slice(-3000)}`);
    await sleep(100);
  }
}

/** The built entry of `@chain-indexer/store` (the child script opens stores through its front door). */
const BINDING = new URL(`${ROOT}packages/store/dist/index.js`, import.meta.url).pathname;

/** One row that differs between two stores (value null: absent on that side). */
export interface RowDiff {
  table: string;
  key: string;
  a: string | null;
  b: string | null;
}

/** The rows (up to `max`) that differ between two stopped stores in the given tables (hex table ids). */
export async function diffTables(
  dirA: string,
  dirB: string,
  tables: string[],
  max = 5000,
): Promise<RowDiff[]> {
  const script = `
    import { openRocks } from ${JSON.stringify(BINDING)};
    const [a, b] = [await openRocks(process.argv[1] + '/rocks'), await openRocks(process.argv[2] + '/rocks')];
    const out = [];
    for (const t of JSON.parse(process.argv[3])) {
      const id = Number.parseInt(t, 16);
      const range = { gte: Buffer.from([id]), lt: Buffer.from([id + 1]) };
      const rows = (r) => { const m = new Map(); r.each(range, (k, v) => { m.set(k.toString('hex'), v.toString()); return true; }); return m; };
      const [ra, rb] = [rows(a), rows(b)];
      for (const k of new Set([...ra.keys(), ...rb.keys()])) {
        if (ra.get(k) === rb.get(k)) continue;
        if (out.length >= ${max}) break;
        out.push({ table: t, key: k, a: ra.get(k) ?? null, b: rb.get(k) ?? null });
      }
    }
    await a.close(); await b.close();
    process.stdout.write(JSON.stringify(out));
  `;
  const { stdout } = await run(
    process.execPath,
    ['--input-type=module', '-e', script, dirA, dirB, JSON.stringify(tables)],
    {
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return JSON.parse(stdout) as RowDiff[];
}

/** A readable excerpt of row differences (A: store under test, B: fresh index). */
export const describeDiff = (rows: RowDiff[], n = 4): string =>
  rows
    .slice(0, n)
    .map(
      (r) =>
        `table ${r.table} key ${r.key}\n  A: ${String(r.a).slice(0, 400)}\n  B: ${String(r.b).slice(0, 400)}`,
    )
    .join('\n') + (rows.length > n ? `\n… ${rows.length} rows differ` : '');

/**
 * Tables that record the process's history rather than the chain: the stream logs (0x70 frames,
 * reorg frames included; 0x71 sequences, see packages/indexer/src/streams/log.ts). A store that lived through
 * reorgs has reorg frames a fresh index never has, so they cannot be equal. The digest tool does
 * not exclude them yet (reported); the comparisons here leave them out.
 */
export const PROCESS_HISTORY_TABLES = ['0x70', '0x71'];

/** Chain-state tables whose digests differ (process-history tables left out). */
export const differing = (a: StoreDigest, b: StoreDigest): string[] =>
  [...new Set([...Object.keys(a.tables), ...Object.keys(b.tables)])].filter(
    (t) => !PROCESS_HISTORY_TABLES.includes(t) && a.tables[t]?.sha256 !== b.tables[t]?.sha256,
  );

/** The digest's tables without the process-history ones. */
export const chainTables = (d: StoreDigest) =>
  Object.fromEntries(Object.entries(d.tables).filter(([t]) => !PROCESS_HISTORY_TABLES.includes(t)));

/**
 * Compares a stopped store with a fresh index of the same chain (the fresh indexer gets `env`: the
 * same configuration as the one under test); on mismatch the message names the differing rows
 * (A = the store under test, B = the fresh index).
 */
export async function compareWithFresh(
  dataDir: string,
  rpcUrl: string,
  head: number,
  env: Record<string, string> = {},
): Promise<{ got: StoreDigest; want: StoreDigest; rows: RowDiff[]; diff: string }> {
  const dir = tempDir('idx-fresh-');
  try {
    const want = await freshDigest(rpcUrl, head, env, dir);
    const got = await digestOf(dataDir);
    const tables = differing(got, want);
    const rows = tables.length ? await diffTables(dataDir, dir, tables) : [];
    return { got, want, rows, diff: describeDiff(rows) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Indexes the node's current chain from scratch (no proxy, no faults), stops, and digests it. */
export async function freshDigest(
  rpcUrl: string,
  head: number,
  env: Record<string, string> = {},
  keepDir?: string,
): Promise<StoreDigest> {
  const dir = keepDir ?? tempDir('idx-fresh-');
  let idx: IndexerProcess | null = null;
  try {
    idx = await startIndexer({ rpcUrl, dataDir: dir, env });
    await idx.waitForHead(head, 120_000);
    const r = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_getBlockByNumber',
        params: [hex(head), false],
      }),
    });
    await waitConverged(idx, head, ((await r.json()) as { result: { hash: string } }).result.hash);
    await idx.stop();
    idx = null;
    return await digestOf(dir);
  } finally {
    await idx?.stop();
    if (!keepDir) rmSync(dir, { recursive: true, force: true });
  }
}

/** Stops an indexer (SIGTERM, data dir kept) and digests its store. */
export async function stopAndDigest(idx: IndexerProcess): Promise<StoreDigest> {
  await idx.stop();
  return digestOf(idx.dataDir);
}

/**
 * Init code of a 15-byte contract whose every call emits two logs (LOG1 topic 0x2a, LOG1 topic 0x2b):
 * runtime 602a60006000a1 602b60006000a1 00, returned by PUSH15 / MSTORE / RETURN(17, 15).
 */
export const EMITTER_INIT = '0x6e602a60006000a1602b60006000a100600052600f6011f3';

/** Deploys the log emitter (mines one block) and returns its address. */
export async function deployEmitter(anvil: Anvil): Promise<string> {
  const tx = await anvil.rpc<string>('eth_sendTransaction', [{ from: DEV_ACCOUNTS[4], data: EMITTER_INIT }]);
  await anvil.mine();
  const rc = await anvil.rpc<{ contractAddress: string; status: string }>('eth_getTransactionReceipt', [tx]);
  if (rc.status !== '0x1') throw new Error('emitter deploy reverted');
  return rc.contractAddress;
}

/** Calls the emitter `n` times (two logs each), from rotating dev accounts. */
export async function emitLogs(anvil: Anvil, emitter: string, n: number, salt = 0): Promise<void> {
  for (let i = 0; i < n; i++) {
    await anvil.rpc('eth_sendTransaction', [
      { from: DEV_ACCOUNTS[(i + salt) % DEV_ACCOUNTS.length], to: emitter, data: '0x' },
    ]);
  }
}

/** One round of seeded traffic: transfers and emitter calls, then 1..maxBlocks blocks mined. */
export async function traffic(
  anvil: Anvil,
  rand: () => number,
  emitter: string,
  maxBlocks = 2,
): Promise<void> {
  const blocks = 1 + Math.floor(rand() * maxBlocks);
  for (let b = 0; b < blocks; b++) {
    await anvil.sendTransfers(Math.floor(rand() * 4));
    await emitLogs(anvil, emitter, Math.floor(rand() * 3), b);
    await anvil.mine();
  }
}

/** Node totals over blocks 0..head: transactions and logs (for "no rows lost" checks). */
export async function nodeTotals(
  anvil: Pick<Anvil, 'rpc'>,
  head: number,
): Promise<{ txs: number; logs: number; hashes: string[] }> {
  let txs = 0;
  let logs = 0;
  const hashes: string[] = [];
  for (let n = 0; n <= head; n++) {
    const b = await anvil.rpc<{ hash: string; transactions: string[] }>('eth_getBlockByNumber', [
      hex(n),
      false,
    ]);
    hashes.push(b.hash);
    txs += b.transactions.length;
    if (b.transactions.length) {
      const rcs = await anvil.rpc<Array<{ logs: unknown[] }>>('eth_getBlockReceipts', [hex(n)]);
      for (const r of rcs) logs += r.logs.length;
    }
  }
  return { txs, logs, hashes };
}

/** Table ids of the chain records (see packages/indexer/src/schema/tables/chain.ts). */
export const TABLES = { CANON: '0x02', HEADER: '0x04', TX: '0x05', RECEIPT: '0x07', LOG: '0x08' } as const;

/**
 * Known divergence (reported bug): a trace status row records which RPC method served it, so a
 * transient fault that makes the traces lane fall back from debug_traceBlockByNumber to
 * debug_traceTransaction leaves `source` different from a fresh index. True for rows that differ
 * in nothing else.
 */
export function onlyTraceSourceDiffers(r: RowDiff): boolean {
  if (r.table !== '0x50' || r.a === null || r.b === null) return false;
  try {
    const a = JSON.parse(r.a);
    const b = JSON.parse(r.b);
    delete a.source;
    delete b.source;
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}
