/**
 * The scanner's two budgets (issue N):
 *
 *  A. key verification plus the rate-limit check add p99 < 0.2 ms to a cached `/v1/whoami`:
 *     the real service in-process (no index), sequential keep-alive requests at c=1, `/v1/whoami`
 *     with a key (gate: credential parse, checksum, directory lookup, constant-time compare, plan,
 *     allowlist, both rolling windows) interleaved with `/v1/health` without one (same listener,
 *     same framework, no gate); the added cost is p99(whoami) − p99(health).
 *  B. `/v1/scan` quick on a busy devnet wallet p99 < 20 ms: a devnet with traffic for TRAFFIC_S
 *     seconds (default 40), frozen; the real indexer with the in-process scanner
 *     (SCANNER_CACHE_SECONDS=0 so every scan is computed, never the cached body); the wallet with
 *     the most swaps; sequential quick scans at c=1.
 *
 * Run: `npm run bench:scanner` (env TRAFFIC_S, SAMPLES_A, SAMPLES_B; ONLY_A=1 skips B; PROFILE=1
 * prints the indexer's CPU profile of part B). Prints each
 * figure with its budget; exit code 0 whether or not a budget is met (figures, not a gate).
 *
 * Recorded 2026-11-25 on the dev machine (2 cores shared with other jobs, load average ≈ 15, so
 * every HTTP p99 is scheduling noise: even the gate-free /v1/health has p99 10–16 ms):
 *   A. gate.checkKey in-process p50 0.003–0.005 ms, p99 0.016–0.037 ms (budget met); over HTTP
 *      /v1/whoami − /v1/health: p50 +0.09–0.10 ms, p99 not measurable under that load.
 *   B. /v1/scan quick, busiest wallet (8–12 swaps, 15–16 holdings marked): p50 19–41 ms, p99
 *      51–287 ms over four runs (budget NOT met); of which /v1/holdings alone (each USD mark a
 *      default-venue choice over the token's pools against each quote tried) p50 11–29 ms;
 *      funding chain and identities under 2 ms p50. The indexer's profile of a run (PROFILE=1):
 *      RocksDB iteration and reads lead (pool membership scans and venue statistics), the exact
 *      rational reductions of the marks (gcd) ≈ 5 % of the process's time.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseIp } from '@chain-indexer/platform/security';
import { createScannerService } from '@chain-indexer/scanner';
import { loadScannerConfig } from '@chain-indexer/scanner/config';
import { createGate, createRateWindows } from '@chain-indexer/scanner/testing';
import { pino } from 'pino';
import { httpRequest } from '../test/harness/scanner.js';
import { topSelf } from './cpuprofile.js';
import { cleanupAll, exitAfter, log, percentile, round, rpc, sleep, startIndexerChild } from './lib.js';
import { settleTraffic, startTrafficDevnet } from './traffic-devnet.js';

const TRAFFIC_S = Number(process.env.TRAFFIC_S ?? 40);
const SAMPLES_A = Number(process.env.SAMPLES_A ?? 5000);
const SAMPLES_B = Number(process.env.SAMPLES_B ?? 300);
const CLI = new URL('../../packages/scanner/dist/cli.js', import.meta.url).pathname;

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: round(percentile(s, 50)),
    p99: round(percentile(s, 99)),
    max: round(s[s.length - 1]),
  };
};

/** Budget A: the gate's added latency on a cached /v1/whoami. */
async function gateOverhead(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-scanner-'));
  const config = loadScannerConfig({ SCANNER_DATA_DIR: dataDir, SCANNER_PORT: '0' });
  const service = await createScannerService({ config, log: pino({ level: 'silent' }) });
  try {
    const url = `http://127.0.0.1:${await service.listen()}`;
    const { accounts, ledger } = service.core;
    const id = accounts.createAccount({ email: 'bench@example.com' }).id;
    accounts.setPlan(id, {
      tier: 'enterprise',
      status: 'active',
      periodEnd: Date.now() + 86_400_000,
      ratePerMinute: 100_000,
    });
    ledger.grant(id, 1, 'bench', Date.now());
    const key = accounts.createKey(id, { name: 'bench' }, { ip: 'cli' }).secret;
    const whoami: number[] = [];
    const health: number[] = [];
    const once = async (path: string, withKey: boolean, into: number[] | null) => {
      const t0 = performance.now();
      const a = await httpRequest(url, 'GET', path, withKey ? { key } : {});
      const dt = performance.now() - t0;
      if (a.status !== 200) throw new Error(`${path}: ${a.status} ${a.text}`);
      into?.push(dt);
    };
    for (let i = 0; i < 500; i++) {
      await once('/v1/whoami', true, null);
      await once('/v1/health', false, null);
    }
    for (let i = 0; i < SAMPLES_A; i++) {
      await once('/v1/whoami', true, whoami);
      await once('/v1/health', false, health);
    }
    // The same checks in-process, without HTTP and scheduling noise: checkKey (credential, checksum,
    // directory lookup, constant-time compare, allowlist, plan, both windows) on a fresh gate.
    const gate = createGate({
      directory: service.core.directory,
      windows: createRateWindows(),
      upgradeUrl: 'x',
    });
    const r = {
      method: 'GET',
      path: '/v1/whoami',
      rawQuery: '',
      rawParams: {},
      headers: new Map([['x-api-key', [key]]]),
      ip: parseIp('203.0.113.7'),
      ipText: '203.0.113.7',
      blockKey: '203.0.113.7',
    };
    const direct: number[] = [];
    for (let i = 0; i < SAMPLES_A; i++) {
      const t0 = performance.now();
      const c = gate.checkKey(r, Date.now());
      direct.push(performance.now() - t0);
      if (!c.ok) throw new Error(`gate refused: ${c.error.code}`);
    }
    const g = stats(direct);
    log(
      `A. gate.checkKey in-process: p50 ${g.p50} ms, p99 ${g.p99} ms, max ${g.max} ms (${g.n}) — budget p99 < 0.2 ms: ${g.p99 < 0.2 ? 'met' : 'NOT met'}`,
    );
    const w = stats(whoami);
    const h = stats(health);
    log(`A. /v1/whoami (key):   p50 ${w.p50} ms, p99 ${w.p99} ms, max ${w.max} ms (${w.n})`);
    log(`A. /v1/health (no key): p50 ${h.p50} ms, p99 ${h.p99} ms, max ${h.max} ms (${h.n})`);
    const added = round(w.p99 - h.p99);
    log(
      `A. gate adds p99 ${added} ms (p50 ${round(w.p50 - h.p50)} ms) — budget < 0.2 ms: ${added < 0.2 ? 'met' : 'NOT met'}`,
    );
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const cli = (dir: string, ...args: string[]): Promise<any> =>
  new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...process.env, SCANNER_DATA_DIR: dir, SMTP_URL: '' } },
      (err, out, e) => (err ? reject(new Error(`${err.message}\n${e}`)) : resolve(JSON.parse(out))),
    ),
  );

