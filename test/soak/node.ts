/**
 * The soak's own line to the devnet node: raw JSON-RPC over fetch, single and batched, with a
 * deadline. Unlike test/harness/rpc.ts it never waits on the trace gate (test/harness/trace-gate.ts):
 * the soak sends `anvil_reorg` the way any client of `npm start` would, while the node's interval
 * miner, the traffic generator and the indexers' traces lanes act on it. A call that outlives its
 * deadline is a hung node ({@link NodeHung}), not a slow one.
 */

export const hex = (n: number | bigint) => `0x${n.toString(16)}`;

/** The node did not answer within the deadline (anvil's trace/mine lock, or a dead process). */
export class NodeHung extends Error {
  override readonly name = 'NodeHung';
}

/** A JSON-RPC error answer (the node is up and refused the call). */
export class NodeRpcError extends Error {
  override readonly name = 'NodeRpcError';
}

/**
 * A node that does not answer within this long is hung. A slow answer (anvil tracing a block of a
 * few hundred transactions holds its storage lock for tens of seconds) is not: the soak's watchdog
 * records it as a stall.
 */
const DEADLINE_MS = 120_000;

/**
 * One JSON-RPC call to `url`.
 * @throws NodeHung after `timeoutMs` (default 30 s) without an answer; NodeRpcError on an error
 *   answer; the fetch error when the connection is refused.
 */
export async function rpc<T = any>(
  url: string,
  method: string,
  params: unknown[] = [],
  timeoutMs = DEADLINE_MS,
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    if ((err as Error).name === 'TimeoutError')
      throw new NodeHung(`${url} did not answer ${method} within ${timeoutMs} ms`);
    throw err;
  }
  const j = (await res.json()) as { result?: T; error?: { message: string } };
  if (j.error) throw new NodeRpcError(`${method}: ${j.error.message}`);
  return j.result as T;
}

/**
 * A batch of JSON-RPC calls in one HTTP request (chunks of `chunk` items); results in call order.
 * An item the node answered with an error is returned as an Error instance.
 * @throws NodeHung as {@link rpc}.
 */
export async function rpcBatch(
  url: string,
  calls: Array<{ method: string; params: unknown[] }>,
  chunk = 100,
): Promise<Array<unknown | Error>> {
  const out: Array<unknown | Error> = [];
  for (let i = 0; i < calls.length; i += chunk) {
    const part = calls.slice(i, i + chunk);
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(part.map((c, j) => ({ jsonrpc: '2.0', id: j, ...c }))),
        signal: AbortSignal.timeout(DEADLINE_MS),
      });
    } catch (err) {
      if ((err as Error).name === 'TimeoutError')
        throw new NodeHung(`${url} did not answer a batch of ${part.length} within ${DEADLINE_MS} ms`);
      throw err;
    }
    const arr = (await res.json()) as Array<{ id: number; result?: unknown; error?: { message: string } }>;
    const byId = new Map(arr.map((a) => [a.id, a]));
    for (let j = 0; j < part.length; j++) {
      const a = byId.get(j);
      out.push(!a ? new Error('no answer') : a.error ? new Error(a.error.message) : a.result);
    }
  }
  return out;
}

/** The node's head block number. */
export const headOf = async (url: string) => Number.parseInt(await rpc<string>(url, 'eth_blockNumber'), 16);

/** The node's block `n` hash (null: it has none). */
export async function hashAt(url: string, n: number): Promise<string | null> {
  const b = await rpc<{ hash: string } | null>(url, 'eth_getBlockByNumber', [hex(n), false]);
  return b?.hash ?? null;
}

/** A 32-byte word of an eth_call answer as an unsigned integer (null: no such word). */
export const word = (data: string, i: number): bigint | null =>
  data.length >= 2 + 64 * (i + 1) ? BigInt(`0x${data.slice(2 + 64 * i, 2 + 64 * (i + 1))}`) : null;

/** A signed 24-bit tick from its ABI word. */
export const int24 = (w: bigint) => {
  const v = Number(w & 0xffffffn);
  return v >= 0x800000 ? v - 0x1000000 : v;
};

/**
 * Stops the node's block production (interval mining and automine off) and waits until its head
 * has stood still for 600 ms (a block the miner had started can land after the switch); returns
 * that head. The same as test/harness/rpc.ts freezeNode, without the trace gate.
 */
export async function freeze(url: string): Promise<number> {
  await rpc(url, 'evm_setIntervalMining', [0]);
  await rpc(url, 'evm_setAutomine', [false]);
  let h = await headOf(url);
  for (let still = 0; still < 3; ) {
    await new Promise((r) => setTimeout(r, 200));
    const n = await headOf(url);
    still = n === h ? still + 1 : 0;
    h = n;
  }
  return h;
}

/** Resumes interval mining at `blockSeconds` (whole seconds: the RPC takes integers). */
export async function thaw(url: string, blockSeconds: number): Promise<void> {
  await rpc(url, 'evm_setIntervalMining', [blockSeconds]);
}
