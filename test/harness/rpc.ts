import { beforeNodeWrite } from './trace-gate.js';

/**
 * One JSON-RPC call to a node (tests talk to anvil directly, never through the indexer).
 * @throws Error with the method and the node's message when the node answers an error.
 */
export async function jsonRpc<T = any>(url: string, method: string, params: unknown[] = []): Promise<T> {
  await beforeNodeWrite(method);
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(30_000),
  });
  const j = (await r.json()) as { result: T; error?: { message: string } };
  if (j.error) throw new Error(`${method}: ${j.error.message}`);
  return j.result;
}
