/**
 * Search by address, symbol, transaction hash or block: a 32-byte hash is tried as a transaction
 * then as a block hash; digits are a block number; an address goes to its token, pool or wallet
 * page (from the address's labels); anything else is a token search (an exact symbol match opens
 * the token page).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, type components, type ErrorBody, type Session } from '../api.js';
import { ErrorView, href, Panel, Table } from '../ui.js';

export function SearchBox({ chain }: { chain: string }) {
  const [q, setQ] = useState('');
  return (
    <form
      class="search"
      onSubmit={(e) => {
        e.preventDefault();
        if (q.trim()) location.hash = href(chain, 'search', q.trim());
      }}
    >
      <input
        placeholder="address, symbol, tx hash or block"
        value={q}
        onInput={(e) => setQ((e.target as HTMLInputElement).value)}
        data-testid="search"
      />
    </form>
  );
}

type Found = components['schemas']['tokens.search']['data'];
type Result =
  | { kind: 'pending' }
  | { kind: 'list'; rows: Found; anchor: { block: number; hash: string } }
  | { kind: 'none'; why: string }
  | { kind: 'error'; status: number; body: ErrorBody };

export function SearchPage({ session, chain, q }: { session: Session; chain: string; q: string }) {
  const [r, setR] = useState<Result>({ kind: 'pending' });
  useEffect(() => {
    let gone = false;
    const go = (page: string, ...args: string[]) => !gone && location.replace(href(chain, page, ...args));
    const c = api(session.key);
    const path = { chain };
    (async () => {
      const s = q.trim();
      if (/^0x[0-9a-fA-F]{64}$/.test(s)) {
        const tx = await c.GET('/index/v1/{chain}/transactions/{hash}', {
          params: { path: { ...path, hash: s } },
        });
        if (tx.data) return go('tx', s);
        const b = await c.GET('/index/v1/{chain}/blocks/by-hash/{hash}', {
          params: { path: { ...path, hash: s } },
        });
        if (b.data) return go('block', String(b.data.data.number ?? s));
        return setR({ kind: 'none', why: 'no transaction or block with this hash in the index' });
      }
      if (/^\d+$/.test(s)) return go('block', s);
      if (/^0x[0-9a-fA-F]{40}$/.test(s)) {
        const a = await c.GET('/index/v1/{chain}/addresses/{address}', {
          params: { path: { ...path, address: s } },
        });
        const labels = a.data?.data.labels.map((l) => l.label) ?? [];
        if (labels.includes('token')) return go('token', s.toLowerCase());
        if (labels.includes('pool')) return go('pool', s.toLowerCase());
        const t = await c.GET('/index/v1/{chain}/tokens/{address}', {
          params: { path: { ...path, address: s } },
        });
        return go(t.data ? 'token' : 'wallet', s.toLowerCase());
      }
      const found = await c.GET('/index/v1/{chain}/tokens/search', {
        params: { path, query: { q: s, limit: 20 } },
      });
      if (!found.data)
        return setR({
          kind: 'error',
          status: found.response.status,
          body: found.error as unknown as ErrorBody,
        });
      const rows = found.data.data;
      if (rows.length && (rows[0].matchClass === 1 || rows.length === 1)) return go('token', rows[0].address);
      setR(
        rows.length
          ? { kind: 'list', rows, anchor: found.data.anchor }
          : { kind: 'none', why: 'no token matches' },
      );
    })().catch((e) => setR({ kind: 'none', why: String(e) }));
    return () => {
      gone = true;
    };
  }, [chain, q]);
  return (
    <div class="page">
      <h1>Search “{q}”</h1>
      {r.kind === 'pending' && <div class="muted">searching…</div>}
      {r.kind === 'none' && <div class="refusal">{r.why}</div>}
      {r.kind === 'error' && <ErrorView status={r.status} body={r.body} />}
      {r.kind === 'list' && (
        <Panel title="Tokens" anchor={r.anchor}>
          <Table head={['symbol', 'name', 'address', 'kind']}>
            {r.rows.map((t) => (
              <tr>
                <td>
                  <a href={href(chain, 'token', t.address)}>{t.symbol ?? '—'}</a>
                </td>
                <td>{t.name ?? '—'}</td>
                <td>
                  <code>{t.address}</code>
                </td>
                <td>{t.kind}</td>
              </tr>
            ))}
          </Table>
        </Panel>
      )}
    </div>
  );
}
