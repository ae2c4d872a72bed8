/**
 * The response cache keeps a large answer's UTF-8 bytes with it (written as they are on every hit)
 * and counts them against its bound; small answers stay strings; a write empties it.
 */
import { describe, expect, it } from 'vitest';
import { KEEP_BYTES_FROM, ResponseCache } from './response-cache.js';

describe('response cache', () => {
  it('keeps the bytes of a large answer, equal to its JSON, and serves the same reply on a hit', () => {
    const c = new ResponseCache();
    const json = JSON.stringify({ data: 'é'.repeat(KEEP_BYTES_FROM) });
    const reply = { json };
    c.set(7, 'k', reply);
    const hit = c.get(7, 'k');
    expect(hit).toBe(reply);
    expect(hit?.bytes).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(hit?.bytes)).toBe(json);
    expect(hit?.bytes?.length).toBe(Buffer.byteLength(json));
    expect(c.hits).toBe(1);
  });

  it('leaves a small answer as a string', () => {
    const c = new ResponseCache();
    c.set(1, 'k', { json: '{"a":1}' });
    expect(c.get(1, 'k')?.bytes).toBeUndefined();
  });

  it('drops every answer after a write', () => {
    const c = new ResponseCache();
    c.set(1, 'k', { json: '{"a":1}' });
    expect(c.get(2, 'k')).toBeUndefined();
    expect(c.get(1, 'k')).toBeUndefined();
  });
});
