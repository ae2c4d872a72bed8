/**
 * The one redaction of secrets (SECURITY.md, "Secrets"): every URL and secret that can reach a log
 * line, an error body, a metric label or `/health` goes through {@link redact}. Two layers:
 *
 * 1. **By value.** The secrets of the configuration are recorded at start-up
 *    ({@link rememberSecrets}, {@link secretsOfUrl}: the config loaders of both products call them)
 *    and every occurrence of one is replaced word for word, whatever surrounds it: a key in a path,
 *    a query or a header line, a password with `/`, quotes or spaces, `user:pass@` without a
 *    scheme, a host with a trailing dot. Each value is also matched percent-decoded,
 *    percent-encoded and JSON-escaped. Worker threads started later inherit the list.
 * 2. **By pattern** (the backstop, for secrets the configuration never named). Node providers put
 *    their API key in the URL path (`…/v2/<key>`), in the userinfo (`https://:secret@…`,
 *    `nats://user:pass@…`, `nats://token@…`) or in the query (`?apikey=…`, `&dkey=…`), so a URL
 *    is kept only as far as it names where it points: scheme, host, port, and the path segments
 *    that are not credentials. Rules, applied to every `scheme://…` URL found in a text:
 *     - userinfo (anything before `@` in the authority, `/` in a password included) → `***`;
 *     - every query value and every `;name=value` path parameter → `***` (names are kept);
 *     - a fragment → dropped;
 *     - path segments: at a known provider (Alchemy, Infura, QuickNode, Ankr, Chainstack, Blast,
 *       GetBlock, Tenderly, dRPC, BlockPI, NodeReal, Nodies, Moralis, Allnodes; a trailing dot on
 *       the host changes nothing) every segment past the provider's fixed prefix (`v2`, `v3`,
 *       `ws/v3`, a chain name) → `***`; elsewhere any segment that looks like a key (≥ 16
 *       characters of letters, digits, `-`, `_`, `.`, `=`, with at least one digit and one letter;
 *       ≥ 20 letters of both cases; ≥ 16 digits; or a UUID) → `***`.
 *    Text outside URLs is kept, except the value of a pair whose name says secret (`password=`,
 *    `token=`, `apikey=`, `CURSOR_SECRET=`, `password: …`, `x-api-key: …`, `"apiKey":"…"` …),
 *    `Bearer <token>`, and the `user:pass` of a `user:pass@host` without a scheme.
 */

import { getEnvironmentData, setEnvironmentData } from 'node:worker_threads';

/** What replaces a secret. */
export const MASK = '***';

// ---------------------------------------------------------------------------------------------
// By value: the configuration's secrets, replaced word for word.

/** Shortest secret remembered, characters: shorter values are no credential and would mask words. */
const MIN_SECRET_CHARS = 4;
/** Below this length a secret is replaced only as a whole word (not inside a longer token). */
const WHOLE_WORD_BELOW_CHARS = 12;
/** Where the list travels to worker threads started later (worker_threads environment data). */
const WORKER_KEY = 'chain-indexer:redact:secrets';

/**
 * The secrets remembered by this process (one process, one redaction: every log line, error body
 * and /health field passes the same list, so it lives here, filled at start-up).
 */
const known = new Set<string>();
let knownPattern: RegExp | null = null;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The forms a secret may take in a text: as given, percent-decoded, percent-encoded, JSON-escaped. */
function formsOf(value: string): string[] {
  const forms = new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)]);
  try {
    forms.add(decodeURIComponent(value));
  } catch {}
  return [...forms];
}

function rebuild(): void {
  const list = [...known].sort((a, b) => b.length - a.length);
  knownPattern = list.length
    ? new RegExp(
        list
          .map((v) =>
            v.length < WHOLE_WORD_BELOW_CHARS ? `(?<![A-Za-z0-9])${escapeRe(v)}(?![A-Za-z0-9])` : escapeRe(v),
          )
          .join('|'),
        'g',
      )
    : null;
}

