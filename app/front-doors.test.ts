/**
 * The packages' front doors (docs/CONTRIBUTING.md, "Front doors"): every import of a workspace
 * package goes through an entry point its package.json `exports` map names, and the picture of the
 * packages in docs/CONTRIBUTING.md is the true one.
 *  - every .ts/.tsx file under app/, bench/, test/, ops/ and packages/<pkg>/src is parsed with the
 *    TypeScript compiler: static imports (`import type` too), `export … from`, dynamic `import()`,
 *    `import('x').T` types, `require('x')` and `require.resolve('x')`. A `@chain-indexer/<pkg>/<sub>`
 *    specifier must name an entry of `<pkg>`'s exports map; a relative path must not climb into
 *    another package (`../../packages/x/src/…`, `../../x/src/…`);
 *  - app/ (the service) imports no `./testing` entry: those load build code for the suites;
 *  - the packages import each other only along {@link MAY_IMPORT}, and every edge it lists is used;
 *  - each package's `dependencies` are exactly the packages its sources load at run time, and a
 *    package it reaches in type positions only (or at tool time) is at least a devDependency;
 *  - the diagram in docs/CONTRIBUTING.md lists each package's entry points as its exports map does,
 *    and its arrows are {@link MAY_IMPORT}.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGES = join(ROOT, 'packages');
const SCOPE = '@chain-indexer/';

/**
 * Which workspace package each package imports: `run` at run time, `types` in type positions only,
 * `tool` read as a file at tool time (the indexer's contract tool reads the client's openapi.json).
 * Test files of a package may use any of the three.
 */
const MAY_IMPORT: Record<string, { run: string[]; types?: string[]; tool?: string[] }> = {
  platform: { run: [] },
  store: { run: [] },
  proofs: { run: [] },
  devnet: { run: [] },
  indexer: { run: ['platform', 'proofs', 'store'], types: ['devnet'], tool: ['client'] },
  scanner: { run: ['indexer', 'platform', 'store'] },
  client: { run: ['proofs'] },
  console: { run: ['client'] },
};

/**
 * Folders of tools run by hand at development time (`npm run client`): what they load need only be
 * declared (the indexer's contract tool loads openapi-typescript, a devDependency).
 */
const TOOL_DIRS = ['packages/indexer/src/tools/'];

type Kind = 'run' | 'types' | 'tool';
/** Every string literal of each file (a package loaded by a name held in a constant). */
const literals = new Map<string, Set<string>>();
interface Ref {
  file: string;
  spec: string;
  kind: Kind;
}

function walk(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Whether an import or export declaration is erased at run time (`import type`, all-`type` names). */
function typeOnly(n: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(n)) {
    if (n.isTypeOnly) return true;
    const c = n.exportClause;
    return !!c && ts.isNamedExports(c) && c.elements.length > 0 && c.elements.every((e) => e.isTypeOnly);
  }
  const c = n.importClause;
  if (!c) return false; // a side-effect import runs
  if (c.isTypeOnly) return true;
  const b = c.namedBindings;
  return (
    !c.name && !!b && ts.isNamedImports(b) && b.elements.length > 0 && b.elements.every((e) => e.isTypeOnly)
  );
}

