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

/**
 * Stops the node's mining (interval mining and automine off) and waits until its head has stood
 * still for 600 ms: a block the interval miner had started can land after the switch. Returns
 * that head. For tests that compare processes or the node at one head.
 */
export async function freezeNode(url: string): Promise<number> {
  await jsonRpc(url, 'evm_setIntervalMining', [0]);
  await jsonRpc(url, 'evm_setAutomine', [false]);
  const headOf = async () => Number.parseInt(await jsonRpc<string>(url, 'eth_blockNumber', []), 16);
  let h = await headOf();
  for (let still = 0; still < 3; ) {
    await new Promise((r) => setTimeout(r, 200));
    const n = await headOf();
    still = n === h ? still + 1 : 0;
    h = n;
  }
  return h;
}
