/**
 * IP addresses and CIDR ranges (the scanner's key allowlists, the trusted proxies of
 * platform/src/proxy.ts): parsing, normalisation and matching.
 *
 * Rules (spec, "Scanner API keys" 7): one IPv4 or IPv6 address or CIDR range per entry; a single
 * address is stored as /32 (IPv4) or /128 (IPv6); ranges are stored by their network address
 * (host bits cleared); a range that covers all of IPv4 or all of IPv6 is refused: /0, and any
 * IPv6 range holding all of `::ffff:0:0/96` (every IPv4 client, in its mapped form); and a list
 * whose ranges *together* cover all of IPv4 or all of IPv6 is refused like one range that does
 * ({@link unionCoverage}: `0.0.0.0/1, 128.0.0.0/1` is `0.0.0.0/0`). Choices where the spec is
 * silent:
 *
 * - An IPv4 address and its IPv4-mapped IPv6 form (`::ffff:a.b.c.d`) are the same address: a
 *   mapped address or a mapped range of prefix ≥ 96 is stored as IPv4 (`::ffff:10.0.0.0/104` →
 *   `10.0.0.0/8`), and an IPv4 client matches an IPv6 range that holds its mapped form. So
 *   `::ffff:0:0/96` is IPv4's `/0` and refused like it, and so is every wider IPv6 range that
 *   holds it (`::/1`, `::ffff:0:0/95`).
 * - Text forms are strict: IPv4 octets in decimal without leading zeros (`010.0.0.1` is ambiguous
 *   octal in some parsers, refused), IPv6 per RFC 4291 §2.2 (hex groups, one `::`, an embedded
 *   dotted IPv4 tail), no zone index (`%eth0`) and no brackets; prefix lengths in decimal
 *   without leading zeros.
 * - Output is canonical: dotted IPv4; IPv6 per RFC 5952 (lowercase, no leading zeros, the longest
 *   run of two or more zero groups as `::`, the first on a tie, mapped addresses as
 *   `::ffff:a.b.c.d`).
 */

/** An IP address: its family and its value as an unsigned integer of 32 (v4) or 128 (v6) bits. */
export interface IpAddress {
  v: 4 | 6;
  n: bigint;
}

/** A CIDR range, normalised: `network` has every host bit cleared; `prefix` is 1..32 or 1..128. */
export interface Cidr {
  v: 4 | 6;
  network: bigint;
  prefix: number;
}

/** Most entries in one key's allowlist (spec, Limits). */
export const MAX_ALLOWLIST_ENTRIES = 50;

const MAPPED_PREFIX = 0xffffn << 32n; // ::ffff:0:0/96
const V4_MASK = (1n << 32n) - 1n;
const bits = (v: 4 | 6) => (v === 4 ? 32 : 128);

const OCTET = /^(0|[1-9][0-9]{0,2})$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

function parseV4(s: string): bigint | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  let n = 0n;
  for (const p of parts) {
    if (!OCTET.test(p)) return null;
    const o = Number(p);
    if (o > 255) return null;
    n = (n << 8n) | BigInt(o);
  }
  return n;
}

/** Parses an IPv6 text form to its 128-bit value (mapped forms stay IPv6 here). */
function parseV6(s: string): bigint | null {
  if (s.length < 2 || s.length > 45) return null;
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (part: string, allowV4Tail: boolean): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    const items = part.split(':');
    for (let i = 0; i < items.length; i++) {
      const it = items[i];
      if (allowV4Tail && i === items.length - 1 && it.includes('.')) {
        const v4 = parseV4(it);
        if (v4 === null) return null;
        out.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
      } else if (HEX_GROUP.test(it)) out.push(Number.parseInt(it, 16));
      else return null;
    }
    return out;
  };
  let groups: number[];
  if (halves.length === 1) {
    const g = groupsOf(halves[0], true);
    if (!g || g.length !== 8) return null;
    groups = g;
  } else {
    const head = groupsOf(halves[0], false);
    const tail = groupsOf(halves[1], true);
    if (!head || !tail || head.length + tail.length > 7) return null;
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  }
  let n = 0n;
  for (const g of groups) n = (n << 16n) | BigInt(g);
  return n;
}

/** Parses an address without folding IPv4-mapped IPv6 into IPv4. */
function parseRaw(s: string): IpAddress | null {
  if (s.includes(':')) {
    const n = parseV6(s);
    return n === null ? null : { v: 6, n };
  }
  const n = parseV4(s);
  return n === null ? null : { v: 4, n };
}

