/**
 * Port probing before the devnet starts a node: a busy node (slow to answer) is waited for and
 * reused, never taken for an absent one. The soak (seed 17) caught the old probe (one eth_chainId
 * with a 1 s timeout) calling a node busy tracing "absent": the restarted indexer spawned a second
 * node on the held port, took the old node's answer for the new one's, and deployed every contract
 * again on the running chain.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anvilCacheDir, nodeOnPort, patiently, portHeld, rpc, spawnNode } from './anvil.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

/** A JSON-RPC server that answers eth_chainId (31337) after `delayMs`; never when delayMs is null. */
async function slowNode(delayMs: number | null): Promise<number> {
  const server: Server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      if (delayMs === null) return;
      const { id } = JSON.parse(body);
      setTimeout(() => res.end(JSON.stringify({ jsonrpc: '2.0', id, result: '0x7a69' })), delayMs);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(
    () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return (server.address() as AddressInfo).port;
}

/** A free port (bound and released). */
async function freePort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('devnet port probe', () => {
  it('a free port has no node', async () => {
    const port = await freePort();
    expect(await portHeld(port)).toBe(false);
    expect(await nodeOnPort(port, 2_000)).toBeNull();
  });

  it('a node slower than one probe is waited for, not taken for absent', async () => {
    const port = await slowNode(1_600);
    expect(await portHeld(port)).toBe(true);
    expect(await nodeOnPort(port, 10_000)).toBe(31337);
  });

  it('a held port that never answers is an error, not an absent node', async () => {
    const port = await slowNode(null);
    await expect(nodeOnPort(port, 1_500)).rejects.toThrow(/accepts connections but does not answer/);
  });

  it('spawnNode refuses a held port and leaves that node’s cache alone', async () => {
    const port = await slowNode(10);
    const stateDir = mkdtempSync(join(tmpdir(), 'devnet-held-'));
    mkdirSync(anvilCacheDir(stateDir), { recursive: true });
    const kept = join(anvilCacheDir(stateDir), 'state');
    writeFileSync(kept, 'x');
    await expect(spawnNode({ port, stateDir, blockTimeMs: 1_000 })).rejects.toThrow(/already in use/);
    expect(existsSync(kept)).toBe(true);
    expect(existsSync(join(stateDir, 'anvil.json'))).toBe(false);
  });

  it('a reused node slower than one call’s timeout is asked again, not given up on', async () => {
    const port = await slowNode(700);
    const url = `http://127.0.0.1:${port}`;
    await expect(rpc(url, 'eth_chainId', [], 300)).rejects.toThrow(/timeout|aborted/i);
    let tries = 0;
    const chainId = await patiently(
      (t) => {
        tries++;
        return rpc<string>(url, 'eth_chainId', [], t);
      },
      10_000,
      300,
    );
    expect(chainId).toBe('0x7a69');
    expect(tries).toBeGreaterThan(1);
  });

  it('patience has a bound, and an error that is not a timeout is not retried', async () => {
    const port = await slowNode(null);
    const url = `http://127.0.0.1:${port}`;
    const t0 = Date.now();
    await expect(patiently((t) => rpc(url, 'eth_chainId', [], t), 900, 200)).rejects.toThrow();
    expect(Date.now() - t0).toBeLessThan(5_000);
    let tries = 0;
    await expect(
      patiently(async () => {
        tries++;
        throw new Error('eth_chainId: method not found');
      }, 5_000),
    ).rejects.toThrow(/method not found/);
    expect(tries).toBe(1);
  });
});
