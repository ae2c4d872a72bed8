/**
 * Ponder as a peer on the transfer chain (bench/ingest-transfers.ts `--peer ponder`): installs
 * Ponder from the npm registry into a temp dir (kept between runs, keyed by version), writes a
 * minimal balances-and-transfers app for the chain's ERC-20 (one `Transfer` handler: the transfer
 * row and both balances, as Ponder's own ERC-20 example does), runs `ponder start` against the same
 * node with its default embedded database (PGlite) and times it until `/ready` answers 200 (the
 * historical backfill is done) and `/status` names the chain head, with the same CPU accounting
 * as the indexer runs. A Ponder that cannot be installed or started fails the run with its output.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/harness/anvil.js';
import { backfillRates, cpuSeconds, type IngestRun, PEER_UNMEASURED } from './ingest-transfers.js';
import { log, rssMiB, runQuiet, sleep, stopChild, track } from './lib.js';

/**
 * The Ponder release measured (npm `ponder`): 1.0.0, the issue's peer (its config names chains
 * `networks`; see writeApp). 0.17.7 does not install from this workplace's registry (its dependency
 * @ponder/utils@0.3.0 is missing there: npm ETARGET); 0.16.10 installs and runs too
 * (PONDER_VERSION=0.16.10, the earlier sittings' peer: it adapts its own request rate, 20 to 500 a
 * second; on the transfer chain it reached head in 51.5 s where 1.0.0 took 21.8 s, two runs of
 * 2026-11-29 on a quiet machine).
 */
export const PONDER_VERSION = process.env.PONDER_VERSION ?? '1.0.0';

