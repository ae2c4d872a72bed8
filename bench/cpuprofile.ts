/** Reads a V8 `.cpuprofile` (node --cpu-prof) and lists the functions with the most self time. */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * A time window of a profile in microseconds of the monotonic clock (V8's profile timestamps and
 * `process.hrtime.bigint() / 1000n` read the same clock on Linux): only samples inside it count.
 */
export interface ProfileWindow {
  fromUs: number;
  toUs: number;
}

/** Loads a profile, keeping only the samples inside `window` (each with its own time delta). */
function load(profilePath: string, window?: ProfileWindow): Profile {
  const p = JSON.parse(readFileSync(profilePath, 'utf8')) as Profile;
  if (!window) return p;
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i] ?? 0;
    if (t < window.fromUs || t > window.toUs) continue;
    samples.push(p.samples[i]);
    timeDeltas.push(p.timeDeltas[i] ?? 0);
  }
  return { ...p, samples, timeDeltas };
}

/** Samples of a profile inside `window` and in all (to check the window met the profile's clock). */
export function samplesIn(profilePath: string, window: ProfileWindow): { inside: number; all: number } {
  return {
    inside: load(profilePath, window).samples.length,
    all: load(profilePath).samples.length,
  };
}

/**
 * The `n` functions with the most self time, one line each: share, milliseconds, name and source
 * line; only samples inside `window` when given.
 */
export function topSelf(profilePath: string, n: number, window?: ProfileWindow): string {
  const p = load(profilePath, window);
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

/**
 * The `n` project functions (source under `packages/<pkg>/dist/`, `dist/app/` or `dist/bench/`)
 * with the most total (inclusive) time: self time plus everything they called, each function
 * counted once per sample even when recursive, only samples inside `window` when given. One line
 * each: share, milliseconds, name and source line.
 */
export function topTotal(profilePath: string, n: number, window?: ProfileWindow): string {
  const p = load(profilePath, window);
  const parent = new Map<number, number>();
  for (const x of p.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const total = new Map<string, number>();
  let all = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i] ?? 0;
    all += dt;
    const seen = new Set<string>();
    for (let id: number | undefined = p.samples[i]; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id)?.callFrame;
      if (!f || !/\/(packages\/[a-z-]+\/dist|dist\/(app|bench))\//.test(f.url)) continue;
      const key = `${f.functionName || '(anon)'} ${f.url.replace(/^.*?\/((packages\/[a-z-]+\/)?dist\/)/, '$1')}:${f.lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      total.set(key, (total.get(key) ?? 0) + dt);
    }
  }
  return [...total.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(
      ([k, v]) =>
        `${((100 * v) / all).toFixed(1).padStart(5)} %  ${(v / 1000).toFixed(0).padStart(7)} ms  ${k}`,
    )
    .join('\n');
}

/** A report's profile section: a blank line, `title`, and the profile lines in a code block. */
export function profileSection(title: string, top: string): string[] {
  return ['', title, '', '```', top, '```'];
}

/**
 * The main thread's long turns: what a read arriving meanwhile waits for. A turn is a run of
 * consecutive samples under the same entry frame (the frame below the profile's root: one
 * `processImmediate` pass, one uWS callback, one timer pass); an `(idle)` sample or a new entry
 * frame ends it, `(garbage collector)` and `(program)` samples extend the current one. Returns the
 * turn count by length bucket and, over the turns of at least `minMs`, the project functions (and
 * GC) with the most inclusive time, each counted once per sample: what the long turns are made of.
 * Sampling granularity (`--cpu-prof-interval`, 1 ms in the benches) bounds the precision.
 */
export function longTurns(profilePath: string, minMs: number, n = 15, window?: ProfileWindow): string {
  const p = load(profilePath, window);
  const parent = new Map<number, number>();
  for (const x of p.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const root = p.nodes.find((x) => !parent.has(x.id))?.id;
  const entryOf = (id: number): number => {
    let at = id;
    for (let up = parent.get(at); up !== undefined && up !== root; up = parent.get(at)) at = up;
    return at;
  };
  const nameOf = (id: number) => byId.get(id)?.callFrame.functionName ?? '';
  const turns: Array<{ from: number; to: number; ms: number; entry: string }> = [];
  let start = -1;
  let entry = -1;
  let ms = 0;
  const close = (end: number) => {
    if (start >= 0) turns.push({ from: start, to: end, ms, entry: nameOf(entry) || '(anon)' });
    start = -1;
    entry = -1;
    ms = 0;
  };
  for (let i = 0; i < p.samples.length; i++) {
    const id = p.samples[i];
    const name = nameOf(id);
    if (name === '(idle)') {
      close(i);
      continue;
    }
    const e = entryOf(id);
    const extends_ = name === '(garbage collector)' || name === '(program)';
    if (!extends_ && start >= 0 && entry >= 0 && e !== entry) close(i);
    if (start < 0) start = i;
    if (!extends_ && entry < 0) entry = e;
    ms += (p.timeDeltas[i] ?? 0) / 1000;
  }
  close(p.samples.length);
  const buckets = [5, 10, 20, 50, 100, 200, Number.POSITIVE_INFINITY];
  const counts = buckets.map(() => 0);
  for (const t of turns) if (t.ms >= 1) counts[buckets.findIndex((b) => t.ms < b)]++;
  const long = turns.filter((t) => t.ms >= minMs);
  const total = new Map<string, number>();
  const entries = new Map<string, number>();
  let all = 0;
  for (const t of long) {
    entries.set(t.entry, (entries.get(t.entry) ?? 0) + 1);
    for (let i = t.from; i < t.to; i++) {
      const dt = p.timeDeltas[i] ?? 0;
      all += dt;
      const seen = new Set<string>();
      for (let id: number | undefined = p.samples[i]; id !== undefined; id = parent.get(id)) {
        const f = byId.get(id)?.callFrame;
        if (!f) continue;
        const ours = /\/(packages\/[a-z-]+\/dist|dist\/(app|bench))\//.test(f.url);
        if (!ours && !f.functionName.startsWith('(garbage')) continue;
        const key = `${f.functionName || '(anon)'} ${f.url.replace(/^.*?\/((packages\/[a-z-]+\/)?dist\/)/, '$1')}${f.url ? `:${f.lineNumber + 1}` : ''}`;
        if (seen.has(key)) continue;
        seen.add(key);
        total.set(key, (total.get(key) ?? 0) + dt);
      }
    }
  }
  const labels = ['1–5', '5–10', '10–20', '20–50', '50–100', '100–200', '≥ 200'];
  const longest = long.map((t) => t.ms).sort((a, b) => b - a);
  return [
    `turns ≥ 1 ms by length (ms): ${labels.map((l, i) => `${l}: ${counts[i]}`).join(', ')}`,
    `${long.length} turns ≥ ${minMs} ms, ${(all / 1000).toFixed(0)} ms in all; longest ${longest
      .slice(0, 8)
      .map((x) => x.toFixed(0))
      .join(', ')} ms; entered by ${[...entries.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    'inclusive time inside them (project functions and GC):',
    ...[...total.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(
        ([k, v]) =>
          `${((100 * v) / all).toFixed(1).padStart(5)} %  ${(v / 1000).toFixed(0).padStart(7)} ms  ${k}`,
      ),
  ].join('\n');
}
