/**
 * Release bench, section 8 (issue AC's first budget): as-of point reads 10,000 blocks deep against
 * the same routes at the head, at c=1 and c=32, on the embedded devnet's Uniswap V2/V3/V4 traffic.
 *
 * The chain: devnet traffic (250 ms blocks, 25 tx/s) for `asOfTrafficMs`; then blocks mined with
 * `anvil_mine` in chunks of 1,000 (the traffic sends between chunks, so those blocks are not all
 * empty); then traffic again (half the first stretch's blocks, at least 40) until the head is
 * N* + 10,000, where N* lies two thirds into the first stretch; the node is then frozen. So N = head − 10,000
 * has traffic on both sides, and every busy subject has versions before N, after it and 10,000
 * blocks later. The indexer starts on the frozen chain (late start, FINALITY=window, a 24-block
 * live window, HISTORY_RETENTION=all): the chain below the window is written as history segments,
 * the rest block by block, and it is measured once its anchor is the node's head.
 *
 * The routes are every GET of the served contract with `x-as-of: {supported: true}` (so a route
 * added later is measured without a change here), each on one subject: the devnet token with the
 * most swaps over its pools, the busiest V2, V3 and V4 pool, the most frequent trader. Each is
 * measured by the bench's closed-loop keep-alive client (bench/lib.ts sampleLatency, sub-ms
 * timing) at c=1 and c=32, in rounds of `asOfSliceS` slices alternating the head (no parameter),
 * `atBlock=N` and `atBlock=head−5` (inside the live window), so the three see the same machine
 * state. Every answer must be 200 anchored at its block (checked on the raw body of each answer).
 * The figures go to the release report (group "As-of read") and to bench/results/as-of-reads-<date>.md.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../../test/harness/devnet.js';
import {
  BENCH_KEY,
  headCommit,
  hex,
  type IndexerChild,
  log,
  onCleanup,
  percentile,
  round,
  rpc,
  sampleLatency,
  sleep,
  startIndexerChild,
  waitAnchor,
} from '../lib.js';
import { profileOverview } from '../market-reads/profile.js';
import { pickSmall, type SmallSubjects } from '../market-reads/subjects.js';
import { BUDGETS } from '../report.js';
import {
  AS_OF_LIMITS,
  type AsOfFacts,
  type AsOfRoute,
  type AsOfRun,
  asOfMarkdown,
  ratio,
  runMet,
  type VariantLatency,
} from './as-of-report.js';
import { CHAIN, type Release, ROOT } from './context.js';

/** How deep N is below the head (the budget's depth). */
export const DEPTH = 10_000;
/** The recent block: this many blocks below the head (inside the live window). */
const RECENT = 5;
/** The live window (UNFINALISED_WINDOW) of the indexer measured. */
const WINDOW = 24;

const blockNumber = async (url: string) => Number.parseInt(await rpc<string>(url, 'eth_blockNumber'), 16);
const hashOf = async (url: string, n: number) =>
  (await rpc<{ hash: string }>(url, 'eth_getBlockByNumber', [hex(n), false])).hash;

