/**
 * The operator CLI and the scanner's processes: the CLI on the store directly (no service), the
 * same commands through a running standalone service's admin socket (changes take effect at
 * once), the refusal when another process holds the store without a socket, a stale socket after
 * kill -9, SIGTERM shutdown, and the scanner started in-process beside the indexer (its own
 * listener and store, the index's head through the IndexPort).
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScannerService } from '@chain-indexer/scanner';
import { loadScannerConfig } from '@chain-indexer/scanner/config';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { type Anvil, startAnvil } from '../harness/anvil.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { httpRequest, spawnScanner } from '../harness/scanner.js';

const CLI = new URL('../../packages/scanner/dist/cli.js', import.meta.url).pathname;
const MAIN = new URL('../../packages/scanner/dist/main.js', import.meta.url).pathname;
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'scanner-cli-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Runs the CLI; resolves with its exit code, stdout (parsed when JSON) and stderr. */
function cli(dataDir: string, ...args: string[]) {
  return new Promise<{ code: number; out: any; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...process.env, SCANNER_DATA_DIR: dataDir, SMTP_URL: '' } },
      (err, stdout, stderr) => {
        let out: unknown;
        try {
          out = JSON.parse(stdout);
        } catch {
          out = undefined;
        }
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out, stdout, stderr });
      },
    );
  });
}

/** Starts `node packages/scanner/dist/main.js` on `dataDir`; resolves with its port once it listens. */
const startMain = (dataDir: string) => spawnScanner(MAIN, { SCANNER_DATA_DIR: dataDir, SMTP_URL: '' });
const exited = (c: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    c.exitCode !== null ? resolve(c.exitCode) : c.once('exit', (code) => resolve(code)),
  );

describe('operator CLI', () => {
  const dir = tempDir();
  let account = '';

  it('works on the store directly when no service runs; prints each secret once', async () => {
    const created = await cli(dir, 'create-account', '--email', 'ops@example.com', '--name', 'Ops desk');
    expect(created.code, created.stderr).toBe(0);
    account = created.out.account.id;
    expect(account).toMatch(/^acc_[0-9A-Za-z]{16}$/);
    const plan = await cli(dir, 'set-plan', '--account', account, '--plan', 'scale', '--days', '30');
    expect(plan.out.plan).toMatchObject({ tier: 'scale', state: 'active', limitPerMinute: 120 });
    expect((await cli(dir, 'grant-credits', '--account', account, '--scans', '50')).out.remainingScans).toBe(
      50,
    );
    const key = await cli(
      dir,
      'create-key',
      '--account',
      account,
      '--name',
      'ops',
      '--allow',
      '203.0.113.9,10.1.2.3/8',
    );
    expect(key.code, key.stderr).toBe(0);
    expect(key.out.secret).toMatch(/^sk_live_[0-9A-Za-z]{43}$/);
    expect(key.out.key.allowlist).toEqual(['203.0.113.9/32', '10.0.0.0/8']);
    const session = await cli(dir, 'create-session', '--account', account, '--hours', '2');
    expect(session.out.session).toMatch(/^ds_[0-9A-Za-z]{43}$/);
    const list = await cli(dir, 'list');
    expect(list.out.accounts).toHaveLength(1);
    expect(list.out.accounts[0]).toMatchObject({
      id: account,
      remainingScans: 50,
      keys: [{ name: 'ops', state: 'active' }],
    });
    expect(list.stdout).not.toContain(key.out.secret);
    expect(list.stdout).toContain(key.out.secret.slice(0, 12));
    // Refusals: exit 1 with the reason on stderr.
    const bad = await cli(dir, 'set-plan', '--account', account, '--plan', 'gold');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('INVALID_INPUT');
    expect((await cli(dir, 'create-key', '--account', 'acc_nope', '--name', 'x')).stderr).toContain(
      'NOT_FOUND',
    );
    expect((await cli(dir, 'frobnicate')).code).toBe(1);
    // The e-mail of the CLI's key went to the outbox (SMTP_URL unset), from IP "cli".
    const eml = readdirSync(join(dir, 'outbox'));
    expect(eml).toHaveLength(1);
    const mail = readFileSync(join(dir, 'outbox', eml[0]), 'utf8');
    expect(mail).toContain('From IP: cli');
    expect(mail).not.toContain(key.out.secret);
  });

  it('goes through the admin socket while the service runs: changes take effect at once', async () => {
    const svc = await startMain(dir);
    try {
      const url = `http://127.0.0.1:${svc.port}`;
      const k = await cli(dir, 'create-key', '--account', account, '--name', 'live');
      expect(k.code, k.stderr).toBe(0);
      expect(svc.log()).toContain('"command":"create-key"');
      const w = await httpRequest(url, 'GET', '/v1/whoami', { key: k.out.secret });
      expect(w.status, w.text).toBe(200);
      expect(w.body.key.name).toBe('live');
      expect((await cli(dir, 'set-api-access', '--account', account, '--off')).out.apiAccess).toBe(false);
      expect((await httpRequest(url, 'GET', '/v1/whoami', { key: k.out.secret })).body.code).toBe(
        'FORBIDDEN',
      );
      await cli(dir, 'set-api-access', '--account', account, '--on');
      expect((await httpRequest(url, 'GET', '/v1/whoami', { key: k.out.secret })).status).toBe(200);
      expect((await cli(dir, 'list', '--account', account)).out.accounts[0].keys).toHaveLength(2);
      expect(svc.log()).not.toContain(k.out.secret);
      // SIGTERM: a clean exit; the store is free again for the direct mode.
      svc.child.kill('SIGTERM');
      expect(await exited(svc.child)).toBe(0);
      expect((await cli(dir, 'list')).code).toBe(0);
    } finally {
      svc.child.kill('SIGKILL');
    }
  });

  it('after kill -9 the stale socket is ignored and the CLI opens the store itself', async () => {
    const svc = await startMain(dir);
    svc.child.kill('SIGKILL');
    await exited(svc.child);
    expect(existsSync(join(dir, 'admin.sock'))).toBe(true);
    const r = await cli(dir, 'grant-credits', '--account', account, '--scans', '5');
    expect(r.code, r.stderr).toBe(0);
    expect(r.out.remainingScans).toBe(55);
  });

  it('refuses with a clear message when another process holds the store without an admin socket', async () => {
    const other = tempDir();
    const service = await createScannerService({
      config: loadScannerConfig({ SCANNER_DATA_DIR: other, SCANNER_PORT: '0' }),
      log: pino({ level: 'silent' }),
      adminSocket: false,
    });
    try {
      const r = await cli(other, 'list');
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('is open in another process');
      expect(r.stderr).toContain('admin socket');
    } finally {
      await service.close();
    }
  });
});

