/**
 * IP addresses, CIDR ranges and allowlists (cidr.ts): parsing, normalisation and matching checked
 * with fast-check against Node's own address parser and `net.BlockList` (an independent
 * implementation) as the oracle; and the union of a list of ranges (allowlists, TRUSTED_PROXIES):
 * a list whose ranges together cover every IPv4 or every IPv6 address is refused like the one range
 * that would (`0.0.0.0/0`).
 */
import { BlockList, isIP, isIPv4, isIPv6 } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cidrContains,
  compileAllowlist,
  formatCidr,
  formatIp,
  MAX_ALLOWLIST_ENTRIES,
  normaliseAllowlist,
  parseCidr,
  parseIp,
  unionCoverage,
} from './cidr.js';

const RUNS = { numRuns: 2000 };
const u32 = fc.integer({ min: 0, max: 0xffffffff }).map(BigInt);
const u128 = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });
/** IPv6 values outside ::ffff:0:0/96 (those are IPv4 by our rule, tested separately). */
const v6 = u128.filter((n) => n >> 32n !== 0xffffn);
const v4Text = (n: bigint) => formatIp({ v: 4, n });
/** Fully expanded IPv6 text, as uWS reports a peer (`0000:0000:…`). */
const expanded = (n: bigint) => n.toString(16).padStart(32, '0').match(/.{4}/g)!.join(':');
const mask = (n: bigint, width: number, prefix: number) => {
  const host = BigInt(width - prefix);
  return (n >> host) << host;
};
const ok = (s: string) => {
  const r = parseCidr(s);
  if ('error' in r) throw new Error(`${s}: ${r.error}`);
  return r.cidr;
};
const MAPPED = 0xffffn << 32n;
/** Whether the IPv6 range net/p holds all of ::ffff:0:0/96 (every IPv4 client, mapped). */
const holdsAllV4 = (net: bigint, p: number) =>
  p <= 96 && net >> BigInt(128 - p) === MAPPED >> BigInt(128 - p);

describe('IP text forms', () => {
  it('IPv4 round-trips and agrees with node:net', () => {
    fc.assert(
      fc.property(u32, (n) => {
        const s = v4Text(n);
        expect(isIPv4(s)).toBe(true);
        expect(parseIp(s)).toEqual({ v: 4, n });
      }),
      RUNS,
    );
  });

  it('IPv6 canonical text round-trips, is valid for node:net, and the expanded form parses to the same value', () => {
    fc.assert(
      fc.property(v6, (n) => {
        const s = formatIp({ v: 6, n });
        expect(isIPv6(s)).toBe(true);
        expect(s).toBe(s.toLowerCase());
        expect(parseIp(s)).toEqual({ v: 6, n });
        expect(parseIp(expanded(n))).toEqual({ v: 6, n });
        expect(parseIp(expanded(n).toUpperCase())).toEqual({ v: 6, n });
      }),
      RUNS,
    );
  });

  it('an IPv4-mapped IPv6 address (any text form) is the IPv4 address', () => {
    fc.assert(
      fc.property(u32, (n) => {
        const mapped = (0xffffn << 32n) | n;
        expect(parseIp(`::ffff:${v4Text(n)}`)).toEqual({ v: 4, n });
        expect(parseIp(expanded(mapped))).toEqual({ v: 4, n });
        expect(parseIp(formatIp({ v: 6, n: mapped }))).toEqual({ v: 4, n });
      }),
      RUNS,
    );
  });

  it('canonical IPv6 text follows RFC 5952 on fixed cases', () => {
    expect(formatIp(parseIp('2001:0db8:0000:0000:0000:0000:0000:0001')!)).toBe('2001:db8::1');
    expect(formatIp(parseIp('2001:db8:0:0:1:0:0:1')!)).toBe('2001:db8::1:0:0:1'); // first of equal runs
    expect(formatIp(parseIp('2001:db8:0:1:1:1:1:1')!)).toBe('2001:db8:0:1:1:1:1:1'); // one zero group: no ::
    expect(formatIp(parseIp('0:0:0:0:0:0:0:0')!)).toBe('::');
    expect(formatIp(parseIp('::1')!)).toBe('::1');
    expect(formatIp(parseIp('64:ff9b::192.0.2.33')!)).toBe('64:ff9b::c000:221');
  });

  it('accepts exactly what node:net accepts on mutated addresses (deleted, doubled, replaced characters)', () => {
    const text = fc.oneof(
      u32.map(v4Text),
      v6.map((n) => formatIp({ v: 6, n })),
      v6.map(expanded),
      u32.map((n) => `::ffff:${v4Text(n)}`),
    );
    const mutated = fc
      .tuple(text, fc.nat(), fc.constantFrom('del', 'dup', 'colon', 'dot', 'zero', 'hex', 'none'))
      .map(([t, at, how]) => {
        const i = at % t.length;
        const put = (c: string) => t.slice(0, i) + c + t.slice(i + 1);
        if (how === 'del') return t.slice(0, i) + t.slice(i + 1);
        if (how === 'dup') return t.slice(0, i) + t[i] + t.slice(i);
        if (how === 'colon') return put(':');
        if (how === 'dot') return put('.');
        if (how === 'zero') return `${t.slice(0, i)}0${t.slice(i)}`;
        if (how === 'hex') return put('f');
        return t;
      });
    fc.assert(
      fc.property(mutated, (s) => {
        expect(parseIp(s) !== null, s).toBe(isIP(s) !== 0);
      }),
      { numRuns: 20000 },
    );
  });

  it('refuses malformed and ambiguous text; never throws on any string', () => {
    for (const bad of [
      '',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      '01.2.3.4',
      '1.2.3.04',
      '1.2.3.-1',
      ' 1.2.3.4',
      '1:2:3:4:5:6:7',
      '1:2:3:4:5:6:7:8:9',
      '1::2::3',
      '12345::1',
      'fe80::1%eth0',
      '[::1]',
      '::ffff:1.2.3',
      '1.2.3.4::',
      'g::1',
    ])
      expect(parseIp(bad), bad).toBeNull();
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (s) => {
        const r = parseIp(s);
        if (r) expect(isIPv4(s) || isIPv6(s)).toBe(true);
        expect(() => parseCidr(s)).not.toThrow();
      }),
      RUNS,
    );
  });
});

