/** Release bench, section 3: a bare uWS hello-world (bench/uws-hello.ts, its own process) under autocannon. */
import { cannon, cannonFigures, latencyFigures, onCleanup, sampleLatency } from '../lib.js';
import { startUwsHello } from '../uws-hello.js';
import type { Release } from './context.js';

export async function ceilingSection(r: Release) {
  const { P, notes, fig } = r;
  const hello = await startUwsHello();
  onCleanup(() => hello.stop());
  // Without a native binary on this runtime, every server of the run (the hello-world included) is
  // the node:http stand-in: the run goes on, and the report's header and notes say so (issue AB).
  const httpCore: 'uws' | 'node_http' = hello.native ? 'uws' : 'node_http';
  if (!hello.native)
    notes.push(
      'HTTP core: no native uWebSockets.js binary loads on this runtime, so every figure of this run (the "uWS" hello-world ceiling included) is the node:http stand-in\'s; run on a glibc >= 2.38 system (bash .ci/node-native.sh 22) for the native figures and the stand-in\'s ratio to them.',
    );
  const ceil1 = cannonFigures(await cannon({ url: `${hello.url}/hello`, connections: 1, durationS: P.dur }));
  const ceil32 = cannonFigures(
    await cannon({ url: `${hello.url}/hello`, connections: 32, durationS: P.dur }),
  );
  const ceilPrecise = latencyFigures(
    await sampleLatency({ base: hello.url, paths: ['/hello'], connections: 1, amount: P.preciseN }),
  );
  await hello.stop();
  fig({
    id: 'uws.c1',
    group: 'Ceiling',
    label: 'bare uWS hello-world, c=1',
    value: ceil1.reqPerSec,
    unit: 'req/s',
    better: 'higher',
    status: 'info',
    note: `p50 ${ceilPrecise.p50ms} ms, p99 ${ceilPrecise.p99ms} ms (precise client; the c=1 latency budgets' baselines)`,
  });
  fig({
    id: 'uws.c32',
    group: 'Ceiling',
    label: 'bare uWS hello-world, c=32',
    value: ceil32.reqPerSec,
    unit: 'req/s',
    better: 'higher',
    status: 'info',
    note: `autocannon p99 ${ceil32.p99ms} ms`,
  });
  return { native: hello.native, httpCore, ceil1, ceil32, ceilPrecise };
}
export type Ceiling = Awaited<ReturnType<typeof ceilingSection>>;
