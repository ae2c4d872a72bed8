/**
 * Subsquid as a peer on the transfer chain (bench/ingest-transfers.ts `--peer subsquid`): installs
 * `@subsquid/evm-processor` with `@subsquid/typeorm-store` from the npm registry into a temp dir
 * (kept between runs, keyed by version), writes a squid with the same two tables as the Ponder
 * peer (bench/peer-ponder.ts) — `account` (holder → balance) and `transfer` (one row per Transfer
 * log: id, amount, timestamp, from, to; from and to indexed) — fed by one batch handler in the way
 * of Subsquid's own ERC-20 example, and runs it against the same node with a fresh local
 * PostgreSQL (bench/postgres.ts, Debian's server). The schema is created by the squid's process
 * before it starts processing (a hand-written migration), so it counts in its time.
 *
 * The squid uses the chain RPC only (`setRpcEndpoint` with the library's defaults, no archive
 * gateway), `setBlockRange({from: 0})` and `setFinalityConfirmation(SUBSQUID_FINALITY)` — by
 * default 64, the depth of anvil's own `finalized` tag (head − 64), so the last 64 blocks go
 * through Subsquid's hot-block path (one transaction per block with its change log) as the
 * project's unfinalised window goes through its live path. Time to head runs from the spawn of
 * the squid's process until its last processed block — `squid_processor.status.height`, or the
 * highest `squid_processor.hot_block` above it — is the chain head, polled every 100 ms in the
 * squid's own database (the status commits in the same transaction as the rows, so at that
 * moment the tables answer at head). Then the sampled balances are held to `balanceOf` on the
 * node and the transfer rows counted: a squid whose answer is wrong fails the run.
 *
 * CPU and memory: the squid's process plus the PostgreSQL server (postmaster and backends), since
 * the project counts its RocksDB and Ponder its embedded PGlite in the same figures.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { backfillRates, cpuSeconds, type IngestRun, PEER_UNMEASURED } from './ingest-transfers.js';
import { log, rssMiB, runQuiet, sleep, stopChild, track } from './lib.js';
import { type BalanceCheck, balancesOnNode, compareBalances } from './peer-check.js';
import { startPostgres } from './postgres.js';

/** The Subsquid release measured (`@subsquid/evm-processor`); override with SUBSQUID_VERSION. */
export const SUBSQUID_VERSION = process.env.SUBSQUID_VERSION ?? '1.27.3';
/**
 * The rest of the squid, pinned. `@subsquid/typeorm-store` 1.9.x (the newest) does not install from
 * this workplace's registry (it needs `@subsquid/typeorm-config@^4.2.0` and
 * `@subsquid/util-internal@^3.3.1`, which are missing there): 1.5.1 is the newest that does.
 */
const SQUID_DEPS = [
  '@subsquid/typeorm-store@1.5.1',
  '@subsquid/big-decimal@1.0.0',
  '@subsquid/evm-abi@0.3.1',
  '@subsquid/evm-codec@0.3.0',
  'typeorm@0.3.31',
  'pg@8.23.1',
];
/** Finality confirmation the squid is given (blocks below the head it treats as final). */
export const SUBSQUID_FINALITY = Number(process.env.SUBSQUID_FINALITY ?? '64');

