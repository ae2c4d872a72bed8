/**
 * The layering rules of the indexer's source tree (packages/indexer/src; paths below are relative
 * to it). Every rule counts type imports too (`import type`, `import('x').T`): a type edge is a
 * dependency a maintainer has to follow just the same.
 *  - the folder matrix: each folder imports only the folders {@link MAY_IMPORT} lists for it. The
 *    matrix is a layering (checked acyclic), so no folder cycle can form; the ground floor,
 *    `schema` (the table registry, row types and the ingest→projection delta contract), imports
 *    no other folder and no package but node's own;
 *  - domains (tokens, markets, wallets, chain, cohorts, addresses, screener, streams) reach each
 *    other only through the other domain's doors — `index.ts` (readers) or `build.ts` (the write
 *    side) — and never import src/server;
 *  - route files never import storage internals (no runtime import of src/storage at all, nor any
 *    table layout: src/schema/tables, table.ts, codec.ts; a type-only import of src/storage/index.ts
 *    is allowed) and never reach `.rocks`;
 *  - no raw key outside src/storage: nothing else calls a batch's raw methods (getRaw, putRaw,
 *    insertRaw, delRaw, prefetchRaw, raw): reads and writes name a table of the registry;
 *  - `.rocks` (the RocksDB binding) is reachable only inside src/storage, and only
 *    src/storage/binding.ts imports the binding (`@chain-indexer/store`, which alone imports the
 *    binding package among the workspace packages);
 *  - the query layer (src/queries) sits above the domains: it builds the responses that combine
 *    domains from their readers; no domain imports another domain's reader (an `…Reader` type or
 *    a `create…Reader` factory), nor src/queries;
 *  - no import cycle between files or between folders, type imports included.
 * And the rule of the workspace packages (packages/*): no package imports a package above it —
 * platform ← devnet ← indexer ← scanner (← the composition root, app/), proofs ← indexer,
 * store ← indexer and scanner, proofs ← client ← console — type
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
  const re = /(?:^|\n)\s*(import|export)\s+(type\s+)?([^;]*?)\s+from\s+['"]([^'"]+)['"]/g;
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
      // Table layouts (src/schema/tables, the table and codec primitives) are storage internals too.
      const layout =
        e.to.startsWith('schema/tables/') || e.to === 'schema/table.ts' || e.to === 'schema/codec.ts';
      if (!e.to.startsWith('storage/') && !layout) continue;
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
      if (
        (e.to === 'pkg:@nxtedition/rocksdb' ||
          e.to === 'pkg:rocksdb-native' ||
          e.to === 'pkg:@chain-indexer/store') &&
        f !== 'storage/binding.ts'
      )
        bad.push(`${f} imports ${e.to.slice(4)}`);
  return bad.sort();
}

/** The domains, projections and replication the server and the runtime may both import. */
const READ_SIDE = [
  'tokens',
  'markets',
  'chain',
  'cohorts',
  'wallets',
  'addresses',
  'screener',
  'streams',
  'ingest',
  'replication',
];

/**
 * The folder matrix: what each top-level folder of src may import (type imports included). Read
 * bottom-up: the ground floor `schema` first, then the node client and decoders, storage, the
 * projection contract, the domains (each above the domains it builds on), the write side (ingest,
 * replication), the HTTP server and the composition root (runtime).
 */
