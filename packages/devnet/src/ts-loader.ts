/**
 * Running this package's own modules in a new thread or process. From `dist/` the compiled `.js`
 * runs directly; from the TypeScript sources (vitest) a small module hook transpiles `.ts` with the
 * `typescript` package (type-stripping only, no checks).
 */
import { Worker } from 'node:worker_threads';

/** The module hook: `./x.js` imported from a `.ts` file resolves to `./x.ts`, transpiled on load. */
const LOADER = `
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
let ts;
export async function resolve(spec, ctx, next) {
  if (ctx.parentURL && ctx.parentURL.endsWith('.ts') && spec.startsWith('.') && spec.endsWith('.js')) {
    const url = new URL(spec.slice(0, -3) + '.ts', ctx.parentURL);
    if (existsSync(fileURLToPath(url))) return { url: url.href, shortCircuit: true, format: 'module' };
  }
  return next(spec, ctx);
}
export async function load(url, ctx, next) {
  if (url.startsWith('file:') && url.endsWith('.ts')) {
    ts ??= createRequire(url)('typescript');
    const file = fileURLToPath(url);
    const out = ts.transpileModule(readFileSync(file, 'utf8'), {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, sourceMap: false },
    }).outputText;
    return { format: 'module', source: out, shortCircuit: true };
  }
  return next(url, ctx);
}`;

const loaderUrl = () => `data:text/javascript,${encodeURIComponent(LOADER)}`;
const fromTs = () => import.meta.url.endsWith('.ts');
/** URL of this package's module `name` (without extension), as sources or as build. */
const moduleUrl = (name: string) => new URL(`./${name}${fromTs() ? '.ts' : '.js'}`, import.meta.url);

/** Starts this package's module `name` (e.g. `traffic-worker`) in a worker thread. */
export function spawnModuleWorker(name: string, workerData: unknown): Worker {
  const url = moduleUrl(name);
  if (!fromTs()) return new Worker(url, { workerData });
  const boot = `require('node:module').register(${JSON.stringify(loaderUrl())}); import(${JSON.stringify(url.href)}).catch((e) => { console.error(e); process.exit(1); });`;
  return new Worker(boot, { eval: true, workerData, execArgv: [] });
}

/** Node arguments that run this package's module `name` (e.g. `node-main`) as a process. */
export function moduleProcessArgs(name: string): string[] {
  const file = moduleUrl(name).pathname;
  if (!fromTs()) return [file];
  const register = `import { register } from 'node:module'; register(${JSON.stringify(loaderUrl())});`;
  return ['--import', `data:text/javascript,${encodeURIComponent(register)}`, file];
}
