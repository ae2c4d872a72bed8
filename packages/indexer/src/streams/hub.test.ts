import { describe, expect, it } from 'vitest';
import { createHub } from './hub.js';
import type { Frame } from './log.js';

const frame = (seq: number): Frame => ({
  topic: 'blocks',
  event: 'block',
  json: '{}',
  keys: {},
  seq,
  id: `v1.blocks-g.${seq}`,
  block: seq,
});

describe('hub', () => {
  it('a subscriber that throws is removed; publish never throws and the others keep receiving', () => {
    const faults: unknown[] = [];
    const hub = createHub((e) => faults.push(e));
    const got: number[] = [];
    hub.add({
      topics: new Set(['blocks']),
      deliver() {
        throw new Error('broken consumer');
      },
    });
    hub.add({ topics: new Set(['blocks']), deliver: (f) => got.push(f.seq) });
    expect(() => hub.publish([frame(1), frame(2)])).not.toThrow();
    hub.publish([frame(3)]);
    expect(got).toEqual([1, 2, 3]);
    expect(faults).toHaveLength(1);
    expect(hub.size()).toBe(1);
  });
});
