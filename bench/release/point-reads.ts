/**
 * Release bench, section 4 (reads): point reads (c=1 precise p50/p99/p99.9, c=1 and c=32
 * autocannon), on the bench chain's blocks, transactions and receipts, then the token / pool /
 * wallet routes that answer on it. The same measure serves the devnet markets (section 7).
 */
import { cannon, cannonFigures, type IndexerChild, latencyFigures, sampleLatency } from '../lib.js';
import { BUDGETS } from '../report.js';
import type { PointFigures } from '../stand-in.js';
import type { Ceiling } from './ceiling.js';
import type { Chain } from './chain.js';
import type { FigureRest, Release } from './context.js';

/** A latency figure's unit and direction; a throughput figure's. */
const LATENCY = { unit: 'ms', better: 'lower' } as const;
const THROUGHPUT = { unit: 'req/s', better: 'higher' } as const;

export type PointRead = (name: string, paths: string[], group: string, ix?: IndexerChild) => Promise<void>;

/**
 * The point-read measure of one route, on `ixA` unless told; it records the native core's figures
 * by route in `nativePoint`, the stand-in's baselines (section 4b).
 */
export function pointReader(r: Release, { ceil1, ceil32, ceilPrecise }: Ceiling, ixA: IndexerChild) {
  const { P, hardFailures, fig } = r;
  const nativePoint: Record<string, PointFigures> = {};
  const point = async (name: string, paths: string[], group: string, ix: IndexerChild = ixA) => {
    const probe = await ix.get(paths[0]);
    if (probe.status !== 200)
      throw new Error(
        `${name}: ${paths[0]} answered ${probe.status} ${JSON.stringify(probe.body).slice(0, 300)}`,
      );
    // On the moving chain, the bare hello-world right before, in the same conditions (info).
    const helloNow = r.movingHello
      ? latencyFigures(
          await sampleLatency({ base: r.movingHello, paths: ['/hello'], connections: 1, amount: P.preciseN }),
        )
      : null;
    const precise = latencyFigures(
      await sampleLatency({ base: ix.base, paths, connections: 1, amount: P.preciseN }),
    );
    const c1 = cannonFigures(await cannon({ url: ix.base, paths, connections: 1, durationS: P.dur }));
    const c32 = cannonFigures(await cannon({ url: ix.base, paths, connections: 32, durationS: P.dur }));
    if (precise.non2xx || c1.non2xx || c32.non2xx)
      hardFailures.push(`${name}: non-2xx answers (${precise.non2xx}/${c1.non2xx}/${c32.non2xx})`);
    nativePoint[name] = {
      c1p50: precise.p50ms,
      c1p99: precise.p99ms,
      c32rps: c32.reqPerSec,
      c32p99: c32.p99ms,
    };
    /** A figure of this route: `read.<name>.<id>`, labelled `<name> <label>`. */
    const routeFig = (id: string, label: string, value: number, f: FigureRest) =>
      fig({ id: `read.${name}.${id}`, group, label: `${name} ${label}`, value, ...f });
    routeFig('c1.p50', 'c=1 p50', precise.p50ms, {
      ...LATENCY,
      baseline: { label: 'uWS hello c=1 p50', value: ceilPrecise.p50ms, unit: 'ms' },
      budget: BUDGETS.pointP50c1,
      status: 'measured',
    });
    routeFig('c1.p99', 'c=1 p99', precise.p99ms, {
      ...LATENCY,
      baseline: { label: 'uWS hello c=1 p99', value: ceilPrecise.p99ms, unit: 'ms' },
      budget: BUDGETS.pointP99c1,
    });
    if (helloNow)
      routeFig(
        'c1.p99.moving',
        'c=1 p99 against the hello sampled just before it on the moving chain',
        precise.p99ms,
        {
          ...LATENCY,
          baseline: { label: 'uWS hello c=1 p99, chain moving', value: helloNow.p99ms, unit: 'ms' },
          status: 'info',
        },
      );
    routeFig('c1.p999', 'c=1 p99.9', precise.p99_9ms, { ...LATENCY, status: 'info' });
    routeFig('c1.rps', 'c=1 throughput', c1.reqPerSec, {
      ...THROUGHPUT,
      baseline: { label: 'uWS c=1', value: ceil1.reqPerSec, unit: 'req/s' },
      status: 'info',
    });
    routeFig('c32.rps', 'c=32 throughput', c32.reqPerSec, {
      ...THROUGHPUT,
      baseline: { label: 'uWS c=32', value: ceil32.reqPerSec, unit: 'req/s' },
      budget: BUDGETS.throughputC32,
    });
    routeFig('c32.p99', 'c=32 p99 (autocannon, 1 ms resolution)', c32.p99ms, {
      ...LATENCY,
      status: 'info',
      note: `p50 ${c32.p50ms} ms, p99.9 ${c32.p99_9ms} ms`,
    });
  };
  return { point, nativePoint };
}

