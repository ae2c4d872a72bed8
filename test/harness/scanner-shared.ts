/**
 * Scanner servers sharing one account space on a real nats-server (shared mode), for the e2e
 * suites: each is the real service as a child process (test/harness/scanner-charging-main.ts:
 * the service plus a credit-consuming test endpoint) with its own store and listener, driven over
 * HTTP and its admin socket. The KV bucket can be read and written directly, as an attacker
 * holding a NATS credential would.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sendAdminCommand } from '@chain-indexer/scanner/testing';
import { jetstream } from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import type { NatsServer } from './nats.js';
import { type Answer, httpRequest, type RequestOptions } from './scanner.js';

const MAIN = new URL('../../dist/test/harness/scanner-charging-main.js', import.meta.url).pathname;
/** The KV bucket of the shared suites (SCANNER_KV_BUCKET). */
export const SHARED_BUCKET = 'scanner-e2e';
/** The scanner servers' MAC key of every KV record (SCANNER_KV_SECRET): writers only. */
export const SHARED_KV_SECRET = '3c'.repeat(32);

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One scanner server process. */
export interface SharedServer {
  name: string;
  dir: string;
  url: string;
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr. */
  out: () => string;
  req(method: string, path: string, o?: RequestOptions): Promise<Answer>;
  /** Runs an operator command through its admin socket. @throws when it fails. */
  cli(command: string, args?: Record<string, string | true>): Promise<any>;
}

/**
 * Starts a scanner server in shared mode on `nats` (bucket {@link SHARED_BUCKET}), over `dir` (a
 * new temp directory by default; pass an old one to restart on it). Resolves once it listens.
 * @throws when it exits or does not listen within 30 s.
 */
export function startSharedServer(
  nats: NatsServer,
  name: string,
  dir = mkdtempSync(join(tmpdir(), `scanner-shared-${name}-`)),
): Promise<SharedServer> {
  return new Promise((resolve, reject) => {
    let out = '';
    const child = spawn(process.execPath, [MAIN], {
      env: {
        ...process.env,
        SCANNER_DATA_DIR: dir,
        SCANNER_PORT: '0',
        NATS_URL: nats.url,
        SCANNER_KV_BUCKET: SHARED_BUCKET,
        SCANNER_KV_SECRET: SHARED_KV_SECRET,
        SCANNER_CACHE_SECONDS: '60',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => reject(new Error(`scanner ${name} did not start:\n${out}`)), 30_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /scanner API listening on http:\/\/127\.0\.0\.1:(\d+)\/v1/.exec(out);
      if (m && timer) {
        clearTimeout(timer);
        const url = `http://127.0.0.1:${m[1]}`;
        resolve({
          name,
          dir,
          url,
          child,
          out: () => out,
          req: (method, path, o) => httpRequest(url, method, path, o),
          async cli(command, args = {}) {
            const r = await sendAdminCommand(dir, command, args);
            if (!r?.ok) throw new Error(`${name} ${command}: ${JSON.stringify(r)}`);
            return r.result;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code, sig) => {
      if (code !== null || sig !== 'SIGKILL') reject(new Error(`scanner ${name} exited ${code}:\n${out}`));
    });
  });
}

/** Polls `f` every 50 ms until it returns true; resolves to the ms it took. @throws after `ms`. */
export async function until(what: string, ms: number, f: () => Promise<boolean>): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    if (await f()) return Date.now() - t0;
    if (Date.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(50);
  }
}

/** An account with a plan, a key, a dashboard session and (optionally) credits, made through `s`. */
export async function sharedAccount(
  s: SharedServer,
  email: string,
  plan: 'scale' | 'enterprise',
  scans = 0,
): Promise<{ acc: string; keyId: string; secret: string; session: string }> {
  const acc: string = (await s.cli('create-account', { email })).account.id;
  await s.cli('set-plan', { account: acc, plan, days: '30' });
  if (scans) await s.cli('grant-credits', { account: acc, scans: String(scans) });
  const k = await s.cli('create-key', { account: acc, name: 'shared' });
  const session: string = (await s.cli('create-session', { account: acc })).session;
  return { acc, keyId: k.key.id as string, secret: k.secret as string, session };
}

/** `GET /v1/whoami` on `s` with `key`. */
export const whoami = (s: SharedServer, key: string): Promise<Answer> => s.req('GET', '/v1/whoami', { key });

/** Scans left of an account as `s` sees it (admin `list`). */
export const remaining = async (s: SharedServer, acc: string): Promise<number> =>
  (await s.cli('list', { account: acc })).accounts[0].remainingScans as number;

/** Runs `f` on the shared bucket through a NATS connection of its own (as any credential holder could). */
export async function withBucket<T>(nats: NatsServer, f: (kv: KV) => Promise<T>): Promise<T> {
  const nc = await connect({ servers: nats.url });
  try {
    return await f(await new Kvm(jetstream(nc)).open(SHARED_BUCKET));
  } finally {
    await nc.close();
  }
}
