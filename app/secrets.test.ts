/**
 * Issue 38, finding 6: redaction by value. Each of the URL and secret shapes below is configured
 * the way an operator would (the indexer's and the scanner's own config loaders, a keys file, the
 * cursor-secret file), then made to appear the ways a failing component shows it — a node error
 * quoting its URL (as viem does, credentials stripped or not), the URL percent-decoded or quoted,
 * the secret alone, in a header line, in JSON — in every place a reader can see:
 *
 *  - a log line (pino with the service's options, as app/main.ts builds its logger; the printed
 *    configuration too);
 *  - the /health body (the real route handler over a chain whose follower, publisher, replica,
 *    traces lane and store carry those errors);
 *  - an error body (the indexer's envelope, its detail and its extra fields; the scanner's).
 *
 * No secret may appear in any of them (0 leaks). 16 of the first 46 shapes leaked through the
 * pattern redaction alone (issue 38).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig, printable, resolveCursorSecret } from '@chain-indexer/indexer/chain';
import type { Ctx } from '@chain-indexer/indexer/server';
import { ApiError, chainHealthRoute, loadKeysFile } from '@chain-indexer/indexer/server';
import { initialIngestStatus } from '@chain-indexer/indexer/testing';
import { redactingLoggerOptions } from '@chain-indexer/platform/security';
import { ScannerError } from '@chain-indexer/scanner';
import { loadScannerConfig, printableScannerConfig } from '@chain-indexer/scanner/config';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';

/** A secret of `n` characters from `alphabet`, distinct for every shape (`seed`). */
function secretOf(seed: number, n: number, alphabet: string): string {
  let x = (seed + 1) * 2654435761;
  let out = '';
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += alphabet[x % alphabet.length];
  }
  return out;
}
const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
const LOWER = 'abcdefghijkmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const LETTERS = `${LOWER}${UPPER}`;
const DIGITS = '0123456789';
const HEX = '0123456789abcdef';

/** One configured shape: the environment, and the secret values that must never be seen. */
interface Shape {
  name: string;
  /** Which product's loader reads it (or a keys file, or the cursor-secret file). */
  via: 'indexer' | 'scanner' | 'keys-file' | 'cursor-file';
  env: Record<string, string>;
  /** The URL as configured, when the shape is one (its appearances are derived from it). */
  url?: string;
  secrets: string[];
}

const base = { CHAIN: 'eth', DEV_API_KEY: 'dev-key-not-under-test' };
let n = 0;
const s = (len: number, alphabet = ALNUM) => secretOf(++n, len, alphabet);

/** An RPC_URL shape: `make(secret…)` builds the URL from the secrets. */
function rpc(name: string, secrets: string[], make: (...v: string[]) => string): Shape {
  const url = make(...secrets);
  return { name, via: 'indexer', env: { ...base, RPC_URL: url }, url, secrets };
}
/** A writer's NATS_URL carrying `secrets`, through the indexer's config. */
function natsShape(name: string, url: string, secrets: string[]): Shape {
  return {
    name,
    via: 'indexer',
    env: {
      ...base,
      RPC_URL: 'http://127.0.0.1:8545',
      ROLE: 'writer',
      CURSOR_SECRET: 'ab'.repeat(32),
      NATS_URL: url,
    },
    url,
    secrets,
  };
}

function scannerUrl(name: string, variable: string, secrets: string[], url: string, extra = {}): Shape {
  return { name, via: 'scanner', env: { [variable]: url, ...extra }, url, secrets };
}

