/** A transaction (decoded) and a block: the search targets for hashes and numbers. */
import type { ComponentChildren } from 'preact';
import { api, type Session, useApi } from '../api.js';
import { short } from '../format.js';
import { Addr, Answered, href, KV, Table } from '../ui.js';

const hexNum = (x: unknown): string =>
  typeof x === 'string' && x.startsWith('0x') ? String(BigInt(x)) : String(x ?? '—');

/** The rows of a {@link KV} from a node object read as a record. */
const kvRows = (
  data: unknown,
  rows: (x: Record<string, unknown>) => Array<[string, ComponentChildren, string?]>,
) => rows(data as Record<string, unknown>);

export function TxPage({ session, chain, hash }: { session: Session; chain: string; hash: string }) {
  const c = api(session.key);
  const tx = useApi(
    () => c.GET('/index/v1/{chain}/transactions/{hash}', { params: { path: { chain, hash } } }),
    [hash],
  );
  const logs = useApi(
    () => c.GET('/index/v1/{chain}/transactions/{hash}/logs/decoded', { params: { path: { chain, hash } } }),
    [hash],
  );
  return (
    <div class="page">
      <h1>
        Transaction <code>{hash}</code>
      </h1>
      <Answered title="Transaction" answer={tx} testid="tx">
        {(b) => (
          <KV
            rows={kvRows(b.data, (t) => [
              ['block', <a href={href(chain, 'block', hexNum(t.blockNumber))}>{hexNum(t.blockNumber)}</a>],
              ['from', <Addr chain={chain} a={t.from as string} page="wallet" />],
              ['to', <Addr chain={chain} a={t.to as string | null} page="wallet" />],
              ['value (wei)', hexNum(t.value)],
              ['nonce', hexNum(t.nonce)],
              ['input', short(t.input as string, 10)],
            ])}
          />
        )}
      </Answered>
      <Answered title="Decoded logs" answer={logs}>
        {(b) => (
          <Table head={['#', 'address', 'event']}>
            {(b.data as Array<Record<string, unknown>>).map((l, i) => (
              <tr>
                <td>{i}</td>
                <td>
                  <Addr chain={chain} a={(l.address as string) ?? null} />
                </td>
                <td>
                  <code>
                    {String((l.decoded as { name?: string } | null)?.name ?? l.eventName ?? l.status ?? '—')}
                  </code>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Answered>
    </div>
  );
}

export function BlockPage({ session, chain, id }: { session: Session; chain: string; id: string }) {
  const c = api(session.key);
  const block = useApi(
    () => c.GET('/index/v1/{chain}/blocks/{number}', { params: { path: { chain, number: id as never } } }),
    [id],
  );
  return (
    <div class="page">
      <h1>Block {id}</h1>
      <Answered title="Block" answer={block} testid="block">
        {(b) => (
          <KV
            rows={kvRows(b.data, (x) => [
              ['number', hexNum(x.number), 'block-number'],
              ['hash', <code>{x.hash as string}</code>],
              ['parent', <code>{x.parentHash as string}</code>],
              ['timestamp', new Date(Number(hexNum(x.timestamp)) * 1000).toISOString()],
              ['transactions', Array.isArray(x.transactions) ? x.transactions.length : '—'],
              ['gas used', hexNum(x.gasUsed)],
            ])}
          />
        )}
      </Answered>
    </div>
  );
}
