/**
 * Recorded-chain replay server: a small HTTP JSON-RPC server that answers from memory what an
 * anvil node answered once (recorded by bench/run.ts through bench/rawfetch.ts), so an ingest
 * benchmark measures the indexer rather than the node.
 *
 * Methods: eth_chainId, eth_blockNumber, eth_getBlockByNumber (number or latest/earliest, full or
 * hashes-only), eth_getBlockByHash, eth_getBlockReceipts (by hash or number); single and batched
 * requests. Anything else is proxied once to the upstream node when one is given (and cached), or
 * answers JSON-RPC error -32601.
 *
 * Recording file: one line per block, `number \t hash \t blockJson \t receiptsJson` (JSON never
 * holds a raw tab), the results exactly as the node sent them.
 *
 * Runs in its own process (so it does not share an event loop with the bench's clients):
 *   node dist/bench/replay-server.js <recording> [chainIdHex] [upstreamUrl]
 * prints `replay listening http://127.0.0.1:<port> head <n> t0 <ms>` once ready.
 *
 * A moving chain (REPLAY_START=s, REPLAY_CADENCE_MS=c in its environment): blocks 0..s are
 * there from the start and block s+k appears at t0 + k·c (unix ms; t0 is printed), like a node
 * following a chain with that block time; blocks not there yet answer null, `latest` is the last
 * one there, `safe` 32 blocks below it and `finalized` 64 below (Ethereum's shape).
 */
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { stopChild, track } from './lib.js';

interface Rec {
  hash: string;
  block: string;
  receipts: string;
  lite?: string;
}

