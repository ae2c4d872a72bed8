/**
 * Shared pieces of the console: the hash router, panels that show the anchor block of every
 * figure, the refusal view (a 503 names the projection that is building), address links.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Answer, ErrorBody } from './api.js';
import { pct, short } from './format.js';

/** The route: `#/<chain>/<page>/<arg...>[?at=<block>]` or `#/ops`. */
export interface Route {
  chain: string | null;
  page: string;
  args: string[];
  /** The block the page is shown as of (`?at=N`), null at the head. */
  at: number | null;
}

/** Parses a location hash into a {@link Route}; an `at` that is not a block number is the head. */
export function parseHash(hash: string): Route {
  const [where, search = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  const parts = where.split('/').filter(Boolean).map(decodeURIComponent);
  const atRaw = new URLSearchParams(search).get('at');
  const at = atRaw !== null && /^(0|[1-9][0-9]{0,15})$/.test(atRaw) ? Number(atRaw) : null;
  if (!parts.length || parts[0] === 'ops') return { chain: null, page: 'ops', args: [], at: null };
  return { chain: parts[0], page: parts[1] ?? 'ops', args: parts.slice(2), at };
}

export const href = (chain: string, page: string, ...args: string[]): string =>
  `#/${[chain, page, ...args].map(encodeURIComponent).join('/')}`;

/** The hash of `route` shown as of block `at` (null: at the head). */
export const hrefAt = (route: Route, at: number | null): string =>
  `${href(route.chain ?? '', route.page, ...route.args)}${at === null ? '' : `?at=${at}`}`;

export function useRoute(): Route {
  const [r, setR] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const on = () => setR(parseHash(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return r;
}

export interface Anchor {
  block: number;
  hash: string;
}

/** `@ block N` badge: the block every figure of the panel was read at. */
export function AnchorBadge({ anchor, label = 'block' }: { anchor: Anchor | null; label?: string }) {
  if (!anchor) return <span class="anchor">no anchor</span>;
  return (
    <span
      class="anchor"
      data-testid="anchor"
      data-block={anchor.block}
      data-hash={anchor.hash}
      title={anchor.hash}
    >
      @ {label} {anchor.block}
    </span>
  );
}

export function Panel(p: {
  title: string;
  anchor?: Anchor | null;
  testid?: string;
  tools?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <section class="panel" data-testid={p.testid} data-anchor={p.anchor?.block}>
      <header>
        <h2>{p.title}</h2>
        {p.tools}
        {p.anchor !== undefined && <AnchorBadge anchor={p.anchor} />}
      </header>
      <div class="body">{p.children}</div>
    </section>
  );
}

/** A refusal as the server sent it; projection_unavailable names the projection and its state. */
export function ErrorView({ status, body }: { status: number; body: ErrorBody }) {
  if (body.error === 'projection_unavailable') {
    return (
      <div
        class="refusal building"
        data-testid="unavailable"
        data-projection={body.projection}
        data-status={status}
      >
        <strong>
          Projection “{body.projection}” is {body.status ?? 'not ready'}
        </strong>
        {body.progress !== undefined && body.progress !== null && <> — {pct(body.progress)} built</>}
        {body.reason && <> ({body.reason})</>}. Not shown until it is ready; this view retries.
        <div class="detail">{body.detail}</div>
      </div>
    );
  }
  return (
    <div class="refusal" data-testid="refusal" data-error={body.error} data-status={status}>
      <strong>
        {status || 'network'} {body.error}
      </strong>
      : {body.detail}
    </div>
  );
}

/**
 * What a section says on a page shown as of a past block when its route does not answer as of a
 * block: the route and the contract's reason, instead of the head's figures.
 */
export function NotAsOfView(p: { block: number; what: string; reason: string }) {
  return (
    <div class="refusal not-as-of" data-testid="not-as-of" data-block={p.block}>
      <strong>Not shown as of block {p.block}</strong>: {p.what.replace('/index/v1/{chain}', '')} does not
      answer as of a block ({p.reason}).
    </div>
  );
}

/**
 * A panel over one API answer: loading, refusal, or its children (a function of the body) with the
 * body's anchor.
 */
export function Answered<T extends { anchor?: Anchor | null }>(p: {
  title: string;
  answer: Answer<T>;
  testid?: string;
  tools?: ComponentChildren;
  /** The panel's content from the answer's body. */
  children: (body: T) => ComponentChildren;
}) {
  const a = p.answer;
  return (
    <Panel
      title={p.title}
      testid={p.testid}
      tools={p.tools}
      anchor={a.kind === 'ok' ? (a.body.anchor ?? null) : undefined}
    >
      {a.kind === 'loading' && <div class="muted">loading…</div>}
      {a.kind === 'error' && <ErrorView status={a.status} body={a.body} />}
      {a.kind === 'not_as_of' && <NotAsOfView block={a.block} what={`GET ${a.path}`} reason={a.reason} />}
      {a.kind === 'ok' && p.children(a.body)}
    </Panel>
  );
}

/** Link to the page of an address (token, pool or wallet). */
export function Addr({ chain, a, page }: { chain: string; a: string | null | undefined; page?: string }) {
  if (!a) return <span class="muted">—</span>;
  if (!page) return <code title={a}>{short(a)}</code>;
  return (
    <a href={href(chain, page, a)} title={a}>
      <code>{short(a)}</code>
    </a>
  );
}

/** Definition list of label → value rows. */
export function KV({ rows }: { rows: Array<[string, ComponentChildren, string?]> }) {
  return (
    <dl class="kv">
      {rows.map(([k, v, id]) => (
        <>
          <dt>{k}</dt>
          <dd data-testid={id}>{v}</dd>
        </>
      ))}
    </dl>
  );
}

/**
 * The pool a key names (52 bytes: V2/V3 address + 32 zero bytes; V4 PoolManager + pool id;
 * launchpad curve + token + 12 zero bytes), as people know it: a V2/V3 pool by its 20-byte
 * address, a V4 pool by its 32-byte id (and its PoolManager), a launchpad curve by its contract and
 * token. The key's zero padding is never shown.
 */
export function poolOfKey(k: string): {
  kind: 'v2v3' | 'v4' | 'curve';
  contract: string;
  poolId: string | null;
  token: string | null;
  shown: string;
} {
  const contract = k.slice(0, 42);
  const id = k.slice(42);
  if (/^0*$/.test(id)) return { kind: 'v2v3', contract, poolId: null, token: null, shown: contract };
  if (id.endsWith('0'.repeat(24)))
    return { kind: 'curve', contract, poolId: null, token: `0x${id.slice(0, 40)}`, shown: contract };
  return { kind: 'v4', contract, poolId: `0x${id}`, token: null, shown: `0x${id}` };
}

/** Link to a pool's page from its key: V2/V3 by address, V4 by manager and pool id; the full id in the title. */
export function PoolLink({ chain, k, label }: { chain: string; k: string; label?: string }) {
  const p = poolOfKey(k);
  const v4 = p.kind === 'v4';
  const to =
    p.kind === 'curve'
      ? href(chain, 'token', p.token!)
      : v4
        ? href(chain, 'pool', 'v4', p.contract, p.poolId!)
        : href(chain, 'pool', p.contract);
  const title = v4
    ? `V4 pool id ${p.poolId} (PoolManager ${p.contract})`
    : p.kind === 'curve'
      ? `launchpad curve ${p.contract} of token ${p.token}`
      : `pool ${p.contract}`;
  return (
    <a href={to} title={title} data-pool={p.shown}>
      <code>{label ?? (v4 ? `v4 ${short(p.poolId)}` : short(p.contract))}</code>
    </a>
  );
}

/** The leading cells of a window-stats row: the window, its trades, its buys / sells. */
export function WindowCells({ w, x }: { w: string; x: { trades: number; buys: number; sells: number } }) {
  return (
    <>
      <td>{w}</td>
      <td class="num">{x.trades}</td>
      <td class="num">
        {x.buys} / {x.sells}
      </td>
    </>
  );
}

/** A table with one header row of `head` labels; the children are its body rows. */
export function Table(p: { head: string[]; children: ComponentChildren }) {
  return (
    <table>
      <thead>
        <tr>
          {p.head.map((h) => (
            <th>{h}</th>
          ))}
        </tr>
      </thead>
      <tbody>{p.children}</tbody>
    </table>
  );
}
