/**
 * The embedded devnet keeps going (issue M part 4), on real anvil with the real indexer process
 * (`node dist/app/main.js` with no RPC_URL: the embedded devnet):
 *  (a) an `anvil_reorg` of depth 10 right after the traffic set-up drops funding and airdrops (and
 *      at 500 ms blocks the tail of the deployment): the generator notices, redoes the set-up
 *      (/health devnet.traffic.setupRedone ≥ 1) and new Swap logs follow the reorg;
 *  (a') the devnet module alone: a reorg reaching into the deployment (the seeded launches lose
 *      their code): the deployment's own signed transactions are sent again, every address comes
 *      back, and swaps continue;
 *  (b) the node frozen (SIGSTOP) for a while: /health reports `retrying` with the error, then
 *      `running` again after SIGCONT, and traffic continues;
 *  (c) SIGTERM of the indexer stops the anvil it started; with DEVNET_KEEP=1 the node stays and
 *      the next start reuses it (and sends again, at the same addresses, a deployment a reorg
 *      dropped meanwhile); SIGINT during start-up (while deploying) stops it too;
 *  (d) a foreign anvil on DEVNET_PORT: start-up refuses with what it found and what to do, exit
 *      code non-zero, and the foreign node is left alone;
 *  (e) 90 s of traffic after those minutes of it: no send refused for insufficient funds (the
 *      generator tops its wallets up before they run dry), refusals by cause in /health.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevnet } from '@chain-indexer/devnet';
import { isRunning, killAnvil, probeChainId, rpc } from '@chain-indexer/devnet/anvil';
import { type Hex, keccak256, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { anvilBinary, freePort } from '../harness/anvil.js';
import { embeddedDataDir, startEmbeddedIndexer } from '../harness/devnet.js';
import type { IndexerProcess } from '../harness/indexer.js';

const SWAP_TOPICS = [
  keccak256(toHex('Swap(address,uint256,uint256,uint256,uint256,address)')), // V2
  keccak256(toHex('Swap(address,address,int256,int256,uint160,uint128,int24)')), // V3
  keccak256(toHex('Swap(bytes32,address,int128,int128,uint160,uint128,int24,uint24)')), // V4
];

const dirs: string[] = [];
const procs: ChildProcess[] = [];

function newDataDir(): string {
  const d = embeddedDataDir('devnet-resilience-');
  dirs.push(d);
  return d;
}

const startEmbedded = startEmbeddedIndexer;

const markerPid = (dataDir: string): number =>
  (JSON.parse(readFileSync(join(dataDir, 'devnet', 'anvil.json'), 'utf8')) as { pid: number }).pid;

/** Whether pid runs (a zombie waiting for init to reap it does not). */
const alive = (pid: number) => isRunning(pid);

