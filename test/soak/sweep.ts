/**
 * Route sweeps: a background reader per indexer that keeps asking a spread of read routes (chain
 * records, tokens, pools, wallets, markets, monitoring, batch) about entities it harvested from the
 * index itself, while reorgs, kills and node faults happen. Every answer is validated against its
 * route's contract by the harness (`idx.get` / `idx.post` throw a ContractViolation, which also
 * refuses an error code the route does not declare); a 5xx other than 503 (a projection rebuilding,
 * a halted ingest) and a 401/403 with the all-scope key are recorded as problems. A refused
 * connection (the indexer is down) is not.
 */
import { ContractViolation } from '../harness/contract.js';
import type { IndexerProcess } from '../harness/indexer.js';

export interface Sweeper {
  stats(): { requests: number; byStatus: Record<string, number> };
  problems(): string[];
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ok = (s: number) => s === 503 || (s < 500 && s !== 401 && s !== 403);

/** Starts sweeping `idx` with `rand` choosing routes and entities; `pauseMs` between requests. */
export function startSweeper(name: string, idx: IndexerProcess, rand: () => number, pauseMs = 40): Sweeper {
  const st = { requests: 0, byStatus: {} as Record<string, number> };
  const problems: string[] = [];
  const seen = {
    tokens: [] as string[],
    pools: [] as any[],
    wallets: [] as string[],
    txs: [] as string[],
    head: 0,
  };
  let stopped = false;
  const pick = <T>(xs: T[]): T | undefined => xs[Math.floor(rand() * xs.length)];

  const harvest = async () => {
    const cp = await idx.get('/checkpoints');
    seen.head = cp.body?.anchor?.block ?? seen.head;
    const t = await idx.get('/tokens?limit=200');
    if (t.status === 200) seen.tokens = t.body.data.map((x: any) => x.address);
    const p = await idx.get('/pools/new?limit=200');
    if (p.status === 200) seen.pools = p.body.data;
    const tok = pick(seen.tokens);
    if (tok) {
      const h = await idx.get(`/tokens/${tok}/holders?limit=50`);
      if (h.status === 200)
        seen.wallets = [...new Set([...seen.wallets, ...h.body.data.map((x: any) => x.wallet)])].slice(-200);
    }
    const b = await idx.get(
      `/blocks/${Math.max(0, seen.head - Math.floor(rand() * 20))}/transactions?limit=20`,
    );
    if (b.status === 200) seen.txs = [...seen.txs, ...b.body.data.map((x: any) => x.hash)].slice(-200);
  };

  const routes: Array<() => string | null> = [
    () => `/blocks/${Math.floor(rand() * (seen.head + 1))}`,
    () => `/blocks/${Math.max(0, seen.head - Math.floor(rand() * 70))}/transactions?limit=50`,
    () => `/blocks/${Math.max(0, seen.head - Math.floor(rand() * 70))}/logs?limit=50`,
    () => `/blocks/${Math.max(0, seen.head - Math.floor(rand() * 70))}/logs/decoded?limit=50`,
    () => `/blocks/at?timestamp=${Math.floor(Date.now() / 1000) - Math.floor(rand() * 300)}`,
    () => (pick(seen.txs) ? `/transactions/${pick(seen.txs)}` : null),
    () => (pick(seen.txs) ? `/transactions/${pick(seen.txs)}/receipt` : null),
    () => (pick(seen.txs) ? `/transactions/${pick(seen.txs)}/decoded` : null),
    () => (pick(seen.txs) ? `/transactions/${pick(seen.txs)}/internal` : null),
    () => (pick(seen.txs) ? `/transactions/${pick(seen.txs)}/logs/decoded` : null),
    () => '/tokens?limit=100',
    () => (pick(seen.tokens) ? `/tokens/${pick(seen.tokens)}` : null),
    () => (pick(seen.tokens) ? `/tokens/${pick(seen.tokens)}/holders?limit=100` : null),
    () => (pick(seen.tokens) ? `/tokens/${pick(seen.tokens)}/top-holders?limit=20` : null),
    () => (pick(seen.tokens) ? `/tokens/${pick(seen.tokens)}/transfers?order=desc&limit=50` : null),
    () => (pick(seen.tokens) ? `/tokens/${pick(seen.tokens)}/overview` : null),
    () => (pick(seen.tokens) ? `/tokens/${pick(seen.tokens)}/pools/ranked` : null),
    () =>
      pick(seen.tokens) && pick(seen.wallets)
        ? `/tokens/${pick(seen.tokens)}/balance/${pick(seen.wallets)}`
        : null,
    () => '/pools/new?limit=100',
    () => {
      const p = pick(seen.pools.filter((x) => x.protocol === 'v2' || x.protocol === 'v3'));
      return p ? `/pools/${p.contract}` : null;
    },
    () => {
      const p = pick(seen.pools.filter((x) => x.protocol === 'v2' || x.protocol === 'v3'));
      return p ? `/pools/${p.contract}/swaps?order=desc&limit=50` : null;
    },
    () => {
      const p = pick(seen.pools.filter((x) => x.protocol === 'v2' || x.protocol === 'v3'));
      return p ? `/pools/${p.contract}/ohlcv?frame=1m` : null;
    },
    () => {
      const p = pick(seen.pools.filter((x) => x.protocol === 'v4'));
      return p ? `/pools/v4/${p.contract}/${p.poolId}/liquidity` : null;
    },
    () => (pick(seen.wallets) ? `/wallets/${pick(seen.wallets)}/transfers?limit=50` : null),
    () => (pick(seen.wallets) ? `/wallets/${pick(seen.wallets)}/assets` : null),
    () => (pick(seen.wallets) ? `/wallets/${pick(seen.wallets)}/pnl` : null),
    () => (pick(seen.wallets) ? `/wallets/${pick(seen.wallets)}/activity?limit=50` : null),
    () => (pick(seen.wallets) ? `/wallets/${pick(seen.wallets)}/funded-by` : null),
    () => (pick(seen.wallets) ? `/wallets/${pick(seen.wallets)}/positions` : null),
    () => '/screener',
    () => '/checkpoints',
    () => '/health',
    () => '/gaps?limit=100',
    () => '/launchpads',
  ];

  const batch = () => ({
    requests: [
      { route: '/blocks/{number}', params: { number: Math.floor(rand() * (seen.head + 1)) } },
      { route: '/checkpoints' },
      ...(seen.tokens.length ? [{ route: '/tokens/{address}', params: { address: pick(seen.tokens) } }] : []),
    ],
  });

  const loop = (async () => {
    let n = 0;
    while (!stopped) {
      try {
        if (!idx.port) {
          await sleep(200);
          continue;
        }
        if (n++ % 50 === 0) await harvest();
        let r: { status: number; text: string };
        let path: string | null;
        if (rand() < 0.05) {
          path = '/batch';
          r = await idx.post('/batch', batch());
        } else {
          path = pick(routes)!();
          if (!path) continue;
          r = await idx.get(path);
        }
        st.requests++;
        st.byStatus[r.status] = (st.byStatus[r.status] ?? 0) + 1;
        if (!ok(r.status)) problems.push(`${name} ${path} → ${r.status}: ${r.text.slice(0, 300)}`);
      } catch (err) {
        if (err instanceof ContractViolation) problems.push(`${name}: ${err.message.slice(0, 800)}`);
        // else: connection refused or reset (a kill), a timeout under load: not a finding
      }
      await sleep(pauseMs);
    }
  })();

  return {
    stats: () => ({ requests: st.requests, byStatus: { ...st.byStatus } }),
    problems: () => problems,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
