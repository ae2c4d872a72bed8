/**
 * Secret formats: API keys (`sk_live_…`) and dashboard session tokens (`ds_…`), their generation
 * from a CSPRNG, their checksum, and their one stored form (SHA-256 of the whole secret).
 *
 * API key: `sk_live_` + 43 characters of [0-9A-Za-z]: 37 random characters (rejection-sampled
 * from `crypto.randomBytes`, so uniform: 37 × log2 62 ≈ 220 bits) followed by a 6-character
 * checksum, base62 of the CRC-32 of everything before it (the scheme GitHub tokens use). The
 * checksum lets the service refuse a mistyped or truncated key without a directory lookup, and
 * lets secret scanners recognise a real key; it adds nothing to the secret's strength, so the
 * strength is the 220 random bits, far beyond any brute force, and a fast unsalted SHA-256 of
 * the whole key is a sufficient stored form (no password hashing needed for random secrets).
 *
 * Session token: `ds_` + 43 random characters (≈ 256 bits), no checksum; never accepted as a key.
 *
 * Secrets are shown once (on create and roll) and never stored, logged or echoed: only the hash
 * and the display prefix ({@link displayPrefix}) are kept.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

export const KEY_PREFIX = 'sk_live_';
export const SESSION_PREFIX = 'ds_';
/** Characters after `sk_live_` (spec: 43 letters and numbers). */
export const KEY_BODY_CHARS = 43;
/** Trailing characters of the body that are the checksum. */
const CHECKSUM_CHARS = 6;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_RE = /^sk_live_[0-9A-Za-z]{43}$/;
const SESSION_RE = /^ds_[0-9A-Za-z]{43}$/;
/** Characters of a key kept for display (`sk_live_` + 4): identifies a key, reveals ~24 bits. */
const DISPLAY_CHARS = KEY_PREFIX.length + 4;

/** `n` uniformly random base62 characters from the CSPRNG (rejection sampling, no modulo bias). */
export function randomBase62(n: number): string {
  let out = '';
  while (out.length < n) {
    for (const b of randomBytes(n * 2)) {
      // 248 = 4 × 62: bytes ≥ 248 would favour the first characters, so they are dropped.
      if (b < 248) out += ALPHABET[b % 62];
      if (out.length === n) break;
    }
  }
  return out;
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (IEEE 802.3) of an ASCII string. */
function crc32(s: string): number {
  let c = 0xffffffff;
  for (let i = 0; i < s.length; i++) c = CRC_TABLE[(c ^ s.charCodeAt(i)) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The checksum characters of a key's leading part: base62 of its CRC-32, left-padded to 6. */
function checksum(head: string): string {
  let n = crc32(head);
  let s = '';
  for (let i = 0; i < CHECKSUM_CHARS; i++) {
    s = ALPHABET[n % 62] + s;
    n = Math.floor(n / 62);
  }
  return s;
}

/** A freshly generated secret: the text (shown once), its SHA-256 and its display prefix. */
export interface NewSecret {
  secret: string;
  hash: Buffer;
  prefix: string;
}

/** Generates a new API key from the CSPRNG. */
export function generateKey(): NewSecret {
  const head = KEY_PREFIX + randomBase62(KEY_BODY_CHARS - CHECKSUM_CHARS);
  const secret = head + checksum(head);
  return { secret, hash: hashSecret(secret), prefix: displayPrefix(secret) };
}

/** Generates a new dashboard session token from the CSPRNG. */
export function generateSessionToken(): NewSecret {
  const secret = SESSION_PREFIX + randomBase62(KEY_BODY_CHARS);
  return { secret, hash: hashSecret(secret), prefix: secret.slice(0, SESSION_PREFIX.length + 4) };
}

/** True when `s` has the key format and a correct checksum (no lookup needed to refuse it). */
export function keyWellFormed(s: string): boolean {
  return KEY_RE.test(s) && checksum(s.slice(0, -CHECKSUM_CHARS)) === s.slice(-CHECKSUM_CHARS);
}

/** True when `s` has the session token format. */
export function sessionWellFormed(s: string): boolean {
  return SESSION_RE.test(s);
}

/** The stored form of a secret: SHA-256 of its whole text. */
export function hashSecret(secret: string): Buffer {
  // One-shot: no Hash object (and its weak handle for the scavenger) per request.
  return hash('sha256', secret, 'buffer');
}

/** Constant-time equality of two hashes (the lookup is by hash; this confirms the match). */
export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The part of a key kept for display and support: `sk_live_` and its first 4 characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_CHARS);
}

/**
 * True when a URL path or query carries something that looks like a key: `sk_live_` in the raw
 * text or after percent-decoding. Deliberately broad (a malformed or truncated key in a URL is
 * still a leaked key).
 */
export function urlCarriesKey(rawUrlPart: string): boolean {
  if (rawUrlPart.includes(KEY_PREFIX)) return true;
  if (!rawUrlPart.includes('%')) return false;
  try {
    return decodeURIComponent(rawUrlPart.replace(/\+/g, ' ')).includes(KEY_PREFIX);
  } catch {
    return /sk(%5f|_)live(%5f|_)/i.test(rawUrlPart);
  }
}

/** The first well-formed key found in a URL part (to attribute the leak), or null. */
export function keyInUrl(rawUrlPart: string): string | null {
  let text = rawUrlPart;
  try {
    text = decodeURIComponent(rawUrlPart.replace(/\+/g, ' '));
  } catch {
    // keep the raw text: a key has no characters that need encoding
  }
  const m = /sk_live_[0-9A-Za-z]{43}/.exec(text);
  return m && keyWellFormed(m[0]) ? m[0] : null;
}
