/**
 * The devnet's JSON-RPC front: what answers on `DEVNET_PORT`. anvil itself listens on an internal
 * port with mining off (`--no-mining`); the front forwards every call to it (HTTP, single and
 * batched, and WebSocket, `eth_subscribe` included) and mines the blocks itself with `evm_mine`
 * on its own timer. Every call that changes the chain or traces it goes through one
 * {@link ChainSerialiser} with that miner:
 *  - exclusive: `evm_mine`/`anvil_mine` (and their `_detailed` forms), `anvil_reorg`,
 *    `anvil_rollback`, `evm_snapshot`, `evm_revert`, `anvil_reset`, `anvil_loadState`, the miner's
 *    own blocks, and mining-mode changes (`evm_setIntervalMining`, `anvil_setIntervalMining`,
 *    `evm_setAutomine`, `anvil_setAutomine`), which the front's miner honours itself;
 *  - shared (beside each other, never beside an exclusive call): `debug_trace*`, `trace_*`,
 *    `ots_*`, transaction sends and pool removals (so a send never interleaves with a reorg that
 *    rewrites the pool; with automine on, a send and the block that mines it are one exclusive
 *    call, as anvil's own automine does it).
 * Everything else (reads) passes straight through, byte for byte. So a client's `anvil_reorg` or
 * `evm_mine` never races the miner or a trace: anvil 1.7.1 deadlocks when it mines during
 * `debug_traceBlockByNumber`, and has been seen to lose blocks it had served when a reorg raced
 * its interval miner.
 *
 * A node that does not answer looks the same through the front as without it: a connection that
 * fails upstream is cut downstream (the client sees the socket close), a call that hangs upstream
 * hangs for the client until it gives up.
 */
import {
  Agent,
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';
import { type Access, ChainSerialiser, type SerialiserStats } from './serialiser.js';

/** Methods that produce, replace or roll back blocks, or snapshot and restore the chain. */
const EXCLUSIVE_METHODS = new Set([
  'evm_mine',
  'evm_mine_detailed',
  'anvil_mine',
  'anvil_mine_detailed',
  'anvil_reorg',
  'anvil_rollback',
  'evm_snapshot',
  'evm_revert',
  'anvil_reset',
  'anvil_loadState',
]);
/** Transaction sends: with automine on, each is followed by the block that mines it. */
const SENDS = new Set(['eth_sendRawTransaction', 'eth_sendTransaction', 'eth_sendUnsignedTransaction']);
/** Pool changes that a reorg (which rewrites the pool) must not interleave with. */
const POOL_CHANGES = new Set([
  'anvil_removePoolTransactions',
  'anvil_dropTransaction',
  'anvil_dropAllTransactions',
]);
/** Mining-mode changes and queries: answered by the front, whose miner mines the blocks. */
const MINING_METHODS = new Set([
  'evm_setIntervalMining',
  'anvil_setIntervalMining',
  'evm_setAutomine',
  'anvil_setAutomine',
  'anvil_getAutomine',
  'hardhat_getAutomine',
  'anvil_getIntervalMining',
  'devnet_frontStatus',
]);

/**
 * How the front handles `method`: `front` (answered by the front itself), `exclusive` or `shared`
 * (forwarded in turn, see the module comment), or `pass` (forwarded at once).
 */
export function handlingOf(method: string): Access | 'front' | 'pass' {
  if (MINING_METHODS.has(method)) return 'front';
  if (EXCLUSIVE_METHODS.has(method)) return 'exclusive';
  if (
    SENDS.has(method) ||
    POOL_CHANGES.has(method) ||
    method.startsWith('debug_trace') ||
    method.startsWith('trace_') ||
    method.startsWith('ots_')
  )
    return 'shared';
  return 'pass';
}

/** The JSON-RPC request shape the front looks at (anything else is forwarded untouched). */
interface RpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}
type RpcResponse = Record<string, unknown>;

const methodOf = (r: unknown): string | null =>
  r && typeof r === 'object' && typeof (r as RpcRequest).method === 'string'
    ? ((r as RpcRequest).method as string)
    : null;
