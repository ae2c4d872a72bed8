/**
 * The one redaction of secrets (SECURITY.md, "Secrets"): every URL and secret that can reach a log
 * line, an error body, a metric label or `/health` goes through {@link redact}. Node providers
 * put their API key in the URL path (`…/v2/<key>`), in the userinfo (`https://:secret@…`,
 * `nats://user:pass@…`, `nats://token@…`) or in the query (`?apikey=…`, `&dkey=…`), so a URL is
 * kept only as far as it names where it points: scheme, host, port, and the path segments that
 * are not credentials.
 *
 * Rules, applied to every `scheme://…` URL found in a text:
 *  - userinfo (anything before `@` in the authority) → `***`;
 *  - every query value → `***` (names are kept: they say what was set, never a value);
 *  - a fragment → dropped;
 *  - path segments: at a known provider (Alchemy, Infura, QuickNode, Ankr, Chainstack, Blast,
 *    GetBlock, Tenderly, dRPC, BlockPI, NodeReal, Nodies, Moralis, Allnodes) every segment past the
 *    provider's fixed prefix (`v2`, `v3`, `ws/v3`, a chain name) → `***`; elsewhere any segment that
 *    looks like a key (≥ 16 characters of letters, digits, `-`, `_`, `.`, `=`, with at least one digit
 *    and one letter, or a UUID) → `***`.
 * Text outside URLs is kept, except `name=value` pairs whose name says secret (`password=`,
 * `token=`, `apikey=`, `CURSOR_SECRET=` …) and `Bearer <token>`, whose value → `***`.
 */

/** What replaces a secret. */
export const MASK = '***';

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
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/**
 * A URL inside a text: a scheme, `://`, and everything up to white space, a quote, a bracket, or
 * a comma that starts the next URL of a list (`nats://a@h1,nats://a@h2`).
 */
const URL_IN_TEXT =
  /\b([a-z][a-z0-9+.-]{1,15}):\/\/[^\s"'<>`]+?(?=,[a-z][a-z0-9+.-]{1,15}:\/\/|[\s"'<>`]|$)/gi;
/** `name=value` with a secret-sounding name, and `Bearer <token>`, outside URLs. */
const SECRET_PAIR =
  /\b((?:[a-z0-9_]*_)?(?:api[_-]?key|apikey|x-api-key|access[_-]?token|auth[_-]?token|token|secret|password|passwd|pass|dkey|private[_-]?key)=["']?)(?!\*\*\*)([^\s"'&,;}]+)|\b(Bearer[ \t]+)(?!\*\*\*)([A-Za-z0-9._~+/=-]{8,})/gi;
const maskPairs = (t: string) =>
  t.replace(SECRET_PAIR, (_m, name?: string, _v?: string, bearer?: string) => `${name ?? bearer}${MASK}`);

/** Redacts one URL (scheme://…); text that is not a URL comes back unchanged. */
function redactUrl(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/i.exec(url);
  if (!m) return url;
  const [, scheme, authority0, path0, query0] = m;
  const at = authority0.lastIndexOf('@');
  const authority = at >= 0 ? `${MASK}@${authority0.slice(at + 1)}` : authority0;
  const host = authority0
    .slice(at + 1)
    .replace(/:\d*$/, '')
    .replace(/^\[|\]$/g, '')
    .toLowerCase();
  const segments = path0.split('/');
  // segments[0] is '' (the path starts with '/') when there is a path.
  const inner = segments.slice(1);
  const provider = PROVIDERS.find((p) => p.host.test(host));
  const keep = provider ? provider.keep(inner) : Number.POSITIVE_INFINITY;
  const redacted = inner.map((s, i) => {
    if (s === '') return s;
    if (i >= keep) return MASK;
    return KEYLIKE.test(s) || UUID.test(s) ? MASK : s;
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
 * Redacts every secret in `text`: each URL in it per the module rules, and `name=value` pairs
 * whose name says secret. Idempotent (`redact(redact(t)) === redact(t)`); never throws.
 * @param text a URL, a comma list of URLs (NATS_URL), or any message or detail.
 * @returns the text with every credential replaced by `***`.
 */
export function redact(text: string): string {
  if (typeof text !== 'string' || text === '') return text;
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
 * A deep copy of a log record with {@link redact} applied to every string (errors become
 * `{type, message, stack}` first). Depth and size are bounded: a log record is small.
 */
export function redactDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redact(value);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (value instanceof Error)
    return redactDeep(
      { type: value.name, message: value.message, stack: value.stack, ...(value as object) },
      depth + 1,
    );
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1));
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v, depth + 1);
  return out;
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
