/**
 * A real nats-server with JetStream for the scale-out tests (Debian package `nats-server`). When
 * the binary is absent the suites fail loudly in CI (`CI` set) and say how to install it; outside
 * CI they are skipped with the same message, never passed silently.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './anvil.js';

export const NATS_MISSING =
  'nats-server is not installed: `apt-get install -y nats-server` (Debian), or run `bash .ci/run`, which installs it';

/** The nats-server binary, or null when it is not installed. */
export function natsServerBinary(): string | null {
  for (const p of [
    process.env.NATS_SERVER_BIN,
    '/usr/sbin/nats-server',
    '/usr/bin/nats-server',
    '/usr/local/bin/nats-server',
  ]) {
    if (!p) continue;
    try {
      execFileSync(p, ['--version'], { stdio: 'ignore' });
      return p;
    } catch {}
  }
  return null;
}

export interface NatsServer {
  url: string;
  port: number;
  /** JetStream store directory (kept across restart and kill9). */
  storeDir: string;
  /** kill -9 (the store directory stays). */
  kill9(): Promise<void>;
  /** Starts it again on the same port and store. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const waitPort = async (port: number, ms: number) => {
  const t0 = Date.now();
  for (;;) {
    const ok = await new Promise<boolean>((r) => {
      const s = createConnection({ port, host: '127.0.0.1' }, () => {
        s.end();
        r(true);
      });
      s.on('error', () => r(false));
    });
    if (ok) return;
    if (Date.now() - t0 > ms) throw new Error(`nats-server did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/**
 * Starts nats-server -js on a free loopback port with a temp store. @throws when it is absent.
 * @param o.config a configuration file's text (accounts, users, permissions); the command line's
 *   port, address and store directory take precedence over it.
 * @param o.env variables the configuration refers to (`$NAME`), e.g. passwords.
 */
export async function startNats(
  o: { config?: string; env?: Record<string, string> } = {},
): Promise<NatsServer> {
  const bin = natsServerBinary();
  if (!bin) throw new Error(NATS_MISSING);
  const port = await freePort();
  const storeDir = mkdtempSync(join(tmpdir(), 'nats-js-'));
  const confArgs: string[] = [];
  if (o.config !== undefined) {
    const file = join(storeDir, 'nats-server.conf');
    writeFileSync(file, o.config);
    confArgs.push('-c', file);
  }
  let child: ChildProcess | null = null;
  const launch = async () => {
    child = spawn(bin, [...confArgs, '-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], {
      stdio: 'ignore',
      env: { ...process.env, ...o.env },
    });
    await waitPort(port, 10_000);
  };
  const exited = (c: ChildProcess) =>
    new Promise<void>((r) =>
      c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r()),
    );
  await launch();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    async kill9() {
      const c = child!;
      c.kill('SIGKILL');
      await exited(c);
    },
    restart: launch,
    async stop() {
      const c = child;
      if (c && c.exitCode === null && c.signalCode === null) {
        c.kill('SIGTERM');
        await exited(c);
      }
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}