const shapes: Shape[] = [
  // Known providers.
  rpc('alchemy https', [s(32)], (k) => `https://eth-mainnet.g.alchemy.com/v2/${k}`),
  rpc('alchemy wss', [s(32)], (k) => `wss://base-mainnet.g.alchemy.com/v2/${k}`),
  rpc('alchemy, host with a trailing dot', [s(32)], (k) => `https://eth-mainnet.g.alchemy.com./v2/${k}`),
  rpc('alchemy, all-letters key', [s(24, LETTERS)], (k) => `https://eth-mainnet.g.alchemy.com/v2/${k}`),
  rpc('alchemy nft v3', [s(32)], (k) => `https://eth-mainnet.g.alchemy.com/nft/v3/${k}/getNFTs`),
  rpc('infura v3', [s(32, HEX)], (k) => `https://mainnet.infura.io/v3/${k}`),
  rpc('infura ws v3', [s(32, HEX)], (k) => `wss://mainnet.infura.io/ws/v3/${k}`),
  rpc(
    'infura, project secret as userinfo',
    [s(32, HEX), s(32, HEX)],
    (p, k) => `https://:${p}@mainnet.infura.io/v3/${k}`,
  ),
  rpc('quicknode token', [s(40, HEX)], (k) => `https://wandering-frosty-pond.quiknode.pro/${k}/`),
  rpc('quicknode, trailing dot', [s(40, HEX)], (k) => `https://dawn-lake.base-mainnet.quiknode.pro./${k}/`),
  rpc('ankr', [s(64, HEX)], (k) => `https://rpc.ankr.com/eth/${k}`),
  rpc('ankr ws', [s(64, HEX)], (k) => `wss://rpc.ankr.com/eth/ws/${k}`),
  rpc('chainstack', [s(32, HEX)], (k) => `https://nd-123-456-789.p2pify.com/${k}`),
  rpc('blast uuid', [crypto.randomUUID()], (k) => `https://eth-mainnet.blastapi.io/${k}`),
  rpc('getblock', [s(32, HEX)], (k) => `https://go.getblock.io/${k}`),
  rpc('tenderly', [s(22, LETTERS)], (k) => `https://mainnet.gateway.tenderly.co/${k}`),
  rpc('drpc dkey', [s(40)], (k) => `https://lb.drpc.org/ogrpc?network=ethereum&dkey=${k}`),
  rpc('blockpi', [s(40, HEX)], (k) => `https://ethereum.blockpi.network/v1/rpc/${k}`),
  rpc('nodereal', [s(32, HEX)], (k) => `https://eth-mainnet.nodereal.io/v1/${k}`),
  // Unknown hosts: the key's shape is no guide.
  rpc('key of letters only, both cases', [s(20, LETTERS)], (k) => `https://rpc.example.org/${k}`),
  rpc('key of lower-case letters, 12', [s(12, LOWER)], (k) => `https://rpc.example.org/v1/${k}`),
  rpc('key of upper-case letters, 10', [s(10, UPPER)], (k) => `https://node.example.net/${k}/`),
  rpc('key of digits, 20', [s(20, DIGITS)], (k) => `https://node.example.net/eth/${k}`),
  rpc('key of digits, 10', [s(10, DIGITS)], (k) => `https://node.example.net/rpc/${k}`),
  rpc('short key, 8', [s(8)], (k) => `https://node.example.com/rpc/${k}`),
  rpc('short key with a dash, 7', [`${s(3)}-${s(3)}`], (k) => `https://node.example.com/${k}`),
  rpc('uuid key', [crypto.randomUUID()], (k) => `https://node.example.com/v2/${k}`),
  rpc('key after chain and network words', [s(14)], (k) => `https://node.example.com/ethereum/mainnet/${k}`),
  rpc('query apikey of letters', [s(9, LETTERS)], (k) => `https://node.example.com/rpc?apikey=${k}`),
  rpc(
    'query api_key among other parameters',
    [s(16)],
    (k) => `https://node.example.com/?network=mainnet&api_key=${k}&v=2`,
  ),
  rpc('query token, short', [s(6)], (k) => `https://node.example.com/rpc?token=${k}`),
  rpc('query key of digits', [s(12, DIGITS)], (k) => `https://node.example.com/rpc?key=${k}`),
  rpc(';apikey= path parameter', [s(10)], (k) => `https://node.example.com/rpc;apikey=${k}`),
  rpc(';key= beside a path key', [s(9), s(11)], (a, b) => `https://node.example.com/${a};key=${b}`),
  rpc('unknown host with a trailing dot', [s(11)], (k) => `https://node.example.com./v1/${k}`),
  rpc('key in the fragment', [s(12)], (k) => `https://node.example.com/rpc#${k}`),
  rpc('user:pass@ over http', [s(10)], (p) => `http://ops:${p}@node.example.com:8545/`),
  rpc(
    'password with /',
    [`${s(5)}/${s(5)}`],
    (p) => `https://ops:${encodeURIComponent(p)}@node.example.com/`,
  ),
  rpc(
    'password with a quote',
    [`${s(5)}"${s(5)}`],
    (p) => `https://ops:${encodeURIComponent(p)}@node.example.com/`,
  ),
  rpc(
    'password with a space',
    [`${s(5)} ${s(5)}`],
    (p) => `https://ops:${encodeURIComponent(p)}@node.example.com/`,
  ),
  rpc(
    "password with ' and @",
    [`${s(4)}'@${s(4)}`],
    (p) => `https://ops:${encodeURIComponent(p)}@node.example.com/`,
  ),
  rpc('token as userinfo', [s(24)], (t) => `https://${t}@node.example.com/`),
  {
    name: 'WS_URL with a key',
    via: 'indexer',
    env: { ...base, RPC_URL: 'http://127.0.0.1:8545', WS_URL: '' },
    secrets: [s(18)],
  },
  { name: 'CHAINS_FILE rpcUrls, the second node', via: 'indexer', env: {}, secrets: [s(15)] },
  { name: 'CHAINS_FILE wsUrl', via: 'indexer', env: {}, secrets: [s(13, LETTERS)] },
  // NATS (indexer writer; scanner shared state).
  (() => {
    const pw = s(14);
    return natsShape(
      'NATS user:pass list',
      `nats://writer:${pw}@nats-1:4222,nats://writer:${pw}@nats-2:4222`,
      [pw],
    );
  })(),
  (() => {
    const t = s(20);
    return natsShape('NATS token', `nats://${t}@nats-1:4222`, [t]);
  })(),
  (() => {
    const pw = `${s(5)}/${s(5)}`;
    return natsShape(
      'NATS tls, password with /',
      `tls://writer:${encodeURIComponent(pw)}@nats.example:4222`,
      [pw],
    );
  })(),
  (() => {
    const pw = s(12);
    const kv = s(64, HEX);
    return scannerUrl(
      'scanner NATS and KV secret',
      'SCANNER_NATS_URL',
      [pw, kv],
      `nats://scanner:${pw}@nats-1:4222`,
      { SCANNER_KV_SECRET: kv },
    );
  })(),
  // SMTP (scanner).
  (() => {
    const pw = s(12);
    return scannerUrl('SMTP user:pass', 'SMTP_URL', [pw], `smtp://mailer:${pw}@smtp.example:587`);
  })(),
  (() => {
    const pw = `${s(4)} "${s(4)}'`;
    return scannerUrl(
      'SMTPS password with space and quotes',
      'SMTP_URL',
      [pw],
      `smtps://mailer:${encodeURIComponent(pw)}@smtp.example:465`,
    );
  })(),
  (() => {
    const pw = `${s(5)}/${s(5)}`;
    return scannerUrl('SMTP password with a raw /', 'SMTP_URL', [pw], `smtp://mailer:${pw}@smtp.example:25`);
  })(),
  // Secrets that are no URL.
  {
    name: 'DEV_API_KEY',
    via: 'indexer',
    env: { CHAIN: 'eth', RPC_URL: 'http://127.0.0.1:8545' },
    secrets: [s(24)],
  },
  {
    name: 'CURSOR_SECRET (upper-case hex)',
    via: 'indexer',
    env: { ...base, RPC_URL: 'http://127.0.0.1:8545' },
    secrets: [s(64, HEX).toUpperCase()],
  },
  { name: 'a keys file’s plain key', via: 'keys-file', env: {}, secrets: [s(20)] },
  { name: 'a keys file’s short key', via: 'keys-file', env: {}, secrets: [s(8, LOWER)] },
  { name: 'the generated cursor secret', via: 'cursor-file', env: {}, secrets: [] },
];
// The shapes whose env depends on their secret (filled here, once the secrets are drawn).
for (const sh of shapes) {
  const [k] = sh.secrets;
  if (sh.name === 'WS_URL with a key') {
    sh.url = `wss://ws.node.example.com/v1/${k}`;
    sh.env.WS_URL = sh.url;
  } else if (sh.name.startsWith('CHAINS_FILE')) {
    const file = join(mkdtempSync(join(tmpdir(), 'secrets-chains-')), 'chains.json');
    sh.url = sh.name.endsWith('wsUrl')
      ? `wss://ws.node.example.com/${k}`
      : `https://second.example.com/rpc/${k}`;
    const chain = sh.name.endsWith('wsUrl')
      ? { name: 'eth', rpcUrl: 'http://127.0.0.1:8545', wsUrl: sh.url }
      : { name: 'eth', rpcUrls: ['http://127.0.0.1:8545', sh.url] };
    writeFileSync(file, JSON.stringify([chain]));
    sh.env = { CHAINS_FILE: file, DEV_API_KEY: 'dev-key-not-under-test' };
  } else if (sh.name === 'DEV_API_KEY') sh.env.DEV_API_KEY = k;
  else if (sh.name.startsWith('CURSOR_SECRET')) sh.env.CURSOR_SECRET = k;
}

