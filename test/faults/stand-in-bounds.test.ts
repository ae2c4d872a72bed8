/**
 * Issue 38, findings 1 and 4, against the real service on the node:http stand-in (HTTP_CORE=
 * node_http: what Node 22/24 get where no native uWS binary loads), with the scanner in-process and
 * a real anvil:
 *
 *  - a 400 MiB chunked body, written without waiting for an answer, to every class of route — a
 *    404, a keyless 401 of a keyed route, a GET route, a POST route that reads its body (batch,
 *    refused past 256 KiB), POST /console/session, and a scanner 401 — leaves the service's RSS
 *    under 64 MiB above where it started, with every client socket still open (a body held would
 *    still be held); each answer ends with `Connection: close` and the connection closed;
 *  - slowly sent headers and a keyed POST body trickled a byte every 4.5 s are cut within 15 s
 *    (node:http's defaults took 85 s and over 320 s).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Anvil, startAnvil } from '../harness/anvil.js';
import { type FloodResult, flood, MiB, rssOf, trickle } from '../harness/flood.js';
import { type IndexerProcess, startIndexer, TEST_KEY } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';

/** Allowed RSS growth of the service over the whole flood, bytes (the bound). */
const RSS_BOUND_BYTES = 64 * MiB;

let anvil: Anvil;
let idx: IndexerProcess;
let scannerPort = 0;

beforeAll(async () => {
  anvil = await startAnvil();
  await anvil.rpc('anvil_mine', ['0x3']);
  idx = await startIndexer({
    rpcUrl: anvil.rpcUrl,
    env: { HTTP_CORE: 'node_http', SCANNER: 'on', SCANNER_PORT: '0', SMTP_URL: '', TRACES: 'off' },
  });
  await idx.waitForHead(3);
  scannerPort = Number(/scanner API listening on http:\/\/127\.0\.0\.1:(\d+)\/v1/.exec(idx.logs())?.[1]);
  expect(scannerPort).toBeGreaterThan(0);
}, 180_000);

afterAll(stopAll(() => [idx, anvil]));

describe('the service on the node:http stand-in', () => {
  it('serves through the stand-in (HTTP_CORE=node_http)', async () => {
    const h = await idx.get('/health');
    expect(h.status).toBe(200);
    expect(h.body.http.core).toBe('node_http');
  });

  it('a 400 MiB keyless body to every class of route grows its RSS by under 64 MiB', async () => {
    const routes: Array<{
      port: number;
      method: string;
      path: string;
      headers?: Record<string, string>;
      status: number;
    }> = [
      { port: idx.port, method: 'POST', path: '/nope', status: 404 },
      { port: idx.port, method: 'POST', path: '/index/v1/testnet/batch', status: 401 },
      { port: idx.port, method: 'GET', path: '/index/v1/testnet/blocks/1', status: 401 },
      { port: idx.port, method: 'GET', path: '/health/live', status: 200 },
      {
        port: idx.port,
        method: 'POST',
        path: '/index/v1/testnet/batch',
        headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' },
        status: 413,
      },
      { port: idx.port, method: 'POST', path: '/console/session', status: 401 },
      { port: scannerPort, method: 'POST', path: '/v1/account/keys', status: 401 },
    ];
    // Each route answers once first: what a first call initialises is not the flood's growth.
    for (const r of routes)
      await fetch(`http://127.0.0.1:${r.port}${r.path}`, {
        method: r.method,
        headers: r.headers,
        body: r.method === 'POST' ? '{}' : undefined,
      }).then((a) => a.text());
    const rss = () => rssOf(idx.pid);
    const rss0 = rss();
    const results: FloodResult[] = [];
    for (const r of routes)
      results.push(
        await flood({ ...r, total: 400 * MiB, rss, stopGrowth: 4 * RSS_BOUND_BYTES, settleMs: 1_000 }),
      );
    // Every client socket the server did not close is still open here: a held body is still held.
    const growth = Math.max(rss() - rss0, ...results.map((x) => x.peakGrowth));
    for (const x of results) x.socket.destroy();
    expect(growth, `RSS grew by ${(growth / MiB).toFixed(1)} MiB`).toBeLessThan(RSS_BOUND_BYTES);
    routes.forEach((r, i) => {
      const x = results[i];
      const what = `${r.method} ${r.path} (port ${r.port})`;
      expect(x.statusLine, what).toMatch(new RegExp(`^HTTP/1\\.1 ${r.status} `));
      expect(x.head, what).toContain('connection: close');
      expect(x.closed, what).toBe(true);
      expect(x.written, what).toBeLessThan(400 * MiB);
    });
    // Still serving.
    expect((await idx.get('/health/live')).status).toBe(200);
  }, 300_000);

  it('slow headers and a keyed body trickled a byte every 4.5 s are cut (408) within 15 s', async () => {
    const [headers, body] = await Promise.all([
      trickle({
        port: idx.port,
        first: 'GET /health/live HTTP/1.1\r\n',
        drip: 'x-slow: 1\r\n',
        everyMs: 1_000,
        giveUpMs: 40_000,
      }),
      trickle({
        port: idx.port,
        first: `POST /index/v1/testnet/batch HTTP/1.1\r\nhost: a\r\nx-api-key: ${TEST_KEY}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n[`,
        drip: ' ',
        everyMs: 4_500,
        giveUpMs: 40_000,
      }),
    ]);
    expect(headers.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(headers.closedAfterMs).toBeLessThanOrEqual(15_000);
    expect(body.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(body.closedAfterMs).toBeLessThanOrEqual(15_000);
  }, 60_000);
});
