/**
 * API keys and scopes. Keys are held only as SHA-256 hashes (node:crypto) and never logged;
 * a presented key is hashed and looked up, so no comparison runs over the secret itself.
 * A scanner-API secret (`sk_live_…`) never authorizes the indexer.
 */
import { hash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rememberSecrets } from '@chain-indexer/platform/security';
import { ApiError } from './errors.js';
import type { RateLimit } from './rate-limit.js';
import type { Scope } from './route.js';

export const ALL_SCOPES: readonly Scope[] = ['read', 'wallet', 'rpc', 'monitoring', 'stream'];

/** A configured key: `sha256` is the hex SHA-256 of the key string. */
export interface KeyConfig {
  name: string;
  sha256: string;
  scopes: Scope[];
  /** Per route class limits; a class without one is unlimited for this key. */
  rateLimits?: Partial<Record<Scope, RateLimit>>;
  /** Open streams allowed at once (default 8). */
  maxStreams?: number;
}

export interface Principal {
  name: string;
  scopes: ReadonlySet<Scope>;
  rateLimits?: Partial<Record<Scope, RateLimit>>;
  maxStreams: number;
}

export interface Auth {
  /**
   * Resolves the `x-api-key` header to a principal.
   * @throws ApiError unauthorized (401) when missing, unknown or a scanner key.
   */
  authenticate(key: string | undefined): Principal;
  /** @throws ApiError insufficient_scope (403). */
  authorize(p: Principal, scope: Scope): void;
  /**
   * Issues a stream session for a principal holding the `stream` scope: a random 32-byte token
   * (base64url) valid {@link STREAM_SESSION_SECONDS}, held here only as its SHA-256. The console
   * puts it in an HttpOnly cookie so `EventSource` (which cannot set headers) can open streams.
   * A key holds at most {@link MAX_STREAM_SESSIONS_PER_KEY}: past it, its own oldest is dropped.
   * @throws ApiError insufficient_scope (403) when the principal lacks `stream`.
   */
  issueStreamSession(p: Principal): { token: string; expiresInSeconds: number };
  /**
   * Resolves a stream-session token to the principal it was issued for, or null when unknown or
   * expired. Only stream routes accept it (src/server/index.ts).
   */
  streamSession(token: string): Principal | null;
}

/** Lifetime of a stream session, seconds; the console renews it well before it ends. */
export const STREAM_SESSION_SECONDS = 600;
/**
 * Stream sessions one key holds at once (sessions); past it that key's oldest is dropped. A key's
 * sessions never drop another key's. The console opens one per tab and renews it when refused;
 * a key streams at most 8 at once anyway.
 */
export const MAX_STREAM_SESSIONS_PER_KEY = 32;
/**
 * Stream sessions held at once by the process (sessions); past it the oldest session of the key
 * holding the most is dropped (so still never one of a key holding fewer).
 */
const MAX_STREAM_SESSIONS = 10_000;
/** Name of the cookie carrying a stream session. */
export const STREAM_SESSION_COOKIE = 'ix_stream';

/**
 * The hex SHA-256 of a key's UTF-8 bytes: what the keys file and the lookup compare. Runs on every
 * keyed request: node's one-shot native hash (`crypto.hash`), which makes no `Hash` object. A
 * `createHash` per request left one object with a weak handle per read for the serving thread's
 * scavenges to process: 4.3–4.6 ms of each 5.5–5.9 ms scavenge under a c=1 read loop, against
 * 0.6–0.8 ms without (bench/results/engine-thread-2026-11-29-ninth.md).
 */
export const hashKey = (key: string): string => hash('sha256', key, 'hex');

/**
 * Loads keys from a JSON file: `[{name, key | sha256, scopes}]`. Plain `key` entries are hashed
 * at load and the plain text dropped, after being recorded with the one redaction (masked by
 * value in every log line, error body and /health field).
 */
