/**
 * Fetch + parse + shape of a block range, run inside the decode pool (never on the HTTP thread).
 * Source: `eth_getBlockByNumber(n, true)` and `eth_getBlockReceipts(n)` (falling back to
 * `eth_getTransactionReceipt` per transaction on nodes without it).
 */
import type { BlockDelta, FetchResult, LogDelta, TxDelta } from '../../ingest/delta.js';
import { type Rpc, RpcError } from '../../rpc/client.js';

type Json = Record<string, unknown>;
const toHex = (n: number) => `0x${n.toString(16)}`;

let blockReceiptsSupported = true;

async function receiptsOf(rpc: Rpc, block: Json): Promise<Json[]> {
  const txs = block.transactions as Json[];
  if (txs.length === 0) return [];
  if (blockReceiptsSupported) {
    try {
      const r = await rpc.call<Json[] | null>('eth_getBlockReceipts', [block.hash]);
      if (r) return r;
    } catch (err) {
      if (err instanceof RpcError && (err.code === -32601 || err.code === -32602)) blockReceiptsSupported = false;
      else throw err;
    }
  }
  return Promise.all(
    txs.map(async (tx) => {
      const r = await rpc.call<Json | null>('eth_getTransactionReceipt', [tx.hash]);
      if (!r) throw new RpcError(`receipt of ${tx.hash} not available`, 'eth_getTransactionReceipt', true);
      return r;
    }),
  );
}

/** Shapes one block and its receipts into a {@link BlockDelta}; checks the two belong together. */
export function shapeBlock(block: Json, receipts: Json[]): BlockDelta {
  const txObjs = block.transactions as Json[];
  if (receipts.length !== txObjs.length) {
    throw new RpcError(`block ${block.number}: ${txObjs.length} txs but ${receipts.length} receipts`, 'eth_getBlockReceipts', true);
  }
  const header: Json = {};
  for (const k of Object.keys(block)) header[k] = k === 'transactions' ? txObjs.map((t) => t.hash) : block[k];
  const txs: TxDelta[] = [];
  const logs: LogDelta[] = [];
  for (let i = 0; i < txObjs.length; i++) {
    const tx = txObjs[i];
    const rc = receipts[i];
    if (rc.transactionHash !== tx.hash || rc.blockHash !== block.hash) {
      throw new RpcError(`block ${block.number}: receipt ${i} does not belong to the block (node moved mid-read)`, 'eth_getBlockReceipts', true);
    }
    const rcLogs = (rc.logs as Json[]) ?? [];
    const firstLogIndex = rcLogs.length ? Number.parseInt(rcLogs[0].logIndex as string, 16) : logs.length;
    for (const log of rcLogs) {
      logs.push({
        logIndex: Number.parseInt(log.logIndex as string, 16),
        txIndex: i,
        address: (log.address as string).toLowerCase() as `0x${string}`,
        topics: log.topics as `0x${string}`[],
        json: JSON.stringify(log),
      });
    }
    const status = rc.status === undefined ? 1 : rc.status === '0x1' ? 1 : 0;
    txs.push({
      hash: tx.hash as `0x${string}`,
      json: JSON.stringify(tx),
      receipt: JSON.stringify(rc),
      from: (tx.from as string).toLowerCase() as `0x${string}`,
      to: tx.to ? ((tx.to as string).toLowerCase() as `0x${string}`) : null,
      firstLogIndex,
      logCount: rcLogs.length,
      status,
      contractAddress: rc.contractAddress ? ((rc.contractAddress as string).toLowerCase() as `0x${string}`) : null,
    });
  }
  return {
    number: Number.parseInt(block.number as string, 16),
    hash: block.hash as `0x${string}`,
    parentHash: block.parentHash as `0x${string}`,
    timestamp: Number.parseInt(block.timestamp as string, 16),
    header: JSON.stringify(header),
    txs,
    logs,
  };
}

/**
 * Fetches blocks `from..to` (inclusive). Stops at the first block the node does not have yet
 * (`missingFrom`), which is a node behind us — never a reorg.
 * @throws RpcError when the node keeps failing past the retry budget.
 */
export async function fetchBlocks(rpc: Rpc, from: number, to: number): Promise<FetchResult> {
  const numbers: number[] = [];
  for (let n = from; n <= to; n++) numbers.push(n);
  const raw = await Promise.all(numbers.map((n) => rpc.call<Json | null>('eth_getBlockByNumber', [toHex(n), true])));
  const blocks: BlockDelta[] = [];
  let missingFrom: number | null = null;
  const present: Json[] = [];
  for (let i = 0; i < raw.length; i++) {
    if (!raw[i]) {
      missingFrom = numbers[i];
      break;
    }
    present.push(raw[i] as Json);
  }
  const receipts = await Promise.all(present.map((b) => receiptsOf(rpc, b)));
  for (let i = 0; i < present.length; i++) blocks.push(shapeBlock(present[i], receipts[i]));
  return { blocks, missingFrom };
}
