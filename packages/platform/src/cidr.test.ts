/**
 * The union of a list of ranges (allowlists, TRUSTED_PROXIES): a list whose ranges together cover
 * every IPv4 or every IPv6 address is refused like the one range that would (`0.0.0.0/0`). Parsing
 * and matching of single ranges are tested with the scanner's allowlists (scanner/src/cidr.test.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Cidr, formatIp, normaliseAllowlist, parseCidr, unionCoverage } from './cidr.js';

const cidr = (s: string): Cidr => {
  const r = parseCidr(s);
  if ('error' in r) throw new Error(r.error);
  return r.cidr;
};
const MAPPED = 0xffffn << 32n;

/** The 96 IPv6 ranges that hold every address but those of ::ffff:0:0/96 (its siblings up the tree). */
const v6AllButMapped = Array.from({ length: 96 }, (_, i) => {
  const n = (MAPPED ^ (1n << BigInt(127 - i))) & ~((1n << BigInt(127 - i)) - 1n);
  return `${formatIp({ v: 6, n })}/${i + 1}`;
});

describe('union of ranges', () => {
  it('the finding: 0.0.0.0/1 and 128.0.0.0/1 are all of IPv4, refused in an allowlist', () => {
    const r = normaliseAllowlist(['0.0.0.0/1', '128.0.0.0/1']);
    expect(r).toEqual({
      error: 'the ranges 0.0.0.0/1, 128.0.0.0/1 together cover every IPv4 address; refused',
    });
    // In any order, through mapped forms, overlapping, with other entries beside them.
    for (const list of [
      ['128.0.0.0/1', '10.0.0.1', '0.0.0.0/1'],
      ['::ffff:0.0.0.0/97', '::ffff:128.0.0.0/97'],
      ['0.0.0.0/2', '0.0.0.0/1', '64.0.0.0/2', '128.0.0.0/2', '192.0.0.0/2', '2001:db8::/32'],
      Array.from({ length: 16 }, (_, i) => `${i * 16}.0.0.0/4`),
    ])
      expect('error' in normaliseAllowlist(list), list.join(',')).toBe(true);
  });

  it('every IPv6 address outside the mapped block, together, is refused; one range short of it is not', () => {
    expect(normaliseAllowlist(v6AllButMapped.slice(0, 50))).not.toHaveProperty('error');
    const all = v6AllButMapped.map(cidr);
    expect(unionCoverage(all)).toBe('ipv6');
    for (let skip = 0; skip < 96; skip++)
      expect(unionCoverage(all.filter((_, i) => i !== skip)), v6AllButMapped[skip]).toBeNull();
  });

  it('lists that leave one address out are accepted', () => {
    expect(normaliseAllowlist(['0.0.0.0/1', '128.0.0.0/2', '192.0.0.0/3'])).toEqual({
      entries: ['0.0.0.0/1', '128.0.0.0/2', '192.0.0.0/3'],
    });
    // All of IPv4 but 255.255.255.255: 32 ranges.
    const allBut = Array.from({ length: 32 }, (_, i) => {
      const net = (0xffffffffn << BigInt(32 - i)) & 0xffffffffn;
      return `${[24n, 16n, 8n, 0n].map((s) => (net >> s) & 0xffn).join('.')}/${i + 1}`;
    });
    expect(unionCoverage(allBut.map(cidr))).toBeNull();
    expect(unionCoverage([...allBut, '255.255.255.255'].map(cidr))).toBe('ipv4');
  });

  it('agrees with counting addresses for random IPv4 lists', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 1, max: 4 })), {
          maxLength: 24,
        }),
        (entries) => {
          const ranges = entries.map(([n, p]) =>
            cidr(`${[24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.')}/${p}`),
          );
          // With prefixes ≤ 4, the 16 blocks of /4 decide coverage.
          const blocks = new Set<number>();
          for (const r of ranges) {
            const first = Number(r.network >> 28n);
            for (let b = first; b < first + 2 ** (4 - r.prefix); b++) blocks.add(b);
          }
          expect(unionCoverage(ranges) === 'ipv4').toBe(blocks.size === 16);
        },
      ),
      { numRuns: 300 },
    );
  });
});
