/**
 * The serving thread builds nothing (issue AA): from the service's entry (app/main.ts) and the
 * indexer's serving modules, no runtime import reaches build code — the follower and its stages,
 * the projections' write side (every domain's build door and what only it loads), the decode and
 * replay workers, the engine thread's own modules. Those load in the engine thread only
 * (engine/worker.ts). Type-only imports are erased at run time and do not count here (the
 * layering test counts them for the folder rules).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(dirname(fileURLToPath(import.meta.url)));
const ROOT = resolve(SRC, '../../..');

/** Runtime imports of a file (static and dynamic), type-only ones left out. */
function runtimeImports(text: string): string[] {
  const out: string[] = [];
  const re = /(?:^|\n)\s*(import|export)\s+(type\s+)?([^;]*?)\s+from\s+['"]([^'"]+)['"]/g;
  for (const m of text.matchAll(re)) {
    if (m[2]) continue;
    const named = /^\{([\s\S]*)\}$/.exec(m[3].trim());
    const names = named
      ? named[1]
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean)
      : null;
    if (names && names.length > 0 && names.every((x) => x.startsWith('type '))) continue;
    out.push(m[4]);
  }
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    const after = text.slice((m.index ?? 0) + m[0].length, (m.index ?? 0) + m[0].length + 1);
    if (after !== '.') out.push(m[1]);
  }
  for (const m of text.matchAll(/(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g)) out.push(m[1]);
  return out;
}

/** A specifier from `from` → the source file it loads (workspace packages resolved to src), or null. */
function resolveSpec(from: string, spec: string): string | null {
  let p: string | null = null;
  if (spec.startsWith('.')) p = resolve(dirname(from), spec);
  else {
    // A workspace package's entry point (its package.json `exports`) → the entry's source file.
    const m = /^@chain-indexer\/([a-z-]+)(?:\/(.+))?$/.exec(spec);
    if (m) {
      const exports =
        JSON.parse(readFileSync(join(ROOT, 'packages', m[1], 'package.json'), 'utf8')).exports ?? {};
      const built: string | undefined = exports[m[2] ? `./${m[2]}` : '.']?.default;
      if (built?.startsWith('./dist/'))
        p = join(ROOT, 'packages', m[1], 'src', built.slice('./dist/'.length));
    }
  }
  if (!p) return null;
  const ts = p.replace(/\.js$/, '.ts');
  if (existsSync(ts)) return ts;
  if (existsSync(p.replace(/\.js$/, '.tsx'))) return p.replace(/\.js$/, '.tsx');
  return null;
}

/** Every source file the entries load at run time, each with the file that first loaded it. */
function closure(entries: string[]): Map<string, string | null> {
  const seen = new Map<string, string | null>(entries.map((e) => [e, null]));
  const todo = [...entries];
  while (todo.length) {
    const f = todo.pop()!;
    for (const spec of runtimeImports(readFileSync(f, 'utf8'))) {
      const to = resolveSpec(f, spec);
      if (!to || seen.has(to)) continue;
      seen.set(to, f);
      todo.push(to);
    }
  }
  return seen;
}

const rel = (f: string) => relative(ROOT, f).replaceAll('\\', '/');
/** How `f` was reached from an entry (entry → … → f). */
function pathTo(seen: Map<string, string | null>, f: string): string {
  const chain: string[] = [];
  for (let at: string | null = f; at; at = seen.get(at) ?? null) chain.unshift(rel(at));
  return chain.join(' → ');
}

/** Build code: loaded by the engine thread only. */
const BUILD = [
  /^packages\/indexer\/src\/ingest\/(index|stages|apply|frames|heads|finality|node-check|traces|pause|timeline)\.ts$/,
  /^packages\/indexer\/src\/[a-z]+\/build\.ts$/,
  /^packages\/indexer\/src\/[a-z]+\/projection\.ts$/,
  /^packages\/indexer\/src\/[a-z]+\/apply\//,
  /^packages\/indexer\/src\/chain\/decoded-views\.ts$/,
  /^packages\/indexer\/src\/tokens\/reconcile\.ts$/,
  /^packages\/indexer\/src\/workers\//,
  /^packages\/indexer\/src\/engine\/(worker|compose)\.ts$/,
];

describe('the serving thread', () => {
  it('loads no build code: no runtime import from the service entry reaches it', () => {
    const seen = closure([
      join(ROOT, 'app/main.ts'),
      join(SRC, 'runtime/chain.ts'),
      join(SRC, 'server/index.ts'),
    ]);
    const build = [...seen.keys()].filter((f) => BUILD.some((re) => re.test(rel(f))));
    expect(build.map((f) => pathTo(seen, f))).toEqual([]);
    // The graph is real: it does reach the serving modules and the engine's host.
    expect(seen.has(join(SRC, 'engine/index.ts'))).toBe(true);
    expect(seen.has(join(SRC, 'server/invoke.ts'))).toBe(true);
  });

  it('the engine thread does load the build code (the test would see it if the serving side did)', () => {
    const seen = closure([join(SRC, 'engine/worker.ts')]);
    const rels = [...seen.keys()].map(rel);
    for (const f of [
      'packages/indexer/src/ingest/stages/apply.ts',
      'packages/indexer/src/ingest/drivers/live.ts',
      'packages/indexer/src/tokens/projection.ts',
      'packages/indexer/src/markets/projection.ts',
      'packages/indexer/src/wallets/projection.ts',
    ])
      expect(rels).toContain(f);
  });
});