/** The devnet chain of this section (see the file's head), frozen; its head and the layout. */
async function buildChain(r: Release): Promise<{ dv: TestDevnet; head: number; layout: string[] }> {
  const { P, args } = r;
  log(`as-of: devnet, ${P.asOfTrafficMs / 1000} s of traffic, then ${DEPTH} blocks`);
  const dv = await startTestDevnet({ blockTimeMs: 250, traffic: true, txPerSecond: 25, seed: args.seed });
  onCleanup(() => dv.stop());
  await dv.traffic?.ready;
  const h0 = await blockNumber(dv.rpcUrl);
  await sleep(P.asOfTrafficMs);
  const h1 = await blockNumber(dv.rpcUrl);
  const target = h1 - Math.max(5, Math.floor((h1 - h0) / 3)) + DEPTH;
  // Traffic blocks after the empty stretch, before the node is frozen: half the first stretch's.
  const TAIL = Math.max(40, Math.round(P.asOfTrafficMs / 250 / 2));
  const t0 = performance.now();
  let chunks = 0;
  for (let left = target - TAIL - h1; left > 0; left = target - TAIL - (await blockNumber(dv.rpcUrl))) {
    await rpc(dv.rpcUrl, 'anvil_mine', [hex(Math.min(1_000, left)), '0x0']);
    chunks++;
  }
  const h2 = await blockNumber(dv.rpcUrl);
  const mineS = (performance.now() - t0) / 1000;
  log(`as-of: mined to ${h2} in ${mineS.toFixed(0)} s; traffic until ${target}`);
  for (const t1 = Date.now(); (await blockNumber(dv.rpcUrl)) < target; await sleep(20))
    if (Date.now() - t1 > 120_000) throw new Error(`as-of: the devnet did not reach block ${target}`);
  await rpc(dv.rpcUrl, 'evm_setIntervalMining', [0]);
  const st = dv.traffic?.stats();
  await dv.traffic?.stop();
  const head = await blockNumber(dv.rpcUrl);
  const layout = [
    `embedded devnet (seed ${args.seed}), 250 ms blocks, traffic generator at 25 tx/s: set-up to block ${h0}, traffic ${h0 + 1}–${h1} (${P.asOfTrafficMs / 1000} s)`,
    `then ${h2 - h1} blocks to ${h2} by \`anvil_mine\` in ${chunks} chunks of ≤ 1,000 (${mineS.toFixed(0)} s; the traffic sends between chunks), then traffic ${h2 + 1}–${head}; the node frozen at ${head}`,
    `N = ${head} − ${DEPTH} = ${head - DEPTH}: ${h1 - (head - DEPTH)} blocks of the first traffic stretch after it, ${head - DEPTH - h0} before it${st ? `; the traffic generator sent ${st.sent} transactions (${st.sendErrors} refused, ${st.failedActions} actions failed before sending)` : ''}`,
  ];
  return { dv, head, layout };
}

/** The indexer on the frozen chain, late start (history segments, then the live window), at the head. */
async function startIndexer(r: Release, dv: TestDevnet, head: number) {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'indexer-bench-as-of-'));
  onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = {
    ...r.ixEnv,
    ...devnetIndexerEnv(dv, { chain: CHAIN }),
    FINALITY: 'window',
    UNFINALISED_WINDOW: String(WINDOW),
    HISTORY_RETENTION: 'all',
    // Off unless told: on a frozen chain every repeat of a path is a cache hit of the same bytes
    // at any block, which measures the HTTP layer, not the read at N (response-cache.ts).
    RESPONSE_CACHE: process.env.RESPONSE_CACHE ?? 'off',
  };
  const t0 = performance.now();
  const ix = await startIndexerChild({ rpcUrl: dv.rpcUrl, chain: CHAIN, dataDir, env });
  onCleanup(() => ix.stop());
  await waitAnchor(ix, head, 900_000, 100);
  const seconds = (performance.now() - t0) / 1000;
  const health = (await ix.get('/health')).body;
  const hash = await hashOf(dv.rpcUrl, head);
  if (health?.anchor?.hash !== hash)
    throw new Error(`as-of: index anchor ${JSON.stringify(health?.anchor)} ≠ node head ${head} ${hash}`);
  const line = `indexer started on the frozen chain, at the head in ${seconds.toFixed(0)} s; FINALITY=window, UNFINALISED_WINDOW=${WINDOW}, HISTORY_RETENTION=all, RESPONSE_CACHE=${env.RESPONSE_CACHE}; /health: ingest.historyEnd ${health?.ingest?.historyEnd ?? '?'} (blocks to it written as history segments, the rest block by block), history ${JSON.stringify(health?.history ?? null)}`;
  return { ix, dataDir, env, line };
}

/**
 * Subjects beyond the token, pools and wallet: the wallet's first position (pnl/{token},
 * pnl/daily) and the token holder of balance/{wallet}.
 */
interface Extra {
  position: { token: string; quote: string } | null;
  holder: string;
  /** The quote of /screener: the devnet's first stablecoin. */
  stable: string;
}

/**
 * The holder of balance/{wallet}: the first of the wallet subject and the token's top 20 holders
 * at the head whose balance at N differs from the head's (else the wallet subject).
 */
async function pickHolder(ix: IndexerChild, s: SmallSubjects, n: number): Promise<string> {
  const t = s.token.toLowerCase();
  const top = ((await ix.get(`/tokens/${t}/top-holders?limit=20`)).body?.data ?? []) as Array<{
    wallet?: string;
  }>;
  for (const w of [s.wallet, ...top.flatMap((h) => (h.wallet ? [h.wallet] : []))]) {
    const [a, b] = await Promise.all([
      ix.get(`/tokens/${t}/balance/${w}`),
      ix.get(`/tokens/${t}/balance/${w}?atBlock=${n}`),
    ]);
    if (a.status === 200 && b.status === 200 && JSON.stringify(a.body.data) !== JSON.stringify(b.body.data))
      return w;
  }
  return s.wallet;
}

