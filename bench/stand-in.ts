/**
 * What the node:http stand-in costs (issue AB): the release bench's point reads (c=1 precise p50/p99,
 * c=32 throughput and p99) and block-frame delivery (one consumer, then the fan-out) measured again
 * on an indexer started with `HTTP_CORE=node_http` on the same data directory and node, right
 * after the native core's figures of the same run. Each figure is labelled "stand-in" and carries
 * the native figure as its baseline, so its ratio is what an operator on the stand-in pays.
 * When the run itself has no native core (the uWS hello-world reported `native=false`), every
 * figure of the run is already the stand-in's: this section then records that, and no ratio.
 */

import type { IndexerChild } from './lib.js';
import { cannon, cannonFigures, latencyFigures, round, sampleLatency } from './lib.js';
import type { Figure } from './report.js';
import { type FanoutResult, fanout } from './streams.js';

/** The native core's figures of one point-read route in this run (from the release bench's section 4). */
export interface PointFigures {
  c1p50: number;
  c1p99: number;
  c32rps: number;
  c32p99: number;
}

/** Measures one route's point reads: precise c=1 p50/p99, autocannon c=32 throughput and p99. */
export async function measurePoint(
  ix: IndexerChild,
  paths: string[],
  o: { preciseN: number; durationS: number },
): Promise<PointFigures & { non2xx: number; c1p999: number }> {
  const precise = latencyFigures(
    await sampleLatency({ base: ix.base, paths, connections: 1, amount: o.preciseN }),
  );
  const c32 = cannonFigures(await cannon({ url: ix.base, paths, connections: 32, durationS: o.durationS }));
  return {
    c1p50: precise.p50ms,
    c1p99: precise.p99ms,
    c1p999: precise.p99_9ms,
    c32rps: c32.reqPerSec,
    c32p99: c32.p99ms,
    non2xx: precise.non2xx + c32.non2xx,
  };
}

/**
 * Runs the stand-in's rows against `ix` (an indexer started with `HTTP_CORE=node_http`, verified
 * by its /health) and emits them through `fig`, each beside the native figure of the same run.
 * @returns failures to report (non-2xx answers, missing frames), empty when clean.
 */
export async function standInRows(o: {
  ix: IndexerChild;
  rpcUrl: string;
  routes: Array<{ name: string; paths: string[] }>;
  native: Record<string, PointFigures>;
  nativeFan: { one: FanoutResult; many: FanoutResult };
  keys: string[];
  subscribers: number;
  blocks: number;
  preciseN: number;
  durationS: number;
  fig: (f: Figure) => void;
}): Promise<string[]> {
  const failures: string[] = [];
  const health = await o.ix.get('/health');
  const core = (health.body as { http?: { core?: string } })?.http?.core;
  if (core !== 'node_http') failures.push(`stand-in rows: the indexer served through ${core}, not node_http`);
  const group = 'Stand-in (node:http) vs native uWS';
  for (const r of o.routes) {
    const n = o.native[r.name];
    const s = await measurePoint(o.ix, r.paths, o);
    if (s.non2xx) failures.push(`stand-in ${r.name}: ${s.non2xx} non-2xx answers`);
    const row = (
      id: string,
      label: string,
      value: number,
      base: number,
      unit: string,
      better: 'lower' | 'higher',
    ) =>
      o.fig({
        id: `standin.${r.name}.${id}`,
        group,
        label: `stand-in: ${r.name} ${label}`,
        value,
        unit,
        better,
        baseline: { label: `native uWS, same run`, value: base, unit },
        status: 'info',
      });
    row('c1.p50', 'c=1 p50', s.c1p50, n.c1p50, 'ms', 'lower');
    row('c1.p99', 'c=1 p99', s.c1p99, n.c1p99, 'ms', 'lower');
    row('c32.rps', 'c=32 throughput', s.c32rps, n.c32rps, 'req/s', 'higher');
    row('c32.p99', 'c=32 p99 (autocannon, 1 ms resolution)', s.c32p99, n.c32p99, 'ms', 'lower');
  }
  const one = await fanout({
    ix: o.ix,
    rpcUrl: o.rpcUrl,
    keys: o.keys.slice(-1),
    subscribers: 1,
    blocks: o.blocks,
    processes: 1,
  });
  const many = await fanout({
    ix: o.ix,
    rpcUrl: o.rpcUrl,
    keys: o.keys,
    subscribers: o.subscribers,
    blocks: o.blocks,
    processes: 4,
  });
  if (one.missing || many.missing)
    failures.push(`stand-in streams: ${one.missing + many.missing} block frames never arrived`);
  const fanRow = (id: string, label: string, value: number, base: number) =>
    o.fig({
      id: `standin.streams.${id}`,
      group,
      label: `stand-in: ${label}`,
      value: round(value, 2),
      unit: 'ms',
      better: 'lower',
      baseline: { label: 'native uWS, same run', value: round(base, 2), unit: 'ms' },
      status: 'info',
    });
  fanRow('one.p50', 'block frame delivery p50, 1 consumer (c=1)', one.p50, o.nativeFan.one.p50);
  fanRow('one.p99', 'block frame delivery p99, 1 consumer (c=1)', one.p99, o.nativeFan.one.p99);
  fanRow('many.p50', `block frame delivery p50, ${many.connected} consumers`, many.p50, o.nativeFan.many.p50);
  fanRow('many.p99', `block frame delivery p99, ${many.connected} consumers`, many.p99, o.nativeFan.many.p99);
  return failures;
}
