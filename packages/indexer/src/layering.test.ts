/**
 * The layering rules of the read side, enforced on the indexer's source tree (packages/indexer/src;
 * paths below are relative to it):
 *  - route files never import storage internals (no runtime import of src/storage at all, nor any
 *    table layout; a type-only import of src/storage/index.ts is allowed) and never reach `.rocks`;
 *  - domains (tokens, markets, wallets, chain, cohorts, addresses, screener, streams) never import src/server;
 *  - `.rocks` (the RocksDB binding) is reachable only inside src/storage, and only
 *    src/storage/binding.ts imports the binding package (in every workspace package);
 *  - no runtime import cycle anywhere in src.
 * And the rule of the workspace packages (packages/*): no package imports a package above it —
 * platform ← devnet ← indexer ← scanner (← the composition root, app/), proofs ← indexer,
 * proofs ← client ← console — type
 * imports included, nor reaches into another package by a relative path; each package.json
 * declares only packages below it.
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

  it('no other package reaches the RocksDB binding', () => {
    expect(foreignBindingReach()).toEqual([]);
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

/** The workspace packages (packages/<name>) and, for each, the packages it may import. */
const PACKAGES_DIR = resolve(SRC, '../..');
const MAY_IMPORT: Record<string, string[]> = {
  platform: [],
  devnet: ['platform'],
  proofs: [],
  indexer: ['platform', 'devnet', 'proofs'],
  scanner: ['platform', 'devnet', 'proofs', 'indexer'],
  client: ['proofs'],
  console: ['client'],
};
const SCOPE = '@chain-indexer/';

/** Every .ts/.tsx file of a package (tests and configs included), outside dist and node_modules. */
function packageFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'dist' || name === 'node_modules') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) packageFiles(p, out);
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Files of the other packages using `.rocks` or importing a RocksDB binding package. */
function foreignBindingReach(): string[] {
  const bad: string[] = [];
  for (const pkg of Object.keys(MAY_IMPORT)) {
    if (pkg === 'indexer') continue;
    for (const f of packageFiles(join(PACKAGES_DIR, pkg))) {
      const text = readFileSync(f, 'utf8');
      const r = relative(PACKAGES_DIR, f);
      if (/\.rocks\b/.test(text)) bad.push(`${r} uses .rocks`);
      for (const i of importsOf(text))
        if (i.spec === '@nxtedition/rocksdb' || i.spec === 'rocksdb-native')
          bad.push(`${r} imports ${i.spec}`);
    }
  }
  return bad.sort();
}

/** Imports of a package above (or beside) it, and relative imports into another package. */
function upwardImports(): string[] {
  const bad: string[] = [];
  for (const [pkg, allowed] of Object.entries(MAY_IMPORT)) {
    const root = join(PACKAGES_DIR, pkg);
    for (const f of packageFiles(root)) {
      const r = relative(PACKAGES_DIR, f);
      for (const i of importsOf(readFileSync(f, 'utf8'))) {
        const kind = i.typeOnly ? ' (type)' : '';
        if (i.spec.startsWith(SCOPE)) {
          const to = i.spec.slice(SCOPE.length).split('/')[0];
          if (to !== pkg && !allowed.includes(to)) bad.push(`${r} → ${i.spec}${kind}`);
        } else if (i.spec.startsWith('.')) {
          const target = resolve(dirname(f), i.spec);
          const into = relative(PACKAGES_DIR, target).split('/')[0];
          if (!target.startsWith(`${root}/`) && into !== '..') bad.push(`${r} → ${i.spec}${kind}`);
        }
      }
    }
  }
  return bad.sort();
}

/** Workspace packages a package.json declares (dependencies of any kind) that sit above it. */
function upwardDeclarations(): string[] {
  const bad: string[] = [];
  for (const [pkg, allowed] of Object.entries(MAY_IMPORT)) {
    const json = JSON.parse(readFileSync(join(PACKAGES_DIR, pkg, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'])
      for (const name of Object.keys(json[field] ?? {}))
        if (name.startsWith(SCOPE)) {
          const to = name.slice(SCOPE.length);
          // The indexer's tools write the client's generated files (a tool-time link, not an import).
          const toolLink = pkg === 'indexer' && to === 'client' && field === 'devDependencies';
          if (!allowed.includes(to) && !toolLink) bad.push(`${pkg} ${field} ${name}`);
        }
  }
  return bad.sort();
}

describe('workspace packages', () => {
  it('every package is listed with what it may import', () => {
    const dirs = readdirSync(PACKAGES_DIR).filter((d) => statSync(join(PACKAGES_DIR, d)).isDirectory());
    expect(dirs.sort()).toEqual(Object.keys(MAY_IMPORT).sort());
  });

  it('no package imports a package above it, nor another package by path (type imports included)', () => {
    expect(upwardImports()).toEqual([]);
  });

  it('no package declares a dependency on a package above it', () => {
    expect(upwardDeclarations()).toEqual([]);
  });
});
