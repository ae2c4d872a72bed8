/** Release bench, section 4 (batch): a POST /batch of 20 point reads, c=1 precise and c=32 autocannon. */
import {
  BENCH_KEY,
  cannon,
  cannonFigures,
  type IndexerChild,
  latencyFigures,
  sampleLatency,
} from '../lib.js';
import type { Release } from './context.js';
import type { pointReadsSection } from './point-reads.js';

type Normal = Awaited<ReturnType<typeof pointReadsSection>>['normal'];

export async function batchSection(r: Release, normal: Normal, ixA: IndexerChild) {
  const { P, quick, hardFailures, fig } = r;
  const items = normal
    .slice(0, 20)
    .map((s, i) =>
      i % 3 === 0
        ? { route: '/blocks/{number}', params: { number: s.block } }
        : i % 3 === 1
          ? { route: '/transactions/{hash}', params: { hash: s.hash } }
          : { route: '/transactions/{hash}/receipt', params: { hash: s.hash } },
    );
  while (items.length < 20) items.push({ route: '/blocks/{number}', params: { number: 1 } });
  const batchBody = JSON.stringify({ requests: items });
  const bprobe = await fetch(`${ixA.base}/batch`, {
    method: 'POST',
    headers: { 'x-api-key': BENCH_KEY, 'content-type': 'application/json' },
    body: batchBody,
  });
  const bjson = (await bprobe.json()) as { results?: Array<{ status: number }> };
  const bOk =
    bprobe.status === 200 && bjson.results?.length === 20 && bjson.results.every((r) => r.status === 200);
  if (!bOk) hardFailures.push(`batch of 20 answered ${bprobe.status} ${JSON.stringify(bjson).slice(0, 300)}`);
  const bPrecise = latencyFigures(
    await sampleLatency({
      base: ixA.base,
      paths: ['/batch'],
      method: 'POST',
      body: batchBody,
      connections: 1,
      amount: quick ? 500 : 3000,
    }),
  );
  const bC32 = cannonFigures(
    await cannon({
      url: `${ixA.base}/batch`,
      method: 'POST',
      body: batchBody,
      connections: 32,
      durationS: P.dur,
    }),
  );
  fig({
    id: 'batch20.c1.p50',
    group: 'Batch',
    label: 'batch of 20 point reads, c=1 p50',
    value: bPrecise.p50ms,
    unit: 'ms',
    better: 'lower',
    status: 'info',
  });
  fig({
    id: 'batch20.c1.p99',
    group: 'Batch',
    label: 'batch of 20 point reads, c=1 p99',
    value: bPrecise.p99ms,
    unit: 'ms',
    better: 'lower',
    status: 'info',
    note: `p99.9 ${bPrecise.p99_9ms} ms`,
  });
  fig({
    id: 'batch20.c32.rps',
    group: 'Batch',
    label: 'batch of 20, c=32 throughput',
    value: bC32.reqPerSec,
    unit: 'req/s',
    better: 'higher',
    status: 'info',
    note: `${Math.round(bC32.reqPerSec * 20)} items/s, autocannon p99 ${bC32.p99ms} ms`,
  });
}