const MAY_IMPORT_FOLDERS: Record<string, string[]> = {
  schema: [],
  errors: [],
  decode: [],
  rpc: ['schema'],
  storage: ['schema', 'rpc', 'errors'],
  config: ['storage'],
  cursor: ['errors', 'storage'],
  projections: ['schema', 'storage', 'rpc'],
  workers: ['schema', 'storage', 'rpc', 'decode'],
  tokens: ['schema', 'storage', 'projections', 'rpc', 'errors'],
  markets: ['schema', 'storage', 'projections', 'rpc', 'errors', 'decode', 'tokens'],
  chain: ['schema', 'storage', 'projections', 'rpc', 'errors', 'decode'],
  cohorts: ['schema', 'storage', 'errors'],
  wallets: ['schema', 'storage', 'projections', 'errors', 'tokens', 'markets', 'chain'],
  addresses: ['schema', 'storage', 'chain', 'markets', 'tokens'],
  screener: ['schema', 'storage', 'errors', 'markets', 'tokens'],
  streams: ['schema', 'storage', 'errors', 'markets'],
  // The query layer: the responses that combine domains, built from the domains' readers.
  queries: ['schema', 'storage', 'errors', 'tokens', 'markets', 'wallets', 'cohorts'],
  ingest: ['schema', 'storage', 'projections', 'rpc', 'streams', 'workers'],
  replication: ['storage', 'ingest'],
  server: ['schema', 'storage', 'rpc', 'errors', 'cursor', 'projections', ...READ_SIDE, 'queries'],
  metrics: ['schema', 'storage', 'ingest', 'server', 'tokens'],
  // The ingest engine thread: the whole write side of a chain, above the domains and the metrics
  // it records into; below the composition root, whose serving thread imports only its host file.
  engine: ['schema', 'storage', 'rpc', 'decode', 'config', 'projections', 'workers', ...READ_SIDE, 'metrics'],
  tools: ['schema', 'storage', 'server'],
  runtime: [
    'schema',
    'storage',
    'rpc',
    'decode',
    'config',
    'cursor',
    'projections',
    'workers',
    ...READ_SIDE,
    'queries',
    'server',
    'metrics',
    'engine',
  ],
};
// The package's front doors (package.json `exports`, docs/CONTRIBUTING.md "Front doors"): re-exports
// only, above every folder; no folder imports them.
MAY_IMPORT_FOLDERS.entry = Object.keys(MAY_IMPORT_FOLDERS);

const folderOf = (f: string) => (f.includes('/') ? f.split('/')[0] : '');

/** Folder→folder imports the matrix does not allow (and packages the floor imports). */
function folderImports(): string[] {
  const bad: string[] = [];
  for (const [f, edges] of graph) {
    const from = folderOf(f);
    if (!from) continue;
    const allowed = MAY_IMPORT_FOLDERS[from];
    for (const e of edges) {
      const kind = e.typeOnly ? ' (type)' : '';
      if (e.to.startsWith('pkg:')) {
        if (from === 'schema' && !e.to.startsWith('pkg:node:')) bad.push(`${f} → ${e.to.slice(4)}${kind}`);
        continue;
      }
      const to = folderOf(e.to);
      if (to === from || !to) continue;
      if (!allowed?.includes(to)) bad.push(`${f} → ${e.to}${kind}`);
    }
  }
  return bad.sort();
}

/** Domain files importing another domain's module other than its index.ts (type imports included). */
function domainInternalImports(): string[] {
  const bad: string[] = [];
  for (const [f, edges] of graph) {
    const from = folderOf(f);
    if (!DOMAINS.includes(from)) continue;
    for (const e of edges) {
      const to = folderOf(e.to);
      // Two doors per domain: index.ts (readers, rendering) and build.ts (the projection's write side).
      if (!DOMAINS.includes(to) || to === from || e.to === `${to}/index.ts` || e.to === `${to}/build.ts`)
        continue;
      bad.push(`${f} → ${e.to}${e.typeOnly ? ' (type)' : ''}`);
    }
  }
  return bad.sort();
}

/**
 * Domain files importing another domain's reader: a name ending in `Reader` (the reader type) or
 * `create…Reader` (its factory), type imports included. What combines two domains' readers is a
 * query (src/queries), above both.
 */
function domainReaderImports(): string[] {
  const bad: string[] = [];
  const re = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s+from\s+['"]([^'"]+)['"]/g;
  for (const f of files) {
    const r = rel(f);
    const from = folderOf(r);
    if (!DOMAINS.includes(from)) continue;
    for (const m of readFileSync(f, 'utf8').matchAll(re)) {
      const to = folderOf(resolveSpec(f, m[2]) ?? '');
      if (!DOMAINS.includes(to) || to === from) continue;
      for (const name of m[1].split(',').map(
        (x) =>
          x
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0],
      ))
        if (/Reader$/.test(name)) bad.push(`${r} → ${to}: ${name}`);
    }
  }
  return bad.sort();
}

/**
 * Cycles between files (each reported from where the walk met it); `withTypes` counts type
 * imports too, else only imports that run.
 */
function fileCycles(withTypes: boolean): string[] {
  const state = new Map<string, 1 | 2>();
  const cycles: string[] = [];
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 1);
    stack.push(f);
    for (const e of graph.get(f) ?? []) {
      if ((e.typeOnly && !withTypes) || !graph.has(e.to)) continue;
      if (state.get(e.to) === 1) cycles.push([...stack.slice(stack.indexOf(e.to)), e.to].join(' → '));
      else if (!state.has(e.to)) visit(e.to);
    }
    stack.pop();
    state.set(f, 2);
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return cycles;
}