/** What a secret of a shape looks like where it leaks: as written, decoded, encoded. */
const formsOf = (secret: string) => [...new Set([secret, encodeURIComponent(secret)])];

/**
 * The texts a failing component writes about a shape: the URL (whole, without its credentials as
 * viem shows it, percent-decoded, quoted, in viem's error layout), and each secret alone, in a
 * header line and in JSON.
 */
function appearances(sh: Shape): string[] {
  const out: string[] = [];
  if (sh.url) {
    const stripped = sh.url.replace(/\/\/[^/@]*@/, '//');
    let decoded = sh.url;
    try {
      decoded = decodeURIComponent(sh.url);
    } catch {}
    out.push(
      sh.url,
      `HTTP request failed.\n\nStatus: 500\nURL: ${stripped}\nRequest body: {"method":"eth_blockNumber"}`,
      `fetch failed: ${decoded}`,
      `connecting to "${sh.url}" failed`,
      `connecting to ${sh.url.replace(/^[a-z]+:\/\//, '')} failed`,
    );
  }
  for (const v of sh.secrets)
    out.push(
      `refused: ${v}`,
      `x-api-key: ${v}`,
      `Authorization: Bearer ${v}`,
      JSON.stringify({ apiKey: v, password: v }),
      `password: ${v}`,
      `CURSOR_SECRET=${v}`,
    );
  return out;
}