describe('in-process beside the indexer', () => {
  let anvil: Anvil;
  let idx: IndexerProcess;
  afterAll(async () => {
    await idx?.stop();
    await anvil?.stop();
  });

  it('has its own listener and store, reads the index head through the IndexPort, and takes CLI commands', async () => {
    anvil = await startAnvil({ blockTime: 1 });
    await anvil.sendTransfers(3);
    idx = await startIndexer({
      rpcUrl: anvil.rpcUrl,
      env: { SCANNER: 'on', SCANNER_PORT: '0', SMTP_URL: '' },
    });
    // Generous: the machine running the suites may be shared and busy.
    await idx.waitForHead(2, 240_000);
    const port = Number(/scanner API listening on http:\/\/127\.0\.0\.1:(\d+)\/v1/.exec(idx.logs())?.[1]);
    expect(port).toBeGreaterThan(0);
    const url = `http://127.0.0.1:${port}`;
    const health = await httpRequest(url, 'GET', '/v1/health');
    expect(health.status).toBe(200);
    const [chain] = health.body.chains;
    expect(chain).toMatchObject({ name: 'testnet', chainId: 31337, role: 'main' });
    expect(chain.head.block).toBeGreaterThanOrEqual(2);
    const block = await idx.get(`/index/v1/testnet/blocks/${chain.head.block}`);
    expect(block.body.data.hash).toBe(chain.head.hash);
    // Its store is DATA_DIR/scanner, beside (not inside) the index's DATA_DIR/rocks.
    const scannerDir = join(idx.dataDir, 'scanner');
    expect(existsSync(join(scannerDir, 'rocks'))).toBe(true);
    const acc = await cli(scannerDir, 'create-account', '--email', 'embedded@example.com');
    expect(acc.code, acc.stderr).toBe(0);
    await cli(scannerDir, 'set-plan', '--account', acc.out.account.id, '--plan', 'enterprise');
    const key = await cli(scannerDir, 'create-key', '--account', acc.out.account.id, '--name', 'embedded');
    const w = await httpRequest(url, 'GET', '/v1/whoami', { key: key.out.secret });
    expect(w.status, w.text).toBe(200);
    expect(w.body.limitPerMinute).toBe(600);
    // A scanner key never authorizes the indexer.
    expect((await idx.get('/index/v1/testnet/blocks/1', { key: key.out.secret })).status).toBe(401);
  }, 400_000);
});
