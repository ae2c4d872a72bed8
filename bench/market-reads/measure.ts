/**
 * Market hot-read bench, section 3: the uWS ceiling (start and end of the run) and each route's
 * small and big subject back to back — c=1 precise p50/p99 and c=32 autocannon throughput.
 */
import os from 'node:os';
import {
  cannon,
  cannonFigures,
  type IndexerChild,
  latencyFigures,
  log,
  round,
  sampleLatency,
} from '../lib.js';
import { startUwsHello } from '../uws-hello.js';
import type { BigSubjects } from './big.js';
import type { Params } from './context.js';
import type { SmallSubjects } from './subjects.js';

export interface Measured {
  route: string;
  subject: 'small' | 'big';
  path: string;
  bytes: number;
  c1: ReturnType<typeof latencyFigures>;
  c32: ReturnType<typeof cannonFigures>;
  /** c=32 throughput over the uWS c=32 ceiling of this run. */
  ratioC32: number;
  /** Budget on the c=1 p99 (ms). */
  p99BudgetMs: number;
  loadavg1: number;
}

export interface Ceiling {
  c1: ReturnType<typeof latencyFigures>;
  c32: ReturnType<typeof cannonFigures>;
  native: boolean;
  loadavg1: number;
}

export async function measureCeiling(P: { preciseN: number; dur: number }): Promise<Ceiling> {
  const hello = await startUwsHello();
  try {
    await cannon({ url: `${hello.url}/hello`, connections: 32, durationS: 1 }); // warm-up
    const c32 = cannonFigures(await cannon({ url: `${hello.url}/hello`, connections: 32, durationS: P.dur }));
    const c1 = latencyFigures(
      await sampleLatency({ base: hello.url, paths: ['/hello'], connections: 1, amount: P.preciseN }),
    );
    return { c1, c32, native: hello.native, loadavg1: round(os.loadavg()[0], 2) };
  } finally {
    await hello.stop();
  }
}

