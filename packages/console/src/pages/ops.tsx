/**
 * Operations: per chain, the follower (state, indexed head = the health anchor, node head, lag,
 * rates, reorgs), the reorgs seen live on `/stream/heads`, projections with status and progress,
 * open gaps, the traces lane and stream gauges. Refreshed every second.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, type Session, useApi } from '../api.js';
import { pct } from '../format.js';
import { liveStream } from '../stream.js';
import { Answered, KV, Panel, Table } from '../ui.js';

export function OpsPage({ session, renew }: { session: Session; renew(): Promise<unknown> }) {
  return (
    <div class="page">
      <h1>Operations</h1>
      {session.chains.map((c) => (
        <ChainOps key={c} chain={c} session={session} renew={renew} />
      ))}
    </div>
  );
}

function ChainOps({ chain, session, renew }: { chain: string; session: Session; renew(): Promise<unknown> }) {
  const { health, gaps } = useChainOpsAnswers(session, chain);
  return (
    <div class="chain-ops" data-testid={`ops-${chain}`}>
      <Answered title={`Chain ${chain} — follower`} answer={health} testid="ops-follower">
        {(h) => (
          <KV
            rows={[
              ['chain id', h.chainId],
              ['follower', <span class={`state ${h.ingest.state}`}>{h.ingest.state}</span>, 'ops-state'],
              ['indexed head', h.anchor ? h.anchor.block : `none (${h.anchorReason})`, 'ops-head'],
              ['node head', h.ingest.nodeHead ?? '—', 'ops-node-head'],
              ['lag', h.ingest.lagBlocks === null ? '—' : `${h.ingest.lagBlocks} blocks`, 'ops-lag'],
              ['rate', `${h.ingest.blocksPerSecond} blocks/s, ${h.ingest.eventsPerSecond} events/s`],
              [
                'mode',
                `${h.ingest.mode ?? 'idle at the head'}; history ends at ${h.ingest.historyEnd < 0 ? '— (none yet)' : h.ingest.historyEnd}${h.ingest.finalized === null ? '' : ` (node finalized ${h.ingest.finalized})`}`,
                'ops-mode',
              ],
              [
                'history segments',
                `${h.ingest.segments.committed} committed (≤ ${h.ingest.segments.maxBlocks} blocks / ${Math.round(h.ingest.segments.maxBytes / 2 ** 20)} MiB each)${h.ingest.segments.last ? `; last ${h.ingest.segments.last.from}–${h.ingest.segments.last.to}: ${h.ingest.segments.last.blocks} blocks, ${h.ingest.segments.last.txs} txs, ${(h.ingest.segments.last.bytes / 2 ** 20).toFixed(1)} MiB` : ''}${h.ingest.segments.open ? `; building ${h.ingest.segments.open.blocks} blocks from ${h.ingest.segments.open.from}` : ''}`,
                'ops-segments',
              ],
              [
                'rate by mode',
                `history ${h.ingest.rates.history.blocksPerSecond} blocks/s (${h.ingest.rates.history.txPerSecond} tx/s); live ${h.ingest.rates.live.blocksPerSecond} blocks/s (${h.ingest.rates.live.txPerSecond} tx/s)`,
                'ops-mode-rates',
              ],
              [
                'writer',
                `${h.storage.writesInFlight} writes in flight (${(h.storage.bytesInFlight / 2 ** 20).toFixed(1)} MiB); state cache ${(h.storage.stateCache.bytes / 2 ** 20).toFixed(1)} / ${Math.round(h.storage.stateCache.maxBytes / 2 ** 20)} MiB`,
              ],
              ['head source', h.ingest.headSource],
              ['reorgs', `${h.ingest.reorgs} (last depth ${h.ingest.lastReorgDepth})`, 'ops-reorgs'],
              ['halt', h.ingest.haltReason ?? '—'],
              ['last error', h.ingest.lastError ?? '—'],
              ['storage', h.storage.writable ? 'writable' : `refusing writes: ${h.storage.writeError}`],
              [
                'HTTP core',
                h.http.core === 'uws'
                  ? `native uWebSockets.js (${h.http.build})`
                  : `node:http stand-in (lower throughput): ${h.http.reason}`,
                'ops-http-core',
              ],
              ['open gaps', h.openGaps, 'ops-open-gaps'],
              ...(h.devnet
                ? ([
                    [
                      'devnet traffic',
                      `${h.devnet.traffic.state}: ${h.devnet.traffic.sent} sent, ${h.devnet.traffic.swaps} swaps`,
                    ],
                  ] as Array<[string, string]>)
                : []),
            ]}
          />
        )}
      </Answered>
      <ReorgFeed
        chain={chain}
        renew={renew}
        total={health.kind === 'ok' ? health.body.ingest.reorgs : null}
        lastDepth={health.kind === 'ok' ? health.body.ingest.lastReorgDepth : null}
      />
      {health.kind === 'ok' && (
        <>
          <Panel title="Projections" anchor={health.body.anchor} testid="ops-projections">
            <Table
              head={['projection', 'version', 'status', 'checkpoint', 'lag', 'progress', 'reason', 'backs']}
            >
              {health.body.projections.map((p) => (
                <tr data-projection={p.name} data-status={p.status}>
                  <td>{p.name}</td>
                  <td>{p.version}</td>
                  <td>
                    <span class={`state ${p.status}`}>{p.status}</span>
                  </td>
                  <td>{p.checkpoint ?? '—'}</td>
                  <td>{p.lagBlocks ?? '—'}</td>
                  <td>
                    {p.progress === null ? (
                      '—'
                    ) : (
                      <>
                        <progress max={1} value={p.progress} /> {pct(p.progress)}
                      </>
                    )}
                  </td>
                  <td>{p.reason ?? ''}</td>
                  <td class="muted">{p.backs.join(', ')}</td>
                </tr>
              ))}
            </Table>
          </Panel>
          <Panel title="Traces lane and streams" anchor={health.body.anchor} testid="ops-streams">
            <KV
              rows={[
                [
                  'traces',
                  health.body.traces.enabled
                    ? `${health.body.traces.state}, checkpoint ${health.body.traces.checkpoint ?? '—'}, ${health.body.traces.behindBlocks ?? '—'} blocks behind${health.body.traces.reason ? ` (${health.body.traces.reason})` : ''}`
                    : `disabled${health.body.traces.reason ? ` (${health.body.traces.reason})` : ''}`,
                  'ops-traces',
                ],
                ['open SSE connections', health.body.streams.openConnections, 'ops-sse'],
                ['hub subscribers', health.body.streams.hubSubscribers],
                ['lag disconnects', health.body.streams.lagDisconnects],
              ]}
            />
            <Table head={['topic', 'last sequence', 'oldest kept']}>
              {health.body.streams.topics.map((t) => (
                <tr>
                  <td>{t.topic}</td>
                  <td class="num">{t.lastSequence}</td>
                  <td class="num">{t.oldestSequence}</td>
                </tr>
              ))}
            </Table>
          </Panel>
        </>
      )}
      <Answered title="Gaps (newest first)" answer={gaps} testid="ops-gaps">
        {(g) =>
          g.data.length ? (
            <Table head={['lane', 'blocks', 'status', 'reason', 'opened at', 'resolved at']}>
              {g.data.map((x) => (
                <tr data-status={x.status}>
                  <td>{x.lane}</td>
                  <td>
                    {x.fromBlock}…{x.toBlock}
                  </td>
                  <td>{x.status}</td>
                  <td>{x.reason}</td>
                  <td>{x.openedAt}</td>
                  <td>{x.resolvedAt ?? '—'}</td>
                </tr>
              ))}
            </Table>
          ) : (
            <div class="muted">no gap recorded</div>
          )
        }
      </Answered>
    </div>
  );
}

/** One reorg as the heads stream told it: consecutive `reorg` frames, one per removed block. */
interface SeenReorg {
  /** Stream id of its first frame (durable, unique). */
  id: string;
  /** When the first frame arrived (browser clock). */
  seenAt: Date;
  /** Removed block numbers, highest first (the order the follower rolls back). */
  removed: number[];
  /** The canonical head after the rollback: the common ancestor of both forks. */
  ancestor: { number: number; hash: string } | null;
}

