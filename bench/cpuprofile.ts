/** Reads a V8 `.cpuprofile` (node --cpu-prof) and lists the functions with the most self time. */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** The `n` functions with the most self time, one line each: share, milliseconds, name and source line. */
export function topSelf(profilePath: string, n: number): string {
  const p = JSON.parse(readFileSync(profilePath, 'utf8')) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const self = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const node = byId.get(p.samples[i]);
    const dt = p.timeDeltas[i] ?? 0;
    total += dt;
    if (!node) continue;
    const f = node.callFrame;
    const key = `${f.functionName || '(anon)'} ${f.url.replace(/^.*\/(dist|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + dt);
  }
  const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  return rows
    .map(
      ([k, v]) =>
        `${((100 * v) / total).toFixed(1).padStart(5)} %  ${(v / 1000).toFixed(0).padStart(7)} ms  ${k}`,
    )
    .join('\n');
}

/**
 * Self time of functions named `name`, split by the call path above them (`depth` frames), the
 * heaviest paths first: where a hot leaf (a native read, a write) is called from.
 */
export function callersOf(profilePath: string, name: string, depth = 3, n = 15): string {
  const p = JSON.parse(readFileSync(profilePath, 'utf8')) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
  };
  const parent = new Map<number, number>();
  for (const x of p.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const label = (x: ProfileNode) =>
    `${x.callFrame.functionName || '(anon)'}@${x.callFrame.url.replace(/^.*\/(dist|node_modules)\//, '')}:${x.callFrame.lineNumber + 1}`;
  const by = new Map<string, number>();
  for (let i = 0; i < p.samples.length; i++) {
    let node = byId.get(p.samples[i]);
    if (!node || node.callFrame.functionName !== name) continue;
    const path: string[] = [];
    for (let d = 0; d < depth; d++) {
      const up = parent.get(node.id);
      if (up === undefined) break;
      node = byId.get(up)!;
      path.push(label(node));
    }
    const k = path.join(' < ');
    by.set(k, (by.get(k) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  return [...by.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${(v / 1000).toFixed(0).padStart(7)} ms  ${k}`)
    .join('\n');
}
