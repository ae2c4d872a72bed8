/**
 * The console's link to the indexer: the API key (kept in this tab's sessionStorage only), the
 * console session (chains, scopes, stream cookie for EventSource), the typed client of the
 * contract (packages/client) and a small hook that loads an answer, refreshes it and keeps the error
 * envelope intact (a 503 names its projection; nothing is turned into zeros).
 */

import { createIndexerClient, type IndexerClient } from '@chain-indexer/client';
import { useEffect, useRef, useState } from 'preact/hooks';

export type { components } from '@chain-indexer/client';

const KEY_SLOT = 'indexer-console.key';

/** What POST /console/session answers for a key. */
export interface Session {
  key: string;
  chains: string[];
  scopes: string[];
  /** Seconds the stream cookie lives, null when the key has no `stream` scope. */
  stream: { expiresInSeconds: number } | null;
}

/** The error envelope of every refusal (`{error, detail, ...context}`). */
export interface ErrorBody {
  error: string;
  detail: string;
  projection?: string;
  status?: string;
  progress?: number | null;
  reason?: string | null;
  [k: string]: unknown;
}

export const savedKey = (): string | null => sessionStorage.getItem(KEY_SLOT);
export const forgetKey = (): void => sessionStorage.removeItem(KEY_SLOT);

/** The embedded devnet's dev key when the indexer offers it (loopback only), else null. */
export async function offeredDevKey(): Promise<string | null> {
  try {
    const r = await fetch('/console/dev-key', { cache: 'no-store' });
    if (!r.ok) return null;
    return ((await r.json()) as { key?: string }).key ?? null;
  } catch {
    return null;
  }
}

/**
 * Opens (or renews) the console session for `key`; remembers the key in sessionStorage.
 * @throws Error with the server's detail when the key is refused.
 */
export async function openSession(key: string): Promise<Session> {
  const r = await fetch('/console/session', { method: 'POST', headers: { 'x-api-key': key } });
  const body = (await r.json().catch(() => null)) as (Omit<Session, 'key'> & Partial<ErrorBody>) | null;
  if (!r.ok || !body) throw new Error(body?.detail ?? `session refused (${r.status})`);
  sessionStorage.setItem(KEY_SLOT, key);
  return { key, chains: body.chains, scopes: body.scopes, stream: body.stream };
}

let client: IndexerClient | null = null;
let clientKey = '';
/** The typed client for `key` (one per key). */
export function api(key: string): IndexerClient {
  if (!client || clientKey !== key) {
    client = createIndexerClient({ baseUrl: location.origin, apiKey: key });
    clientKey = key;
  }
  return client;
}

/** A loaded answer: loading, the 200 body, or the refusal as the server sent it. */
export type Answer<T> =
  | { kind: 'loading' }
  | { kind: 'ok'; body: T }
  | { kind: 'error'; status: number; body: ErrorBody };

type Loaded<T> = { data?: T; error?: unknown; response: Response };

/**
 * Loads `load()` now and every `refreshMs` (0: once), again whenever `deps` change. Keeps the last
 * answer while a refresh is in flight.
 */
export function useApi<T>(load: () => Promise<Loaded<T>>, deps: unknown[], refreshMs = 0): Answer<T> {
  const [a, setA] = useState<Answer<T>>({ kind: 'loading' });
  const gen = useRef(0);
  useEffect(() => {
    const my = ++gen.current;
    setA({ kind: 'loading' });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      let next: Answer<T>;
      try {
        const r = await load();
        next =
          r.data !== undefined
            ? { kind: 'ok', body: r.data }
            : { kind: 'error', status: r.response.status, body: asError(r.error, r.response.status) };
      } catch (e) {
        next = { kind: 'error', status: 0, body: { error: 'network', detail: String(e) } };
      }
      if (my !== gen.current) return;
      setA(next);
      if (refreshMs > 0) timer = setTimeout(run, refreshMs);
    };
    void run();
    return () => {
      gen.current++;
      clearTimeout(timer);
    };
  }, deps);
  return a;
}

function asError(e: unknown, status: number): ErrorBody {
  if (e && typeof e === 'object' && 'error' in e) return e as ErrorBody;
  return { error: `http_${status}`, detail: typeof e === 'string' ? e : JSON.stringify(e) };
}

/** Renews the stream cookie before it expires, while the tab is open. Returns a stop function. */
export function keepStreamSession(s: Session, onExpired: () => void): () => void {
  if (!s.stream) return () => undefined;
  const every = Math.max(30, s.stream.expiresInSeconds / 2) * 1000;
  const t = setInterval(() => {
    openSession(s.key).catch(onExpired);
  }, every);
  return () => clearInterval(t);
}