/** The bench chain's point routes (blocks, transactions, receipts outside the dense blocks), measured. */
export async function pointReadsSection({ info }: Chain, point: PointRead) {
  const normal = info.sampleTxs.filter((s) => !info.denseBlocks.includes(s.block));
  const pointRoutes: Array<{ name: string; paths: string[] }> = [
    { name: 'block', paths: normal.map((s) => `/blocks/${s.block}`) },
    { name: 'transaction', paths: normal.map((s) => `/transactions/${s.hash}`) },
    { name: 'receipt', paths: normal.map((s) => `/transactions/${s.hash}/receipt`) },
  ];
  for (const r of pointRoutes) await point(r.name, r.paths, 'Point read');
  return { normal, pointRoutes };
}

/** Token / pool / wallet routes: benchmarked only when they answer 200. */
export async function marketRoutesSection(r: Release, { info }: Chain, ixA: IndexerChild, point: PointRead) {
  const { notes, fig } = r;
  const openapi = (await (await fetch(`http://127.0.0.1:${ixA.port}/index/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const addr = info.emitter;
  const groups: Record<string, { built: string[]; notBuilt: string[]; other: string[] }> = {};
  for (const [p, ops] of Object.entries(openapi.paths)) {
    const m = /^\/index\/v1\/\{chain\}\/(tokens|pools|wallets)(\/|$)/.exec(p);
    if (!m || !ops.get) continue;
    if (!groups[m[1]]) groups[m[1]] = { built: [], notBuilt: [], other: [] };
    const g = groups[m[1]];
    const path = p.replace('/index/v1/{chain}', '').replace(/\{[^}]+\}/g, addr);
    const probePath = path.includes('/search') ? `${path}?q=a` : path;
    const r = await ixA.get(probePath).catch((e) => ({ status: 0, body: String((e as Error).message) }));
    if (r.status === 200) g.built.push(probePath);
    else if (r.status === 503 && /projection_unavailable/.test(JSON.stringify(r.body))) g.notBuilt.push(p);
    else g.other.push(`${p} → ${r.status}`);
  }
  for (const [g, v] of Object.entries(groups)) {
    if (v.built.length) {
      // The issue's point routes first (token detail/overview, pool stats, wallet overview), then others.
      const preferred = (x: string) => (/\/overview$|\/stats$|^\/tokens\/0x[0-9a-f]{40}$/.test(x) ? 0 : 1);
      const chosen = [...v.built].sort((a, b) => preferred(a) - preferred(b)).slice(0, 3);
      for (const path of chosen) {
        await point(`${g}${path.replaceAll(addr, '{address}')}`, [path], `Point read (${g})`).catch((e) =>
          notes.push(`${g} ${path}: ${(e as Error).message.slice(0, 200)}`),
        );
      }
      notes.push(
        `${g}: ${v.built.length} GET routes answer 200 on the bench chain (benchmarked: ${chosen.join(', ')}), ${v.notBuilt.length} answer 503 projection_unavailable`,
      );
    }
    if (!v.built.length) {
      fig({
        id: `read.${g}`,
        group: 'Point read',
        label: `${g} routes (${v.notBuilt.length} answer 503 projection_unavailable${v.other.length ? `, ${v.other.length} other` : ''})`,
        value: null,
        unit: '',
        status: 'not built',
      });
    }
    if (v.other.length)
      notes.push(
        `${g}: routes answering neither 200 nor 503 projection_unavailable with a placeholder address: ${v.other.slice(0, 5).join(', ')}`,
      );
  }
}