const isMapped = (n: bigint) => n >> 32n === 0xffffn;

/**
 * Parses one IP address (IPv4 dotted, or any IPv6 text form including the fully expanded one uWS
 * reports for a peer). An IPv4-mapped IPv6 address comes back as IPv4. Returns null when the text
 * is not an address.
 */
export function parseIp(text: string): IpAddress | null {
  const a = parseRaw(text);
  if (a && a.v === 6 && isMapped(a.n)) return { v: 4, n: a.n & V4_MASK };
  return a;
}

/** Formats an address canonically (dotted IPv4; RFC 5952 IPv6). */
export function formatIp(a: IpAddress): string {
  return a.v === 4 ? formatV4(a.n) : formatV6(a.n);
}

function formatV4(n: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 0xffn)).join('.');
}

function formatV6(n: bigint): string {
  if (isMapped(n)) return `::ffff:${formatV4(n & V4_MASK)}`;
  const g: number[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) g.push(Number((n >> s) & 0xffffn));
  // Longest run of ≥ 2 zero groups, the first one on a tie (RFC 5952 §4.2).
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (xs: number[]) => xs.map((x) => x.toString(16)).join(':');
  if (best < 0) return hex(g);
  return `${hex(g.slice(0, best))}::${hex(g.slice(best + bestLen))}`;
}

const PREFIX_RE = /^(0|[1-9][0-9]{0,2})$/;

/**
 * Parses and normalises one allowlist entry: an address (→ /32 or /128) or `address/prefix`
 * (→ network address with host bits cleared). Returns `{error}` with a reason for anything else,
 * including a /0 range; never throws.
 */
export function parseCidr(text: string): { cidr: Cidr } | { error: string } {
  const entry = text.trim();
  const slash = entry.indexOf('/');
  const addrText = slash < 0 ? entry : entry.slice(0, slash);
  const raw = parseRaw(addrText);
  if (!raw) return { error: `"${clip(entry)}" is not an IPv4 or IPv6 address or CIDR range` };
  let prefix = bits(raw.v);
  if (slash >= 0) {
    const p = entry.slice(slash + 1);
    if (!PREFIX_RE.test(p)) return { error: `"${clip(entry)}" has a malformed prefix length` };
    prefix = Number(p);
    if (prefix > bits(raw.v))
      return { error: `"${clip(entry)}": prefix /${prefix} is longer than ${bits(raw.v)} bits` };
  }
  let v = raw.v;
  let n = raw.n;
  // An IPv4-mapped IPv6 range that lies inside ::ffff:0:0/96 is an IPv4 range.
  if (v === 6 && prefix >= 96 && isMapped(n)) {
    v = 4;
    n &= V4_MASK;
    prefix -= 96;
  }
  if (prefix === 0) return { error: `"${clip(entry)}" is a /0 range (every address); refused` };
  // An IPv4 client is matched as its mapped form (cidrContains): an IPv6 range holding all of
  // ::ffff:0:0/96 (`::/1`, `::/80`, `::ffff:0:0/95` …) covers every IPv4 address.
  if (v === 6 && prefix <= 96 && n >> BigInt(128 - prefix) === MAPPED_PREFIX >> BigInt(128 - prefix))
    return { error: `"${clip(entry)}" covers every IPv4 address (as IPv4-mapped IPv6); refused` };
  const width = BigInt(bits(v));
  const hostBits = width - BigInt(prefix);
  const network = (n >> hostBits) << hostBits;
  return { cidr: { v, network, prefix } };
}

/** Canonical text of a normalised range: `network/prefix`. */
export function formatCidr(c: Cidr): string {
  return `${formatIp({ v: c.v, n: c.network })}/${c.prefix}`;
}

/** True when `ip` lies in `c`. An IPv4 address is also tested as its mapped IPv6 form. */
export function cidrContains(c: Cidr, ip: IpAddress): boolean {
  let n = ip.n;
  if (c.v !== ip.v) {
    if (c.v === 4) return false; // an IPv6 (non-mapped: parseIp folds mapped) never lies in IPv4
    n = MAPPED_PREFIX | ip.n;
  }
  const hostBits = BigInt(bits(c.v) - c.prefix);
  return n >> hostBits === c.network >> hostBits;
}

