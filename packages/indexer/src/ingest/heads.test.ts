/**
 * newHeads watcher against real nodes: a live anvil (WebSocket on the RPC port), an HTTP-only
 * server (no WebSocket), a server that accepts and never answers, and an anvil that goes away and
 * comes back on the same port.
 */
import { createServer } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { freePort, startAnvil } from '../../../../test/harness/anvil.js';
import { jsonRpc } from '../../../../test/harness/rpc.js';
import { watchHeads } from './heads.js';

const log = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
  vi.restoreAllMocks();
});

/** anvil on `port` (no auto-mining), stopped on cleanup. */
async function anvilOn(port: number): Promise<{ stop(): Promise<void> }> {
  const anvil = await startAnvil({ port });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await anvil.stop();
  };
  cleanup.push(stop);
  return { stop };
}

const until = async (cond: () => boolean, ms: number) => {
  for (const t0 = Date.now(); !cond(); await sleep(50))
    if (Date.now() - t0 > ms) throw new Error(`condition not met within ${ms} ms`);
};

describe('watchHeads', () => {
  it('subscribes to a node with WebSocket and wakes the follower on each new block', async () => {
    const port = await freePort();
    await anvilOn(port);
    const heads = watchHeads(`ws://127.0.0.1:${port}`, log);
    cleanup.push(() => heads.stop());
    await until(() => heads.subscribed(), 10_000);
    const t0 = performance.now();
    const woke = heads.wait(30_000);
    await jsonRpc(`http://127.0.0.1:${port}`, 'evm_mine');
    await woke;
    expect(performance.now() - t0).toBeLessThan(5_000);
    // The notification's header is kept for the follower (no eth_blockNumber for it), taken once.
    const head = Number.parseInt(await jsonRpc<string>(`http://127.0.0.1:${port}`, 'eth_blockNumber'), 16);
    const block = await jsonRpc<{ hash: string }>(`http://127.0.0.1:${port}`, 'eth_getBlockByNumber', [
      `0x${head.toString(16)}`,
      false,
    ]);
    expect(heads.take()).toMatchObject({ number: head, hash: block.hash });
    expect(heads.take()).toBeNull();
  });

  it('an HTTP-only node: polling only, quiet (no error printed per retry), wait() is a sleep', async () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const server = createServer((_req, res) => res.end('{}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    cleanup.push(() => new Promise((r) => server.close(r)));
    const { port } = server.address() as { port: number };
    const heads = watchHeads(`ws://127.0.0.1:${port}`, log);
    cleanup.push(() => heads.stop());
    // Covers the first two background retries (2 s, then 4 s).
    await sleep(6_500);
    expect(heads.subscribed()).toBe(false);
    expect(printed).not.toHaveBeenCalled();
    const t0 = performance.now();
    await heads.wait(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
  });

  it('a node that accepts the connection and never answers: the attempt is abandoned and retried', async () => {
    const held: Socket[] = [];
    const server = createTcpServer((sock) => held.push(sock));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    cleanup.push(
      () =>
        new Promise((r) => {
          for (const s of held) s.destroy();
          server.close(r);
        }),
    );
    const { port } = server.address() as { port: number };
    const heads = watchHeads(`ws://127.0.0.1:${port}`, log);
    cleanup.push(() => heads.stop());
    // First attempt hangs; the 10 s guard gives up on it and the retry (2 s later) connects again.
    await until(() => held.length >= 2, 16_000);
    expect(heads.subscribed()).toBe(false);
  }, 30_000);

  it('a node that goes away and comes back on the same port: resubscribed', async () => {
    const port = await freePort();
    const first = await anvilOn(port);
    const heads = watchHeads(`ws://127.0.0.1:${port}`, log);
    cleanup.push(() => heads.stop());
    await until(() => heads.subscribed(), 10_000);
    await first.stop();
    await until(() => !heads.subscribed(), 10_000);
    await anvilOn(port);
    await until(() => heads.subscribed(), 15_000);
    const woke = heads.wait(30_000);
    const t0 = performance.now();
    await jsonRpc(`http://127.0.0.1:${port}`, 'evm_mine');
    await woke;
    expect(performance.now() - t0).toBeLessThan(5_000);
  });
});