const needsFront = (r: unknown) => {
  const m = methodOf(r);
  return m !== null && handlingOf(m) !== 'pass';
};
/** Whether a parsed body (a request or a batch) holds a call the front must handle or order. */
const bodyNeedsFront = (body: unknown) => (Array.isArray(body) ? body.some(needsFront) : needsFront(body));

const rpcError = (id: unknown, code: number, message: string): RpcResponse => ({
  jsonrpc: '2.0',
  id: id ?? null,
  error: { code, message },
});
const rpcResult = (id: unknown, result: unknown): RpcResponse => ({ jsonrpc: '2.0', id: id ?? null, result });

/** Options of {@link startFront}. */
export interface FrontOptions {
  /** Listen address and port (`DEVNET_PORT`; 0 = any free port). */
  host: string;
  port: number;
  /** anvil's internal JSON-RPC URL (`http://127.0.0.1:<internal port>`). */
  upstreamUrl: string;
  /** The miner's block period, ms; 0 = no interval mining. */
  blockTimeMs: number;
  log: (msg: string) => void;
  /** Longest wait for anvil's answer to one ordered call, ms (default 120 000); then the turn ends. */
  orderedCallTimeoutMs?: number;
}

/** The front's mining mode and counters (also answered to `devnet_frontStatus`). */
export interface FrontStatus {
  /** The miner's block period, ms; 0 = interval mining off. */
  intervalMs: number;
  /** Whether each send is mined at once in its own block. */
  automine: boolean;
  /** Blocks the miner mined (not counting clients' `evm_mine`s). */
  blocksMined: number;
  /** Miner ticks whose `evm_mine` failed (node down or hung). */
  mineFailures: number;
  serialiser: SerialiserStats;
}

export interface Front {
  /** The port it listens on. */
  port: number;
  status(): FrontStatus;
  /** Stops the miner, closes every client connection and the listener. */
  close(): Promise<void>;
}

/** A timed-out or failed upstream call in the parsed path. */
class UpstreamError extends Error {
  constructor(
    message: string,
    /** True when anvil could not be reached at all (the client connection is then cut). */
    readonly unreachable: boolean,
  ) {
    super(message);
  }
}

const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'host',
  'upgrade',
]);
function forwardHeaders(h: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !HOP_HEADERS.has(k)) out[k] = v;
  return out;
}

/** Largest request body the front reads, bytes (anvil_loadState carries whole states). */
const MAX_BODY_BYTES = 512 * 1024 * 1024;

/** The connection to anvil: parsed calls, and requests streamed through untouched. */
interface Upstream {
  /** Forwards one request (or batch) and parses the answer. @throws UpstreamError. */
  call(body: unknown): Promise<RpcResponse | RpcResponse[]>;
  /** Streams a request to anvil and its answer back untouched (reads, non-POST requests). */
  pipe(req: IncomingMessage, res: ServerResponse, body: Buffer | null): void;
  close(): void;
}

function createUpstream(url: string, timeoutMs: number): Upstream {
  const up = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: 128 });
  const post = (body: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: up.hostname,
          port: up.port,
          path: up.pathname,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          res.on('error', (e) => reject(new UpstreamError(e.message, false)));
        },
      );
      req.on('timeout', () =>
        req.destroy(new UpstreamError(`anvil did not answer within ${timeoutMs} ms`, false)),
      );
      req.on('error', (e) =>
        reject(e instanceof UpstreamError ? e : new UpstreamError(`anvil unreachable: ${e.message}`, true)),
      );
      req.end(body);
    });
  return {
    async call(body) {
      const text = await post(JSON.stringify(body));
      try {
        return JSON.parse(text) as RpcResponse | RpcResponse[];
      } catch {
        throw new UpstreamError(`anvil answered no JSON: ${text.slice(0, 200)}`, false);
      }
    },
    pipe(req, res, body) {
      const upReq = request(
        {
          host: up.hostname,
          port: up.port,
          path: req.url,
          method: req.method,
          agent,
          headers: { ...forwardHeaders(req.headers), ...(body ? { 'content-length': body.length } : {}) },
        },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, forwardHeaders(upRes.headers));
          upRes.pipe(res);
          upRes.on('error', () => res.destroy());
        },
      );
      // anvil unreachable: cut the client's connection, as a down node would.
      upReq.on('error', () => res.destroy());
      res.on('close', () => {
        if (!res.writableFinished) upReq.destroy();
      });
      if (body) upReq.end(body);
      else req.pipe(upReq);
    },
    close: () => agent.destroy(),
  };
}