/** First and last address of a range, as integers of its family. */
function span(c: Cidr): [bigint, bigint] {
  const hostBits = BigInt(bits(c.v) - c.prefix);
  return [c.network, c.network + (1n << hostBits) - 1n];
}

/** Whether the intervals (inclusive) together cover every integer from 0 to `last`. */
function coversAll(intervals: Array<[bigint, bigint]>, last: bigint): boolean {
  const sorted = [...intervals].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let next = 0n; // the lowest address not covered yet
  for (const [lo, hi] of sorted) {
    if (lo > next) return false;
    if (hi + 1n > next) next = hi + 1n;
    if (next > last) return true;
  }
  return next > last;
}

/**
 * Which address family the ranges cover whole *together* (each range alone is already refused
 * by {@link parseCidr} when it covers a family): `ipv4` when every IPv4 address lies in one of
 * them (`0.0.0.0/1, 128.0.0.0/1`), `ipv6` when every IPv6 address outside `::ffff:0:0/96` does
 * (`::/2, 4000::/2, 8000::/1`: the mapped block is IPv4's and counted there); null otherwise.
 * Cost: a sort of the ranges, O(n log n).
 */
export function unionCoverage(ranges: readonly Cidr[]): 'ipv4' | 'ipv6' | null {
  const v4 = ranges.filter((c) => c.v === 4).map(span);
  if (v4.length > 0 && coversAll(v4, V4_MASK)) return 'ipv4';
  const v6 = ranges.filter((c) => c.v === 6).map(span);
  const mapped: [bigint, bigint] = [MAPPED_PREFIX, MAPPED_PREFIX | V4_MASK];
  if (v6.length > 0 && coversAll([...v6, mapped], (1n << 128n) - 1n)) return 'ipv6';
  return null;
}

/**
 * The refusal of a list of ranges that together cover every IPv4 or every IPv6 address
 * ({@link unionCoverage}), naming the entries as given; null when the list is acceptable.
 */
export function unionRefusal(ranges: readonly Cidr[]): string | null {
  const family = unionCoverage(ranges);
  if (!family) return null;
  const names = ranges.filter((c) => c.v === (family === 'ipv4' ? 4 : 6)).map(formatCidr);
  const shown = names.length > 6 ? `${names.slice(0, 6).join(', ')}, …` : names.join(', ');
  return `the ranges ${shown} together cover every ${family === 'ipv4' ? 'IPv4' : 'IPv6'} address; refused`;
}

/**
 * Normalises a whole allowlist: every entry parsed, duplicates (after normalisation) dropped in
 * first-seen order, at most {@link MAX_ALLOWLIST_ENTRIES}, and the union of the ranges may not
 * cover every IPv4 or every IPv6 address ({@link unionRefusal}). Returns the canonical strings, or
 * `{error}` naming the first bad entry (or the ranges that cover a family).
 */
export function normaliseAllowlist(entries: readonly string[]): { entries: string[] } | { error: string } {
  const out: string[] = [];
  const ranges: Cidr[] = [];
  const seen = new Set<string>();
  for (const e of entries) {
    const r = parseCidr(e);
    if ('error' in r) return r;
    const s = formatCidr(r.cidr);
    if (!seen.has(s)) {
      seen.add(s);
      out.push(s);
      ranges.push(r.cidr);
    }
  }
  if (out.length > MAX_ALLOWLIST_ENTRIES)
    return { error: `at most ${MAX_ALLOWLIST_ENTRIES} allowlist entries per key, got ${out.length}` };
  const union = unionRefusal(ranges);
  if (union) return { error: union };
  return { entries: out };
}

/**
 * A compiled allowlist: `allows(ip)` is true when the list is empty (any IP) or one range holds
 * `ip`. Built once per key change, not per request.
 */
export function compileAllowlist(entries: readonly string[]): { allows(ip: IpAddress | null): boolean } {
  const ranges = entries.map((e) => {
    const r = parseCidr(e);
    if ('error' in r) throw new Error(`stored allowlist entry is invalid: ${r.error}`);
    return r.cidr;
  });
  return {
    allows: (ip) => ranges.length === 0 || (ip !== null && ranges.some((c) => cidrContains(c, ip))),
  };
}

/** Entries are echoed in errors; a hostile 10 kB entry must not be, nor a secret pasted by mistake. */
const clip = (s: string) =>
  s.includes('sk_live_') || s.includes('ds_')
    ? '(entry withheld)'
    : s.length > 64
      ? `${s.slice(0, 61)}...`
      : s;