export async function measureRoute(
  ix: IndexerChild,
  route: string,
  subject: 'small' | 'big',
  path: string,
  ceiling: Ceiling,
  P: { preciseN: number; preciseMaxS: number; dur: number },
  p99BudgetMs: number,
): Promise<Measured> {
  const probe = await ix.get(path);
  if (probe.status !== 200)
    throw new Error(
      `${route} (${subject}): ${path} answered ${probe.status} ${JSON.stringify(probe.body).slice(0, 300)}`,
    );
  // Warm-up (JIT, block cache), then the precise c=1 sample, then c=32 throughput.
  await sampleLatency({ base: ix.base, paths: [path], connections: 1, amount: 200, durationS: 3 });
  const c1 = latencyFigures(
    await sampleLatency({
      base: ix.base,
      paths: [path],
      connections: 1,
      amount: P.preciseN,
      durationS: P.preciseMaxS,
    }),
  );
  const c32 = cannonFigures(await cannon({ url: ix.base, paths: [path], connections: 32, durationS: P.dur }));
  const m: Measured = {
    route,
    subject,
    path,
    bytes: probe.bytes,
    c1,
    c32,
    ratioC32: c32.reqPerSec / ceiling.c32.reqPerSec,
    p99BudgetMs,
    loadavg1: round(os.loadavg()[0], 2),
  };
  log(
    `${route} [${subject}] ${probe.bytes} B: c=1 p50 ${c1.p50ms} p99 ${c1.p99ms} ms; c=32 ${c32.reqPerSec} req/s (${(100 * m.ratioC32).toFixed(1)} % of uWS)${c1.non2xx || c32.non2xx ? ` non-2xx ${c1.non2xx}/${c32.non2xx}` : ''}`,
  );
  return m;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Ratios against the higher of the two uWS c=32 ceilings (start and end of the run): a ceiling
 * measured during a load spike must not flatter the routes.
 */
export function rejudge(routes: Measured[], start: Ceiling, end: Ceiling | null): void {
  const ref = Math.max(start.c32.reqPerSec, end?.c32.reqPerSec ?? 0);
  for (const m of routes) m.ratioC32 = m.c32.reqPerSec / ref;
}

export interface RoutePlan {
  route: string;
  small: string;
  big?: string;
  /** Budget on the c=1 p99 (ms). */
  budget: number;
}

/** The routes measured, each with its small and (where there is one) big subject's path. */
export function routePlan(small: SmallSubjects, big: BigSubjects, mgr: string): RoutePlan[] {
  const bigV4 = big.pools.find((p) => p.traded)!;
  return [
    { route: 'token detail', small: `/tokens/${small.token}`, big: `/tokens/${big.token}`, budget: 1 },
    {
      route: 'token overview',
      small: `/tokens/${small.token}/overview`,
      big: `/tokens/${big.token}/overview`,
      budget: 1,
    },
    { route: 'pool detail V2', small: `/pools/${small.v2.address}`, budget: 1 },
    { route: 'pool stats V2', small: `/pools/${small.v2.address}/stats`, budget: 1 },
    { route: 'pool detail V3', small: `/pools/${small.v3.address}`, budget: 1 },
    { route: 'pool stats V3', small: `/pools/${small.v3.address}/stats`, budget: 1 },
    {
      route: 'pool detail V4',
      small: `/pools/v4/${small.v4.manager}/${small.v4.poolId}`,
      big: `/pools/v4/${mgr}/${bigV4.poolId}`,
      budget: 1,
    },
    {
      route: 'pool stats V4',
      small: `/pools/v4/${small.v4.manager}/${small.v4.poolId}/stats`,
      big: `/pools/v4/${mgr}/${bigV4.poolId}/stats`,
      budget: 1,
    },
    {
      route: 'wallet overview',
      small: `/wallets/${small.wallet}/overview`,
      big: `/wallets/${big.wallet}/overview`,
      budget: 1,
    },
    {
      route: 'wallet activity limit=50',
      small: `/wallets/${small.wallet}/activity?limit=50`,
      big: `/wallets/${big.wallet}/activity?limit=50`,
      budget: 2,
    },
    {
      route: 'wallet activity limit=50 desc',
      small: `/wallets/${small.wallet}/activity?limit=50&order=desc`,
      big: `/wallets/${big.wallet}/activity?limit=50&order=desc`,
      budget: 2,
    },
  ];
}

/**
 * Measures the ceiling, every route of the plan (a failed route is noted; when the indexer is gone
 * the rest are not measured), then the ceiling again; ratios against the higher of the two.
 */
export async function measureRoutes(ix: IndexerChild, plan: RoutePlan[], P: Params, notes: string[]) {
  const routes: Measured[] = [];
  const ceiling = await measureCeiling(P);
  log(
    `uWS ceiling: c=32 ${ceiling.c32.reqPerSec} req/s, c=1 p99 ${ceiling.c1.p99ms} ms (native=${ceiling.native})`,
  );
  if (!ceiling.native)
    notes.push('the uWS hello-world ran on the pure-JS fallback: the ceiling is not meaningful');
  outer: for (const p of plan)
    for (const [subject, path] of [
      ['small', p.small],
      ['big', p.big],
    ] as const) {
      if (!path) continue;
      try {
        routes.push(await measureRoute(ix, p.route, subject, path, ceiling, P, p.budget));
      } catch (e) {
        const alive = isAlive(ix.pid);
        notes.push(
          `${p.route} [${subject}] failed: ${(e as Error).message.slice(0, 300)}${alive ? '' : ' — the indexer process is gone; the remaining routes were not measured'}`,
        );
        log(`${p.route} [${subject}] failed: ${(e as Error).message}`);
        if (!alive) {
          log(`indexer logs (tail):\n${ix.logs().slice(-6000)}`);
          break outer;
        }
      }
    }
  const ceilingEnd = await measureCeiling(P);
  log(`uWS ceiling at the end: c=32 ${ceilingEnd.c32.reqPerSec} req/s`);
  rejudge(routes, ceiling, ceilingEnd);
  return { routes, ceiling, ceilingEnd };
}
