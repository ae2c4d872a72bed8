/**
 * Size check (`npm run lint`): every hand-written source file of the packages (`packages/<pkg>/src/**`
 * `.ts` / `.tsx`, tests included) stays under {@link LIMITS.fileLines} lines and every function in
 * it under {@link LIMITS.functionLines} lines, unless the file says at its top why it may not:
 *
 *   // size: <reason, e.g. "one table of the route schemas; splitting it scatters one contract">
 *
 * (a line of its own among the first {@link MARKER_LINES} lines; the reason is required). One
 * marker covers the file and every function in it.
 *
 * Functions: function declarations and expressions, methods, constructors, accessors, and arrow
 * functions given a name (the initializer of a const/let/var, a property or a class field); an
 * anonymous callback (`describe('…', () => { … })`, `.map((x) => …)`) is the body of its caller's
 * statement and is not counted on its own. A function's lines run from the line it starts on to
 * the line it ends on; nested functions count in their parent and on their own.
 * Left out: dist/, node_modules/, declaration files (.d.ts), and generated files (a `@generated`
 * or `DO NOT EDIT` line among the first lines).
 *
 *   node dist/ops/size-check.js            fails (exit 1) on every offender without a marker
 *   node dist/ops/size-check.js --list     lists every offender, marked or not, with the counts (exit 0)
 *   options: --root <dir> (default: the working directory)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const LIMITS = { fileLines: 700, functionLines: 150 };
/** How many lines from the top of a file the marker may stand in. */
export const MARKER_LINES = 15;
const MARKER = /^\s*\/\/\s*size:\s*(\S.{2,})$/;
const GENERATED = /@generated|DO NOT EDIT/;

export interface Offence {
  file: string;
  kind: 'file' | 'function';
  /** The function's name (`Class.method`, `<anonymous>`), or the file's path. */
  name: string;
  /** 1-based line the file or function starts on. */
  line: number;
  lines: number;
  limit: number;
}

export interface FileReport {
  file: string;
  /** The reason the file's marker gives, or null when it has none. */
  reason: string | null;
  offences: Offence[];
}

/** The reason of the `// size: <reason>` marker among the first lines, or null. */
export function markerReason(text: string): string | null {
  for (const line of text.split('\n', MARKER_LINES)) {
    const m = MARKER.exec(line.trimEnd());
    if (m) return m[1].trim();
  }
  return null;
}

export function isGenerated(text: string): boolean {
  return text.split('\n', 5).some((l) => GENERATED.test(l));
}

/** Lines as `wc -l` would count them, plus a last line without a newline. */
function lineCount(text: string): number {
  if (!text) return 0;
  const n = text.split('\n').length;
  return text.endsWith('\n') ? n - 1 : n;
}

function nameOf(node: ts.Node, sf: ts.SourceFile): string | null {
  const own = (node as { name?: ts.Node }).name;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (own && (ts.isIdentifier(own) || ts.isStringLiteral(own) || ts.isPrivateIdentifier(own)))
    return own.text;
  if (own) return own.getText(sf);
  const p = node.parent;
  if (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p))
    return p.name.getText(sf);
  if (ts.isBinaryExpression(p) && p.operatorToken.kind === ts.SyntaxKind.EqualsToken)
    return p.left.getText(sf);
  if (ts.isExportAssignment(p) || ts.isFunctionDeclaration(node)) return 'default';
  return null;
}

/** The class a method, accessor or field belongs to, for the report. */
function ownerOf(node: ts.Node): string | null {
  const p = ts.isPropertyDeclaration(node.parent) ? node.parent.parent : node.parent;
  if ((ts.isClassDeclaration(p) || ts.isClassExpression(p)) && p.name) return p.name.text;
  return null;
}

/** Every counted function of a source over `limit` lines. */
export function longFunctions(file: string, text: string, limit = LIMITS.functionLines): Offence[] {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const out: Offence[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && (node as { body?: ts.Node }).body) {
      const anonymous = ts.isArrowFunction(node) || ts.isFunctionExpression(node);
      const name = nameOf(node, sf);
      if (!anonymous || name !== null) {
        const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
        const lines = end - start + 1;
        const owner = ownerOf(node);
        if (lines > limit)
          out.push({
            file,
            kind: 'function',
            name: `${owner ? `${owner}.` : ''}${name ?? '<anonymous>'}`,
            line: start + 1,
            lines,
            limit,
          });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The size offences of one source, and its marker's reason. */
export function checkSource(file: string, text: string, limits = LIMITS): FileReport {
  const offences: Offence[] = [];
  const lines = lineCount(text);
  if (lines > limits.fileLines)
    offences.push({ file, kind: 'file', name: file, line: 1, lines, limit: limits.fileLines });
  offences.push(...longFunctions(file, text, limits.functionLines));
  return { file, reason: markerReason(text), offences };
}

/** The hand-written .ts/.tsx files under packages/<pkg>/src of `root`, as paths relative to it. */
export function sourceFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(relative(root, p));
    }
  };
  const packages = join(root, 'packages');
  for (const pkg of readdirSync(packages, { withFileTypes: true })) {
    if (!pkg.isDirectory()) continue;
    const src = join(packages, pkg.name, 'src');
    try {
      walk(src);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  return out.sort();
}

/** Every file of `root` with an offence, marked or not. */
export function scan(root: string, limits = LIMITS): FileReport[] {
  const reports: FileReport[] = [];
  for (const file of sourceFiles(root)) {
    const text = readFileSync(join(root, file), 'utf8');
    if (isGenerated(text)) continue;
    const r = checkSource(file, text, limits);
    if (r.offences.length) reports.push(r);
  }
  return reports;
}

function describe(o: Offence): string {
  return o.kind === 'file'
    ? `${o.file}: ${o.lines} lines (limit ${o.limit})`
    : `${o.file}:${o.line}: function ${o.name} is ${o.lines} lines (limit ${o.limit})`;
}

/** The report's text and exit code: 1 when an offender has no marker (0 with `list`). */
export function render(reports: FileReport[], list: boolean): { text: string; code: number } {
  const unmarked = reports.filter((r) => r.reason === null);
  const shown = list ? reports : unmarked;
  const L: string[] = [];
  for (const r of shown)
    for (const o of r.offences) L.push(`${describe(o)}${r.reason === null ? '' : ` — marked: ${r.reason}`}`);
  const all = reports.flatMap((r) => r.offences);
  const count = (rs: FileReport[], k: Offence['kind']) =>
    rs.flatMap((r) => r.offences).filter((o) => o.kind === k).length;
  L.push(
    `size check: ${all.length} offences in ${reports.length} files (${count(reports, 'file')} files over ${LIMITS.fileLines} lines, ${count(reports, 'function')} functions over ${LIMITS.functionLines} lines); ${unmarked.length} files without a "// size: <reason>" marker`,
  );
  if (!list && unmarked.length)
    L.push(
      'split them, or say at the top of the file why not: a line "// size: <reason>" among its first 15 lines',
    );
  return { text: `${L.join('\n')}\n`, code: !list && unmarked.length ? 1 : 0 };
}

function main(argv: string[]): number {
  let root = process.cwd();
  let list = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--list') list = true;
    else if (argv[i] === '--root') root = argv[++i];
    else throw new Error(`unknown argument ${argv[i]} (size-check [--list] [--root <dir>])`);
  }
  const { text, code } = render(scan(root), list);
  (code ? process.stderr : process.stdout).write(text);
  return code;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  process.exitCode = main(process.argv.slice(2));
