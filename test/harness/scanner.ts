/**
 * Test harness for the scanner API: the real service in-process (real uWS listener, real RocksDB
 * in a temp directory) on a controllable clock, a real SMTP server (smtp-server) receiving its
 * e-mails, an HTTP client on node:http (not fetch: fetch adds `Sec-Fetch-Mode: cors`, which the
 * browser rule refuses), and capture of every log line and response body for the hygiene checks.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Endpoint } from '@chain-indexer/scanner';
import { createScannerService, type ScannerService } from '@chain-indexer/scanner';
import { loadScannerConfig } from '@chain-indexer/scanner/config';
import type { Seams } from '@chain-indexer/scanner/testing';
import { ENDPOINTS } from '@chain-indexer/scanner/testing';
import { pino } from 'pino';
import { SMTPServer } from 'smtp-server';

/** A message the SMTP server received. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
}

export interface Smtp {
  url: string;
  messages: ReceivedMail[];
  /** Resolves once at least `n` messages arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a real SMTP server on a free loopback port (no TLS, no auth: a local test relay). */
export async function startSmtp(): Promise<Smtp> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, cb) {
      let raw = '';
      stream.on('data', (d: Buffer) => {
        raw += d.toString('utf8');
      });
      stream.on('end', () => {
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          subject: /^Subject: (.*)$/m.exec(raw)?.[1] ?? '',
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitFor(n, timeoutMs = 10_000) {
      const end = Date.now() + timeoutMs;
      while (messages.length < n) {
        if (Date.now() > end) throw new Error(`expected ${n} e-mails, got ${messages.length}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A controllable clock (ms). */
export interface Clock {
  now(): number;
  set(ms: number): void;
  advance(ms: number): void;
}

export function createClock(start: number): Clock {
  let t = start;
  return {
    now: () => t,
    set: (ms) => {
      t = ms;
    },
    advance: (ms) => {
      t += ms;
    },
  };
}

/** An HTTP answer. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

export interface RequestOptions {
  /** Sent as `x-api-key`. */
  key?: string;
  /** Sent as `Authorization: Bearer …` (a key or a session token). */
  bearer?: string;
  /** Simulated client IP: sent as X-Forwarded-For (honoured only when loopback is a trusted proxy). */
  ip?: string;
  /** Extra headers; an array value sends the header several times. */
  headers?: Record<string, string | string[]>;
  body?: unknown;
}

export interface ScannerHarness {
  url: string;
  port: number;
  dataDir: string;
  service: ScannerService;
  clock: Clock;
  /** Every log line the service wrote. */
  logs: string[];
  /** Every response body received. */
  bodies: string[];
  request(method: string, path: string, o?: RequestOptions): Promise<Answer>;
  /** Stops the service (the store is closed) and removes the data directory unless `keep`. */
  close(keep?: boolean): Promise<void>;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** One HTTP request with exactly the headers given (plus host and content-length). */
export function httpRequest(
  url: string,
  method: string,
  path: string,
  o: RequestOptions = {},
): Promise<Answer> {
  const headers: Record<string, string | string[]> = { ...(o.headers ?? {}) };
  if (o.key !== undefined) headers['x-api-key'] = o.key;
  if (o.bearer !== undefined) headers.authorization = `Bearer ${o.bearer}`;
  if (o.ip !== undefined) headers['x-forwarded-for'] = o.ip;
  const payload = o.body === undefined ? undefined : JSON.stringify(o.body);
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: u.hostname, port: u.port, method, path, headers, agent, timeout: 20_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: any;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Starts the real scanner service in-process on a free port. */
export async function startScanner(o: {
  clock?: Clock;
  smtp?: Smtp | null;
  /** Endpoints in addition to the service's own (credit-mechanism tests). */
  extraEndpoints?: readonly Endpoint[];
  seams?: Seams;
  /** Trust loopback as a proxy, so `ip` (X-Forwarded-For) sets the client IP. Default true. */
  trustLoopbackProxy?: boolean;
  env?: Record<string, string>;
  dataDir?: string;
}): Promise<ScannerHarness> {
  const dataDir = o.dataDir ?? mkdtempSync(join(tmpdir(), 'scanner-test-'));
  const clock = o.clock ?? createClock(Date.now());
  const logs: string[] = [];
  const bodies: string[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) });
  const config = loadScannerConfig({
    SCANNER_DATA_DIR: dataDir,
    SCANNER_PORT: '0',
    SCANNER_UPGRADE_URL: 'https://billing.example/upgrade',
    ...(o.smtp ? { SMTP_URL: o.smtp.url } : {}),
    ...(o.trustLoopbackProxy === false ? {} : { TRUSTED_PROXIES: '127.0.0.1,::1' }),
    ...o.env,
  });
  const service = await createScannerService({
    config,
    log,
    now: clock.now,
    endpoints: [...ENDPOINTS, ...(o.extraEndpoints ?? [])],
    seams: o.seams,
  });
  const port = await service.listen();
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    dataDir,
    service,
    clock,
    logs,
    bodies,
    async request(method, path, ro) {
      const a = await httpRequest(url, method, path, ro);
      bodies.push(a.text);
      return a;
    },
    async close(keep = false) {
      await service.close();
      if (!keep) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every file under `dir` (recursively) as raw bytes, for secret searches. */
export function filesUnder(dir: string): Array<{ path: string; bytes: Buffer }> {
  const out: Array<{ path: string; bytes: Buffer }> = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) out.push({ path: p, bytes: readFileSync(p) });
    }
  };
  walk(dir);
  return out;
}

/** The secrets (API keys and session tokens) that appear in a text. */
export function secretsIn(text: string): string[] {
  return [...text.matchAll(/(sk_live_[0-9A-Za-z]{43}|ds_[0-9A-Za-z]{43})/g)].map((m) => m[1]);
}

/**
 * Spawns a scanner process (`node <main>`, e.g. packages/scanner/dist/main.js) with `env` over the
 * parent's and SCANNER_PORT=0; resolves with its port once it logs that it listens (its output so
 * far through `log`), rejects when it exits first or does not listen within 30 s.
 */
export function spawnScanner(
  main: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; port: number; log: () => string }> {
  return new Promise((resolve, reject) => {
    let out = '';
    const child = spawn(process.execPath, [main], {
      env: { ...process.env, SCANNER_PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => reject(new Error(`scanner did not start:\n${out}`)), 30_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /scanner API listening on http:\/\/127\.0\.0\.1:(\d+)\/v1/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), log: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`scanner exited ${code}:\n${out}`)));
  });
}

/**
 * The scanner operator CLI (`node <cli> …args`) on the store in `dataDir` (a directory, or a getter
 * for one known only once the suite has started): each call resolves with the CLI's JSON output,
 * rejects with its stderr when it fails.
 */
export const scannerCli =
  (cli: string, dataDir: string | (() => string)) =>
  (...args: string[]): Promise<any> =>
    new Promise((resolve, reject) =>
      execFile(
        process.execPath,
        [cli, ...args],
        {
          env: {
            ...process.env,
            SCANNER_DATA_DIR: typeof dataDir === 'string' ? dataDir : dataDir(),
            SMTP_URL: '',
          },
        },
        (err, stdout, stderr) =>
          err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
      ),
    );