/**
 * Remembers secret values (an API key, a password, a cursor secret, the secret parts of a URL from
 * {@link secretsOfUrl}): from now on {@link redact} replaces each, in each of its forms, by `***`
 * wherever it appears. Values shorter than 4 characters, empty or null are skipped. Worker threads
 * started afterwards inherit the list. Never throws.
 */
export function rememberSecrets(values: Iterable<string | null | undefined>): void {
  let added = false;
  for (const v of values) {
    if (typeof v !== 'string') continue;
    for (const form of formsOf(v.trim()))
      if (form.length >= MIN_SECRET_CHARS && !known.has(form)) {
        known.add(form);
        added = true;
      }
  }
  if (!added) return;
  rebuild();
  try {
    setEnvironmentData(WORKER_KEY, [...known]);
  } catch {}
}

/** How many secret forms are remembered (start-up log, tests). */
export function rememberedSecretCount(): number {
  return known.size;
}

// A worker thread inherits the list its parent had when it was started.
try {
  const inherited = getEnvironmentData(WORKER_KEY);
  if (Array.isArray(inherited)) rememberSecrets(inherited as string[]);
} catch {}

/** Replaces every remembered secret in `text` by `***` (the by-value layer of {@link redact}). */
export function redactKnown(text: string): string {
  if (!knownPattern || typeof text !== 'string' || text === '') return text;
  return text.replace(knownPattern, MASK);
}

/**
 * Path and query words that name where a URL points, never a credential: versions (`v2`,
 * `v1.1`), protocol words and network names. Any other segment or value of a configured URL is
 * taken for a secret (shorter than 4 characters: too short to be one).
 */
const NOT_SECRET_WORDS = new Set([
  'rpc',
  'ws',
  'wss',
  'http',
  'https',
  'api',
  'jsonrpc',
  'json-rpc',
  'evm',
  'ext',
  'bc',
  'node',
  'nodes',
  'mainnet',
  'testnet',
  'devnet',
  'sepolia',
  'holesky',
  'hoodi',
  'goerli',
  'eth',
  'ethereum',
  'base',
  'arbitrum',
  'arb',
  'optimism',
  'polygon',
  'matic',
  'bsc',
  'bnb',
  'avalanche',
  'avax',
  'gnosis',
  'xdai',
  'fantom',
  'linea',
  'scroll',
  'zksync',
  'blast',
  'mantle',
  'celo',
  'true',
  'false',
  'json',
]);
const notSecret = (s: string) =>
  /^v\d+(\.\d+)*$/i.test(s) || /^\d{1,9}$/.test(s) || NOT_SECRET_WORDS.has(s.toLowerCase());

/**
 * The secret parts of a configured URL (or a comma list of them, NATS_URL), for
 * {@link rememberSecrets}: the userinfo (a token; or the password and `user:password`), every
 * query value, every `;name=value` path parameter's value, the fragment, and the path segments
 * that may be a key — at a known provider every segment past its fixed prefix, elsewhere every
 * segment but a version, a protocol word or a network name. A value is returned as written; its
 * decoded and encoded forms are added by {@link rememberSecrets}. A URL without a scheme
 * (`user:pass@host`) is read the same way. Never throws.
 */
