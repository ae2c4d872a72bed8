/**
 * NATS server lists with credentials (NATS_URL, SCANNER_NATS_URL): `nats://user:password@host:4222`
 * or `nats://token@host:4222`, comma-separated. The NATS client takes credentials as options, not
 * in its server URLs, so they are taken out here: every URL of a list carries the same credentials
 * or none (a list is one identity on one cluster). The URLs themselves are logged only through
 * the one redaction (platform/src/redact.ts).
 */

/** What a NATS client's `connect()` needs of a server list. */
export interface NatsConnectOptions {
  servers: string[];
  user?: string;
  pass?: string;
  token?: string;
}

const URL_RE = /^(nats|tls|ws|wss):\/\/(?:([^@/]*)@)?([^@/\s]+)\/?$/i;

/**
 * Splits a comma list of NATS URLs into servers and credentials.
 * @throws Error when a URL is not `scheme://[userinfo@]host[:port]` or the URLs carry different credentials.
 */
export function natsConnectOptions(list: string): NatsConnectOptions {
  const servers: string[] = [];
  let auth: string | undefined;
  const urls = list
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  for (const [i, u] of urls.entries()) {
    const m = URL_RE.exec(u);
    if (!m) throw new Error(`NATS URL ${i + 1} of the list is not scheme://[user:password@]host[:port]`);
    if (i > 0 && (m[2] ?? '') !== (auth ?? ''))
      throw new Error('every NATS URL of a list must carry the same credentials (or none)');
    auth = m[2] ?? '';
    servers.push(`${m[1]}://${m[3]}`);
  }
  if (!servers.length) throw new Error('no NATS URL');
  if (!auth) return { servers };
  const colon = auth.indexOf(':');
  if (colon < 0) return { servers, token: decodeURIComponent(auth) };
  return {
    servers,
    user: decodeURIComponent(auth.slice(0, colon)),
    pass: decodeURIComponent(auth.slice(colon + 1)),
  };
}
