/**
 * Piscina options that run the ES worker module at `moduleUrl` through the CommonJS shim
 * (esm-shim.cts: piscina's synchronous require() of an ES module can abort the process when the
 * pool terminates a worker meanwhile). Spread into the pool's options: `filename` and `workerData`.
 */
import { fileURLToPath } from 'node:url';

export function esmWorker(moduleUrl: URL): { filename: string; workerData: { module: string } } {
  return {
    filename: fileURLToPath(new URL('./esm-shim.cjs', import.meta.url)),
    workerData: { module: moduleUrl.href },
  };
}