interface ReorgFrame {
  removedBlocks: Array<{ number: number; hash: string }>;
  newHead: { number: number; hash: string } | null;
}

/**
 * Reorgs seen live on `/stream/heads` since the page opened (the follower sends one `reorg` frame
 * per block it rolls back, then `head` frames of the new fork): depth, removed blocks, common
 * ancestor. `total` and `lastDepth` are the follower's own counters from `/health`.
 */
function ReorgFeed(p: {
  chain: string;
  renew(): Promise<unknown>;
  total: number | null;
  lastDepth: number | null;
}) {
  const [seen, setSeen] = useState<SeenReorg[]>([]);
  const [state, setState] = useState('connecting');
  useEffect(() => {
    /** True while the frames arriving belong to the reorg at the top of the list. */
    let open = false;
    return liveStream(`/index/v1/${encodeURIComponent(p.chain)}/stream/heads`, {
      attach(es) {
        es.addEventListener('reorg', (ev: MessageEvent) => {
          const d = JSON.parse(ev.data) as ReorgFrame;
          const removed = d.removedBlocks.map((b) => b.number);
          const continues = open;
          open = true;
          setSeen((all) => {
            if (continues && all.length) {
              const [top, ...rest] = all;
              return [{ ...top, removed: [...top.removed, ...removed], ancestor: d.newHead }, ...rest];
            }
            const r: SeenReorg = {
              id: ev.lastEventId,
              seenAt: new Date(),
              removed,
              ancestor: d.newHead,
            };
            return [r, ...all].slice(0, 20);
          });
        });
        // A head frame ends the reorg: the next reorg frame starts a new one.
        es.addEventListener('head', () => {
          open = false;
        });
      },
      setState,
      renew: () => p.renew(),
    });
  }, [p.chain]);
  return (
    <Panel title="Reorgs" testid="ops-reorg-feed">
      <div class="muted" data-testid="reorg-feed-state" data-state={state}>
        <span class={`dot ${state === 'live' ? 'on' : ''}`} /> heads stream — {state}; the follower counted{' '}
        {p.total ?? '—'} reorgs (last depth {p.lastDepth ?? '—'})
      </div>
      <Table head={['seen at', 'depth', 'removed blocks', 'common ancestor']}>
        {seen.map((r) => {
          const lo = Math.min(...r.removed);
          const hi = Math.max(...r.removed);
          return (
            <tr
              key={r.id}
              data-testid="reorg-row"
              data-depth={r.removed.length}
              data-from={lo}
              data-to={hi}
              data-ancestor={r.ancestor?.number}
            >
              <td>{r.seenAt.toISOString().slice(11, 23)}</td>
              <td class="num">{r.removed.length}</td>
              <td>{lo === hi ? lo : `${lo}…${hi}`}</td>
              <td title={r.ancestor?.hash}>
                {r.ancestor ? r.ancestor.number : '— (rolled back to nothing)'}
              </td>
            </tr>
          );
        })}
      </Table>
      {!seen.length && <div class="muted">no reorg since the page opened</div>}
    </Panel>
  );
}

/** Loads a chain's health (every second) and its newest open gaps (every 5 s). */
function useChainOpsAnswers(session: Session, chain: string) {
  const c = api(session.key);
  const health = useApi(
    () => c.GET('/index/v1/{chain}/health', { params: { path: { chain } } }),
    [chain],
    1000,
  );
  const gaps = useApi(
    () =>
      c.GET('/index/v1/{chain}/gaps', { params: { path: { chain }, query: { limit: 50, order: 'desc' } } }),
    [chain],
    5000,
  );
  return { health, gaps };
}
