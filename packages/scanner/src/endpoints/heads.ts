/**
 * The heads of the scan endpoints (id, method, path, auth and tag), written once: every scan is
 * key-authenticated and tagged `Scans`, or `Scans (rh chain)` for the /v1/rh/ family.
 */
import type { ScanRole } from '../scan/read.js';

/** The head of a key-authenticated `method` endpoint of the main chain: `id`, `path`, tag `Scans`. */
export function scanHead<M extends 'GET' | 'POST'>(id: string, path: string, method: M) {
  return { id, method, path, auth: 'key' as const, tag: 'Scans' };
}

/**
 * The head of a scan of one endpoint family: for `main`, {@link scanHead} of `id` and `path`; for
 * `rh`, the id `rh.<id>`, the path with `/v1/rh/` in place of `/v1/`, tag `Scans (rh chain)`.
 */
export function familyHead<M extends 'GET' | 'POST'>(role: ScanRole, id: string, path: string, method: M) {
  if (role === 'main') return scanHead(id, path, method);
  return {
    id: `rh.${id}`,
    method,
    path: `/v1/rh/${path.slice(4)}`,
    auth: 'key' as const,
    tag: 'Scans (rh chain)',
  };
}