export function secretsOfUrl(text: string | null | undefined): string[] {
  if (typeof text !== 'string' || text.trim() === '') return [];
  const out: string[] = [];
  const urls = text.split(/,(?=\s*(?:[a-z][a-z0-9+.-]*:\/\/|[^,/]*@))/i).map((u) => u.trim());
  for (const url of urls) {
    let rest = url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
    const hash = rest.indexOf('#');
    if (hash >= 0) {
      out.push(rest.slice(hash + 1));
      rest = rest.slice(0, hash);
    }
    const q = rest.indexOf('?');
    if (q >= 0) {
      for (const kv of rest.slice(q + 1).split('&')) {
        const eq = kv.indexOf('=');
        const value = eq < 0 ? kv : kv.slice(eq + 1);
        if (!notSecret(value)) out.push(value);
      }
      rest = rest.slice(0, q);
    }
    const at = rest.lastIndexOf('@');
    if (at >= 0) {
      const userinfo = rest.slice(0, at);
      const colon = userinfo.indexOf(':');
      out.push(userinfo);
      if (colon >= 0) out.push(userinfo.slice(colon + 1));
      rest = rest.slice(at + 1);
    }
    const slash = rest.indexOf('/');
    if (slash < 0) continue;
    const host = rest
      .slice(0, slash)
      .replace(/:\d*$/, '')
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '')
      .toLowerCase();
    const segments = rest.slice(slash + 1).split('/');
    const own = segments.map((s) => s.split(';')[0]);
    const provider = PROVIDERS.find((p) => p.host.test(host));
    const keep = provider ? provider.keep(own) : 0;
    segments.forEach((segment, i) => {
      const [part, ...params] = segment.split(';');
      for (const p of params) out.push(p.includes('=') ? p.slice(p.indexOf('=') + 1) : p);
      if (part === '') return;
      if (provider ? i >= keep : !notSecret(part)) out.push(part);
    });
  }
  return out.filter((v) => v.length >= MIN_SECRET_CHARS);
}

/** Hosts (suffix match) whose path past a fixed prefix is the credential; `keep` = leading segments kept. */
const PROVIDERS: Array<{ host: RegExp; keep: (segments: string[]) => number }> = [
  // https://eth-mainnet.g.alchemy.com/v2/<key>, wss://…/v2/<key>, /nft/v3/<key>/…
  { host: /(^|\.)alchemy(api)?\.(com|io)$/, keep: (s) => (s[0] === 'nft' ? 2 : 1) },
  // https://mainnet.infura.io/v3/<id>, wss://mainnet.infura.io/ws/v3/<id>
  { host: /(^|\.)infura\.io$/, keep: (s) => (s[0] === 'ws' ? 2 : 1) },
  // https://<name>.<net>.quiknode.pro/<token>/ (the token is the first segment)
  { host: /(^|\.)quiknode\.pro$/, keep: () => 0 },
  // https://rpc.ankr.com/eth/<key>, wss://rpc.ankr.com/eth/ws/<key>
  { host: /(^|\.)ankr\.com$/, keep: (s) => (s[1] === 'ws' ? 2 : 1) },
  { host: /(^|\.)(p2pify\.com|chainstacklabs\.com)$/, keep: () => 0 },
  { host: /(^|\.)blastapi\.io$/, keep: () => 0 },
  { host: /(^|\.)getblock\.io$/, keep: () => 0 },
  { host: /(^|\.)tenderly\.co$/, keep: () => 0 },
  { host: /(^|\.)drpc\.org$/, keep: (s) => (s[0] === 'ogrpc' || s[0] === 'ogws' ? 1 : 0) },
  { host: /(^|\.)blockpi\.network$/, keep: (s) => (s[0] === 'v1' ? 2 : 0) },
  { host: /(^|\.)nodereal\.io$/, keep: (s) => (s[0] === 'v1' || s[0] === 'ws' ? 1 : 0) },
  { host: /(^|\.)nodies\.app$/, keep: (s) => (s[0] === 'v1' || s[0] === 'ws' ? 1 : 0) },
  { host: /(^|\.)moralis-nodes\.com$/, keep: (s) => (s[0] === 'ws' ? 1 : 0) },
  { host: /(^|\.)allnodes\.me$/, keep: () => 0 },
];

