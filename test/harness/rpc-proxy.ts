/**
 * A fault-injecting JSON-RPC HTTP proxy for end-to-end fault tests: sits on loopback between the
 * indexer and a real node (anvil) and, on a seeded schedule (mulberry32) or on explicit request,
 * misbehaves the way real providers do:
 *
 *  - `delay`       answers late (up to `maxDelayMs`);
 *  - `drop`        destroys the connection without an answer;
 *  - `http429`     rate-limit answer (`429 Too Many Requests`, JSON-RPC error body);
 *  - `http5xx`     500/502/503/504 with an HTML body;
 *  - `malformed`   200 with a body that is not JSON (or JSON of no JSON-RPC shape);
 *  - `truncated`   the real answer cut short (short Content-Length, or the socket closed mid-body);
 *  - `rangeError`  one item answers JSON-RPC `-32005` "query returned more than 10000 results" /
 *                  "block range too large";
 *  - `nullBlock`   one block or receipt read answers `null` (a node that has not got it yet);
 *  - `staleHead`   the request is answered by a node that fell behind: `eth_blockNumber` is N below
 *                  the true head and blocks above it are `null`;
 *  - `refuse`      the proxy stops listening for `refuseMs` (connections refused: a node restart);
 *  - `traceItemError` one transaction of a `debug_traceBlockByNumber` answer carries geth's per-item
 *                  `{txHash, error: "execution timeout"}` instead of its trace, and
 *                  `debug_traceTransaction` of that hash keeps failing for `traceStickyMs` (a
 *                  transaction the node cannot re-execute for a while: the indexer records a gap
 *                  and must heal it later).
 *
 * Besides faults, {@link RpcProxy.setRewrite} alters the node's answers to chosen calls (a node
 * serving records that do not match the block header: the roots-check tests).
 *
 * JSON-RPC batch arrays (viem's http transport batches) are handled item by item: whole-request
 * faults hit the whole HTTP exchange, item faults hit one item of the batch. Every injected fault is
 * counted. Nothing leaves 127.0.0.1.
 *
 * {@link RpcProxy.dropBlocks} plays a node that lost blocks it had served: null by number and by
 * hash while its later blocks still link to them.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export type FaultKind =
  | 'delay'
  | 'drop'
  | 'http429'
  | 'http5xx'
  | 'malformed'
  | 'truncated'
  | 'rangeError'
  | 'nullBlock'
  | 'staleHead'
  | 'refuse'
  | 'traceItemError';

export const FAULT_KINDS: readonly FaultKind[] = [
  'delay',
  'drop',
  'http429',
  'http5xx',
  'malformed',
  'truncated',
  'rangeError',
  'nullBlock',
  'staleHead',
  'refuse',
  'traceItemError',
];

/** Seeded PRNG (mulberry32), the same as the crash-safety suite's. */
export function mulberry32(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random fault schedule: each HTTP request draws once; with probability `rate` a fault is picked. */
export interface FaultSchedule {
  seed: number;
  /** Probability (0..1) that a request gets a fault. */
  rate: number;
  /** Kinds drawn from (all by default), with optional relative weights (1 by default). */
  kinds?: readonly FaultKind[];
  weights?: Partial<Record<FaultKind, number>>;
  /** Longest `delay`, milliseconds (default 1500: below the client's 10 s timeout). */
  maxDelayMs?: number;
  /** Largest lag of a `staleHead` answer, blocks (default 10). */
  staleLag?: number;
  /** How long a `refuse` keeps the port closed, milliseconds (default 300). */
  refuseMs?: number;
  /** How long a `traceItemError` transaction keeps failing `debug_traceTransaction`, ms (default 3000). */
  traceStickyMs?: number;
}

export interface ProxyStats {
  /** HTTP requests received. */
  requests: number;
  /** JSON-RPC items received (a batch counts each item). */
  items: number;
  /** HTTP requests answered with the node's answer untouched. */
  clean: number;
  faults: Record<FaultKind, number>;
  totalFaults: number;
  /** Periods the proxy refused connections (simulated node restarts). */
  restarts: number;
  /** Counts per JSON-RPC method. */
  methods: Record<string, number>;
  /** Answers altered by the rewrite hook (see {@link RpcProxy.setRewrite}). */
  rewrites: number;
}

/**
 * Rewrites the node's `result` of one JSON-RPC call: return the result to send (a changed copy),
 * or undefined to send the node's answer untouched.
 */
export type RpcRewrite = (method: string, params: unknown[], result: unknown) => unknown;

export interface RpcProxy {
  url: string;
  port: number;
  stats(): ProxyStats;
  /** Installs (or with null removes, with any forced faults not yet applied) the random fault schedule. */
  schedule(s: FaultSchedule | null): void;
  /** Forces `kind` on the next `count` requests it can apply to (before the schedule is drawn). */
  inject(kind: FaultKind, count?: number): void;
  /**
   * A node stuck at block `n` (null: recovered): `eth_blockNumber` answers min(true head, n),
   * `eth_getBlockByNumber` above n (and any tag) answers null / block n.
   */
  setStaleHead(n: number | null): void;
  /** Alters the node's answers with `fn` (null: answers pass untouched again). */
  setRewrite(fn: RpcRewrite | null): void;
  /** Delays every request by `ms` (null: off). Not counted as a fault: a slow node. */
  setLatency(ms: number | null): void;
  /** Refuses connections for `ms` (closes the listener, drops open sockets), then listens again. */
  restartUpstream(ms: number): Promise<void>;
  close(): Promise<void>;
  /**
   * A node that lost blocks it had served, the way anvil was seen to (issue U): blocks
   * `from`..`to` answer null by number and by hash (eth_getBlockByNumber, eth_getBlockByHash,
   * eth_getBlockReceipts), their transactions and receipts answer null and their traces an error,
   * while the node's later blocks still name them as parents. `null`: served again.
   */
  dropBlocks(range: { from: number; to: number } | null): Promise<void>;
}

interface RpcItem {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ITEM_FAULTS = new Set<FaultKind>(['rangeError', 'nullBlock', 'staleHead', 'traceItemError']);
/** geth's per-transaction failure inside a block trace, and its code on debug_traceTransaction. */
const TRACE_TIMEOUT = 'execution timeout';
const NULLABLE = new Set([
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getBlockReceipts',
  'eth_getTransactionReceipt',
]);
const RANGE_MESSAGES = ['query returned more than 10000 results', 'block range too large'];

export async function startRpcProxy(o: {
  upstream: string;
  port?: number;
  schedule?: FaultSchedule;
}): Promise<RpcProxy> {
  const stats: ProxyStats = {
    requests: 0,
    items: 0,
    clean: 0,
    faults: Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>,
    totalFaults: 0,
    restarts: 0,
    methods: {},
    rewrites: 0,
  };
  let rewrite: RpcRewrite | null = null;
  let sched: FaultSchedule | null = o.schedule ?? null;
  let rand = mulberry32(sched?.seed ?? 1);
  const forced: FaultKind[] = [];
  /** Bumped by schedule(): a forced fault that did not apply is re-queued only within its generation. */
  let generation = 0;
  let staleHead: number | null = null;
  /** Transaction hash → until when (ms) its debug_traceTransaction fails (traceItemError). */
  const stickyTrace = new Map<string, number>();
  let latency: number | null = null;
  /** Blocks answered as lost (dropBlocks): their heights, hashes and transaction hashes. */
  let lost: { from: number; to: number; hashes: Set<string>; txs: Set<string> } | null = null;
  const isLost = (it: RpcItem): boolean => {
    if (!lost || !Array.isArray(it.params)) return false;
    const p0 = String(it.params[0] ?? '').toLowerCase();
    const inRange = (x: string) =>
      /^0x[0-9a-f]{1,16}$/.test(x) &&
      Number.parseInt(x, 16) >= lost!.from &&
      Number.parseInt(x, 16) <= lost!.to;
    switch (it.method) {
      case 'eth_getBlockByNumber':
      case 'debug_traceBlockByNumber':
        return inRange(p0);
      case 'eth_getBlockByHash':
      case 'debug_traceBlockByHash':
        return lost.hashes.has(p0);
      case 'eth_getBlockReceipts':
        return inRange(p0) || lost.hashes.has(p0);
      case 'eth_getTransactionByHash':
      case 'eth_getTransactionReceipt':
      case 'debug_traceTransaction':
        return lost.txs.has(p0);
      default:
        return false;
    }
  };
  let closed = false;
  let refusing: Promise<void> | null = null;
  const sockets = new Set<Socket>();
  let upstreamId = 0;

  const count = (k: FaultKind) => {
    stats.faults[k]++;
    stats.totalFaults++;
  };

  const upstream = async (body: string): Promise<{ status: number; text: string }> => {
    const res = await fetch(o.upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return { status: res.status, text: await res.text() };
  };

  const trueHead = async (): Promise<number> => {
    const r = await upstream(
      JSON.stringify({ jsonrpc: '2.0', id: `proxy-${++upstreamId}`, method: 'eth_blockNumber', params: [] }),
    );
    return Number.parseInt(JSON.parse(r.text).result, 16);
  };

  const pick = (items: RpcItem[] | null): FaultKind | null => {
    const applicable = (k: FaultKind) => {
      if (!ITEM_FAULTS.has(k)) return true;
      if (!items) return false;
      if (k === 'nullBlock') return items.some((i) => NULLABLE.has(String(i.method)));
      if (k === 'staleHead')
        return items.some((i) => i.method === 'eth_blockNumber' || i.method === 'eth_getBlockByNumber');
      if (k === 'traceItemError') return items.some((i) => i.method === 'debug_traceBlockByNumber');
      return true;
    };
    const fi = forced.findIndex(applicable);
    if (fi >= 0) return forced.splice(fi, 1)[0];
    if (!sched || rand() >= sched.rate) return null;
    const kinds = (sched.kinds ?? FAULT_KINDS).filter(applicable);
    if (!kinds.length) return null;
    const w = kinds.map((k) => sched!.weights?.[k] ?? 1);
    let x = rand() * w.reduce((a, b) => a + b, 0);
    for (let i = 0; i < kinds.length; i++) {
      x -= w[i];
      if (x < 0) return kinds[i];
    }
    return kinds[kinds.length - 1];
  };

  const reply = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    if (res.destroyed || res.writableEnded) return;
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      ...headers,
    });
    res.end(body);
  };

  /**
   * Answers a parsed request (single or batch), applying the stale-head cap (fixed or per request)
   * and an optional item fault; only the items not answered here go to the node.
   */
  const answer = async (
    items: RpcItem[],
    cap: number | null,
    itemFault: FaultKind | null,
  ): Promise<unknown[]> => {
    const out: unknown[] = new Array(items.length);
    let applied = false;
    const gen = generation;
    const toNode: Array<{ i: number; item: RpcItem }> = [];
    let faultAt = -1;
    if (itemFault === 'rangeError') faultAt = Math.floor(rand() * items.length);
    if (itemFault === 'nullBlock' || itemFault === 'traceItemError') {
      const eligible = items
        .map((it, i) =>
          (
            itemFault === 'nullBlock'
              ? NULLABLE.has(String(it.method))
              : it.method === 'debug_traceBlockByNumber'
          )
            ? i
            : -1,
        )
        .filter((i) => i >= 0);
      faultAt = eligible[Math.floor(rand() * eligible.length)];
    }
    for (let i = 0; i < items.length; i++) {
      const it = items[i];
      if (isLost(it)) {
        out[i] = String(it.method).startsWith('debug_')
          ? { jsonrpc: '2.0', id: it.id, error: { code: -32000, message: 'block not found' } }
          : { jsonrpc: '2.0', id: it.id, result: null };
        continue;
      }
      if (i === faultAt && itemFault === 'rangeError') {
        out[i] = {
          jsonrpc: '2.0',
          id: it.id,
          error: { code: -32005, message: RANGE_MESSAGES[Math.floor(rand() * 2)] },
        };
        continue;
      }
      if (i === faultAt && itemFault === 'nullBlock') {
        out[i] = { jsonrpc: '2.0', id: it.id, result: null };
        continue;
      }
      if (it.method === 'debug_traceTransaction' && Array.isArray(it.params)) {
        const until = stickyTrace.get(String(it.params[0]).toLowerCase());
        if (until !== undefined && Date.now() < until) {
          out[i] = { jsonrpc: '2.0', id: it.id, error: { code: -32000, message: TRACE_TIMEOUT } };
          continue;
        }
      }
      if (cap !== null && it.method === 'eth_getBlockByNumber' && Array.isArray(it.params)) {
        const tag = it.params[0];
        const n = typeof tag === 'string' && tag.startsWith('0x') ? Number.parseInt(tag, 16) : null;
        if (n !== null && n > cap) {
          out[i] = { jsonrpc: '2.0', id: it.id, result: null };
          continue;
        }
        if (n === null && (tag === 'latest' || tag === 'pending' || tag === 'safe' || tag === 'finalized')) {
          toNode.push({ i, item: { ...it, params: [`0x${cap.toString(16)}`, ...it.params.slice(1)] } });
          continue;
        }
      }
      toNode.push({ i, item: it });
    }
    if (toNode.length) {
      const r = await upstream(JSON.stringify(toNode.map((x) => x.item)));
      type Answer = { jsonrpc?: string; id?: unknown; result?: unknown; error?: unknown };
      const arr = JSON.parse(r.text) as Answer[];
      const byId = new Map(arr.map((a) => [JSON.stringify(a.id), a]));
      for (const { i, item } of toNode) {
        const a: Answer = byId.get(JSON.stringify(item.id)) ?? {
          jsonrpc: '2.0',
          id: item.id,
          error: { code: -32603, message: 'proxy: no answer' },
        };
        if (cap !== null && item.method === 'eth_blockNumber' && typeof a.result === 'string') {
          const n = Number.parseInt(a.result, 16);
          out[i] = { ...a, result: `0x${Math.min(n, cap).toString(16)}` };
        } else if (
          i === faultAt &&
          itemFault === 'traceItemError' &&
          Array.isArray(a.result) &&
          a.result.length
        ) {
          const traces = [...(a.result as Array<{ txHash?: string }>)];
          const j = Math.floor(rand() * traces.length);
          const txHash = traces[j]?.txHash;
          traces[j] = { txHash, error: TRACE_TIMEOUT } as { txHash?: string };
          if (txHash) stickyTrace.set(txHash.toLowerCase(), Date.now() + (sched?.traceStickyMs ?? 3_000));
          out[i] = { ...a, result: traces };
          count('traceItemError');
          applied = true;
        } else if (rewrite && a.result !== undefined) {
          const p = item as { method?: string; params?: unknown[] };
          const changed = rewrite(String(p.method), p.params ?? [], a.result);
          if (changed !== undefined) stats.rewrites++;
          out[i] = changed === undefined ? a : { ...a, result: changed };
        } else out[i] = a;
      }
    }
    // Not applicable after all (an empty block, or the node failed the item): try a later request.
    if (itemFault === 'traceItemError' && !applied && generation === gen) forced.push('traceItemError');
    return out;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    stats.requests++;
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(raw);
    } catch {}
    const batch = Array.isArray(parsed);
    const items: RpcItem[] | null =
      parsed && typeof parsed === 'object' ? ((batch ? parsed : [parsed]) as RpcItem[]) : null;
    if (items) {
      stats.items += items.length;
      for (const it of items) stats.methods[String(it.method)] = (stats.methods[String(it.method)] ?? 0) + 1;
    }
    if (latency) await sleep(latency);
    const fault = pick(items);
    // A trace item fault is counted where it applies (a block with transactions), see answer().
    if (fault && fault !== 'traceItemError') count(fault);
    switch (fault) {
      case 'drop':
        // Sometimes right away, sometimes after the node had time to answer.
        if (rand() < 0.5) await sleep(rand() * 50);
        req.socket.destroy();
        return;
      case 'refuse':
        req.socket.destroy();
        void api.restartUpstream(sched?.refuseMs ?? 300);
        return;
      case 'http429':
        reply(
          res,
          429,
          JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: 429, message: 'Too Many Requests' } }),
          {
            'retry-after': '1',
          },
        );
        return;
      case 'http5xx': {
        const s = [500, 502, 503, 504][Math.floor(rand() * 4)];
        const body = `<html><head><title>${s}</title></head><body>upstream error</body></html>`;
        res.writeHead(s, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(body) });
        res.end(body);
        return;
      }
      case 'malformed': {
        const bodies = [
          '{"jsonrpc":"2.0","id":',
          '<!DOCTYPE html><html>Bad Gateway</html>',
          '',
          '{"jsonrpc":"2.0","id":1,"result":0x12}',
          'null',
          '\u0000\u0001\u0002',
        ];
        reply(res, 200, bodies[Math.floor(rand() * bodies.length)]);
        return;
      }
      case 'delay':
        await sleep(rand() * (sched?.maxDelayMs ?? 1500));
        break;
      default:
        break;
    }
    if (!items) {
      // Not JSON at all: pass through untouched.
      const r = await upstream(raw);
      reply(res, r.status, r.text);
      return;
    }
    let cap = staleHead;
    if (fault === 'staleHead') {
      const lag = 1 + Math.floor(rand() * (sched?.staleLag ?? 10));
      const t = await trueHead();
      cap = Math.max(0, Math.min(cap ?? t, t - lag));
    }
    const out = await answer(
      items,
      cap,
      fault === 'rangeError' || fault === 'nullBlock' || fault === 'traceItemError' ? fault : null,
    );
    const body = JSON.stringify(batch ? out : out[0]);
    if (fault === 'truncated') {
      const cut = Math.max(1, Math.floor(rand() * (body.length - 1)));
      if (rand() < 0.5) {
        reply(res, 200, body.slice(0, cut));
      } else {
        // Promise the whole body, send part of it, then close the socket.
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.write(body.slice(0, cut), () => req.socket.destroy());
      }
      return;
    }
    if (!fault || fault === 'delay') stats.clean++;
    reply(res, 200, body);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent && !res.destroyed)
        reply(
          res,
          502,
          JSON.stringify({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32603, message: 'proxy: upstream failed' },
          }),
        );
      else req.socket.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as { port: number }).port);
      });
    });
  const closeListener = () =>
    new Promise<void>((r) => {
      server.close(() => r());
      for (const s of sockets) s.destroy();
    });

  const port = await listen(o.port ?? 0);
  const api: RpcProxy = {
    url: `http://127.0.0.1:${port}`,
    port,
    stats: () => structuredClone(stats),
    schedule(s) {
      sched = s;
      generation++;
      if (s) rand = mulberry32(s.seed);
      else forced.length = 0; // faults off: forced ones not yet applied are dropped too
    },
    inject(kind, n = 1) {
      for (let i = 0; i < n; i++) forced.push(kind);
    },
    setStaleHead(n) {
      staleHead = n;
    },
    setLatency(ms) {
      latency = ms;
    },
    setRewrite(fn) {
      rewrite = fn;
    },
    async restartUpstream(ms) {
      if (refusing || closed) return refusing ?? undefined;
      stats.restarts++;
      refusing = (async () => {
        await closeListener();
        await sleep(ms);
        // Re-listen on the same port; retry briefly if the kernel has not released it yet.
        for (let i = 0; ; i++) {
          if (closed) break;
          try {
            await listen(port);
            break;
          } catch (err) {
            if (i > 50) throw err;
            await sleep(20);
          }
        }
        refusing = null;
      })();
      return refusing;
    },
    async dropBlocks(range) {
      if (!range) {
        lost = null;
        return;
      }
      const hashes = new Set<string>();
      const txs = new Set<string>();
      for (let n = range.from; n <= range.to; n++) {
        const r = await upstream(
          JSON.stringify({
            jsonrpc: '2.0',
            id: `proxy-${++upstreamId}`,
            method: 'eth_getBlockByNumber',
            params: [`0x${n.toString(16)}`, false],
          }),
        );
        const b = JSON.parse(r.text).result as { hash: string; transactions: string[] } | null;
        if (!b) throw new Error(`dropBlocks: the node has no block ${n}`);
        hashes.add(b.hash.toLowerCase());
        for (const t of b.transactions) txs.add(t.toLowerCase());
      }
      lost = { ...range, hashes, txs };
    },
    async close() {
      closed = true;
      await refusing?.catch(() => {});
      if (server.listening) await closeListener();
    },
  };
  return api;
}