/** Calls of a batch's raw-key methods outside src/storage. */
function rawKeyCalls(): string[] {
  const bad: string[] = [];
  const re = /\.(getRaw|putRaw|insertRaw|delRaw|prefetchRaw)\(|\bbatch\.raw\(/g;
  for (const f of files) {
    const r = rel(f);
    if (r.startsWith('storage/')) continue;
    for (const m of readFileSync(f, 'utf8').matchAll(re)) bad.push(`${r}: ${m[0]}`);
  }
  return bad.sort();
}

/** Strongly connected groups of folders (type imports included), each listed once. */
function folderCycles(): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const [f, es] of graph)
    for (const e of es) {
      const a = folderOf(f);
      const b = folderOf(e.to);
      if (!a || !b || a === b || e.to.startsWith('pkg:')) continue;
      if (!edges.has(a)) edges.set(a, new Set());
      edges.get(a)!.add(b);
    }
  return stronglyConnected(edges);
}

/** Tarjan's strongly connected components of size > 1. */
function stronglyConnected(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  let n = 0;
  const visit = (v: string) => {
    index.set(v, n);
    low.set(v, n++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  const nodes = new Set([...edges.keys(), ...[...edges.values()].flatMap((s) => [...s])]);
  for (const v of nodes) if (!index.has(v)) visit(v);
  return out;
}

/**
 * Violations still being migrated, per rule: the test fails on any violation not listed here AND
 * on any entry that no longer occurs, so the list can only shrink. It is empty (issue W's ground
 * floor and registry finished every migration), and stays so: a new violation is fixed, not listed.
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

  it('every folder imports only what the folder matrix allows (type imports included)', () => {
    expect(folderImports()).toEqual(PENDING.folderImports.sort());
  });

  it('the folder matrix lists every folder and is a layering (acyclic)', () => {
    const dirs = readdirSync(SRC).filter((d) => statSync(join(SRC, d)).isDirectory());
    expect(dirs.sort()).toEqual(Object.keys(MAY_IMPORT_FOLDERS).sort());
    const edges = new Map(Object.entries(MAY_IMPORT_FOLDERS).map(([a, bs]) => [a, new Set(bs)]));
    expect(stronglyConnected(edges)).toEqual([]);
  });

  it('has no folder cycle, type imports included', () => {
    expect(folderCycles()).toEqual([]);
  });

  it('domains reach each other only through index.ts', () => {
    expect(domainInternalImports()).toEqual(PENDING.domainInternalImports.sort());
  });

  it('domains do not import each other’s readers (combining responses are queries)', () => {
    expect(domainReaderImports()).toEqual([]);
  });

  it('has no import cycle between files, type imports included', () => {
    expect(fileCycles(true)).toEqual([]);
  });

  it('builds no raw key outside src/storage (typed get/put/scan only)', () => {
    expect(rawKeyCalls()).toEqual(PENDING.rawKeyCalls.sort());
  });

  it('the pending list is empty', () => {
    expect(Object.values(PENDING).flat()).toEqual([]);
  });

  it('has no runtime import cycle', () => {
    expect(fileCycles(false)).toEqual([]);
  });

  it('no other package reaches the RocksDB binding', () => {
    expect(foreignBindingReach()).toEqual([]);
  });

  if (process.env.LAYERING_WRITE_PENDING)
    it('writes the pending list', async () => {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(
        new URL('./layering.pending.json', import.meta.url),
        `${JSON.stringify(
          {
            routeStorageImports: routeStorageImports(),
            domainServerImports: domainServerImports(),
            bindingReach: bindingReach(),
            folderImports: folderImports(),
            domainInternalImports: domainInternalImports(),
            rawKeyCalls: rawKeyCalls(),
          },
          null,
          2,
        )}\n`,
      );
    });
});

/** The workspace packages (packages/<name>) and, for each, the packages it may import. */
const PACKAGES_DIR = resolve(SRC, '../..');
const MAY_IMPORT: Record<string, string[]> = {
  platform: [],
  devnet: ['platform'],
  proofs: [],
  store: [],
  indexer: ['platform', 'devnet', 'proofs', 'store'],
  scanner: ['platform', 'devnet', 'proofs', 'store', 'indexer'],
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
    // The store package owns the binding; the indexer's own rule is checked above.
    if (pkg === 'indexer' || pkg === 'store') continue;
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
