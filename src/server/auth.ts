/**
 * API keys and scopes. Keys are held only as SHA-256 hashes (@noble/hashes) and never logged;
 * a presented key is hashed and looked up, so no comparison runs over the secret itself.
 * A scanner-API secret (`sk_live_…`) never authorizes the indexer.
 */
import { readFileSync } from 'node:fs';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
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
}

export const hashKey = (key: string): string => bytesToHex(sha256(new TextEncoder().encode(key)));

/**
 * Loads keys from a JSON file: `[{name, key | sha256, scopes}]`. Plain `key` entries are hashed
 * at load and the plain text dropped.
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
  return rows.map((r) => {
    const scopes = r.scopes ?? ['read'];
    for (const s of scopes)
      if (!ALL_SCOPES.includes(s)) throw new Error(`keys file: unknown scope ${s} for key ${r.name}`);
    const h = r.sha256 ?? (r.key ? hashKey(r.key) : null);
    if (!h || !/^[0-9a-f]{64}$/.test(h))
      throw new Error(`keys file: key ${r.name} needs "key" or a hex "sha256"`);
    return { name: r.name, sha256: h, scopes, rateLimits: r.rateLimits, maxStreams: r.maxStreams };
  });
}

export function createAuth(keys: KeyConfig[]): Auth {
  const byHash = new Map<string, Principal>();
  for (const k of keys) {
    byHash.set(k.sha256, {
      name: k.name,
      scopes: new Set(k.scopes),
      rateLimits: k.rateLimits,
      maxStreams: k.maxStreams ?? 8,
    });
  }
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
  };
}