async function serve(file: string, chainId: string, upstream: string | null): Promise<void> {
  // Methods the recording does not hold (e.g. eth_getCode of a contract the indexer inspects) are
  // proxied once to the upstream node and cached; their count is reported on stderr at exit.
  const proxied = new Map<string, string>();
  let proxiedCalls = 0;
  const proxy = async (method: string, params: unknown[]): Promise<string | null> => {
    if (!upstream) return null;
    const key = JSON.stringify([method, params]);
    const hit = proxied.get(key);
    if (hit !== undefined) return hit;
    proxiedCalls++;
    const res = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const j = (await res.json()) as { result?: unknown; error?: unknown };
    if (j.error !== undefined) return null;
    const text = JSON.stringify(j.result ?? null);
    proxied.set(key, text);
    return text;
  };
  const byNumber: Rec[] = [];
  const byHash = new Map<string, number>();
  const rl = createInterface({
    input: createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 }),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  for await (const line of rl) {
    if (!line) continue;
    const t1 = line.indexOf('\t');
    const t2 = line.indexOf('\t', t1 + 1);
    const t3 = line.indexOf('\t', t2 + 1);
    const n = Number(line.slice(0, t1));
    const hash = line.slice(t1 + 1, t2);
    byNumber[n] = { hash, block: line.slice(t2 + 1, t3), receipts: line.slice(t3 + 1) };
    byHash.set(hash, n);
  }
  const last = byNumber.length - 1;
  const start = process.env.REPLAY_START ? Number(process.env.REPLAY_START) : null;
  const cadence = Number(process.env.REPLAY_CADENCE_MS ?? 0);
  // The clock starts at once, or (REPLAY_PAUSED=1) when a client calls `replay_go` (the bench
  // lets the indexer catch up with the history first); `replay_go` answers t0.
  let t0 = process.env.REPLAY_PAUSED === '1' ? null : Date.now();
  /** The last block that is there now. */
  const there = (): number =>
    start === null || !cadence
      ? last
      : t0 === null
        ? start
        : Math.min(last, start + Math.floor((Date.now() - t0) / cadence));
  const head = last;

  const blockNumberOf = (tag: unknown): number | null => {
    const h = there();
    if (tag === 'latest' || tag === 'pending') return h;
    if (tag === 'safe') return start === null ? h : Math.max(0, h - 32);
    if (tag === 'finalized') return start === null ? h : Math.max(0, h - 64);
    if (tag === 'earliest') return 0;
    if (typeof tag === 'string' && tag.startsWith('0x')) {
      const n = tag.length === 66 ? (byHash.get(tag.toLowerCase()) ?? null) : Number.parseInt(tag, 16);
      return n !== null && n <= h ? n : null;
    }
    return null;
  };
  const lite = (r: Rec): string => {
    if (r.lite === undefined) {
      const b = JSON.parse(r.block) as { transactions: Array<{ hash: string }> };
      r.lite = JSON.stringify({ ...b, transactions: b.transactions.map((t) => t.hash) });
    }
    return r.lite;
  };
  /** The raw JSON text of a result, or an error object. */
  const answer = (
    method: string,
    params: unknown[],
  ): { result: string } | { error: { code: number; message: string } } => {
    switch (method) {
      case 'eth_chainId':
        return { result: JSON.stringify(chainId) };
      case 'replay_go':
        t0 ??= Date.now();
        return { result: String(t0) };
      case 'eth_blockNumber':
        return { result: JSON.stringify(`0x${there().toString(16)}`) };
      case 'net_version':
        return { result: JSON.stringify(String(Number.parseInt(chainId, 16))) };
      case 'eth_getBlockByNumber':
      case 'eth_getBlockByHash': {
        const n = blockNumberOf(params[0]);
        const r = n === null ? undefined : byNumber[n];
        if (!r) return { result: 'null' };
        return { result: params[1] ? r.block : lite(r) };
      }
      case 'eth_getBlockReceipts': {
        const n = blockNumberOf(params[0]);
        const r = n === null ? undefined : byNumber[n];
        return { result: r ? r.receipts : 'null' };
      }
      default:
        // geth's wording for a method it does not serve (the indexer treats it as unsupported).
        return {
          error: {
            code: -32601,
            message: `the method ${method} does not exist/is not available (not recorded)`,
          },
        };
    }
  };
  const one = async (req: { id?: unknown; method?: string; params?: unknown[] }): Promise<string> => {
    let a = answer(String(req.method), req.params ?? []);
    const id = JSON.stringify(req.id ?? null);
    if ('error' in a && a.error.code === -32601) {
      const p = await proxy(String(req.method), req.params ?? []).catch(() => null);
      if (p !== null) a = { result: p };
    }
    return 'result' in a
      ? `{"jsonrpc":"2.0","id":${id},"result":${a.result}}`
      : `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify(a.error)}}`;
  };

  const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      let body: string;
      try {
        const msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
        body = Array.isArray(msg)
          ? `[${(await Promise.all(msg.map(one))).join(',')}]`
          : await one(msg as never);
      } catch {
        body = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}';
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const port = (server.address() as { port: number }).port;
    process.stdout.write(`replay listening http://127.0.0.1:${port} head ${head} t0 ${t0 ?? 0}\n`);
  });
  process.on('SIGTERM', () => {
    process.stderr.write(
      `replay: ${proxiedCalls} distinct calls proxied to the upstream node (${[...new Set([...proxied.keys()].map((k) => JSON.parse(k)[0]))].join(', ') || 'none'})\n`,
    );
    server.close(() => process.exit(0));
  });
}

/** Starts the replay server as a child process; resolves with its URL and pid. */
export async function startReplayServer(
  file: string,
  chainId: string,
  upstream?: string,
  /** A moving chain: blocks above `start` appear one per `cadenceMs` (see the module doc). */
  moving?: { start: number; cadenceMs: number; paused?: boolean },
): Promise<{ url: string; pid: number; t0: number; stop(): Promise<void> }> {
  const c = track(
    spawn(
      process.execPath,
      [
        '--max-old-space-size=8192',
        fileURLToPath(import.meta.url),
        file,
        chainId,
        ...(upstream ? [upstream] : []),
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: {
          ...process.env,
          ...(moving
            ? {
                REPLAY_START: String(moving.start),
                REPLAY_CADENCE_MS: String(moving.cadenceMs),
                REPLAY_PAUSED: moving.paused ? '1' : '0',
              }
            : {}),
        },
      },
    ),
  );
  let t0 = 0;
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('replay server did not start')), 120_000);
    c.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /replay listening (http:\/\/127\.0\.0\.1:\d+) head \d+ t0 (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        t0 = Number(m[2]);
        resolve(m[1]);
      }
    });
    c.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`replay server exited with ${code}`));
    });
  });
  return { url, pid: c.pid!, t0, stop: () => stopChild(c, 2000) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, chainId = '0x7a69', upstream] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node dist/bench/replay-server.js <recording> [chainIdHex]\n');
    process.exit(2);
  }
  await serve(file, chainId, upstream ?? null);
}
