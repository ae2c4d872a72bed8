import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScannerConfig } from '@chain-indexer/scanner/config';
import { checkStore, openScannerCore } from '@chain-indexer/scanner/testing';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnScanner } from '../harness/scanner.js';

const MAIN = new URL('../../dist/test/harness/scanner-charging-main.js', import.meta.url).pathname;
const CONNECTIONS = 8;
const ROUNDS = 5;
const GRANT = 1_000_000;
const dir = mkdtempSync(join(tmpdir(), 'scanner-crash-'));
const silent = pino({ level: 'silent' });
const config = loadScannerConfig({ SCANNER_DATA_DIR: dir });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const startService = () => spawnScanner(MAIN, { SCANNER_DATA_DIR: dir, SCANNER_CACHE_SECONDS: '60' });

/** One POST; resolves with status, request id and charge, or null when the connection died. */
function post(port: number, agent: Agent, key: string, body: unknown) {
  return new Promise<{ status: number; requestId: string; charged: number } | null>((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/test/charged',
        agent,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            requestId: String(res.headers['x-request-id']),
            charged: Number(res.headers['x-scans-charged'] ?? 0),
          }),
        );
        res.on('error', () => resolve(null));
      },
    );
    req.on('error', () => resolve(null));
    req.end(JSON.stringify(body));
  });
}

describe('kill -9 during charged answers', () => {
  it('credits and usage equal the answers actually delivered, over five crashes', async () => {
    // Set up the account with the store closed to the service (the CLI's direct mode does the same).
    let core = await openScannerCore(config, silent);
    const acc = core.accounts.createAccount({ email: 'crash@example.com' }).id;
    core.accounts.setPlan(acc, {
      tier: 'enterprise',
      status: 'active',
      periodEnd: Date.now() + 30 * 86_400_000,
      ratePerMinute: 100_000,
    });
    const key = core.accounts.createKey(acc, { name: 'crash' }, { ip: 'cli' }).secret;
    core.ledger.grant(acc, GRANT, 'crash test', Date.now());
    await core.close();

    const delivered = new Map<string, number>();
    let cachedDelivered = 0;
    let subject = 0;
    const figures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const svc = await startService();
      const agents = Array.from({ length: CONNECTIONS }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
      let alive = true;
      let sent = 0;
      const loops = agents.map(async (agent, i) => {
        while (alive) {
          const depth = (['quick', 'deep', 'max'] as const)[(subject + i) % 3];
          // Every 5th request repeats an earlier subject: a cached, free answer must not charge.
          const n = subject % 5 === 4 ? subject - 3 : subject;
          subject++;
          sent++;
          const r = await post(svc.port, agent, key, {
            subject: `0x${n.toString(16).padStart(40, '0')}`,
            depth,
          });
          if (!r) return;
          expect(r.status).toBe(200);
          if (r.charged > 0) delivered.set(r.requestId, r.charged);
          else cachedDelivered++;
        }
      });
      await new Promise((r) => setTimeout(r, 400 + Math.random() * 800));
      svc.child.kill('SIGKILL');
      alive = false;
      await Promise.all(loops);
      for (const a of agents) a.destroy();
      await new Promise<void>((resolve) =>
        svc.child.exitCode !== null ? resolve() : svc.child.once('exit', () => resolve()),
      );

      core = await openScannerCore(config, silent);
      try {
        expect(checkStore(core.store)).toEqual([]);
        const charges = new Map<string, number>();
        let sum = 0;
        for (const e of core.ledger.entries(acc, 10_000_000))
          if (e.reason === 'charge') {
            charges.set(e.requestId!, -e.delta);
            sum -= e.delta;
          }
        for (const [rid, amount] of delivered)
          expect(charges.get(rid), `delivered ${rid} has no charge`).toBe(amount);
        const undelivered = [...charges.keys()].filter((rid) => !delivered.has(rid));
        expect(undelivered.length).toBeLessThanOrEqual(CONNECTIONS * (round + 1));
        expect(core.ledger.balance(acc)).toBe(GRANT - sum);
        const usage = core.ledger
          .usage(acc, 0, 1_000_000)
          .filter((u) => u.endpoint === '/v1/test/charged' && u.statusClass === '2xx')
          .reduce((s, u) => s + u.requests, 0);
        // Usage counts charged and cached answers, each in the batch written before its answer:
        // every delivered answer is counted, plus at most one undelivered per connection.
        expect(usage).toBeGreaterThanOrEqual(charges.size + cachedDelivered);
        expect(usage).toBeLessThanOrEqual(delivered.size + cachedDelivered + CONNECTIONS * (round + 1));
        figures.push(
          `round ${round + 1}: ${sent} sent; so far ${charges.size} charges, ${cachedDelivered} cached answers, usage ${usage}, ${undelivered.length} charged but undelivered`,
        );
      } finally {
        await core.close();
      }
    }
    expect(delivered.size).toBeGreaterThan(100);
    process.stdout.write(`${figures.join('\n')}\n`);
  });
});
