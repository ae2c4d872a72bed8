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

/**
 * A loaded answer: loading, the 200 body, the refusal as the server sent it, or — on a page shown
 * as of a past block — why the section's route does not answer as of a block (nothing asked).
 */
export type Answer<T> =
  | { kind: 'loading' }
  | { kind: 'ok'; body: T }
  | { kind: 'error'; status: number; body: ErrorBody }
  | { kind: 'not_as_of'; path: string; reason: string; block: number };

type Loaded<T> = { data?: T; error?: unknown; response: Response };
/** What a section's loader gives back when its route does not answer as of the block asked. */
type NotAsOf = { notAsOf: { path: string; reason: string; block: number } };

/**
 * Loads `load()` now and every `refreshMs` (0: once), again whenever `deps` change. Keeps the last
 * answer while a refresh is in flight.
 */
export function useApi<T>(
  load: () => Promise<Loaded<T> | NotAsOf>,
  deps: unknown[],
  refreshMs = 0,
): Answer<T> {
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
          'notAsOf' in r
            ? { kind: 'not_as_of', ...r.notAsOf }
            : r.data !== undefined
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

/** The contract's `x-as-of` of every GET path, loaded once per page load (null: takes atBlock). */
let asOfReasons: Promise<Map<string, string | null>> | null = null;

/**
 * Why the GET route `path` (a contract path template, e.g. `/index/v1/{chain}/pools/{address}`)
 * does not answer as of a block, or null when it does: the `x-as-of` the served contract
 * (`GET /index/v1/openapi.json`) declares for it.
 * @throws Error when the contract cannot be loaded or does not list the path.
 */
export async function asOfReasonOf(path: string): Promise<string | null> {
  asOfReasons ??= fetch('/index/v1/openapi.json', { cache: 'no-store' })
    .then((r) => {
      if (!r.ok) throw new Error(`the contract could not be loaded (${r.status})`);
      return r.json() as Promise<{
        paths: Record<string, { get?: { 'x-as-of'?: { supported: boolean; reason?: string } } }>;
      }>;
    })
    .then((doc) => {
      const out = new Map<string, string | null>();
      for (const [p, ops] of Object.entries(doc.paths)) {
        const x = ops.get?.['x-as-of'];
        if (x) out.set(p, x.supported ? null : (x.reason ?? 'no reason given'));
      }
      return out;
    })
    .catch((e) => {
      asOfReasons = null;
      throw e;
    });
  const m = await asOfReasons;
  if (!m.has(path)) throw new Error(`the contract lists no GET ${path}`);
  return m.get(path) ?? null;
}

/**
 * {@link useApi} for a section of a page that may be shown as of block `at` (null: the head).
 * At the head it loads `load({})` every `refreshMs`; at a block it loads `load({atBlock: at})`
 * once when the contract says `path` takes atBlock, and otherwise asks nothing and answers
 * `not_as_of` with the contract's reason (never the head's figures).
 */
export function useApiAt<T>(
  path: string,
  at: number | null,
  load: (asOf: { atBlock?: number }) => Promise<Loaded<T>>,
  deps: unknown[],
  refreshMs = 0,
): Answer<T> {
  return useApi<T>(
    async () => {
      if (at === null) return load({});
      const reason = await asOfReasonOf(path);
      if (reason !== null) return { notAsOf: { path, reason, block: at } };
      return load({ atBlock: at });
    },
    [...deps, at],
    at === null ? refreshMs : 0,
  );
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