/** Budget B: /v1/scan quick on the busiest devnet wallet. */
async function scanQuick(): Promise<void> {
  const stateDir = mkdtempSync(join(tmpdir(), 'bench-scanner-devnet-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-scanner-idx-'));
  const dev = await startTrafficDevnet(stateDir);
  try {
    const { head, markets } = await settleTraffic(dev, stateDir, TRAFFIC_S, () =>
      log(`B. traffic for ${TRAFFIC_S} s`),
    );
    const senders = new Set<string>();
    for (let n = 0; n <= head; n++) {
      const b = await rpc<any>(dev.rpcUrl, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, true]);
      for (const t of b.transactions) senders.add(t.from.toLowerCase());
    }
    const profDir = join(dataDir, 'prof');
    const ix = await startIndexerChild({
      ...(process.env.PROFILE === '1' ? { execArgv: ['--cpu-prof', '--cpu-prof-dir', profDir] } : {}),
      rpcUrl: dev.rpcUrl,
      chain: 'testnet',
      dataDir,
      env: {
        MARKETS_FILE: markets,
        TRACES: 'off',
        POLL_MS: '50',
        SCANNER: 'on',
        SCANNER_PORT: '0',
        SCANNER_CACHE_SECONDS: '0',
        SMTP_URL: '',
      },
    });
    try {
      while ((await ix.anchor()) < head) await sleep(200);
      let busiest = '';
      let most = -1;
      for (const a of senders) {
        const r = await ix.get(`/wallets/${a}/trades?limit=1000`);
        const n = r.body?.data?.length ?? 0;
        if (n > most) [most, busiest] = [n, a];
      }
      log(`B. busiest wallet ${busiest}: ${most} swaps at head ${head}`);
      const url = `http://127.0.0.1:${/scanner API listening on http:\/\/127\.0\.0\.1:(\d+)\/v1/.exec(ix.logs())?.[1]}`;
      const dir = join(dataDir, 'scanner');
      const acc = (await cli(dir, 'create-account', '--email', 'bench@example.com')).account.id;
      await cli(dir, 'set-plan', '--account', acc, '--plan', 'enterprise', '--rate', '100000');
      await cli(dir, 'grant-credits', '--account', acc, '--scans', String(SAMPLES_B + 100));
      const key = (await cli(dir, 'create-key', '--account', acc, '--name', 'bench')).secret as string;
      const times: number[] = [];
      let holdings = 0;
      for (let i = 0; i < SAMPLES_B + 20; i++) {
        const t0 = performance.now();
        const a = await httpRequest(url, 'POST', '/v1/scan', {
          key,
          body: { address: busiest, depth: 'quick' },
        });
        const dt = performance.now() - t0;
        if (a.status !== 200 || a.body.cached) throw new Error(`scan: ${a.status} ${a.text.slice(0, 300)}`);
        holdings = a.body.scan.holdings.coverage.assetsExamined;
        if (i >= 20) times.push(dt);
      }
      const s = stats(times);
      // Where the time goes: the free lookups a quick scan is made of, same wallet (diagnostic).
      for (const path of [
        `/v1/holdings?address=${busiest}`,
        `/v1/funding-chain?address=${busiest}&depth=1`,
        `/v1/identities?address=${busiest}`,
      ]) {
        const ts: number[] = [];
        for (let i = 0; i < 50; i++) {
          const t0 = performance.now();
          const a = await httpRequest(url, 'GET', path, { key });
          ts.push(performance.now() - t0);
          if (a.status !== 200) throw new Error(`${path}: ${a.status}`);
        }
        const d = stats(ts);
        log(`B. (diagnostic) ${path.split('?')[0]}: p50 ${d.p50} ms, p99 ${d.p99} ms (${d.n})`);
      }
      log(
        `B. /v1/scan quick (${holdings} holdings marked): p50 ${s.p50} ms, p99 ${s.p99} ms, max ${s.max} ms (${s.n}) — budget p99 < 20 ms: ${s.p99 < 20 ? 'met' : 'NOT met'}`,
      );
    } finally {
      await ix.stop();
    }
    if (process.env.PROFILE === '1')
      for (const f of readdirSync(profDir))
        log(`B. indexer profile (self time):\n${topSelf(join(profDir, f), 25)}`);
  } finally {
    await dev.killNode();
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  await gateOverhead();
  if (process.env.ONLY_A !== '1') await scanQuick();
  await cleanupAll();
}

exitAfter(main);
