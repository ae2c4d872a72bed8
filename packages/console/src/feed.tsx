/**
 * Recent AMM events, live: `/stream/amm-events` through `EventSource` (filters `tokens=` or
 * `pools=`), newest first, the last 25 kept. Each row names its block.
 */
import { useEffect, useState } from 'preact/hooks';
import { short } from './format.js';
import { liveStream } from './stream.js';
import { PoolLink, Table } from './ui.js';

interface AmmEvent {
  kind: string;
  pool: string;
  protocol: string;
  block: number;
  txHash: string;
  origin?: string;
  amount0?: string;
  amount1?: string;
  side?: string;
  id: string;
}

export function AmmFeed(p: { chain: string; filter: string; renew(): Promise<unknown> }) {
  const [rows, setRows] = useState<AmmEvent[]>([]);
  const [state, setState] = useState('connecting');
  useEffect(() => {
    const on = (ev: MessageEvent) => {
      const d = JSON.parse(ev.data) as Omit<AmmEvent, 'id'>;
      setRows((r) =>
        [
          {
            ...d,
            kind: ev.type === 'liquidity' ? `liquidity ${d.kind}` : (d.kind ?? ev.type),
            id: ev.lastEventId,
          },
          ...r,
        ].slice(0, 25),
      );
    };
    return liveStream(`/index/v1/${encodeURIComponent(p.chain)}/stream/amm-events?${p.filter}`, {
      attach(es) {
        for (const t of ['swap', 'liquidity', 'pool_created', 'initialize']) es.addEventListener(t, on);
      },
      setState,
      renew: () => p.renew(),
    });
  }, [p.chain, p.filter]);
  return (
    <div data-testid="amm-feed" data-rows={rows.length}>
      <div class="muted">
        <span class={`dot ${state === 'live' ? 'on' : ''}`} /> amm-events stream ({p.filter}) — {state}
      </div>
      <Table head={['block', 'event', 'pool', 'side', 'amount0', 'amount1', 'tx']}>
        {rows.map((r) => (
          <tr key={r.id}>
            <td>{r.block}</td>
            <td>{r.kind}</td>
            <td>
              <PoolLink chain={p.chain} k={r.pool} /> {r.protocol}
            </td>
            <td>{r.side ?? ''}</td>
            <td class="num">{r.amount0 ?? ''}</td>
            <td class="num">{r.amount1 ?? ''}</td>
            <td>
              <code>{short(r.txHash)}</code>
            </td>
          </tr>
        ))}
      </Table>
      {!rows.length && <div class="muted">no event since the page opened</div>}
    </div>
  );
}
