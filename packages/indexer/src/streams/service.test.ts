/** The open-stream ceiling is per key across every chain of the process, not per (key, chain). */
import { describe, expect, it } from 'vitest';
import type { Hub } from './hub.js';
import type { StreamLog } from './log.js';
import { createStreamSlots, createStreams } from './service.js';

const chainStreams = (slots: ReturnType<typeof createStreamSlots>) =>
  createStreams({} as StreamLog, {} as Hub, slots);
const req = (name: string, maxStreams = 8) => ({ principal: { name, maxStreams }, lastEventId: undefined });

describe('open-stream ceiling', () => {
  it('counts a key’s streams on every chain together', () => {
    const slots = createStreamSlots();
    const a = chainStreams(slots);
    const b = chainStreams(slots);
    const releases: Array<() => void> = [];
    // The process's own slots answer at once (no promise).
    const take = (s: typeof a, name: string) => s.reserve(req(name)) as () => void;
    for (let i = 0; i < 4; i++) releases.push(take(a, 'k'), take(b, 'k'));
    expect(a.openCount('k')).toBe(8);
    expect(() => a.reserve(req('k'))).toThrow(/open-stream ceiling/);
    expect(() => b.reserve(req('k'))).toThrow(/open-stream ceiling/);
    // Another key is unaffected; a release frees a slot on either chain.
    expect(() => b.reserve(req('other'))).not.toThrow();
    releases[0]();
    releases[0](); // a second release of the same slot frees nothing more
    expect(() => b.reserve(req('k'))).not.toThrow();
    expect(() => a.reserve(req('k'))).toThrow(/open-stream ceiling/);
  });

  it('honours each key’s own ceiling', () => {
    const slots = createStreamSlots();
    const a = chainStreams(slots);
    a.reserve(req('small', 1));
    expect(() => chainStreams(slots).reserve(req('small', 1))).toThrow(/1 streams per key/);
  });
});