/** Every module reference of a source file, with whether it loads at run time. */
function refsOf(file: string): Ref[] {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Ref[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isStringLiteralLike(n)) literals.get(file)?.add(n.text) ?? literals.set(file, new Set([n.text]));
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier) {
      if (ts.isStringLiteral(n.moduleSpecifier))
        out.push({ file, spec: n.moduleSpecifier.text, kind: typeOnly(n) ? 'types' : 'run' });
    } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) {
      const e = n.moduleReference.expression;
      if (ts.isStringLiteral(e)) out.push({ file, spec: e.text, kind: n.isTypeOnly ? 'types' : 'run' });
    } else if (ts.isImportTypeNode(n)) {
      const a = n.argument;
      if (ts.isLiteralTypeNode(a) && ts.isStringLiteral(a.literal))
        out.push({ file, spec: a.literal.text, kind: 'types' });
    } else if (ts.isCallExpression(n) && n.arguments.length > 0 && ts.isStringLiteralLike(n.arguments[0])) {
      const spec = n.arguments[0].text;
      const callee = n.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword) out.push({ file, spec, kind: 'run' });
      else if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'resolve') {
        // require.resolve('pkg/file'): a file of the package is read (a path), not loaded.
        if (/require/i.test(callee.expression.getText(sf))) out.push({ file, spec, kind: 'tool' });
      } else if (/^(require|req)$/.test(callee.getText(sf)) || /^createRequire\(/.test(callee.getText(sf)))
        out.push({ file, spec, kind: 'run' });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

const pkgs = readdirSync(PACKAGES).filter((d) => existsSync(join(PACKAGES, d, 'package.json')));
const manifest = (pkg: string) =>
  JSON.parse(readFileSync(join(PACKAGES, pkg, 'package.json'), 'utf8')) as {
    name: string;
    exports?: Record<string, unknown>;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
/** Each package's entry points: `.` or `./<name>`, as its exports map lists them. */
const ENTRIES = new Map(pkgs.map((p) => [p, Object.keys(manifest(p).exports ?? {})]));

const files = [
  ...['app', 'bench', 'test', 'ops'].flatMap((d) => walk(join(ROOT, d))),
  ...pkgs.flatMap((p) => walk(join(PACKAGES, p, 'src'))),
];
const refs = files.flatMap(refsOf);
const rel = (f: string) => relative(ROOT, f).replaceAll('\\', '/');
/** The workspace package a file belongs to, or null (app/, bench/, test/, ops/). */
const packageOf = (f: string): string | null => {
  const r = relative(PACKAGES, f).split(/[\\/]/);
  return r[0] === '..' || r.length < 2 ? null : r[0];
};
const isTest = (f: string) => /\.(test|bench)\.tsx?$/.test(f);
/** `@chain-indexer/x/y` → `{pkg: 'x', entry: './y'}`; another package's name → null. */
function workspaceSpec(spec: string): { pkg: string; entry: string } | null {
  if (!spec.startsWith(SCOPE)) return null;
  const [pkg, ...rest] = spec.slice(SCOPE.length).split('/');
  return { pkg, entry: rest.length ? `./${rest.join('/')}` : '.' };
}
/** The package name of a bare specifier (`@scope/name/x` → `@scope/name`), or null (relative, node:). */
function packageName(spec: string): string | null {
  if (spec.startsWith('.') || spec.startsWith('node:') || spec.startsWith('/')) return null;
  const parts = spec.split('/');
  const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return builtinModules.includes(name) ? null : name;
}

/** Imports of a workspace package that name no entry of its exports map. */
function deepImports(): string[] {
  const bad: string[] = [];
  for (const r of refs) {
    const w = workspaceSpec(r.spec);
    if (!w) continue;
    if (!ENTRIES.get(w.pkg)?.includes(w.entry)) bad.push(`${rel(r.file)} → ${r.spec}`);
  }
  return bad.sort();
}

/** Relative imports that leave their package for another one (or reach a package from outside). */
function climbingImports(): string[] {
  const bad: string[] = [];
  for (const r of refs) {
    if (!r.spec.startsWith('.')) continue;
    const target = resolve(dirname(r.file), r.spec);
    const into = packageOf(target);
    if (into !== null && into !== packageOf(r.file)) bad.push(`${rel(r.file)} → ${r.spec}`);
  }
  return bad.sort();
}

/** Workspace edges actually used by each package's sources (test files apart), by kind. */
function usedEdges(): Record<string, { run: string[]; types: string[]; tool: string[] }> {
  const used: Record<string, Record<Kind, Set<string>>> = {};
  for (const p of pkgs) used[p] = { run: new Set(), types: new Set(), tool: new Set() };
  for (const r of refs) {
    const from = packageOf(r.file);
    const w = workspaceSpec(r.spec);
    if (!from || !w || w.pkg === from || isTest(r.file)) continue;
    used[from][r.kind].add(w.pkg);
  }
  const out: Record<string, { run: string[]; types: string[]; tool: string[] }> = {};
  for (const [p, u] of Object.entries(used)) {
    // A package used at run time is not also listed as a type or tool edge.
    const types = [...u.types].filter((x) => !u.run.has(x));
    const tool = [...u.tool].filter((x) => !u.run.has(x));
    out[p] = { run: [...u.run].sort(), types: types.sort(), tool: tool.sort() };
  }
  return out;
}

/** The matrix in the same shape as {@link usedEdges}. */
const declaredEdges = () =>
  Object.fromEntries(
    Object.entries(MAY_IMPORT).map(([p, m]) => [
      p,
      { run: [...m.run].sort(), types: [...(m.types ?? [])].sort(), tool: [...(m.tool ?? [])].sort() },
    ]),
  );

/** Test files of a package importing a package outside its row of the matrix. */
function testEdges(): string[] {
  const bad: string[] = [];
  for (const r of refs) {
    const from = packageOf(r.file);
    const w = workspaceSpec(r.spec);
    if (!from || !w || w.pkg === from || !isTest(r.file)) continue;
    const m = MAY_IMPORT[from];
    if (![...m.run, ...(m.types ?? []), ...(m.tool ?? [])].includes(w.pkg))
      bad.push(`${rel(r.file)} → ${r.spec}`);
  }
  return bad.sort();
}

/** Mismatches between a package's declared dependencies and what its sources load. */
function dependencyMismatches(): string[] {
  const bad: string[] = [];
  for (const p of pkgs) {
    const m = manifest(p);
    const deps = new Set(Object.keys(m.dependencies ?? {}));
    const declared = new Set([...deps, ...Object.keys(m.devDependencies ?? {})]);
    const run = new Set<string>();
    const other = new Set<string>();
    const own = files.filter((f) => packageOf(f) === p && !isTest(f));
    for (const r of refs) {
      if (packageOf(r.file) !== p || isTest(r.file)) continue;
      const name = packageName(r.spec);
      if (!name || name === m.name) continue;
      const tool = TOOL_DIRS.some((d) => rel(r.file).startsWith(d));
      (r.kind === 'run' && !tool ? run : other).add(name);
    }
    // A package named by a string (artifact paths, the uWS builds' packages) is loaded by name.
    const named = (n: string) =>
      own.some((f) => [...(literals.get(f) ?? [])].some((l) => l === n || l.startsWith(`${n}/`)));
    for (const n of run) if (!deps.has(n)) bad.push(`${p}: loads ${n} at run time, not in dependencies`);
    for (const n of other) if (!run.has(n) && !declared.has(n)) bad.push(`${p}: uses ${n}, not declared`);
    for (const n of deps)
      if (!run.has(n) && !named(n))
        bad.push(`${p}: dependency ${n} is never loaded at run time (devDependencies, or remove it)`);
  }
  return bad.sort();
}

/** The diagram of docs/CONTRIBUTING.md ("Front doors"): entry points and arrows. */
function diagram(): {
  entries: Record<string, string[]>;
  edges: Record<string, { run: string[]; types: string[]; tool: string[] }>;
} {
  const doc = readFileSync(join(ROOT, 'docs/CONTRIBUTING.md'), 'utf8');
  const block = /<!-- front-doors -->\s*```text\n([\s\S]*?)```/.exec(doc);
  if (!block) throw new Error('docs/CONTRIBUTING.md has no ```text block after <!-- front-doors -->');
  const entries: Record<string, string[]> = {};
  const edges: Record<string, { run: string[]; types: string[]; tool: string[] }> = {};
  for (const line of block[1].split('\n')) {
    const entry = /^([a-z]+)\s+((?:\.\S*\s*)+)$/.exec(line.trim());
    if (entry) {
      entries[entry[1]] = entry[2].trim().split(/\s+/).sort();
      continue;
    }
    const arrow = /^([a-z]+(?:, [a-z]+)*)\s+─►\s+(.*)$/.exec(line.trim());
    if (!arrow) continue;
    const e = { run: [] as string[], types: [] as string[], tool: [] as string[] };
    if (arrow[2].trim() !== '(no workspace package)')
      for (const part of arrow[2].split('·').map((s) => s.trim())) {
        const m = /^(types only|tool):\s*(.*)$/.exec(part);
        const list = (m ? m[2] : part).split(/[\s,]+/).filter(Boolean);
        (m ? (m[1] === 'tool' ? e.tool : e.types) : e.run).push(...list);
      }
    for (const k of Object.keys(e) as Kind[]) e[k].sort();
    for (const p of arrow[1].split(', ')) edges[p] = e;
  }
  return { entries, edges };
}

describe('front doors', () => {
  it('parses every source file (the scan is not empty)', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(refs.some((r) => r.spec.startsWith(SCOPE))).toBe(true);
  });

  it('every import of a workspace package names an entry of its exports map', () => {
    expect(deepImports()).toEqual([]);
  });

  it('no relative import climbs into another package', () => {
    expect(climbingImports()).toEqual([]);
  });

  it('no export map has a wildcard, and every entry resolves to a source file', () => {
    const bad: string[] = [];
    for (const [p, keys] of ENTRIES)
      for (const k of keys) {
        if (k.includes('*')) bad.push(`${p} ${k}`);
        const t = manifest(p).exports?.[k];
        const built = typeof t === 'string' ? t : (t as { default?: string }).default;
        const src = built?.startsWith('./dist/')
          ? join(PACKAGES, p, 'src', built.slice('./dist/'.length).replace(/\.js$/, '.ts'))
          : join(PACKAGES, p, built ?? '');
        if (!existsSync(src)) bad.push(`${p} ${k} → ${rel(src)} (missing)`);
      }
    expect(bad).toEqual([]);
  });

  it('app/ (the service) imports no ./testing entry', () => {
    const bad = refs.filter(
      (r) =>
        rel(r.file).startsWith('app/') && !isTest(r.file) && /^@chain-indexer\/[a-z]+\/testing$/.test(r.spec),
    );
    expect(bad.map((r) => `${rel(r.file)} → ${r.spec}`)).toEqual([]);
  });

  it('packages import each other exactly along the matrix (every listed edge used)', () => {
    expect(Object.keys(MAY_IMPORT).sort()).toEqual([...pkgs].sort());
    expect(usedEdges()).toEqual(declaredEdges());
    expect(testEdges()).toEqual([]);
  });

  it("each package's dependencies are what it loads at run time", () => {
    expect(dependencyMismatches()).toEqual([]);
  });

  it('the diagram in docs/CONTRIBUTING.md shows the exports maps and the matrix', () => {
    const d = diagram();
    expect(d.entries).toEqual(Object.fromEntries(pkgs.map((p) => [p, [...(ENTRIES.get(p) ?? [])].sort()])));
    expect(d.edges).toEqual(declaredEdges());
  });
});