/** Installs the squid's packages once; returns the install dir. */
export async function installSubsquid(version = SUBSQUID_VERSION): Promise<string> {
  const dir = join(os.tmpdir(), `indexer-bench-subsquid-${version}`);
  if (existsSync(join(dir, 'node_modules/@subsquid/evm-processor/package.json'))) return dir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'subsquid-peer', private: true }));
  log(`subsquid: npm install @subsquid/evm-processor@${version} into ${dir}`);
  const t0 = performance.now();
  await runQuiet(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--save-exact',
      `@subsquid/evm-processor@${version}`,
      ...SQUID_DEPS,
    ],
    dir,
  );
  log(`subsquid: installed in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return dir;
}

/** The squid's model: TypeORM entities as Subsquid's codegen makes them (decorators applied by hand). */
const MODEL_JS = `'use strict';
const { Entity, PrimaryColumn, Column, Index } = require('typeorm');
// Subsquid's codegen stores BigInt fields as numeric with this transformer.
const bigint = { to: (v) => (v == null ? v : v.toString()), from: (v) => (v == null ? v : BigInt(v)) };
class Account { constructor(props) { Object.assign(this, props); } }
PrimaryColumn('varchar')(Account.prototype, 'id');
Column('numeric', { transformer: bigint, nullable: false })(Account.prototype, 'balance');
Entity('account')(Account);
class Transfer { constructor(props) { Object.assign(this, props); } }
PrimaryColumn('varchar')(Transfer.prototype, 'id');
Column('numeric', { transformer: bigint, nullable: false })(Transfer.prototype, 'amount');
Column('int4', { nullable: false })(Transfer.prototype, 'timestamp');
Index()(Transfer.prototype, 'from');
Column('text', { nullable: false })(Transfer.prototype, 'from');
Index()(Transfer.prototype, 'to');
Column('text', { nullable: false })(Transfer.prototype, 'to');
Entity('transfer')(Transfer);
module.exports = { Account, Transfer };
`;

/** The hand-written migration (what `sqd migration:generate` would write for the model). */
const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS account (id character varying PRIMARY KEY, balance numeric NOT NULL);
CREATE TABLE IF NOT EXISTS transfer (id character varying PRIMARY KEY, amount numeric NOT NULL,
  "timestamp" integer NOT NULL, "from" text NOT NULL, "to" text NOT NULL);
CREATE INDEX IF NOT EXISTS transfer_from ON transfer ("from");
CREATE INDEX IF NOT EXISTS transfer_to ON transfer ("to");
`;

const MAIN_JS = `'use strict';
const { EvmBatchProcessor } = require('@subsquid/evm-processor');
const { TypeormDatabase } = require('@subsquid/typeorm-store');
const { event, indexed } = require('@subsquid/evm-abi');
const p = require('@subsquid/evm-codec');
const { In } = require('typeorm');
const { Client } = require('pg');
const { Account, Transfer } = require('./model');

const TOKEN = process.env.TOKEN.toLowerCase();
const TransferEvent = event(
  '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
  'Transfer(address,address,uint256)',
  { from: indexed(p.address), to: indexed(p.address), value: p.uint256 },
);

const processor = new EvmBatchProcessor()
  .setRpcEndpoint(process.env.RPC_URL)
  .setFinalityConfirmation(Number(process.env.FINALITY))
  .setBlockRange({ from: 0 })
  .setFields({ log: { topics: true, data: true } })
  .addLog({ address: [TOKEN], topic0: [TransferEvent.topic] });

async function migrate() {
  const c = new Client({ host: process.env.DB_HOST, port: Number(process.env.DB_PORT), user: 'postgres', database: 'postgres' });
  await c.connect();
  await c.query(${JSON.stringify(SCHEMA_SQL)});
  await c.end();
}

migrate().then(() =>
  processor.run(new TypeormDatabase({ supportHotBlocks: true }), async (ctx) => {
    const transfers = [];
    const delta = new Map();
    for (const block of ctx.blocks) {
      for (const log of block.logs) {
        if (log.address !== TOKEN || log.topics[0] !== TransferEvent.topic) continue;
        const { from, to, value } = TransferEvent.decode(log);
        transfers.push(new Transfer({ id: log.id, amount: value, timestamp: Math.floor(block.header.timestamp / 1000), from, to }));
        delta.set(from, (delta.get(from) ?? 0n) - value);
        delta.set(to, (delta.get(to) ?? 0n) + value);
      }
    }
    if (!transfers.length) return;
    const ids = [...delta.keys()];
    const known = new Map((await ctx.store.findBy(Account, { id: In(ids) })).map((a) => [a.id, a]));
    const accounts = ids.map((id) => {
      const a = known.get(id) ?? new Account({ id, balance: 0n });
      a.balance += delta.get(id);
      return a;
    });
    await ctx.store.upsert(accounts);
    await ctx.store.insert(transfers);
  }),
).catch((e) => { console.error(e); process.exit(1); });
`;

/** Writes the squid into a fresh dir under the install dir (so its packages resolve from there). */
function writeApp(installDir: string): string {
  const app = mkdtempSync(join(installDir, 'squid-'));
  mkdirSync(join(app, 'lib/model'), { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'squid', private: true }));
  writeFileSync(join(app, 'lib/model/index.js'), MODEL_JS);
  writeFileSync(join(app, 'lib/main.js'), MAIN_JS);
  return app;
}

/** A Subsquid run: the {@link IngestRun} figures and the check of its answer. */
export interface SubsquidRun extends IngestRun {
  version: string;
  postgres: string;
  finality: number;
  check: BalanceCheck;
  transferRows: number;
  /** Peak RSS of the PostgreSQL server alone (MiB; included in peakRssMiB). */
  postgresPeakRssMiB: number;
  /** CPU ms per block of the PostgreSQL server alone (included in processCpuMsPerBlock). */
  postgresCpuMsPerBlock: number;
}

/**
 * Indexes the chain with the squid until its last processed block is the head; the figures are
 * those of an {@link IngestRun} (no commit stages).
 * @throws when the squid exits, is not at head within an hour, or its balances are wrong.
 */
