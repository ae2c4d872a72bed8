/**
 * The file piscina loads in every pool worker (see esm-worker.ts): a CommonJS module, so that
 * piscina's synchronous `require()` of its worker file never loads an ES module. Node 20 aborts the
 * whole process (a V8 fatal error or assertion in `ModuleWrap`) when a worker thread is terminated
 * while `require()` is loading or wrapping an ES module; a pool destroyed by a shutdown right after
 * a start met it. This shim imports the real worker module asynchronously instead (its URL in
 * `workerData.module`) and forwards each named task to it.
 */
import { workerData } from 'node:worker_threads';

type Handler = (task: unknown) => unknown;
let loaded: Promise<Record<string, Handler>> | null = null;

/** A task handler that runs export `name` of the real worker module. */
const forward =
  (name: string): Handler =>
  async (task) => {
    loaded ??= import((workerData as { module: string }).module);
    const fn = (await loaded)[name];
    if (typeof fn !== 'function') throw new Error(`worker module ${workerData.module} exports no ${name}`);
    return fn(task);
  };

export default forward('default');
/** Decode pool: warm-up and projection-rebuild tasks. */
export const warm = forward('warm');
export const restore = forward('restore');