describe('CIDR normalisation', () => {
  it('a single address is stored as /32 or /128', () => {
    fc.assert(
      fc.property(u32, (n) => {
        expect(formatCidr(ok(v4Text(n)))).toBe(`${v4Text(n)}/32`);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(v6, (n) => {
        expect(formatCidr(ok(expanded(n)))).toBe(`${formatIp({ v: 6, n })}/128`);
      }),
      RUNS,
    );
  });

  it('a range is stored by its network address (host bits cleared), idempotently', () => {
    fc.assert(
      fc.property(u32, fc.integer({ min: 1, max: 32 }), (n, p) => {
        const c = ok(`${v4Text(n)}/${p}`);
        expect(c).toEqual({ v: 4, network: mask(n, 32, p), prefix: p });
        expect(ok(formatCidr(c))).toEqual(c);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(v6, fc.integer({ min: 1, max: 128 }), (n, p) => {
        if (holdsAllV4(mask(n, 128, p), p)) return; // refused (covers all of IPv4)
        const c = ok(`${formatIp({ v: 6, n })}/${p}`);
        expect(c.prefix).toBe(p);
        expect(c.network).toBe(mask(n, 128, p));
        expect(ok(formatCidr(c))).toEqual(c);
      }),
      RUNS,
    );
  });

  it('a mapped range of prefix ≥ 96 is the IPv4 range of prefix − 96', () => {
    fc.assert(
      fc.property(u32, fc.integer({ min: 97, max: 128 }), (n, p) => {
        expect(ok(`::ffff:${v4Text(n)}/${p}`)).toEqual(ok(`${v4Text(n)}/${p - 96}`));
      }),
      RUNS,
    );
  });

  it('refuses /0 in every spelling, over-long and malformed prefixes', () => {
    for (const bad of [
      '0.0.0.0/0',
      '10.1.2.3/0',
      '::/0',
      '2001:db8::/0',
      '::ffff:0:0/96',
      '::ffff:10.0.0.0/96',
      // IPv6 ranges holding every IPv4 client's mapped form, in several spellings
      '::/1',
      '::/64',
      '::/80',
      '::ffff:0:0/95',
      '::ffff:0:0/81',
      '0:0:0:0:0:ffff:0:0/90',
      '0000:0000:0000:0000:0000:ffff:0000:0000/96',
      '::ffff:127.0.0.1/95',
      '7fff:ffff::/1',
      '1.2.3.4/33',
      '::1/129',
      '1.2.3.4/',
      '1.2.3.4/08',
      '1.2.3.4/-1',
      '1.2.3.4/1/2',
      '1.2.3.4/ 8',
    ])
      expect('error' in parseCidr(bad), bad).toBe(true);
  });

  it('refuses exactly the ranges that cover all of IPv4 or all of IPv6', () => {
    fc.assert(
      fc.property(v6, fc.integer({ min: 1, max: 128 }), (net, p) => {
        const r = parseCidr(`${formatIp({ v: 6, n: net })}/${p}`);
        expect('error' in r).toBe(holdsAllV4(mask(net, 128, p), p));
      }),
      RUNS,
    );
    // Wide ranges that miss the mapped block stay valid.
    for (const good of ['8000::/1', '2000::/3', '::/97', '64:ff9b::/96', '::ffff:0:0/97'])
      expect('error' in parseCidr(good), good).toBe(false);
  });

  it('an allowlist is normalised, de-duplicated, and capped at 50 entries', () => {
    expect(normaliseAllowlist(['10.1.2.3/8', '10.0.0.0/8', '::ffff:10.9.9.9/104', ' 2001:DB8::1 '])).toEqual({
      entries: ['10.0.0.0/8', '2001:db8::1/128'],
    });
    const fifty = Array.from({ length: MAX_ALLOWLIST_ENTRIES }, (_, i) => `10.0.${i}.0/24`);
    expect(normaliseAllowlist(fifty)).toEqual({ entries: fifty });
    expect('error' in normaliseAllowlist([...fifty, '10.0.200.0/24'])).toBe(true);
    expect('error' in normaliseAllowlist(['10.0.0.0/8', 'nonsense'])).toBe(true);
    const pasted = normaliseAllowlist([`sk_live_${'a'.repeat(43)}`]);
    expect(JSON.stringify(pasted)).not.toContain('sk_live_');
  });
});

describe('CIDR matching', () => {
  it('agrees with net.BlockList for IPv4 ranges and addresses', () => {
    fc.assert(
      fc.property(u32, fc.integer({ min: 1, max: 32 }), u32, (net, p, ip) => {
        const c = ok(`${v4Text(net)}/${p}`);
        const bl = new BlockList();
        bl.addSubnet(v4Text(c.network), p, 'ipv4');
        expect(cidrContains(c, { v: 4, n: ip })).toBe(bl.check(v4Text(ip), 'ipv4'));
        // The network's own first and last address are inside; the neighbours outside are not.
        const last = c.network + (1n << BigInt(32 - p)) - 1n;
        expect(cidrContains(c, { v: 4, n: c.network })).toBe(true);
        expect(cidrContains(c, { v: 4, n: last })).toBe(true);
        if (c.network > 0n) expect(cidrContains(c, { v: 4, n: c.network - 1n })).toBe(false);
        if (last < 0xffffffffn) expect(cidrContains(c, { v: 4, n: last + 1n })).toBe(false);
      }),
      RUNS,
    );
  });

  it('agrees with net.BlockList for IPv6 ranges and addresses', () => {
    fc.assert(
      fc.property(v6, fc.integer({ min: 1, max: 128 }), v6, fc.boolean(), (net, p, other, near) => {
        if (holdsAllV4(mask(net, 128, p), p)) return; // refused at parse (tested below)
        const c = ok(`${formatIp({ v: 6, n: net })}/${p}`);
        // Half the probes land inside or next to the range, the rest anywhere.
        const ip = near ? c.network + (other % (1n << BigInt(Math.min(128 - p + 1, 127)))) : other;
        if (ip >> 32n === 0xffffn || ip >= 1n << 128n) return;
        const bl = new BlockList();
        bl.addSubnet(formatIp({ v: 6, n: c.network }), p, 'ipv6');
        expect(cidrContains(c, { v: 6, n: ip })).toBe(bl.check(formatIp({ v: 6, n: ip }), 'ipv6'));
      }),
      RUNS,
    );
  });

  it('an IPv4 client and its mapped IPv6 form match the same ranges (IPv4 ranges and IPv6 ranges holding ::ffff:0:0/96)', () => {
    fc.assert(
      fc.property(
        u32,
        fc.integer({ min: 1, max: 32 }),
        u32,
        fc.integer({ min: 1, max: 95 }),
        (net, p, ip, p6) => {
          const v4Range = ok(`${v4Text(net)}/${p}`);
          const client = parseIp(`::ffff:${v4Text(ip)}`)!;
          expect(client.v).toBe(4);
          expect(cidrContains(v4Range, client)).toBe(cidrContains(v4Range, { v: 4, n: ip }));
          // A wide IPv6 range holding the mapped block matches every IPv4 client (which is why
          // parseCidr refuses it as an allowlist entry).
          const wide = { v: 6 as const, network: mask(MAPPED, 128, p6), prefix: p6 };
          expect(cidrContains(wide, client)).toBe(true);
          expect('error' in parseCidr(`::ffff:0:0/${p6}`)).toBe(true);
          const bl = new BlockList();
          bl.addSubnet(formatIp({ v: 6, n: wide.network }), p6, 'ipv6');
          expect(bl.check(`::ffff:${v4Text(ip)}`, 'ipv6')).toBe(true);
        },
      ),
      RUNS,
    );
  });

  it('an empty allowlist allows any IP; a non-empty one only its ranges; an unparsable peer is refused', () => {
    expect(compileAllowlist([]).allows(null)).toBe(true);
    const a = compileAllowlist(['203.0.113.0/24', '2001:db8::/32']);
    expect(a.allows(parseIp('203.0.113.77'))).toBe(true);
    expect(a.allows(parseIp('::ffff:203.0.113.77'))).toBe(true);
    expect(a.allows(parseIp('203.0.114.1'))).toBe(false);
    expect(a.allows(parseIp('2001:db8:ffff::1'))).toBe(true);
    expect(a.allows(parseIp('2001:db9::1'))).toBe(false);
    expect(a.allows(null)).toBe(false);
  });
});

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
    const all = v6AllButMapped.map(ok);
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
    expect(unionCoverage(allBut.map(ok))).toBeNull();
    expect(unionCoverage([...allBut, '255.255.255.255'].map(ok))).toBe('ipv4');
  });

  it('agrees with counting addresses for random IPv4 lists', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 1, max: 4 })), {
          maxLength: 24,
        }),
        (entries) => {
          const ranges = entries.map(([n, p]) =>
            ok(`${[24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.')}/${p}`),
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