/** The miner's mode and counters. */
interface Miner {
  readonly automine: boolean;
  start(): void;
  stop(): void;
  /** One block, inside the caller's exclusive turn (automine). */
  mineNow(): Promise<void>;
  /** Answers a mining-mode call ({@link MINING_METHODS}); changes take an exclusive turn. */
  control(r: RpcRequest, signal: AbortSignal): Promise<RpcResponse>;
  describe(): string;
  status(): FrontStatus;
}

/**
 * The miner: one `evm_mine` per period through the queue (a tick waits its turn behind reorgs
 * and traces; ticks missed meanwhile are skipped, not piled up), and the mining-mode calls.
 */
function createMiner(
  queue: ChainSerialiser,
  upstream: Upstream,
  periodMs: number,
  log: (m: string) => void,
): Miner {
  const s = { intervalMs: periodMs, automine: false, mined: 0, failures: 0 };
  let timer: NodeJS.Timeout | null = null;
  let nextAt = 0;
  /** Bumped by every period change: a tick in flight from an older period schedules nothing. */
  let generation = 0;
  let failing = false;
  let stopped = false;

  const mineOnce = async () => {
    const r = (await upstream.call({ jsonrpc: '2.0', id: 0, method: 'evm_mine', params: [] })) as RpcResponse;
    if (r.error) throw new Error(JSON.stringify(r.error));
    s.mined++;
  };
  const schedule = () => {
    if (stopped || s.intervalMs <= 0) return;
    const gen = generation;
    timer = setTimeout(() => void tick(gen), Math.max(0, nextAt - Date.now()));
  };
  const tick = async (gen: number) => {
    timer = null;
    try {
      await queue.run('exclusive', mineOnce);
      if (failing) log(`front: the miner mines again after ${s.failures} failed tick(s)`);
      failing = false;
    } catch (err) {
      s.failures++;
      if (!failing)
        log(`front: the miner's evm_mine failed (${(err as Error).message}); retrying each period`);
      failing = true;
    }
    if (gen !== generation || stopped) return;
    nextAt += s.intervalMs;
    if (nextAt < Date.now()) nextAt = Date.now() + s.intervalMs; // missed ticks are skipped
    schedule();
  };
  const setPeriod = (ms: number) => {
    generation++;
    if (timer) clearTimeout(timer);
    timer = null;
    s.intervalMs = ms;
    nextAt = Date.now() + ms;
    schedule();
  };
  const describe = () =>
    `mining ${s.intervalMs > 0 ? `every ${s.intervalMs} ms` : 'off'}${s.automine ? ', automine on' : ''}`;
  const status = (): FrontStatus => ({
    intervalMs: s.intervalMs,
    automine: s.automine,
    blocksMined: s.mined,
    mineFailures: s.failures,
    serialiser: queue.stats(),
  });

  return {
    get automine() {
      return s.automine;
    },
    start: () => setPeriod(s.intervalMs),
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
    mineNow: mineOnce,
    describe,
    status,
    async control(r, signal) {
      const method = methodOf(r)!;
      const params = Array.isArray(r.params) ? r.params : [];
      if (method === 'anvil_getAutomine' || method === 'hardhat_getAutomine')
        return rpcResult(r.id, s.automine);
      if (method === 'anvil_getIntervalMining')
        return rpcResult(r.id, s.intervalMs > 0 ? s.intervalMs / 1000 : null);
      if (method === 'devnet_frontStatus') return rpcResult(r.id, status());
      if (method === 'evm_setAutomine' || method === 'anvil_setAutomine') {
        const on = params[0];
        if (typeof on !== 'boolean') return rpcError(r.id, -32602, `${method} takes one boolean`);
        await queue.run('exclusive', async () => void (s.automine = on), signal);
        log(`front: ${method}(${on}): ${describe()}`);
        return rpcResult(r.id, null);
      }
      // evm_setIntervalMining / anvil_setIntervalMining: seconds (fractions allowed); 0 = off.
      const secs = params[0];
      if (typeof secs !== 'number' || !Number.isFinite(secs) || secs < 0)
        return rpcError(r.id, -32602, `${method} takes a number of seconds ≥ 0`);
      await queue.run('exclusive', async () => setPeriod(Math.round(secs * 1000)), signal);
      log(`front: ${method}(${secs}): ${describe()}`);
      return rpcResult(r.id, null);
    },
  };
}

