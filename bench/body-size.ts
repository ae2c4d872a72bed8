/**
 * What the size of an answer costs a bare uWS server at c = 1: the release bench compares every
 * point route's c = 1 p99 with the bare hello-world's (17 bytes), and its receipt row answers
 * 2–34 KB. Here the same bare server (bench/uws-hello.ts, its own process) answers `/hello` and
 * `/bytes/{n}` bodies of the point routes' sizes, through the same latency client
 * (bench/http-sampler.ts), sizes interleaved over `--rounds` rounds; each figure is beside the
 * hello of the same run.
 *
 * Usage: node dist/bench/body-size.js [--sizes 2048,8192,22000,34000,131072] [--reads 20000]
 *          [--rounds 3] [--out report.md]
 */
import os from 'node:os';
import { benchArgs, emitReport, latencyFigures, log, runIfEntry, sampleLatency, summarize } from './lib.js';
import { startUwsHello } from './uws-hello.js';

async function main(): Promise<void> {
  const { arg } = benchArgs(process.argv.slice(2));
  const sizes = arg('--sizes', '2048,8192,22000,34000,131072').split(',').map(Number);
  const reads = Number(arg('--reads', '20000'));
  const rounds = Number(arg('--rounds', '3'));
  const hello = await startUwsHello();
  const paths = ['/hello', ...sizes.map((n) => `/bytes/${n}`)];
  const samples = new Map<string, number[]>(paths.map((p) => [p, []]));
  try {
    for (let round = 0; round < rounds; round++) {
      for (const p of round % 2 ? [...paths].reverse() : paths) {
        const s = await sampleLatency({ base: hello.url, paths: [p], connections: 1, amount: reads });
        if (s.non2xx || s.errors) throw new Error(`${p}: ${s.non2xx} non-2xx, ${s.errors} errors`);
        samples.get(p)!.push(...s.latenciesMs);
        const f = latencyFigures(s);
        log(`round ${round + 1} ${p}: p50 ${f.p50ms} p99 ${f.p99ms} ms`);
      }
    }
  } finally {
    await hello.stop();
  }
  const fig = (p: string) => summarize(samples.get(p)!);
  const h = fig('/hello');
  const rows = paths.map((p) => {
    const f = fig(p);
    const size = p === '/hello' ? '17 B (hello)' : `${p.slice('/bytes/'.length)} B`;
    return `| ${size} | ${f.n} | ${f.p50.toFixed(3)} | ${f.p99.toFixed(3)} | ${f.p999.toFixed(3)} | ${(f.p99 / h.p99).toFixed(2)} × |`;
  });
  emitReport(
    [
      '# A bare uWS server at c = 1 by answer size',
      '',
      `bench/uws-hello.ts (${hello.native ? 'native uWebSockets.js' : 'the node:http stand-in'}), one keep-alive connection, closed loop, ${reads} reads per size per round, ${rounds} rounds with the sizes interleaved (reversed every other round). Node ${process.version}, ${os.cpus().length} CPUs.`,
      '',
      '| body | reads | p50 ms | p99 ms | p99.9 ms | p99 ÷ hello p99 |',
      '|---|---:|---:|---:|---:|---:|',
      ...rows,
      '',
    ].join('\n'),
    arg,
  );
}

runIfEntry('body-size.js', main);