/** A path segment that looks like a credential wherever it appears. */
const KEYLIKE = /^(?=[A-Za-z0-9_.=~-]*[0-9])(?=[A-Za-z0-9_.=~-]*[A-Za-z])[A-Za-z0-9_.=~-]{16,}$/;
/** Letters only, both cases, 20 or more: a key (words are not written so), and 16 digits or more. */
const LETTERS_KEY = /^(?=[A-Za-z]*[a-z])(?=[A-Za-z]*[A-Z])[A-Za-z]{20,}$/;
const DIGITS_KEY = /^[0-9]{16,}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const keyLike = (s: string) => KEYLIKE.test(s) || LETTERS_KEY.test(s) || DIGITS_KEY.test(s) || UUID.test(s);
/**
 * A URL inside a text: a scheme, `://`, and everything up to white space, a quote, a bracket, or
 * a comma that starts the next URL of a list (`nats://a@h1,nats://a@h2`).
 */
const URL_IN_TEXT =
  /\b([a-z][a-z0-9+.-]{1,15}):\/\/[^\s"'<>`]+?(?=,[a-z][a-z0-9+.-]{1,15}:\/\/|[\s"'<>`]|$)/gi;
/**
 * A pair whose name says secret, outside URLs: `name=value`, `name: value`, `"name":"value"` (JSON,
 * or a header line such as `x-api-key: …`); `Bearer <token>`; and `user:pass@host` without a
 * scheme. Values already masked, and the printed config's own placeholders (`(set)`, `(masked, …)`),
 * are left as they are.
 */
const SECRET_PAIR =
  /\b((?:[a-z0-9_]*[_-])?(?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|token|secret|password|passwd|pass|dkey|private[_-]?key)["']?(?:=|\s*:\s*)["']?)(?!\*\*\*|\()([^\s"'&,;}]+)|\b(Bearer[ \t]+)(?!\*\*\*)([A-Za-z0-9._~+/=-]{8,})|(?<![\w/.:@-])(?!mailto:)([\w.%+-]+:[^\s@/'"]+)(?=@[\w-]+(?:\.[\w-]+)*\.?(?::\d+)?(?![\w@]))/gi;
const maskPairs = (t: string) =>
  t.replace(SECRET_PAIR, (_m, name?: string, _v?: string, bearer?: string, _t?: string, userinfo?: string) =>
    userinfo !== undefined ? MASK : `${name ?? bearer}${MASK}`,
  );

/**
 * The userinfo of `scheme://rest` when it holds a `/` (a password such as `p/ss`): the text up to
 * the last `@` before the query, when what precedes its first `:` is a plain user name. Else null.
 */
function slashedUserinfo(rest: string): string | null {
  const end = rest.search(/[?#]/);
  const head = end < 0 ? rest : rest.slice(0, end);
  const at = head.lastIndexOf('@');
  if (at < 0) return null;
  const userinfo = head.slice(0, at);
  const colon = userinfo.indexOf(':');
  return colon >= 0 && /^[^/.[\]]*$/.test(userinfo.slice(0, colon)) && userinfo.includes('/')
    ? userinfo
    : null;
}

/** A path segment with `;name=value` parameters: the segment's own part kept, every value masked. */
function maskParams(segment: string): string {
  const [own, ...params] = segment.split(';');
  return [own, ...params.map((p) => (p.includes('=') ? `${p.slice(0, p.indexOf('='))}=${MASK}` : MASK))].join(
    ';',
  );
}

/** Redacts one URL (scheme://…); text that is not a URL comes back unchanged. */
function redactUrl(url0: string): string {
  const scheme0 = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url0)?.[0];
  const slashed = scheme0 ? slashedUserinfo(url0.slice(scheme0.length)) : null;
  const url = slashed !== null ? `${scheme0}${MASK}${url0.slice(scheme0!.length + slashed.length)}` : url0;
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/i.exec(url);
  if (!m) return url;
  const [, scheme, authority0, path0, query0] = m;
  const at = authority0.lastIndexOf('@');
  const authority = at >= 0 ? `${MASK}@${authority0.slice(at + 1)}` : authority0;
  const host = authority0
    .slice(at + 1)
    .replace(/:\d*$/, '')
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  const segments = path0.split('/');
  // segments[0] is '' (the path starts with '/') when there is a path.
  const inner = segments.slice(1).map((s) => s.split(';')[0]);
  const provider = PROVIDERS.find((p) => p.host.test(host));
  const keep = provider ? provider.keep(inner) : Number.POSITIVE_INFINITY;
  const redacted = segments.slice(1).map((s, i) => {
    if (s === '') return s;
    if (i >= keep) return MASK;
    const own = inner[i];
    const masked = keyLike(own) ? MASK : own;
    return s.includes(';') ? maskParams(`${masked}${s.slice(own.length)}`) : masked;
  });
  const path = segments.length > 1 ? `/${redacted.join('/')}` : path0;
  const query = query0
    ? `?${query0
        .slice(1)
        .split('&')
        .map((kv) => {
          const eq = kv.indexOf('=');
          return eq < 0 ? (kv === '' ? kv : MASK) : `${kv.slice(0, eq)}=${MASK}`;
        })
        .join('&')}`
    : '';
  return `${scheme}${authority}${path}${query}`;
}

/**
 * Redacts every secret in `text`: every remembered secret by value ({@link redactKnown}), then
 * each URL in it per the module rules, and pairs whose name says secret. Idempotent
 * (`redact(redact(t)) === redact(t)`); never throws.
 * @param text a URL, a comma list of URLs (NATS_URL), or any message or detail.
 * @returns the text with every credential replaced by `***`.
 */
export function redact(text0: string): string {
  if (typeof text0 !== 'string' || text0 === '') return text0;
  const text = redactKnown(text0);
  const parts: string[] = [];
  let last = 0;
  for (const m of text.matchAll(URL_IN_TEXT)) {
    const i = m.index ?? 0;
    parts.push(maskPairs(text.slice(last, i)));
    // A URL ending in punctuation of the sentence around it: keep that outside the URL.
    const trail = /[.,;:)\]}]+$/.exec(m[0])?.[0] ?? '';
    parts.push(redactUrl(m[0].slice(0, m[0].length - trail.length)) + trail);
    last = i + m[0].length;
  }
  parts.push(maskPairs(text.slice(last)));
  return parts.join('');
}