/** A pino logger built as app/main.ts builds it, writing to `lines`. */
function logger(lines: string[]) {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return pino({ level: 'trace', ...redactingLoggerOptions() }, sink);
}

/**
 * The /health body of a chain whose every error field holds `text`, through the real route handler
 * (status.ts `healthRecord`): the follower's lastError and haltDetail, the publisher's and the
 * replica's lastError, the traces lane's reason, the store's write error.
 */
function healthBody(text: string): string {
  const status = {
    ...initialIngestStatus({ verifyRoots: true, segmentBlocks: 1_000, segmentBytes: 64 << 20 }),
    state: 'halted',
    haltReason: 'storage_write_failed',
    haltDetail: text,
    lastError: text,
  };
  const chain = {
    name: 'eth',
    chainId: 1,
    store: {
      unfinalisedWindow: 128,
      inFlight: () => ({ batches: 0, bytes: 0 }),
      cacheStats: () => ({ entries: 0, bytes: 0, maxBytes: 0, hits: 0, misses: 0 }),
      writeError: () => new Error(text),
      committedHead: () => null,
      getMeta: () => undefined,
    },
    ingest: { status: () => status },
    traces: { status: () => ({ enabled: true, state: 'failed', reason: text, checkpoint: null }) },
    streams: { hub: { size: () => 0 }, log: { last: () => null, oldest: () => null } },
    registry: { projections: [], state: () => ({ checkpoint: null }) },
    writer: { status: () => ({ published: 0, pending: 0, streamSeq: 0, lastError: text }) },
    replica: {
      maxLagSeconds: 10,
      status: () => ({
        state: 'failed',
        appliedSeq: 0,
        writerSeq: 0,
        writerHead: null,
        lagBlocks: 0,
        lagSeconds: 0,
        snapshotsImported: 0,
        lastError: text,
      }),
    },
    devnet: null,
  };
  const ctx = {
    chain,
    view: { head: null, meta: () => undefined },
    readers: { chain: { openGapCount: () => 0 } },
  } as unknown as Ctx<unknown, unknown>;
  const reply = chainHealthRoute.handler(ctx as never) as { json: string };
  return reply.json;
}

