/**
 * Shutdown has a deadline whatever the node does (issue U item 5): the real indexer follows a
 * real anvil (the devnet node: anvil behind the devnet's front, which mines a block a second and
 * orders mines with traces) with traces on and newHeads over WebSocket, through a TCP proxy, then
 *  (a) the proxy stalls (connections stay open, nothing is answered: a hung node) while the
 *      indexer's calls are in flight;
 *  (b) the proxy is gone (every connection cut, new ones refused: a stopped node);
 * and the indexer gets SIGTERM. Measured from outside, it exits within 5 s, by its graceful path
 * (node calls abandoned, pools destroyed, the heads socket closed, committed writes drained; not
 * by the hard deadline). A restart on the same data directory, with the node back, opens the store
 * at the same head (number and hash) with every storage invariant holding (its start-up line
 * "storage invariants hold"), and follows the node again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killAnvil, spawnNode } from '@chain-indexer/devnet/anvil';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEV_ACCOUNTS, freePort } from '../harness/anvil.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { jsonRpc } from '../harness/rpc.js';
import { type StallingProxy, startStallingProxy } from '../harness/tcp-proxy.js';

/** The bound of the issue, measured from outside: SIGTERM to exit, ms. */
const EXIT_BOUND_MS = 5_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The start-up line of the store: its head and the invariants it checked. */
function invariantsLine(logs: string): { head: { number: number; hash: string }; invariants: string[] } {
  const line = logs.split('\n').find((l) => l.includes('storage invariants hold'));
  if (!line) throw new Error(`no "storage invariants hold" line:\n${logs.slice(-3000)}`);
  return JSON.parse(line);
}

describe('shutdown with a hung or gone node (real anvil, real indexer)', () => {
  let stateDir = '';
  let nodeUrl = '';
  let nodePort = 0;
  let proxy: StallingProxy;
  let proxyPort = 0;
  let ix: IndexerProcess;
  let sending = true;
  let traffic: Promise<void> = Promise.resolve();

  beforeAll(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'shutdown-node-'));
    nodePort = await freePort();
    nodeUrl = `http://127.0.0.1:${nodePort}`;
    await spawnNode({ port: nodePort, stateDir, blockTimeMs: 1_000 });
    // Transactions in most blocks: the decode and traces lanes have work in flight.
    traffic = (async () => {
      for (let i = 0; sending; i++) {
        const [from, to] = [DEV_ACCOUNTS[i % 5], DEV_ACCOUNTS[(i + 1) % 5]];
        await jsonRpc(nodeUrl, 'eth_sendTransaction', [{ from, to, value: '0x1' }]).catch(() => undefined);
        await sleep(150);
      }
    })();
    proxy = await startStallingProxy(nodePort);
    proxyPort = proxy.port;
    ix = await startIndexer({
      rpcUrl: `http://127.0.0.1:${proxyPort}`,
      env: { TRACES: 'on', SCANNER: 'off' },
    });
    await ix.waitForHead(await nodeHead(), 60_000);
  }, 120_000);
  afterAll(async () => {
    sending = false;
    await traffic;
    await ix?.stop();
    await proxy?.close();
    await killAnvil(stateDir);
    rmSync(stateDir, { recursive: true, force: true });
  });

  const nodeHead = async () => Number(await jsonRpc<string>(nodeUrl, 'eth_blockNumber'));

  /** The indexed head once it has stood still for a second (nothing arrives from the node). */
  const stillHead = async () => {
    let last = '';
    for (let still = 0, t0 = Date.now(); still < 4; ) {
      expect(Date.now() - t0, 'the indexed head stands still').toBeLessThan(30_000);
      await sleep(250);
      const a = (await ix.get('/checkpoints')).body.anchor as { block: number; hash: string };
      const now = JSON.stringify(a);
      still = now === last ? still + 1 : 0;
      last = now;
    }
    return JSON.parse(last) as { block: number; hash: string };
  };

  /** SIGTERM, the exit bound, then a restart with the node back: same head, invariants hold. */
  const stopAndReopen = async (anchor: { block: number; hash: string }, bringBack: () => Promise<void>) => {
    const exit = await ix.sigterm();
    const logs = ix.logs();
    expect(exit.ms, `SIGTERM to exit (${JSON.stringify(exit)})\n${logs.slice(-2000)}`).toBeLessThan(
      EXIT_BOUND_MS,
    );
    expect(logs).toMatch(/shutting down/);
    expect(logs, 'the graceful path ended it, not the hard deadline').not.toMatch(/shutdown deadline passed/);
    expect(exit.code).toBe(0);
    await bringBack();
    await ix.restart();
    const line = invariantsLine(ix.logs());
    expect(line.head).toEqual({ number: anchor.block, hash: anchor.hash });
    expect(line.invariants.length).toBeGreaterThan(0);
    // And it follows the node again.
    await ix.waitForHead((await nodeHead()) + 1, 60_000);
    return exit.ms;
  };

  test('(a) the node stalls (accepts, never answers): SIGTERM exits within 5 s; the restart finds the same head', async () => {
    await ix.waitForHead(Math.max(8, await nodeHead()), 60_000);
    proxy.stall();
    await sleep(1_500); // head polls, the newHeads socket and traces now wait on the stalled node
    const anchor = await stillHead();
    expect(anchor.block).toBeGreaterThan(3);
    const ms = await stopAndReopen(anchor, async () => {
      proxy.resume();
    });
    console.log(`shutdown-deadline (a) stalled node: exit in ${ms} ms at head ${anchor.block}`);
  }, 120_000);

  test('(b) the node is gone (connection refused): SIGTERM exits within 5 s; the restart finds the same head', async () => {
    await proxy.close();
    await sleep(1_500); // the follower now retries a refused connection with backoff
    const anchor = await stillHead();
    const ms = await stopAndReopen(anchor, async () => {
      proxy = await startStallingProxy(nodePort, proxyPort);
    });
    console.log(`shutdown-deadline (b) gone node: exit in ${ms} ms at head ${anchor.block}`);
  }, 120_000);
});
