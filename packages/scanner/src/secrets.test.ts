/** Key format, checksum, hashing and the URL check. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  displayPrefix,
  generateKey,
  generateSessionToken,
  hashSecret,
  KEY_BODY_CHARS,
  keyInUrl,
  keyWellFormed,
  randomBase62,
  sessionWellFormed,
  urlCarriesKey,
} from './secrets.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('API key format', () => {
  it('is sk_live_ + 43 letters and digits, passes its own checksum, and is stored as SHA-256 only', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const k = generateKey();
      expect(k.secret).toMatch(/^sk_live_[0-9A-Za-z]{43}$/);
      expect(k.secret.length).toBe(8 + KEY_BODY_CHARS);
      expect(keyWellFormed(k.secret)).toBe(true);
      expect(k.hash.equals(hashSecret(k.secret))).toBe(true);
      expect(k.hash.length).toBe(32);
      expect(k.prefix).toBe(displayPrefix(k.secret));
      expect(k.prefix).toBe(k.secret.slice(0, 12));
      seen.add(k.secret);
    }
    expect(seen.size).toBe(2000);
  });

  it('the checksum refuses every single-character substitution, and truncated or extended keys', () => {
    const k = generateKey().secret;
    let refused = 0;
    for (let i = 8; i < k.length; i++)
      for (const c of ALPHABET) {
        if (c === k[i]) continue;
        expect(keyWellFormed(k.slice(0, i) + c + k.slice(i + 1))).toBe(false);
        refused++;
      }
    expect(refused).toBe(43 * 61);
    expect(keyWellFormed(k.slice(0, -1))).toBe(false);
    expect(keyWellFormed(`${k}a`)).toBe(false);
    expect(keyWellFormed(k.replace('sk_live_', 'sk_test_'))).toBe(false);
    expect(keyWellFormed(` ${k}`)).toBe(false);
  });

  it('random strings of the right shape almost never pass the checksum (CRC-32: ~1 in 4e9)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...ALPHABET.split('')), minLength: 43, maxLength: 43 }),
        (b) => {
          expect(keyWellFormed(`sk_live_${b}`)).toBe(false);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('random characters are uniform over the 62 symbols (chi-square, no modulo bias)', () => {
    const s = randomBase62(62 * 2000);
    const counts = new Map<string, number>();
    for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = 2000;
    let chi = 0;
    for (const n of counts.values()) chi += (n - expected) ** 2 / expected;
    // 61 degrees of freedom: p = 0.0001 at about 112. A modulo-256 bias would give ~500+.
    expect(chi).toBeLessThan(112);
  });
});

describe('session tokens', () => {
  it('are ds_ + 43 characters and never pass as a key', () => {
    const t = generateSessionToken();
    expect(t.secret).toMatch(/^ds_[0-9A-Za-z]{43}$/);
    expect(sessionWellFormed(t.secret)).toBe(true);
    expect(keyWellFormed(t.secret)).toBe(false);
    expect(sessionWellFormed(generateKey().secret)).toBe(false);
  });
});

describe('keys in URLs', () => {
  it('are found raw, percent-encoded, or malformed; the well-formed one is extracted for attribution', () => {
    const k = generateKey().secret;
    expect(urlCarriesKey(`/v1/whoami/${k}`)).toBe(true);
    expect(urlCarriesKey(`key=${k}`)).toBe(true);
    expect(urlCarriesKey(`key=${encodeURIComponent(k).replace(/_/g, '%5F')}`)).toBe(true);
    expect(urlCarriesKey('key=sk_live_short')).toBe(true);
    expect(urlCarriesKey('key=sk%5flive%5fAbc%zz')).toBe(true); // undecodable but still shaped like a key
    expect(urlCarriesKey('/v1/whoami')).toBe(false);
    expect(urlCarriesKey('days=30')).toBe(false);
    expect(keyInUrl(`a=1&key=${k.replace(/_/g, '%5F')}&b=2`)).toBe(k);
    expect(keyInUrl('key=sk_live_short')).toBeNull();
  });
});
