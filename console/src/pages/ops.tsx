/**
 * Operations: per chain, the follower (state, indexed head = the health anchor, node head, lag,
 * rates, reorgs), projections with status and progress, open gaps, the traces lane and stream
 * gauges. Refreshed every second.
 */
import { api, type Session, useApi } from '../api.js';
import { pct } from '../format.js';
import { Answered, KV, Panel } from '../ui.js';

export function OpsPage({ session }: { session: Session }) {
  return (
    <div class="page">
      <h1>Operations</h1>
      {session.chains.map((c) => (
        <ChainOps key={c} chain={c} session={session} />
      ))}
    </div>
  );
}

function ChainOps({ chain, session }: { chain: string; session: Session }) {
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
  return (
    <div class="chain-ops" data-testid={`ops-${chain}`}>
      <Answered
        title={`Chain ${chain} — follower`}
        answer={health}
        testid="ops-follower"
        render={(h) => (
          <KV
            rows={[
              ['chain id', h.chainId],
              ['follower', <span class={`state ${h.ingest.state}`}>{h.ingest.state}</span>, 'ops-state'],
              ['indexed head', h.anchor ? h.anchor.block : `none (${h.anchorReason})`, 'ops-head'],
              ['node head', h.ingest.nodeHead ?? '—', 'ops-node-head'],
              ['lag', h.ingest.lagBlocks === null ? '—' : `${h.ingest.lagBlocks} blocks`, 'ops-lag'],
              ['rate', `${h.ingest.blocksPerSecond} blocks/s, ${h.ingest.eventsPerSecond} events/s`],
              ['head source', h.ingest.headSource],
              ['reorgs', `${h.ingest.reorgs} (last depth ${h.ingest.lastReorgDepth})`, 'ops-reorgs'],
              ['halt', h.ingest.haltReason ?? '—'],
              ['last error', h.ingest.lastError ?? '—'],
              ['storage', h.storage.writable ? 'writable' : `refusing writes: ${h.storage.writeError}`],
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
      />
      {health.kind === 'ok' && (
        <>
          <Panel title="Projections" anchor={health.body.anchor} testid="ops-projections">
            <table>
              <thead>
                <tr>
                  <th>projection</th>
                  <th>version</th>
                  <th>status</th>
                  <th>checkpoint</th>
                  <th>lag</th>
                  <th>progress</th>
                  <th>reason</th>
                  <th>backs</th>
                </tr>
              </thead>
              <tbody>
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
              </tbody>
            </table>
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
            <table>
              <thead>
                <tr>
                  <th>topic</th>
                  <th>last sequence</th>
                  <th>oldest kept</th>
                </tr>
              </thead>
              <tbody>
                {health.body.streams.topics.map((t) => (
                  <tr>
                    <td>{t.topic}</td>
                    <td class="num">{t.lastSequence}</td>
                    <td class="num">{t.oldestSequence}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Panel>
        </>
      )}
      <Answered
        title="Gaps (newest first)"
        answer={gaps}
        testid="ops-gaps"
        render={(g) =>
          g.data.length ? (
            <table>
              <thead>
                <tr>
                  <th>lane</th>
                  <th>blocks</th>
                  <th>status</th>
                  <th>reason</th>
                  <th>opened at</th>
                  <th>resolved at</th>
                </tr>
              </thead>
              <tbody>
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
              </tbody>
            </table>
          ) : (
            <div class="muted">no gap recorded</div>
          )
        }
      />
    </div>
  );
}