async function until<T>(what: string, f: () => Promise<T | null | undefined | false>, timeoutMs: number) {
  const t0 = Date.now();
  let last: unknown;
  for (;;) {
    try {
      const v = await f();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what} (${String(last ?? '')})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

type Traffic = {
  state: string;
  lastError: { message: string; at: string } | null;
  sent: number;
  refused: number;
  refusedBy: Record<'insufficientFunds' | 'nonce' | 'fee' | 'gas' | 'other', number>;
  failedActions: number;
  swaps: number;
  restarts: number;
  setupRedone: number;
  reorgsDetected: number;
};
const traffic = async (ix: IndexerProcess): Promise<Traffic> => {
  const r = await ix.get('/health');
  expect(r.status).toBe(200);
  expect(r.body.devnet).toBeDefined();
  return r.body.devnet.traffic as Traffic;
};

afterAll(() => {
  for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL');
  for (const d of dirs) {
    // Any anvil a failed test left behind.
    try {
      const pid = markerPid(d);
      if (alive(pid)) process.kill(-pid, 'SIGKILL');
    } catch {}
    rmSync(d, { recursive: true, force: true });
  }
});

describe('embedded devnet resilience (real anvil, real indexer)', () => {
  let ix: IndexerProcess;
  let dataDir: string;
  let rpcUrl: string;

  beforeAll(async () => {
    dataDir = newDataDir();
    const port = await freePort();
    rpcUrl = `http://127.0.0.1:${port}`;
    ix = await startEmbedded(dataDir, port);
  }, 90_000);
  afterAll(async () => {
    await ix?.stop();
  });

  test('(a) a depth-10 reorg right after set-up: the set-up is redone and swaps continue', async () => {
    await until('traffic running', async () => (await traffic(ix)).state === 'running', 60_000);
    const before = await traffic(ix);
    expect(before.setupRedone).toBe(0);
    // Right after bootstrap: at 500 ms blocks, 10 blocks reach back over the funding chains and
    // airdrops (and the end of the deployment).
    const head = Number(await rpc<Hex>(rpcUrl, 'eth_blockNumber'));
    await rpc(rpcUrl, 'anvil_reorg', [10, []]);
    const after = await until(
      'set-up redone',
      async () => {
        const t = await traffic(ix);
        return t.setupRedone >= 1 && t.state === 'running' ? t : null;
      },
      60_000,
    );
    expect(after.reorgsDetected).toBeGreaterThanOrEqual(1);
    expect(ix.logs()).toMatch(/set-up redone/);
    // New Swap logs after the reorg, from transactions sent after the recovery.
    const from = Math.max(head, Number(await rpc<Hex>(rpcUrl, 'eth_blockNumber'))) + 1;
    const swaps = await until(
      'swaps after the reorg',
      async () => {
        const logs = await rpc<unknown[]>(rpcUrl, 'eth_getLogs', [
          { fromBlock: toHex(from), toBlock: 'latest', topics: [SWAP_TOPICS] },
        ]);
        return logs.length >= 5 ? logs : null;
      },
      30_000,
    );
    expect(swaps.length).toBeGreaterThanOrEqual(5);
    if (process.env.DEBUG_DEVNET)
      console.log(
        ix
          .logs()
          .split('\n')
          .filter((l) => l.includes('traffic') || l.includes('devnet'))
          .join('\n'),
      );
    // The generator counts them too.
    await until('swap count grows', async () => (await traffic(ix)).swaps > after.swaps + 3, 30_000);
    // The indexer follows the new branch past those swaps.
    await ix.waitForHead(from + 2, 30_000);
  }, 150_000);

  test('(b) the node frozen for 8 s: retrying with the error, then running again', async () => {
    const pid = markerPid(dataDir);
    expect(alive(pid)).toBe(true);
    const before = await traffic(ix);
    process.kill(pid, 'SIGSTOP');
    let retrying: Traffic;
    try {
      retrying = await until(
        'state retrying',
        async () => {
          const t = await traffic(ix);
          return t.state === 'retrying' ? t : null;
        },
        20_000,
      );
      await new Promise((r) => setTimeout(r, 3_000));
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect(retrying.lastError?.message).toMatch(/timeout|aborted|fetch failed/i);
    expect(retrying.restarts).toBeGreaterThan(before.restarts);
    const back = await until(
      'running again and sending',
      async () => {
        const t = await traffic(ix);
        return t.state === 'running' && t.sent >= retrying.sent + 20 ? t : null;
      },
      60_000,
    );
    expect(back.lastError).not.toBeNull();
    expect(ix.logs()).toMatch(/does not answer|node still unavailable/);
  }, 120_000);

  test('(e) 90 s of traffic: no send refused for insufficient funds; refusals by cause in /health', async () => {
    const from = await until(
      'traffic running',
      async () => {
        const t = await traffic(ix);
        return t.state === 'running' ? t : null;
      },
      60_000,
    );
    let last = from;
    // Every /health answer is validated against its schema (the new refusedBy object included).
    for (const t0 = Date.now(); Date.now() - t0 < 90_000; ) {
      await new Promise((r) => setTimeout(r, 5_000));
      last = await traffic(ix);
      expect(last.refused).toBe(Object.values(last.refusedBy).reduce((a, b) => a + b, 0));
    }
    expect(last.state).toBe('running');
    expect(last.sent - from.sent, 'traffic kept going').toBeGreaterThan(500);
    expect(last.refusedBy.insufficientFunds - from.refusedBy.insufficientFunds, 'refused for funds').toBe(0);
  }, 150_000);

  test('(c) SIGTERM of the indexer stops the anvil it started', async () => {
    const pid = markerPid(dataDir);
    await ix.stop();
    await until('anvil gone', async () => !alive(pid), 10_000);
    expect(await probeChainId(rpcUrl)).toBeNull();
    expect(ix.logs()).toMatch(/generator stopped/);
  }, 30_000);
});

describe('a reorg into the deployment (devnet module)', () => {
  test("(a') the dropped deployment is sent again at the same addresses and swaps continue", async () => {
    const stateDir = join(newDataDir(), 'devnet');
    const port = await freePort();
    const logs: string[] = [];
    const dev = await startDevnet({
      port,
      blockTimeMs: 500,
      seed: 3,
      txPerSecond: 10,
      stateDir,
      log: (m) => logs.push(m),
    });
    try {
      const url = dev.rpcUrl;
      const d = dev.deployment;
      const head = Number(await rpc<Hex>(url, 'eth_blockNumber'));
      // Drops the last three deployment blocks and everything after (the launches come last).
      await rpc(url, 'anvil_reorg', [head - d.deployedAtBlock + 3, []]);
      const launch = d.launchpad.seededLaunches[0];
      expect(await rpc<Hex>(url, 'eth_getCode', [launch, 'latest'])).toBe('0x');
      await until('set-up redone', async () => dev.status().traffic.setupRedone >= 1, 90_000).catch((e) => {
        throw new Error(`${e.message}\n${logs.join('\n')}\n${JSON.stringify(dev.status())}`);
      });
      expect(logs.join('\n')).toMatch(/deployment tx\(s\) sent again/);
      const addrs = [
        ...Object.values(d.contracts),
        ...d.tokens.map((t) => t.address),
        ...d.launchpad.seededLaunches,
      ];
      const codes = await Promise.all(addrs.map((a) => rpc<Hex>(url, 'eth_getCode', [a, 'latest'])));
      expect(codes.filter((c) => c === '0x')).toEqual([]);
      const from = Number(await rpc<Hex>(url, 'eth_blockNumber')) + 1;
      await until(
        'swaps after the replay',
        async () =>
          (
            await rpc<unknown[]>(url, 'eth_getLogs', [
              { fromBlock: toHex(from), toBlock: 'latest', topics: [SWAP_TOPICS] },
            ])
          ).length >= 5,
        40_000,
      );
      expect(dev.status().traffic.state).toBe('running');
    } finally {
      await dev.killNode();
    }
  }, 150_000);
});

describe('DEVNET_KEEP=1 and reuse', () => {
  test('(c) with DEVNET_KEEP=1 the node stays; the next start reuses it; a plain SIGTERM then stops it', async () => {
    const dataDir = newDataDir();
    const port = await freePort();
    const rpcUrl = `http://127.0.0.1:${port}`;
    const first = await startEmbedded(dataDir, port, { DEVNET_KEEP: '1', DEVNET_TX_PER_SECOND: '3' });
    const pid = markerPid(dataDir);
    await first.stop();
    await new Promise((r) => setTimeout(r, 1_000));
    expect(alive(pid)).toBe(true);
    expect(await probeChainId(rpcUrl)).toBe(31337);

    const second = await startEmbedded(dataDir, port, { DEVNET_TX_PER_SECOND: '3' });
    try {
      expect(second.logs()).toMatch(/reusing the node this data directory started/);
      const h = await second.get('/health');
      expect(h.body.devnet.node).toEqual({ pid, reused: true });
    } finally {
      await second.stop();
    }
    await until('kept anvil gone', async () => !alive(pid), 10_000);
  }, 120_000);

  test('(c) a restart after a reorg dropped the deployment sends it again at the same addresses, never a second copy', async () => {
    const dataDir = newDataDir();
    const port = await freePort();
    const rpcUrl = `http://127.0.0.1:${port}`;
    const depFile = join(dataDir, 'devnet', 'deployment.json');
    // Traffic off: nothing but the restart may send the deployment again.
    const first = await startEmbedded(dataDir, port, { DEVNET_KEEP: '1', DEVNET_TX_PER_SECOND: '0' });
    const before = JSON.parse(readFileSync(depFile, 'utf8'));
    await first.stop();
    try {
      // A reorg back to block 1 drops (nearly) every deployment transaction.
      const head = Number(await rpc<Hex>(rpcUrl, 'eth_blockNumber'));
      await rpc(rpcUrl, 'anvil_reorg', [head - 1, []]);
      const addresses: string[] = [
        ...Object.values(before.contracts as Record<string, string>),
        ...before.tokens.map((t: { address: string }) => t.address),
      ];
      const codeless = async () =>
        (await Promise.all(addresses.map((a) => rpc<Hex>(rpcUrl, 'eth_getCode', [a, 'latest'])))).filter(
          (c) => c === '0x',
        ).length;
      expect(await codeless()).toBeGreaterThan(addresses.length / 2);

      const second = await startEmbedded(dataDir, port, { DEVNET_KEEP: '1', DEVNET_TX_PER_SECOND: '0' });
      try {
        expect(second.logs()).toMatch(
          /have no code \(a reorg dropped part of the deployment\): sending its transactions again/,
        );
        expect(second.logs()).toMatch(/reusing deployment from/);
        expect(second.logs()).not.toMatch(/devnet: deployed \d+ contracts/);
        // The same deployment, whole again.
        expect(JSON.parse(readFileSync(depFile, 'utf8')).contracts).toEqual(before.contracts);
        expect(await codeless()).toBe(0);
      } finally {
        await second.stop();
      }
    } finally {
      await killAnvil(join(dataDir, 'devnet'));
    }
  }, 180_000);
});

describe('Ctrl-C during start-up', () => {
  test('(c) SIGINT while the devnet deploys stops the anvil already started', async () => {
    const dataDir = newDataDir();
    const port = await freePort();
    const main = new URL('../../dist/app/main.js', import.meta.url).pathname;
    const child = spawn(process.execPath, [main], {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        DEVNET_PORT: String(port),
        DEVNET_BLOCK_TIME_MS: '500',
        PORT: '0',
        METRICS_PORT: '0',
        SCANNER: 'off',
        TRACES: 'off',
        DEV_API_KEY: 'k',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    procs.push(child);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    await until('anvil started', async () => /devnet: started the devnet node/.test(out), 30_000);
    const pid = markerPid(dataDir);
    expect(alive(pid)).toBe(true);
    child.kill('SIGINT');
    await exited;
    await until('anvil gone', async () => !alive(pid), 10_000);
    expect(out).toMatch(/shutting down/);
    expect(out).not.toMatch(/serving http/);
  }, 60_000);
});

describe('a foreign node on DEVNET_PORT', () => {
  test('(d) start-up refuses with what it found and what to do; the foreign node is left alone', async () => {
    const port = await freePort();
    const cache = mkdtempSync(join(tmpdir(), 'foreign-anvil-'));
    dirs.push(cache);
    const foreign = spawn(anvilBinary(), ['--port', String(port), '--silent', '--cache-path', cache], {
      stdio: 'ignore',
    });
    procs.push(foreign);
    const url = `http://127.0.0.1:${port}`;
    await until('foreign anvil', () => probeChainId(url), 20_000);
    const dataDir = newDataDir();
    const err = await startEmbedded(dataDir, port).then(
      async (ix) => {
        await ix.stop();
        return null;
      },
      (e: Error) => e,
    );
    expect(err).not.toBeNull();
    const msg = err!.message;
    expect(msg).toMatch(/indexer exited with 1/);
    expect(msg).toMatch(new RegExp(`127\\.0\\.0\\.1:${port} is served by a node this devnet did not start`));
    expect(msg).toMatch(/chain id 31337, genesis 0x[0-9a-f]{64}/);
    expect(msg).toMatch(/no node was started from this data directory/);
    expect(msg).toMatch(/set DEVNET_PORT to a free port/);
    expect(msg).not.toMatch(/Insufficient funds/);
    // Refused, not touched: the foreign node still answers and has no deployment.
    expect(await probeChainId(url)).toBe(31337);
    expect(Number(await rpc<Hex>(url, 'eth_blockNumber'))).toBe(0);
    foreign.kill('SIGKILL');
  }, 60_000);
});