export async function runSubsquid(o: {
  rpcUrl: string;
  token: string;
  head: number;
  txCount: number;
  logCount: number;
  /** Wallets whose balances are checked against the node's balanceOf at head. */
  sample: string[];
}): Promise<SubsquidRun> {
  const installDir = await installSubsquid();
  const app = writeApp(installDir);
  const pg = await startPostgres();
  const { Client } = createRequire(join(installDir, 'package.json'))('pg') as {
    Client: new (
      o: Record<string, unknown>,
    ) => {
      connect(): Promise<void>;
      query(sql: string, params?: unknown[]): Promise<{ rows: any[] }>;
      end(): Promise<void>;
      on(ev: 'error', f: (e: Error) => void): void;
    };
  };
  const db = new Client({ host: '127.0.0.1', port: pg.port, user: 'postgres', database: 'postgres' });
  // The server goes away under it on Ctrl-C (the clean-ups stop it): not an uncaught error.
  db.on('error', () => {});
  await db.connect();
  const pgCpu0 = pg.cpuSeconds();
  let c: ChildProcess | null = null;
  let out = '';
  try {
    const t0 = performance.now();
    c = track(
      spawn(process.execPath, [join(app, 'lib/main.js')], {
        cwd: app,
        env: {
          ...process.env,
          RPC_URL: o.rpcUrl,
          TOKEN: o.token,
          FINALITY: String(SUBSQUID_FINALITY),
          DB_HOST: '127.0.0.1',
          DB_PORT: String(pg.port),
          DB_NAME: 'postgres',
          DB_USER: 'postgres',
          DB_PASS: 'postgres',
          PROCESSOR_PROMETHEUS_PORT: '0',
          NODE_ENV: 'production',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    const keep = (d: Buffer) => {
      out += d.toString();
      if (out.length > 200_000) out = out.slice(-100_000);
    };
    c.stdout!.on('data', keep);
    c.stderr!.on('data', keep);
    // The processor's last processed block: the final status, or the highest hot block above it.
    const processed = async (): Promise<number> => {
      const r = await db
        .query(
          `SELECT GREATEST((SELECT height FROM squid_processor.status WHERE id = 0),
                           (SELECT max(height) FROM squid_processor.hot_block)) AS h`,
        )
        .catch(() => null); // the schema does not exist until the squid has connected
      const h = r?.rows[0]?.h;
      return h == null ? -1 : Number(h);
    };
    let peak = 0;
    let pgPeak = 0;
    let first: { t: number; block: number; main: number; proc: number; pg: number } | null = null;
    for (;;) {
      if (c.exitCode !== null) throw new Error(`subsquid exited ${c.exitCode}:\n${out.slice(-3000)}`);
      const pgRss = pg.rssMiB();
      pgPeak = Math.max(pgPeak, pgRss);
      peak = Math.max(peak, rssMiB(c.pid!) + pgRss);
      const h = await processed();
      if (h >= 0 && !first)
        first = {
          t: performance.now(),
          block: h,
          main: cpuSeconds(c.pid!, c.pid!),
          proc: cpuSeconds(c.pid!),
          pg: pg.cpuSeconds(),
        };
      if (h >= o.head) break;
      if (performance.now() - t0 > 3_600_000) throw new Error('subsquid: not at head after an hour');
      await sleep(100);
    }
    const tHead = performance.now();
    const f = first!;
    const mainCpu = cpuSeconds(c.pid!, c.pid!) - f.main;
    const pgCpu = pg.cpuSeconds() - f.pg;
    const procCpu = cpuSeconds(c.pid!) - f.proc + pgCpu;
    const cpuBlocks = Math.max(1, o.head - f.block);
    // Its answer: the sampled balances against balanceOf at head, and one row per Transfer log.
    const rows = (
      await db.query('SELECT id, balance::text AS balance FROM account WHERE id = ANY($1)', [o.sample])
    ).rows as Array<{ id: string; balance: string }>;
    const got = new Map(rows.map((r) => [r.id, BigInt(r.balance)]));
    const check = compareBalances(got, await balancesOnNode(o.rpcUrl, o.token, o.sample, o.head));
    const transferRows = Number((await db.query('SELECT count(*) AS n FROM transfer')).rows[0].n);
    if (check.wrongCount || transferRows !== o.logCount)
      throw new Error(
        `subsquid: wrong answer at head: ${check.wrongCount} of ${check.checked} balances differ from balanceOf ${JSON.stringify(check.wrong)}; ${transferRows} transfer rows for ${o.logCount} Transfer logs`,
      );
    log(
      `subsquid: at head in ${((tHead - t0) / 1000).toFixed(1)} s; pg cpu over the whole run ${(pg.cpuSeconds() - pgCpu0).toFixed(1)} s`,
    );
    return {
      label: `Subsquid ${SUBSQUID_VERSION} (typeorm-store, PostgreSQL ${pg.version})`,
      main: join(app, 'lib/main.js'),
      version: SUBSQUID_VERSION,
      postgres: pg.version,
      finality: SUBSQUID_FINALITY,
      check,
      transferRows,
      ...backfillRates({ t0, tFirst: f.t, tHead }, o),
      peakRssMiB: peak,
      postgresPeakRssMiB: pgPeak,
      mainCpuMsPerBlock: (1000 * mainCpu) / cpuBlocks,
      processCpuMsPerBlock: (1000 * procCpu) / cpuBlocks,
      postgresCpuMsPerBlock: (1000 * pgCpu) / cpuBlocks,
      ...PEER_UNMEASURED,
    };
  } finally {
    if (c) await stopChild(c, 5000);
    await db.end().catch(() => {});
    await pg.stop();
    rmSync(app, { recursive: true, force: true });
    if (process.env.SUBSQUID_LOG) writeFileSync(process.env.SUBSQUID_LOG, out);
  }
}
