/**
 * JSON-RPC over HTTP that answers each result with the node's own JSON text beside its parsed
 * value: the decode workers store blocks, transactions and receipts as the bytes the node sent
 * (sliced out of the answer, rpc/json-spans.ts) instead of serialising the parsed objects again.
 * Calls made in the same turn go out as one batch request (up to {@link BATCH_SIZE}); each call
 * retries on its own with bounded exponential backoff and full jitter, as {@link createRpc} does.
 */

import { MAX_BACKOFF_MS, RETRYABLE_CODES, RpcError, type RpcOptions, sleep } from './client.js';
import { elementSpans, memberSpan, type Span, skipSpace } from './json-spans.js';

/** A result as parsed, and its JSON text as the node sent it. */
export interface RawResult<T> {
  value: T;
  text: string;
}

/** A JSON-RPC caller answering results with their text ({@link createRawRpc}). */
export interface RawRpc {
  /**
   * Calls `method`; the result's value and its text.
   * @throws RpcError after retries are exhausted (`code`: the node's JSON-RPC error code, if any).
   */
  callRaw<T = unknown>(method: string, params?: unknown[]): Promise<RawResult<T>>;
}

/** Calls per batch request at most (viem's batch size in createRpc). */
const BATCH_SIZE = 100;

/** One failure of one attempt: whether another attempt may succeed, and the node's code. */
class AttemptError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly code?: number,
  ) {
    super(message);
  }
}

interface Pending {
  id: number;
  method: string;
  params: unknown[];
  resolve: (r: RawResult<unknown>) => void;
  reject: (e: AttemptError) => void;
}

/** Parses one JSON-RPC answer envelope `text`: its id, and its result (value and text) or error. */
function envelopeOf(text: string): { id: unknown; result?: RawResult<unknown>; error?: AttemptError } {
  const env = JSON.parse(text) as {
    id?: unknown;
    result?: unknown;
    error?: { code?: number; message?: string };
  };
  if (env.error) {
    const code = typeof env.error.code === 'number' ? env.error.code : undefined;
    return {
      id: env.id,
      error: new AttemptError(
        String(env.error.message ?? 'error'),
        code !== undefined && RETRYABLE_CODES.has(code),
        code,
      ),
    };
  }
  const span: Span | null = memberSpan(text, 0, 'result');
  if (!span) return { id: env.id, error: new AttemptError('answer without result or error', true) };
  return { id: env.id, result: { value: env.result, text: text.slice(span.start, span.end) } };
}

/** Creates a {@link RawRpc} for the node at `opts.url` (same options as createRpc). */
export function createRawRpc(opts: RpcOptions): RawRpc {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const maxAttempts = opts.maxAttempts ?? 6;
  const base = opts.baseDelayMs ?? 100;
  const signal = opts.signal;
  // Credentials in the URL (https://user:pass@host/…) go in an Authorization header: fetch refuses
  // a URL that carries them.
  const target = new URL(opts.url);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (target.username || target.password) {
    const user = decodeURIComponent(target.username);
    const pass = decodeURIComponent(target.password);
    headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
    target.username = '';
    target.password = '';
  }
  const url = target.toString();
  let nextId = 1;
  let queue: Pending[] = [];

  /** Sends one batch; every call in it is settled (resolved, or rejected with its attempt's error). */
  const send = async (batch: Pending[]): Promise<void> => {
    const fail = (e: AttemptError) => {
      for (const p of batch) p.reject(e);
    };
    let text: string;
    try {
      const body = JSON.stringify(
        batch.map((p) => ({ jsonrpc: '2.0', id: p.id, method: p.method, params: p.params })),
      );
      const timeout = AbortSignal.timeout(timeoutMs);
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      text = await res.text();
      if (!res.ok)
        return fail(
          new AttemptError(
            `HTTP ${res.status}: ${text.slice(0, 200)}`,
            res.status === 429 || res.status >= 500,
          ),
        );
    } catch (err) {
      // Network failures, timeouts and a body cut short are worth another attempt.
      return fail(new AttemptError(String((err as Error)?.message ?? err), true));
    }
    try {
      const start = skipSpace(text, 0);
      if (text.charCodeAt(start) !== 0x5b) {
        // One envelope for the whole batch: the node refused the request as such.
        const { error } = envelopeOf(text.slice(start));
        return fail(error ?? new AttemptError('batch answered by a single result', true));
      }
      const byId = new Map<unknown, ReturnType<typeof envelopeOf>>();
      for (const s of elementSpans(text, start)) {
        const env = envelopeOf(text.slice(s.start, s.end));
        byId.set(env.id, env);
      }
      for (const p of batch) {
        const env = byId.get(p.id);
        if (!env) p.reject(new AttemptError('no answer for this call in the batch', true));
        else if (env.error) p.reject(env.error);
        else p.resolve(env.result!);
      }
    } catch (err) {
      fail(new AttemptError(`malformed JSON answer: ${String((err as Error)?.message ?? err)}`, true));
    }
  };

  const flush = () => {
    const all = queue;
    queue = [];
    for (let i = 0; i < all.length; i += BATCH_SIZE) void send(all.slice(i, i + BATCH_SIZE));
  };

  /** One attempt: queued with the other calls of this turn. */
  const attempt = (method: string, params: unknown[]) =>
    new Promise<RawResult<unknown>>((resolve, reject) => {
      if (!queue.length) queueMicrotask(flush);
      queue.push({ id: nextId++, method, params, resolve, reject });
    });

  const aborted = (method: string) =>
    new RpcError(
      `${method} abandoned: ${String(signal?.reason?.message ?? signal?.reason ?? 'aborted')}`,
      method,
      false,
    );

  return {
    async callRaw<T>(method: string, params: unknown[] = []): Promise<RawResult<T>> {
      for (let n = 1; ; n++) {
        if (signal?.aborted) throw aborted(method);
        const t0 = performance.now();
        try {
          const r = (await attempt(method, params)) as RawResult<T>;
          opts.onTiming?.(method, (performance.now() - t0) / 1000, true);
          return r;
        } catch (err) {
          opts.onTiming?.(method, (performance.now() - t0) / 1000, false);
          if (signal?.aborted) throw aborted(method);
          const e = err as AttemptError;
          if (!e.retryable || n >= maxAttempts)
            throw new RpcError(`${method} failed: ${e.message.split('\n')[0]}`, method, e.retryable, e.code, {
              cause: err,
            });
          opts.onRetry?.(method, err);
          await sleep(Math.random() * Math.min(MAX_BACKOFF_MS, base * 2 ** (n - 1)), signal);
        }
      }
    },
  };
}