/**
 * A deep copy of a log record (or a response body) with `fn` — {@link redact} by default — applied
 * to every string (errors become `{type, message, stack}` first). Depth is bounded (8 levels; what
 * lies deeper is dropped to `***`): a log record or a /health body is small.
 */
export function redactDeep(value: unknown, depth = 0, fn: (text: string) => string = redact): unknown {
  if (typeof value === 'string') return fn(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 8) return MASK;
  if (value instanceof Error)
    return redactDeep(
      { type: value.name, message: value.message, stack: value.stack, ...(value as object) },
      depth + 1,
      fn,
    );
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1, fn));
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v, depth + 1, fn);
  return out;
}

/** {@link redactDeep} of a record that keeps its type: every string of it passed through {@link redact}. */
export function redactRecord<T>(record: T): T {
  return redactDeep(record) as T;
}

/**
 * Options for pino that pass every record through {@link redactDeep} and every message through
 * {@link redact}: the logger itself cannot print a secret. Spread into `pino({...})`.
 */
export function redactingLoggerOptions(): {
  formatters: { log(o: Record<string, unknown>): Record<string, unknown> };
  hooks: { logMethod(this: unknown, args: unknown[], method: (...a: unknown[]) => void): void };
} {
  return {
    formatters: { log: (o) => redactDeep(o) as Record<string, unknown> },
    hooks: {
      logMethod(args, method) {
        // pino takes the message of an error logged alone from the error itself.
        const [first, ...rest] = args;
        const lead =
          first instanceof Error
            ? [{ err: redactDeep(first) }, typeof rest[0] === 'string' ? rest.shift() : first.message]
            : [first];
        method.apply(
          this,
          [...lead, ...rest].map((a) => (typeof a === 'string' ? redact(a) : a)),
        );
      },
    },
  };
}