/** Installs Ponder (and the viem and hono it expects beside it) once; returns the install dir. */
export async function installPonder(version = PONDER_VERSION): Promise<string> {
  const dir = join(os.tmpdir(), `indexer-bench-ponder-${version}`);
  if (existsSync(join(dir, 'node_modules/ponder/package.json'))) return dir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'ponder-peer', private: true, type: 'module' }),
  );
  log(`ponder: npm install ponder@${version} into ${dir}`);
  const t0 = performance.now();
  await runQuiet('npm', ['install', '--no-audit', '--no-fund', `ponder@${version}`, 'viem@2', 'hono@4'], dir);
  log(`ponder: installed in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return dir;
}

const ERC20_ABI = `[
  { type: 'event', name: 'Transfer', inputs: [
    { indexed: true, name: 'from', type: 'address' },
    { indexed: true, name: 'to', type: 'address' },
    { indexed: false, name: 'value', type: 'uint256' } ] },
] as const;`;

/** Writes the app into a fresh dir under the install dir (so `ponder` resolves from there). */
function writeApp(
  installDir: string,
  version: string,
  o: { rpcUrl: string; chainId: number; token: string; startBlock: number },
) {
  const app = mkdtempSync(join(installDir, 'app-'));
  mkdirSync(join(app, 'src'));
  // Ponder 1.0 names a chain a network (`networks`, `chainId`, a viem `transport`) and limits its
  // requests to 50 a second unless told: the peer gets the node without a limit, as we do.
  const v1 = version.startsWith('1.');
  const chain = v1
    ? `networks: { bench: { chainId: ${o.chainId}, transport: http(${JSON.stringify(o.rpcUrl)}), disableCache: true, maxRequestsPerSecond: 100_000 } },`
    : `chains: { bench: { id: ${o.chainId}, rpc: ${JSON.stringify(o.rpcUrl)}, disableCache: true } },`;
  writeFileSync(
    join(app, 'ponder.config.ts'),
    `import { createConfig } from 'ponder';
${v1 ? "import { http } from 'viem';" : ''}
const abi = ${ERC20_ABI}
export default createConfig({
  database: { kind: 'pglite', directory: ${JSON.stringify(join(app, '.ponder/pglite'))} },
  ${chain}
  contracts: { Token: { ${v1 ? 'network' : 'chain'}: 'bench', abi, address: ${JSON.stringify(o.token)}, startBlock: ${o.startBlock} } },
});
`,
  );
  writeFileSync(
    join(app, 'ponder.schema.ts'),
    `import { index, onchainTable } from 'ponder';
export const account = onchainTable('account', (t) => ({
  address: t.hex().primaryKey(),
  balance: t.bigint().notNull(),
}));
export const transferEvent = onchainTable('transfer_event', (t) => ({
  id: t.text().primaryKey(),
  amount: t.bigint().notNull(),
  timestamp: t.integer().notNull(),
  from: t.hex().notNull(),
  to: t.hex().notNull(),
}), (table) => ({ fromIdx: index().on(table.from), toIdx: index().on(table.to) }));
`,
  );
  writeFileSync(
    join(app, 'src/index.ts'),
    `import { ponder } from 'ponder:registry';
import { account, transferEvent } from 'ponder:schema';
ponder.on('Token:Transfer', async ({ event, context }) => {
  await context.db.insert(account).values({ address: event.args.from, balance: 0n })
    .onConflictDoUpdate((row) => ({ balance: row.balance - event.args.value }));
  await context.db.insert(account).values({ address: event.args.to, balance: event.args.value })
    .onConflictDoUpdate((row) => ({ balance: row.balance + event.args.value }));
  await context.db.insert(transferEvent).values({
    id: event.id,
    amount: event.args.value,
    timestamp: Number(event.block.timestamp),
    from: event.args.from,
    to: event.args.to,
  });
});
`,
  );
  // Ponder 0.16 requires an API file; the bench reads only /ready, so it serves nothing else.
  mkdirSync(join(app, 'src/api'));
  writeFileSync(
    join(app, 'src/api/index.ts'),
    `import { Hono } from 'hono';
const app = new Hono();
export default app;
`,
  );
  return app;
}

/**
 * Backfills the chain with Ponder until `/ready`; the figures are those of an {@link IngestRun}
 * (no commit stages: Ponder has none to report).
 * @throws when Ponder exits or is not ready within an hour.
 */
export async function runPonder(o: {
  rpcUrl: string;
  chainId: number;
  token: string;
  startBlock: number;
  head: number;
  txCount: number;
  logCount: number;
}): Promise<IngestRun & { version: string }> {
  const installDir = await installPonder();
  const app = writeApp(installDir, PONDER_VERSION, o);
  const port = await freePort();
  const bin = join(installDir, 'node_modules/ponder/dist/esm/bin/ponder.js');
  const t0 = performance.now();
  const c: ChildProcess = track(
    spawn(
      process.execPath,
      [bin, 'start', '--root', app, '--port', String(port), '--schema', 'bench', '--log-format', 'json'],
      {
        cwd: app,
        env: { ...process.env, NODE_ENV: 'production', PONDER_TELEMETRY_DISABLED: 'true' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    ),
  );
  let out = '';
  const keep = (d: Buffer) => {
    out += d.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  c.stdout!.on('data', keep);
  c.stderr!.on('data', keep);
  let peak = 0;
  let first: { t: number; main: number; proc: number } | null = null;
  try {
    for (;;) {
      if (c.exitCode !== null) throw new Error(`ponder exited ${c.exitCode}:\n${out.slice(-3000)}`);
      peak = Math.max(peak, rssMiB(c.pid!));
      // The first sign of indexing work: Ponder's health endpoint answers once its server is up.
      if (!first) {
        const h = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
        if (h?.ok)
          first = { t: performance.now(), main: cpuSeconds(c.pid!, c.pid!), proc: cpuSeconds(c.pid!) };
      }
      // At head: /ready only says the historical part is done (Ponder backfills to the node's
      // finalized block and indexes the rest live), so the bench waits for /status to name the head.
      const r = await fetch(`http://127.0.0.1:${port}/status`).catch(() => null);
      const st = r?.ok
        ? ((await r.json().catch(() => null)) as { bench?: { block?: { number?: number } } } | null)
        : null;
      if ((st?.bench?.block?.number ?? -1) >= o.head) break;
      if (performance.now() - t0 > 3_600_000) throw new Error('ponder: not ready after an hour');
      await sleep(100);
    }
    const tHead = performance.now();
    const f = first ?? { t: t0, main: 0, proc: 0 };
    const mainCpu = cpuSeconds(c.pid!, c.pid!) - f.main;
    const procCpu = cpuSeconds(c.pid!) - f.proc;
    const blocks = o.head + 1;
    return {
      label: `Ponder ${PONDER_VERSION} (PGlite)`,
      main: bin,
      version: PONDER_VERSION,
      ...backfillRates({ t0, tFirst: f.t, tHead }, o),
      peakRssMiB: peak,
      mainCpuMsPerBlock: (1000 * mainCpu) / blocks,
      processCpuMsPerBlock: (1000 * procCpu) / blocks,
      ...PEER_UNMEASURED,
    };
  } finally {
    await stopChild(c, 5000);
    rmSync(app, { recursive: true, force: true });
    if (process.env.PONDER_LOG) writeFileSync(process.env.PONDER_LOG, out);
  }
}