/** A route to measure: its contract name and the path read (the subject's). */
interface Target {
  name: string;
  path: string;
}

/**
 * The served contract's as-of GET routes, each on its subject (pool routes on the V2 and the V3
 * pool; V4 routes on the V4 pool). `skipped` lists templates with a parameter no subject fills.
 */
export async function asOfTargets(
  port: number,
  s: SmallSubjects,
  { position, holder, stable }: Extra,
): Promise<{ targets: Target[]; skipped: string[] }> {
  const doc = (await (await fetch(`http://127.0.0.1:${port}/index/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { 'x-as-of'?: { supported?: boolean } }>>;
  };
  const targets: Target[] = [];
  const skipped: string[] = [];
  for (const [p, ops] of Object.entries(doc.paths)) {
    if (!ops.get?.['x-as-of']?.supported) continue;
    const t = p.replace('/index/v1/{chain}', '');
    let paths: Array<[string, string]>;
    if (t.startsWith('/pools/v4/'))
      paths = [['V4', t.replace('{manager}', s.v4.manager).replace('{pool_id}', s.v4.poolId)]];
    else if (t.startsWith('/pools/'))
      paths = [
        ['V2', t.replace('{address}', s.v2.address)],
        ['V3', t.replace('{address}', s.v3.address)],
      ];
    else if (t.startsWith('/tokens/'))
      paths = [['', t.replace('{address}', s.token.toLowerCase()).replace('{wallet}', holder)]];
    else if (t.startsWith('/wallets/')) {
      let w = t.replace('{address}', s.wallet);
      if (position) w = w.replace('{token}', position.token);
      if (t.endsWith('/pnl/daily') && position) w += `?token=${position.token}&quote=${position.quote}`;
      paths = [['', w]];
    } else if (t === '/screener') paths = [['', `${t}?quote=${stable}`]];
    else paths = [['', t]];
    for (const [proto, path] of paths) {
      if (path.includes('{') || (t.endsWith('/pnl/daily') && !position)) skipped.push(t);
      else targets.push({ name: proto ? `${proto} ${t}` : t, path });
    }
  }
  return { targets, skipped };
}

/** `path` with `atBlock=n`. */
const at = (path: string, n: number) => `${path}${path.includes('?') ? '&' : '?'}atBlock=${n}`;

/** One variant's latencies at one concurrency (ms, sorted) as percentiles. */
function latency(xs: number[]): VariantLatency {
  const s = [...xs].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: round(percentile(s, 50), 3),
    p99: round(percentile(s, 99), 3),
    p999: round(percentile(s, 99.9), 3),
  };
}

/** A variant of a route: the head (no parameter), N, or the recent block; `needle` its anchor's JSON. */
interface Variant {
  key: 'head' | 'deep' | 'recent';
  path: string;
  needle: Buffer;
}

/** Probes a variant: 200 anchored at `block` (the node's hash of it); returns its data, or why not. */
async function probe(ix: IndexerChild, path: string, block: number, hash: string) {
  const res = await fetch(`${ix.base}${path}`, { headers: { 'x-api-key': BENCH_KEY } });
  const text = await res.text();
  const anchor = `"anchor":${JSON.stringify({ block, hash })}`;
  if (res.status !== 200 || !text.includes(anchor))
    return { ok: false as const, why: `${path} → ${res.status} ${text.slice(0, 300)} (expected ${anchor})` };
  return { ok: true as const, data: JSON.stringify(JSON.parse(text).data), needle: Buffer.from(anchor) };
}

/**
 * Measures one route at concurrency `c`: a warm-up of each variant, then `rounds` rounds of one
 * `sliceS` slice per variant, the order rotated each round; every answer's body is checked for
 * its anchor.
 */
async function measureRun(ix: IndexerChild, vs: Variant[], c: number, rounds: number, sliceS: number) {
  const acc = new Map<Variant['key'], number[]>(vs.map((v) => [v.key, []]));
  const load = round(os.loadavg()[0], 2);
  let bad = 0;
  const run = async (v: Variant, o: { amount?: number; durationS?: number }) => {
    const s = await sampleLatency({
      base: ix.base,
      paths: [v.path],
      connections: c,
      ...o,
      verify: (status, body) => status === 200 && body.includes(v.needle),
    });
    bad += s.non2xx + s.errors + (s.unverified ?? 0);
    return s.latenciesMs;
  };
  for (const v of vs) await run(v, { amount: 50 * c });
  for (let i = 0; i < rounds; i++)
    for (let j = 0; j < vs.length; j++) {
      const v = vs[(i + j) % vs.length];
      acc.get(v.key)!.push(...(await run(v, { durationS: sliceS })));
    }
  return {
    connections: c,
    head: latency(acc.get('head')!),
    deep: latency(acc.get('deep')!),
    recent: latency(acc.get('recent')!),
    bad,
    load,
  } satisfies AsOfRun;
}

/** The block heights and hashes read: head, N and the recent block. */
interface Blocks {
  head: number;
  n: number;
  recent: number;
  hashes: Record<'head' | 'deep' | 'recent', string>;
}

/**
 * The target, with `quote=` added when the route refuses it without one (a token quoted in several
 * assets answers 400 naming the candidates): the first candidate.
 */
async function withQuote(ix: IndexerChild, t: Target): Promise<Target> {
  const r = await ix.get(t.path);
  const c = r.body?.candidates as string[] | undefined;
  if (r.status !== 400 || !c?.length) return t;
  return { name: `${t.name}?quote=`, path: `${t.path}${t.path.includes('?') ? '&' : '?'}quote=${c[0]}` };
}

/** Probes and measures every target at c=1 and c=32; what failed goes to the release's failures. */
async function measureTargets(r: Release, ix: IndexerChild, targets: Target[], b: Blocks) {
  const routes: AsOfRoute[] = [];
  for (const t0 of targets) {
    const t = await withQuote(ix, t0);
    const blocks = { head: b.head, deep: b.n, recent: b.recent } as const;
    const paths = { head: t.path, deep: at(t.path, b.n), recent: at(t.path, b.recent) } as const;
    const probes = await Promise.all(
      (['head', 'deep', 'recent'] as const).map((k) => probe(ix, paths[k], blocks[k], b.hashes[k])),
    );
    const failed = probes.flatMap((p) => (p.ok ? [] : [p.why]));
    if (failed.length) {
      (probes[0].ok ? r.hardFailures : r.notes).push(`as-of ${t.name}: ${failed.join('; ')}`);
      continue;
    }
    const ok = probes as Array<Extract<(typeof probes)[number], { ok: true }>>;
    const vs: Variant[] = (['head', 'deep', 'recent'] as const).map((key, i) => ({
      key,
      path: paths[key],
      needle: ok[i].needle,
    }));
    const runs: AsOfRun[] = [];
    for (const c of [1, 32]) runs.push(await measureRun(ix, vs, c, r.P.asOfRounds, r.P.asOfSliceS));
    const route: AsOfRoute = { name: t.name, path: t.path, differs: ok[0].data !== ok[1].data, runs };
    routes.push(route);
    for (const x of runs)
      log(
        `as-of ${t.name} c=${x.connections}: head ${x.head.p50}/${x.head.p99} ms, N ${x.deep.p50}/${x.deep.p99} ms, recent ${x.recent.p50}/${x.recent.p99} ms${x.bad ? `, ${x.bad} bad` : ''}`,
      );
  }
  return routes;
}

/** The release figures of a route: N's p50 and p99 at c=1 and c=32, against the head's. */
function routeFigures(r: Release, route: AsOfRoute, n: number, recent: number): void {
  for (const x of route.runs) {
    if (x.bad)
      r.hardFailures.push(`as-of ${route.name} c=${x.connections}: ${x.bad} answers not 200 at their anchor`);
    for (const q of ['p50', 'p99'] as const)
      r.fig({
        id: `asof.${route.name.replaceAll(' ', '')}.c${x.connections}.${q}`,
        group: 'As-of read',
        label: `${route.name} atBlock=head−${DEPTH} c=${x.connections} ${q}`,
        value: x.deep[q],
        unit: 'ms',
        better: 'lower',
        baseline: { label: `the route at the head, c=${x.connections} ${q}`, value: x.head[q], unit: 'ms' },
        budget: q === 'p50' ? BUDGETS.asOfP50 : BUDGETS.asOfP99,
        note: `recent (atBlock=${recent}) ${x.recent[q]} ms; N=${n}`,
      });
  }
}

/** The chain's head, N, the recent block and their hashes. */
async function blocksOf(rpcUrl: string, head: number): Promise<Blocks> {
  const [n, recent] = [head - DEPTH, head - RECENT];
  const [h, d, rc] = await Promise.all([head, n, recent].map((x) => hashOf(rpcUrl, x)));
  return { head, n, recent, hashes: { head: h, deep: d, recent: rc } };
}

/** The subjects' lines of the report. */
function subjectLines(s: SmallSubjects, { position, holder }: Extra): string[] {
  return [
    `token ${s.tokenSymbol} ${s.token.toLowerCase()} (the devnet token with the most swaps over its pools); balance/{wallet}: ${holder} (the first of the wallet below and the token's top 20 holders whose balance at N is not the head's)`,
    `V2 pool ${s.v2.address} (${s.v2.swaps} swaps), V3 pool ${s.v3.address} (${s.v3.swaps} swaps), V4 pool ${s.v4.poolId} on ${s.v4.manager} (${s.v4.swaps} swaps): the busiest of each`,
    `wallet ${s.wallet} (${s.walletTrades} swaps on the three busiest pools)${position ? `; pnl/{token} and pnl/daily: its position ${position.token} / ${position.quote}` : ''}`,
  ];
}

/**
 * Section 8: the chain, the indexer, the subjects, every as-of route measured; figures to the
 * release report, and bench/results/as-of-reads-<date>.md written.
 */
export async function asOfSection(r: Release): Promise<AsOfRoute[]> {
  const loadStart = os.loadavg().map((x) => round(x, 2));
  const git = headCommit(ROOT);
  const { dv, head, layout } = await buildChain(r);
  const { ix, line, dataDir, env } = await startIndexer(r, dv, head);
  const s = await pickSmall(ix, dv, `0x${'0'.repeat(40)}`);
  const pos = (await ix.get(`/wallets/${s.wallet}/positions?limit=1`)).body?.data?.[0] as
    | { token: string; quote: string }
    | undefined;
  const b = await blocksOf(dv.rpcUrl, head);
  const extra: Extra = {
    position: pos ? { token: pos.token, quote: pos.quote } : null,
    holder: await pickHolder(ix, s, b.n),
    stable: (dv.deployment.tokens.find((t) => t.kind === 'stable')?.address ?? '').toLowerCase(),
  };
  const all = await asOfTargets(ix.port, s, extra);
  const only = r.args.asOfRoutes;
  const targets = only ? all.targets.filter((t) => only.test(t.name)) : all.targets;
  const { skipped } = all;
  if (only)
    r.notes.push(
      `as-of: --as-of-routes ${only.source}: ${targets.length} of ${all.targets.length} routes measured`,
    );
  if (skipped.length)
    r.notes.push(`as-of: routes not measured (no subject for a parameter): ${skipped.join(', ')}`);
  log(`as-of: ${targets.length} routes, head ${head}, N ${b.n}`);
  const routes = await measureTargets(r, ix, targets, b);
  for (const route of routes) routeFigures(r, route, b.n, b.recent);
  await ix.stop();
  const misses = await profileMisses(routes, {
    rpcUrl: dv.rpcUrl,
    dataDir,
    env,
    head,
    n: b.n,
    seconds: r.quick ? 5 : 10,
  });
  await dv.stop();
  writeAsOfReport(r, routes, {
    loadStart,
    chain: [...layout, line],
    subjects: subjectLines(s, extra),
    blocks: b,
    misses,
    git,
  });
  return routes;
}

/** Writes bench/results/as-of-reads-<date>.md (or under --out). */
function writeAsOfReport(
  r: Release,
  routes: AsOfRoute[],
  o: {
    loadStart: number[];
    chain: string[];
    subjects: string[];
    blocks: Blocks;
    misses: string[];
    git: { commit: string; dirty: boolean };
  },
): void {
  const { git } = o;
  const date = new Date().toISOString().slice(0, 10);
  const facts: AsOfFacts = {
    date,
    commit: git.commit,
    dirty: git.dirty,
    mode: r.quick ? 'quick' : 'full',
    machine: `${os.cpus().length} CPU (${os.cpus()[0]?.model ?? '?'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}; bench client, anvil, the devnet front and the indexer share it`,
    loadStart: o.loadStart,
    loadEnd: os.loadavg().map((x) => round(x, 2)),
    rerun: `npm run bench -- --only as-of${r.quick ? ' --quick' : ''}${r.args.asOfRoutes ? ` --as-of-routes '${r.args.asOfRoutes.source}'` : ''}`,
    chain: o.chain,
    subjects: o.subjects,
    method: [
      `routes: every GET of the served contract with \`x-as-of: {supported: true}\` (${routes.length} measured; pool routes on the V2 and the V3 pool, the V4 routes on the V4 pool)`,
      `variants: the route at the head (no parameter), \`atBlock=${o.blocks.n}\` (N, head − ${DEPTH}), \`atBlock=${o.blocks.recent}\` (head − ${RECENT}, inside the live window)`,
      `client: the release bench's closed-loop keep-alive raw-socket client (bench/lib.ts sampleLatency over bench/http-sampler.ts, performance.now() per request, body read), c=1 and c=32; per concurrency a warm-up of 50 × c requests per variant, then ${r.P.asOfRounds} rounds of one ${r.P.asOfSliceS} s slice per variant, the order rotated each round, so the three see the same machine state`,
      `response cache: RESPONSE_CACHE=${process.env.RESPONSE_CACHE ?? 'off'} in the indexer (on a frozen chain every repeat of a path would otherwise be a cache hit of the same bytes at any block: the HTTP layer, not the read at N; \`RESPONSE_CACHE=on npm run bench -- --only as-of\` measures it on)`,
      'checks: every answer of every variant is 200 and its raw body holds `"anchor":{"block":B,"hash":H}` with B the variant\'s block and H the node\'s hash of B (a bad answer is a hard failure); the release bench does not validate bodies against the route schemas, nor does this section',
    ],
    head: o.blocks.head,
    n: o.blocks.n,
    recent: o.blocks.recent,
    notes: r.notes.filter((x) => x.startsWith('as-of')),
    misses: o.misses,
  };
  mkdirSync(r.args.out, { recursive: true });
  const file = join(r.args.out, `as-of-reads-${date}${r.quick ? '-quick' : ''}.md`);
  writeFileSync(file, asOfMarkdown(facts, routes));
  log(`as-of: written ${file}`);
}

/** How far a run is past its budget: the larger of N's p50 and p99 ratios over their limits. */
const overBy = (x: AsOfRun) =>
  Math.max(
    ratio(x.deep.p50, x.head.p50) / AS_OF_LIMITS.p50,
    ratio(x.deep.p99, x.head.p99) / AS_OF_LIMITS.p99,
  );

/**
 * The misses, profiled: the (at most) two routes furthest past the budget whose p50 misses, or
 * whose p99 misses at both concurrencies (a p99 alone at one concurrency is most often the shared
 * machine's noise), each hammered at c=32 at N and at the head on the indexer restarted under
 * `--cpu-prof` on the same data (bench/market-reads/profile.ts); their top self-time functions
 * side by side. Returns the report's lines (none when every run met).
 */
async function profileMisses(
  routes: AsOfRoute[],
  o: {
    rpcUrl: string;
    dataDir: string;
    env: Record<string, string>;
    head: number;
    n: number;
    seconds: number;
  },
): Promise<string[]> {
  const missed = routes.filter((route) => route.runs.some((x) => !runMet(x)));
  if (!missed.length) return [];
  const lines = [
    `Runs that missed: ${missed
      .map(
        (route) =>
          `${route.name} (${route.runs
            .filter((x) => !runMet(x))
            .map((x) => `c=${x.connections}`)
            .join(', ')})`,
      )
      .join('; ')}.`,
  ];
  const systematic = missed.filter(
    (route) =>
      route.runs.some((x) => ratio(x.deep.p50, x.head.p50) > AS_OF_LIMITS.p50) ||
      route.runs.every((x) => ratio(x.deep.p99, x.head.p99) > AS_OF_LIMITS.p99),
  );
  const worst = systematic
    .sort((a, b) => Math.max(...b.runs.map(overBy)) - Math.max(...a.runs.map(overBy)))
    .slice(0, 2);
  for (const route of worst) {
    const top = async (path: string) => {
      const p = await profileOverview({ ...o, path, seconds: o.seconds });
      return { ...p, self: p.self.split('\n').slice(0, 16).join('\n') };
    };
    try {
      const deep = await top(at(route.path, o.n));
      const head = await top(route.path);
      lines.push(
        '',
        `### ${route.name}`,
        '',
        `Under \`--cpu-prof\` at c=32 (autocannon, ${o.seconds} s each, indexer restarted on the same data): atBlock=${o.n} ${deep.reqPerSec} req/s, the head ${head.reqPerSec} req/s. Top self time (${deep.scope}), at N then at the head:`,
        '',
        '```',
        deep.self,
        '```',
        '',
        '```',
        head.self,
        '```',
      );
    } catch (e) {
      lines.push('', `### ${route.name}`, '', `profile failed: ${(e as Error).message.slice(0, 300)}`);
    }
  }
  return lines;
}
