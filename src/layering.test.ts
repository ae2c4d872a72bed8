/**
 * The layering rules of the read side, enforced on the source tree:
 *  - route files never import storage internals (no runtime import of src/storage at all, nor any
 *    table layout; a type-only import of src/storage/index.ts is allowed) and never reach `.rocks`;
 *  - domains (tokens, markets, wallets, chain, cohorts, addresses, screener, streams) never import src/server;
 *  - `.rocks` (the RocksDB binding) is reachable only inside src/storage, and only
 *    src/storage/binding.ts imports the binding package;
 *  - no runtime import cycle anywhere in src.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));
const DOMAINS = ['tokens', 'markets', 'wallets', 'chain', 'cohorts', 'addresses', 'screener', 'streams'];

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (
      name.endsWith('.ts') &&
      !name.endsWith('.test.ts') &&
      !name.endsWith('.bench.ts') &&
      !name.endsWith('.d.ts')
    )
      out.push(p);
  }
  return out;
}

interface Import {
  spec: string;
  typeOnly: boolean;
}

/** Static and dynamic imports of a file, with whether each is type-only (erased at runtime). */
function importsOf(text: string): Import[] {
  const out: Import[] = [];
  const re = /(?:^|\n)\s*(import|export)\s+(type\s+)?([\s\S]*?)\s+from\s+['"]([^'"]+)['"]/g;
  for (const m of text.matchAll(re)) {
    const clause = m[3];
    const named = /^\{([\s\S]*)\}$/.exec(clause.trim());
    const allTypes =
      !!named &&
      named[1]
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
        .every((x) => x.startsWith('type '));
    out.push({ spec: m[4], typeOnly: !!m[2] || allTypes });
  }
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    // `import('x').T` in a type position is erased; a call `await import('x')` is not.
    const after = text.slice((m.index ?? 0) + m[0].length, (m.index ?? 0) + m[0].length + 1);
    out.push({ spec: m[1], typeOnly: after === '.' });
  }
  for (const m of text.matchAll(/(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g))
    out.push({ spec: m[1], typeOnly: false });
  return out;
}

const files = walk(SRC);
const rel = (f: string) => relative(SRC, f).replaceAll('\\', '/');
const resolveSpec = (from: string, spec: string): string | null => {
  if (!spec.startsWith('.')) return null;
  const p = resolve(dirname(from), spec).replace(/\.js$/, '.ts');
  return rel(p);
};
const graph = new Map<string, Array<{ to: string; typeOnly: boolean }>>();
for (const f of files) {
  const edges: Array<{ to: string; typeOnly: boolean }> = [];
  for (const i of importsOf(readFileSync(f, 'utf8'))) {
    const to = resolveSpec(f, i.spec);
    edges.push({ to: to ?? `pkg:${i.spec}`, typeOnly: i.typeOnly });
  }
  graph.set(rel(f), edges);
}

/** Route files importing storage internals or table layouts. */
function routeStorageImports(): string[] {
  const bad: string[] = [];
  for (const [f, edges] of graph) {
    if (!f.startsWith('server/routes/')) continue;
    for (const e of edges) {
      // Table layouts (src/storage/tables, and any domain's old tables.ts) are storage internals too.
      if (!e.to.startsWith('storage/') && !e.to.endsWith('/tables.ts')) continue;
      if (e.typeOnly && e.to === 'storage/index.ts') continue;
      bad.push(`${f} → ${e.to}${e.typeOnly ? ' (type)' : ''}`);
    }
  }
  return bad.sort();
}

/** Domain files importing the server. */
function domainServerImports(): string[] {
  const bad: string[] = [];
  for (const [f, edges] of graph) {
    if (!DOMAINS.includes(f.split('/')[0])) continue;
    for (const e of edges) if (e.to.startsWith('server/')) bad.push(`${f} → ${e.to}`);
  }
  return bad.sort();
}

/** Files outside src/storage reaching the binding (`.rocks`, or the binding packages). */
function bindingReach(): string[] {
  const bad: string[] = [];
  for (const f of files) {
    const r = rel(f);
    if (r.startsWith('storage/')) continue;
    if (/\.rocks\b/.test(readFileSync(f, 'utf8'))) bad.push(`${r} uses .rocks`);
  }
  for (const [f, edges] of graph)
    for (const e of edges)
      if ((e.to === 'pkg:@nxtedition/rocksdb' || e.to === 'pkg:rocksdb-native') && f !== 'storage/binding.ts')
        bad.push(`${f} imports ${e.to.slice(4)}`);
  return bad.sort();
}

/**
 * Violations left by the migration to domain readers (issue K), removed file by file as each
 * domain moves onto its reader: the test fails on any violation not listed here AND on any entry
 * that no longer occurs, so the list can only shrink. It is empty when the migration is done.
 */
const PENDING: Record<string, string[]> = JSON.parse(
  readFileSync(new URL('./layering.pending.json', import.meta.url), 'utf8'),
);

describe('layering', () => {
  it('route files do not import storage internals', () => {
    expect(routeStorageImports()).toEqual(PENDING.routeStorageImports.sort());
  });

  it('domains do not import the server', () => {
    expect(domainServerImports()).toEqual(PENDING.domainServerImports.sort());
  });

  it('only src/storage reaches the RocksDB binding', () => {
    expect(bindingReach()).toEqual(PENDING.bindingReach.sort());
  });

  it('has no runtime import cycle', () => {
    const state = new Map<string, 1 | 2>();
    const cycles: string[] = [];
    const stack: string[] = [];
    const visit = (f: string) => {
      state.set(f, 1);
      stack.push(f);
      for (const e of graph.get(f) ?? []) {
        if (e.typeOnly || !graph.has(e.to)) continue;
        if (state.get(e.to) === 1) cycles.push([...stack.slice(stack.indexOf(e.to)), e.to].join(' → '));
        else if (!state.has(e.to)) visit(e.to);
      }
      stack.pop();
      state.set(f, 2);
    };
    for (const f of graph.keys()) if (!state.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });

  if (process.env.LAYERING_WRITE_PENDING)
    it('writes the pending list', async () => {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(
        new URL('./layering.pending.json', import.meta.url),
        `${JSON.stringify({ routeStorageImports: routeStorageImports(), domainServerImports: domainServerImports(), bindingReach: bindingReach() }, null, 2)}\n`,
      );
    });
});
