/**
 * Issue 38, finding 6, against the real service: a node URL carrying its secrets in every place a
 * provider puts them (a password with `/`, a quote and a space in the userinfo, a key of letters
 * only, a short key, a `;apikey=` path parameter, query values), a keys file's plain key and the
 * scanner's SMTP password are configured; the node (a real anvil behind the fault proxy) then
 * fails every request. The follower's lastError in /health (recorded in the engine thread), the
 * 503 node_unavailable body of a live RPC route, and every line the process and its threads
 * wrote (the printed configuration shows the URL masked) carry none of those secrets.
 * (The breadth of shapes, and each of them quoted whole in those places, is app/secrets.test.ts.)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../faults/lib.js';
import { type Anvil, mineTransferBlocks, startAnvil } from '../harness/anvil.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';
import { type RpcProxy, startRpcProxy } from '../harness/rpc-proxy.js';

const PASSWORD = 'Pw/"q 7x';
const LETTERS_KEY = 'QwErTyUiOpAsDfGhJkLz';
const SHORT_KEY = 'k8Xq2Lm9';
const MATRIX_KEY = 'Mx4Rt8Vb';
const QUERY_KEY = 'zYxWvUtS';
const QUERY_TOKEN = 'tK7uW2';
const PLAIN_KEY = 'plain-Key-9f8e7d6c';
const SMTP_PASSWORD = 'smtp/Pa55 word';
const SECRETS = [
  PASSWORD,
  LETTERS_KEY,
  SHORT_KEY,
  MATRIX_KEY,
  QUERY_KEY,
  QUERY_TOKEN,
  PLAIN_KEY,
  SMTP_PASSWORD,
];
const forms = (s: string) => [...new Set([s, encodeURIComponent(s)])];

let anvil: Anvil;
let proxy: RpcProxy;
let idx: IndexerProcess;

beforeAll(async () => {
  anvil = await startAnvil();
  await mineTransferBlocks(anvil, 5, () => 1);
  proxy = await startRpcProxy({ upstream: anvil.rpcUrl });
  const dir = tempDir('redaction-');
  const keysFile = join(dir, 'keys.json');
  writeFileSync(keysFile, JSON.stringify([{ name: 'ops', key: PLAIN_KEY, scopes: ['rpc', 'monitoring'] }]));
  const rpcUrl =
    `http://ops:${encodeURIComponent(PASSWORD)}@127.0.0.1:${proxy.port}/${LETTERS_KEY}/${SHORT_KEY};apikey=${MATRIX_KEY}` +
    `?apikey=${QUERY_KEY}&network=mainnet&token=${QUERY_TOKEN}`;
  idx = await startIndexer({
    rpcUrl,
    env: {
      KEYS_FILE: keysFile,
      TRACES: 'off',
      SCANNER: 'on',
      SCANNER_PORT: '0',
      SMTP_URL: `smtp://mailer:${encodeURIComponent(SMTP_PASSWORD)}@127.0.0.1:9/`,
    },
  });
  await idx.waitForHead(5);
}, 180_000);

afterAll(stopAll(() => [idx, proxy, anvil]));

describe('a failing node whose URL carries its secrets', () => {
  it('/health, the error body and the log show what failed, never a secret', async () => {
    proxy.schedule({ seed: 38, rate: 1, kinds: ['http5xx'] });
    await anvil.mine();
    // The follower retries and records the node's error (in the engine thread).
    let health: { status: number; text: string; body: any } | null = null;
    for (let i = 0; i < 200; i++) {
      health = await idx.get('/health', { key: PLAIN_KEY });
      if (health.body?.ingest?.lastError) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(health!.body.ingest.lastError, health!.text).toMatch(/HTTP request failed/);
    const live = await idx.get('/rpc/head', { key: PLAIN_KEY });
    expect(live.status).toBe(503);
    expect(live.body.error).toBe('node_unavailable');
    proxy.schedule(null);
    await idx.stop();
    const seen = [health!.text, live.text, idx.logs()];
    expect(idx.logs()).toContain(
      `http://***@127.0.0.1:${proxy.port}/***/***;apikey=***?apikey=***&network=***&token=***`,
    );
    for (const out of seen)
      for (const secret of SECRETS)
        for (const form of forms(secret))
          expect(out.includes(form), `${form} in ${out.slice(0, 300)}`).toBe(false);
  }, 120_000);
});