/** The indexer's and the scanner's error bodies quoting `text` (detail, message, extra fields). */
function errorBodies(text: string): string[] {
  return [
    JSON.stringify(
      new ApiError('node_unavailable', `bounded node read failed: ${text}`, {
        haltReason: `replica_failed: ${text}`,
      }).toJSON(),
    ),
    JSON.stringify(
      new ScannerError('INDEX_UNAVAILABLE', `the index did not answer: ${text}`, { detail: text }).envelope(
        'req_1',
      ),
    ),
  ];
}

/** Configures `sh` through its product's own loader (which records its secrets) and logs the config. */
function configure(sh: Shape, log: ReturnType<typeof logger>): void {
  if (sh.via === 'indexer') {
    const c = loadConfig(sh.env, () => 'generated-dev-key-unused');
    log.info({ config: printable(c) }, 'configuration');
  } else if (sh.via === 'scanner') {
    const dataDir = mkdtempSync(join(tmpdir(), 'secrets-scanner-'));
    const c = loadScannerConfig({ SCANNER_DATA_DIR: dataDir, ...sh.env });
    log.info({ config: printableScannerConfig(c) }, 'scanner configuration');
  } else if (sh.via === 'keys-file') {
    const file = join(mkdtempSync(join(tmpdir(), 'secrets-keys-')), 'keys.json');
    writeFileSync(file, JSON.stringify([{ name: 'ops', key: sh.secrets[0], scopes: ['read'] }]));
    log.info({ keys: loadKeysFile(file).map((k) => k.name) }, 'keys loaded');
  } else {
    const meta = new Map<string, unknown>();
    const secret = resolveCursorSecret({
      configured: null,
      dataDir: mkdtempSync(join(tmpdir(), 'secrets-cursor-')),
      store: {
        getMeta: <T>(k: string) => meta.get(k) as T | undefined,
        putMeta: (k, v) => void meta.set(k, v),
        deleteMeta: (k) => void meta.delete(k),
      },
      generate: true,
    });
    sh.secrets.push(secret);
  }
}

describe('redaction by value: every configured shape, in log lines, /health and error bodies', () => {
  it(`covers at least 46 shapes (${shapes.length})`, () => {
    expect(shapes.length).toBeGreaterThanOrEqual(46);
    expect(new Set(shapes.map((x) => x.name)).size).toBe(shapes.length);
  });

  it('0 leaks', () => {
    const leaks: string[] = [];
    let outputs = 0;
    for (const sh of shapes) {
      const lines: string[] = [];
      const log = logger(lines);
      configure(sh, log);
      const seen: string[] = [];
      for (const text of appearances(sh)) {
        log.error({ err: new Error(text) }, 'ingest step failed; retrying');
        log.warn({ chain: 'eth', detail: { nested: [text] } }, text);
        log.error(new Error(text));
        seen.push(healthBody(text), ...errorBodies(text));
      }
      seen.push(...lines);
      outputs += seen.length;
      for (const out of seen)
        for (const secret of sh.secrets)
          for (const form of formsOf(secret))
            if (out.includes(form)) leaks.push(`${sh.name}: "${form}" in ${out.slice(0, 160)}`);
    }
    expect(outputs).toBeGreaterThan(shapes.length * 20);
    expect(leaks, leaks.slice(0, 20).join('\n')).toEqual([]);
  });

  it('what is no secret stays readable: hosts, schemes, versions, network words', () => {
    const lines: string[] = [];
    const log = logger(lines);
    const url = `https://node.example.com/v1/mainnet/${s(14)}?network=mainnet`;
    const c = loadConfig({ ...base, RPC_URL: url }, () => 'unused');
    log.info({ config: printable(c) }, 'configuration');
    log.warn(`fetch failed: ${url}`);
    const all = lines.join('');
    expect(all).toContain('https://node.example.com/v1/mainnet/***?network=***');
    expect(healthBody(`HTTP request failed. URL: ${url}`)).toContain('node.example.com/v1/mainnet/***');
  });
});