/**
 * Answers a parsed body that holds at least one call the front handles: those in turn (see
 * {@link handlingOf}), the other calls of a batch forwarded together as one batch (anvil answers a
 * batch in request order; notifications get no answer).
 */
function createDispatcher(queue: ChainSerialiser, upstream: Upstream, miner: Miner) {
  const one = async (r: RpcRequest, signal: AbortSignal): Promise<RpcResponse | undefined> => {
    const method = methodOf(r)!;
    const how = handlingOf(method);
    let answer: RpcResponse;
    if (how === 'front') answer = await miner.control(r, signal);
    else {
      // Automine: a send and the block that mines it are one exclusive turn (anvil's automine, ordered).
      const withBlock = SENDS.has(method) && miner.automine;
      answer = await queue.run(
        how === 'exclusive' || withBlock ? 'exclusive' : 'shared',
        async () => {
          const res = (await upstream.call(r)) as RpcResponse;
          if (withBlock && res.error === undefined) await miner.mineNow();
          return res;
        },
        signal,
      );
    }
    return r.id === undefined ? undefined : answer;
  };
  return async (body: unknown, signal: AbortSignal): Promise<RpcResponse | RpcResponse[] | undefined> => {
    if (!Array.isArray(body)) return one(body as RpcRequest, signal);
    const out: Array<RpcResponse | undefined> = new Array(body.length);
    const plain = body.map((r, i) => ({ r: r as RpcRequest, i })).filter(({ r }) => !needsFront(r));
    const tasks = body.map(async (r, i) => {
      if (needsFront(r)) out[i] = await one(r as RpcRequest, signal);
    });
    if (plain.length > 0)
      tasks.push(
        upstream.call(plain.map((p) => p.r)).then((answers) => {
          const list = Array.isArray(answers) ? answers : [answers];
          const withId = plain.filter((p) => p.r.id !== undefined);
          // In order when the counts match (ids may repeat); else by id.
          if (list.length === withId.length)
            withId.forEach((p, k) => {
              out[p.i] = list[k];
            });
          else
            for (const p of withId)
              out[p.i] =
                list.find((a) => a.id === p.r.id) ?? rpcError(p.r.id, -32603, 'devnet front: no answer');
        }),
      );
    await Promise.all(tasks);
    return out.filter((x): x is RpcResponse => x !== undefined);
  };
}

type Dispatch = ReturnType<typeof createDispatcher>;

const readBody = (req: IncomingMessage): Promise<Buffer | null> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        req.destroy();
        resolve(null);
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

