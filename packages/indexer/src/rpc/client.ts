/**
 * JSON-RPC access with bounded exponential backoff and jitter, built on viem's transport.
 * Returns raw JSON-RPC results (no viem formatting) so canonical records stay byte-exact.
 */
import { createClient, HttpRequestError, http, RpcRequestError, TimeoutError } from 'viem';

/** Options of {@link createRpc}. */
export interface RpcOptions {
  url: string;
  /** Per-request timeout, milliseconds. */
  timeoutMs?: number;
  /** Attempts for retryable failures (429, 5xx, timeouts, dropped connections) before giving up. */
  maxAttempts?: number;
  /** First backoff delay, milliseconds; doubles per attempt up to {@link MAX_BACKOFF_MS}, with full jitter. */
  baseDelayMs?: number;
  /** Called once per retry, for metrics. */
  onRetry?: (method: string, err: unknown) => void;
  /** Called with each request's duration in seconds, for metrics. */
  onTiming?: (method: string, seconds: number, ok: boolean) => void;
  /**
   * Aborts every call of this client, in flight or waiting to retry, and every later one (shutdown):
   * they reject at once with a non-retryable {@link RpcError}, whatever the node does.
   */
  signal?: AbortSignal;
}

/** Backoff ceiling: long enough for a rate limiter to refill, short enough to keep up with a chain. */
export const MAX_BACKOFF_MS = 5_000;

/** A raw JSON-RPC caller. `call` throws {@link RpcError} after retries are exhausted. */
export interface Rpc {
  call<T = unknown>(method: string, params?: unknown[]): Promise<T>;
}

/** A JSON-RPC failure after retries; `retryable` says whether the node might answer later. */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    message: string,
    readonly method: string,
    readonly retryable: boolean,
    readonly code?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** JSON-RPC error codes that are transient on most nodes: limit exceeded, internal error, rate limit. */
export const RETRYABLE_CODES: ReadonlySet<number> = new Set([-32005, -32603, 429, -32016]);

/** The JSON-RPC `code` of a viem error, looked up along its `cause` chain. */
export function rpcCodeOf(err: unknown): number | undefined {
  for (
    let e = err as { code?: unknown; cause?: unknown } | undefined, i = 0;
    e && i < 8;
    e = e.cause as typeof e, i++
  ) {
    if (typeof e.code === 'number') return e.code;
  }
  return undefined;
}

/** Whether a failure is worth retrying: rate limits, server errors, timeouts, broken connections, bad JSON. */
export function isRetryable(err: unknown): boolean {
  if (err instanceof TimeoutError) return true;
  if (err instanceof HttpRequestError) {
    const s = err.status;
    return s === undefined || s === 429 || s >= 500;
  }
  // viem wraps JSON-RPC errors in typed classes (LimitExceededRpcError for -32005, …): decide on
  // the code wherever it sits in the cause chain, not on the class.
  const code = rpcCodeOf(err);
  if (code !== undefined && RETRYABLE_CODES.has(code)) return true;
  if (err instanceof RpcRequestError) return false;
  const msg = String((err as Error)?.message ?? err);
  return /fetch failed|ECONNRESET|ECONNREFUSED|socket|JSON|Unexpected|terminated|aborted/i.test(msg);
}

/** Sleeps `ms`, or less when `signal` aborts first. */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((r) => {
    if (signal?.aborted) return r();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      r();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** Creates a raw JSON-RPC caller over HTTP (batching concurrent calls into one HTTP request). */
export function createRpc(opts: RpcOptions): Rpc {
  const client = createClient({
    // 30 s per request: a dense block's receipts, or a busy node, can take well over viem's default 10 s.
    transport: http(opts.url, {
      timeout: opts.timeoutMs ?? 30_000,
      retryCount: 0,
      batch: { batchSize: 100, wait: 0 },
      ...(opts.signal ? { fetchOptions: { signal: opts.signal } } : {}),
    }),
  });
  const maxAttempts = opts.maxAttempts ?? 6;
  const base = opts.baseDelayMs ?? 100;
  const signal = opts.signal;
  const aborted = (method: string, cause?: unknown) =>
    new RpcError(
      `${method} abandoned: ${String(signal?.reason?.message ?? signal?.reason ?? 'aborted')}`,
      method,
      false,
      undefined,
      {
        cause,
      },
    );
  return {
    async call<T>(method: string, params: unknown[] = []): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        if (signal?.aborted) throw aborted(method);
        const t0 = performance.now();
        try {
          // biome-ignore lint/suspicious/noExplicitAny: raw request, result typed by caller
          const result = (await client.request({ method: method as any, params: params as any })) as T;
          opts.onTiming?.(method, (performance.now() - t0) / 1000, true);
          return result;
        } catch (err) {
          opts.onTiming?.(method, (performance.now() - t0) / 1000, false);
          if (signal?.aborted) throw aborted(method, err);
          const retryable = isRetryable(err);
          if (!retryable || attempt >= maxAttempts) {
            const code = rpcCodeOf(err);
            throw new RpcError(
              `${method} failed: ${(err as Error).message?.split('\n')[0]}`,
              method,
              retryable,
              code,
              {
                cause: err,
              },
            );
          }
          opts.onRetry?.(method, err);
          const cap = Math.min(MAX_BACKOFF_MS, base * 2 ** (attempt - 1));
          await sleep(Math.random() * cap, signal);
        }
      }
    },
  };
}