export function loadKeysFile(path: string): KeyConfig[] {
  const rows = JSON.parse(readFileSync(path, 'utf8')) as Array<{
    name: string;
    key?: string;
    sha256?: string;
    scopes?: Scope[];
    rateLimits?: Partial<Record<Scope, RateLimit>>;
    maxStreams?: number;
  }>;
  const names = new Set<string>();
  return rows.map((r) => {
    // A key's name is its identity for rate limits and the open-stream ceiling: one key per name.
    if (typeof r.name !== 'string' || r.name === '') throw new Error('keys file: every key needs a name');
    if (names.has(r.name)) throw new Error(`keys file: the name "${r.name}" is given to two keys`);
    names.add(r.name);
    const scopes = r.scopes ?? ['read'];
    for (const s of scopes)
      if (!ALL_SCOPES.includes(s)) throw new Error(`keys file: unknown scope ${s} for key ${r.name}`);
    // A plain key is a secret of the configuration: masked by value from here on (redact.ts).
    if (r.key) rememberSecrets([r.key]);
    const h = r.sha256 ?? (r.key ? hashKey(r.key) : null);
    if (!h || !/^[0-9a-f]{64}$/.test(h))
      throw new Error(`keys file: key ${r.name} needs "key" or a hex "sha256"`);
    return { name: r.name, sha256: h, scopes, rateLimits: r.rateLimits, maxStreams: r.maxStreams };
  });
}

/**
 * The key lookup over `keys`.
 * @throws Error when two keys share a name (DEV_API_KEY is named `dev`) or a key is given twice.
 */
export function createAuth(keys: KeyConfig[]): Auth {
  const byHash = new Map<string, Principal>();
  const names = new Set<string>();
  for (const k of keys) {
    if (names.has(k.name)) throw new Error(`two keys are named "${k.name}" (DEV_API_KEY is named "dev")`);
    if (byHash.has(k.sha256)) throw new Error(`the key named "${k.name}" is the same key as another`);
    names.add(k.name);
    byHash.set(k.sha256, {
      name: k.name,
      scopes: new Set(k.scopes),
      rateLimits: k.rateLimits,
      maxStreams: k.maxStreams ?? 8,
    });
  }
  /** Token hash → session; and per key name, its sessions' token hashes, oldest first. */
  const sessions = new Map<string, { principal: Principal; expiresAt: number }>();
  const byKey = new Map<string, Set<string>>();
  const drop = (h: string) => {
    const s = sessions.get(h);
    if (!s) return;
    sessions.delete(h);
    const mine = byKey.get(s.principal.name);
    mine?.delete(h);
    if (mine?.size === 0) byKey.delete(s.principal.name);
  };
  const oldestOf = (hashes: Set<string>) => hashes.values().next().value as string;
  return {
    authenticate(key) {
      if (!key) throw new ApiError('unauthorized', 'missing x-api-key header');
      if (key.startsWith('sk_live_')) {
        throw new ApiError(
          'unauthorized',
          'a scanner API secret key (sk_live_) does not authorize the indexer',
        );
      }
      const p = key.length <= 256 ? byHash.get(hashKey(key)) : undefined;
      if (!p) throw new ApiError('unauthorized', 'unknown API key');
      return p;
    },
    authorize(p, scope) {
      if (!p.scopes.has(scope)) throw new ApiError('insufficient_scope', `this route needs scope "${scope}"`);
    },
    issueStreamSession(p) {
      this.authorize(p, 'stream');
      const now = Date.now();
      for (const [h, s] of sessions) if (s.expiresAt <= now) drop(h);
      let mine = byKey.get(p.name);
      while (mine && mine.size >= MAX_STREAM_SESSIONS_PER_KEY) drop(oldestOf(mine));
      while (sessions.size >= MAX_STREAM_SESSIONS) {
        let largest: Set<string> | undefined;
        for (const set of byKey.values()) if (!largest || set.size > largest.size) largest = set;
        drop(oldestOf(largest!));
      }
      const token = randomBytes(32).toString('base64url');
      const h = hashKey(token);
      sessions.set(h, { principal: p, expiresAt: now + STREAM_SESSION_SECONDS * 1000 });
      mine = byKey.get(p.name);
      if (!mine) byKey.set(p.name, (mine = new Set()));
      mine.add(h);
      return { token, expiresInSeconds: STREAM_SESSION_SECONDS };
    },
    streamSession(token) {
      if (token.length > 128) return null;
      const h = hashKey(token);
      const s = sessions.get(h);
      if (!s) return null;
      if (s.expiresAt <= Date.now()) {
        drop(h);
        return null;
      }
      return s.principal;
    },
  };
}