const sendJson = (res: ServerResponse, value: unknown) => {
  const text = value === undefined ? '' : JSON.stringify(value);
  res.writeHead(200, {
    'content-type': 'application/json',
    'access-control-allow-origin': '*',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
};

/** One HTTP request: streamed through, or parsed and dispatched (see the module comment). */
async function onHttpRequest(
  req: IncomingMessage,
  res: ServerResponse,
  upstream: Upstream,
  dispatch: Dispatch,
) {
  if (req.method !== 'POST') return upstream.pipe(req, res, null);
  const body = await readBody(req).catch(() => null);
  if (body === null) return void res.writeHead(413).end();
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return upstream.pipe(req, res, body); // anvil answers the parse error
  }
  if (!bodyNeedsFront(parsed)) return upstream.pipe(req, res, body);
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  try {
    sendJson(res, await dispatch(parsed, gone.signal));
  } catch (err) {
    if (gone.signal.aborted) return;
    // anvil unreachable: cut the client's connection, as a down node would.
    if (err instanceof UpstreamError && err.unreachable) return void res.destroy();
    const id = Array.isArray(parsed) ? null : (parsed as RpcRequest).id;
    sendJson(res, rpcError(id, -32603, `devnet front: ${(err as Error).message}`));
  }
}

/**
 * Starts the front (see the module comment) and its miner at `blockTimeMs`. Resolves once it
 * listens. @throws Error when the port cannot be bound.
 */
export async function startFront(o: FrontOptions): Promise<Front> {
  const queue = new ChainSerialiser();
  const upstream = createUpstream(o.upstreamUrl, o.orderedCallTimeoutMs ?? 120_000);
  const miner = createMiner(queue, upstream, o.blockTimeMs, o.log);
  const dispatch = createDispatcher(queue, upstream, miner);
  const server: Server = createServer((req, res) => void onHttpRequest(req, res, upstream, dispatch));
  server.keepAliveTimeout = 60_000;
  const sockets = bridgeWebSockets(server, o.upstreamUrl, dispatch);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : o.port;
  miner.start();
  o.log(`front: listening on ${o.host}:${port} → anvil ${o.upstreamUrl}; ${miner.describe()}`);
  let closed = false;
  return {
    port,
    status: () => miner.status(),
    async close() {
      if (closed) return;
      closed = true;
      miner.stop();
      for (const s of sockets) s.terminate();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      upstream.close();
    },
  };
}

/**
 * WebSocket clients: each gets its own socket to anvil. A message holding a call the front
 * handles or orders goes through `dispatch` (its answer sent back on the client's socket); every
 * other message, `eth_subscribe` included, is forwarded as is, and everything anvil sends
 * (answers, subscription notifications) goes back untouched. @returns the live client sockets.
 */
function bridgeWebSockets(
  server: Server,
  upstreamUrl: string,
  dispatch: (body: unknown, signal: AbortSignal) => Promise<unknown>,
): Set<WebSocket> {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES });
  const clients = new Set<WebSocket>();
  const upBase = upstreamUrl.replace(/^http/, 'ws').replace(/\/$/, '');
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    wss.handleUpgrade(req, socket, head, (client) => {
      clients.add(client);
      const upstream = new WebSocket(`${upBase}${req.url ?? '/'}`, { perMessageDeflate: false });
      const held: Array<WebSocket.RawData> = [];
      const gone = new AbortController();
      const closeBoth = () => {
        gone.abort();
        clients.delete(client);
        if (client.readyState === WebSocket.OPEN || client.readyState === WebSocket.CONNECTING)
          client.terminate();
        if (upstream.readyState === WebSocket.OPEN || upstream.readyState === WebSocket.CONNECTING)
          upstream.terminate();
      };
      upstream.on('open', () => {
        for (const m of held.splice(0)) upstream.send(m, { binary: false });
      });
      upstream.on('message', (data, isBinary) => {
        if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary });
      });
      upstream.on('close', closeBoth);
      upstream.on('error', closeBoth);
      client.on('close', closeBoth);
      client.on('error', closeBoth);
      client.on('message', (data, isBinary) => {
        let parsed: unknown;
        try {
          parsed = isBinary ? undefined : JSON.parse(data.toString());
        } catch {
          parsed = undefined;
        }
        if (parsed !== undefined && bodyNeedsFront(parsed)) {
          dispatch(parsed, gone.signal).then(
            (answer) => {
              if (answer !== undefined && client.readyState === WebSocket.OPEN)
                client.send(JSON.stringify(answer));
            },
            (err: Error) => {
              if (gone.signal.aborted) return;
              const id = Array.isArray(parsed) ? null : (parsed as RpcRequest).id;
              if (client.readyState === WebSocket.OPEN)
                client.send(JSON.stringify(rpcError(id, -32603, `devnet front: ${err.message}`)));
            },
          );
          return;
        }
        if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary: isBinary });
        else held.push(data);
      });
    });
  });
  return clients;
}
