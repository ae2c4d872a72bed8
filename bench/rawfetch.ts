/**
 * Raw fetch ceiling of a node: the same JSON-RPC calls the indexer's backfill makes, with the same
 * concurrency, and no processing.
 *
 * The indexer (packages/indexer/src/ingest/index.ts, packages/indexer/src/workers/decode/fetch-blocks.ts) runs up to
 * `2 × DECODE_THREADS` tasks of `BLOCKS_PER_TASK` blocks; each task sends one JSON-RPC batch of
 * `eth_getBlockByNumber(n, true)` and then one batch of `eth_getBlockReceipts(hash)` for the blocks
 * that have transactions (viem's http transport batches calls of the same tick). Here the response
 * bodies are read as text and not parsed (the block hashes are known from the recording pass, or
 * from the block batch when recording), so the figure is what the node and the loopback can give.
 *
 * With `record`, responses are additionally split per block after the timed pass and written to a
 * replay recording (bench/replay-server.ts).
 */
import { createWriteStream } from 'node:fs';
import { hex } from './lib.js';

export interface RawFetchResult {
  blocks: number;
  txs: number;
  logs: number;
  seconds: number;
  blocksPerSecond: number;
  eventsPerSecond: number;
  bytes: number;
}

async function post(url: string, body: string): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return res.text();
}
const batchBody = (method: string, params: unknown[][]) =>
  JSON.stringify(params.map((p, i) => ({ jsonrpc: '2.0', id: i, method, params: p })));

/**
 * Fetches blocks `from..to` as the indexer does. `hashes[n]` (block hash, or '' for a block with no
 * transactions) lets the receipts batch go out without parsing the block batch; when it is absent
 * the block batch is parsed to find them (recording pass) and that parse is counted.
 */
export async function rawFetch(o: {
  url: string;
  from: number;
  to: number;
  blocksPerTask: number;
  concurrency: number;
  hashes?: string[];
  logsTotal: number;
  txsTotal: number;
  recordTo?: string;
}): Promise<RawFetchResult & { hashes: string[] }> {
  const hashes: string[] = o.hashes ? o.hashes : [];
  const kept: Array<{ from: number; blocks: string; receipts: string; withTxs: number[] }> = [];
  let next = o.from;
  let bytes = 0;
  const t0 = performance.now();
  const worker = async () => {
    for (;;) {
      const from = next;
      if (from > o.to) return;
      const to = Math.min(o.to, from + o.blocksPerTask - 1);
      next = to + 1;
      const nums: number[] = [];
      for (let n = from; n <= to; n++) nums.push(n);
      const blocks = await post(
        o.url,
        batchBody(
          'eth_getBlockByNumber',
          nums.map((n) => [hex(n), true]),
        ),
      );
      bytes += blocks.length;
      if (!o.hashes) {
        const parsed = JSON.parse(blocks) as Array<{
          id: number;
          result: { hash: string; transactions: unknown[] };
        }>;
        for (const r of parsed) hashes[nums[r.id]] = r.result.transactions.length ? r.result.hash : '';
      }
      const withTxs = nums.filter((n) => hashes[n]);
      let receipts = '[]';
      if (withTxs.length) {
        receipts = await post(
          o.url,
          batchBody(
            'eth_getBlockReceipts',
            withTxs.map((n) => [hashes[n]]),
          ),
        );
        bytes += receipts.length;
      }
      if (o.recordTo) kept.push({ from, blocks, receipts, withTxs });
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  const blocks = o.to - o.from + 1;

  if (o.recordTo) {
    kept.sort((a, b) => a.from - b.from);
    const out = createWriteStream(o.recordTo);
    const write = (s: string) =>
      new Promise<void>((r) => (out.write(s) ? r() : out.once('drain', () => r())));
    for (const k of kept) {
      const bs = JSON.parse(k.blocks) as Array<{ id: number; result: { number: string; hash: string } }>;
      const rs = JSON.parse(k.receipts) as Array<{ id: number; result: unknown[] }>;
      const rcBy = new Map<number, unknown[]>();
      for (const r of rs) rcBy.set(k.withTxs[r.id], r.result);
      bs.sort((a, b) => a.id - b.id);
      for (const b of bs) {
        const n = Number.parseInt(b.result.number, 16);
        await write(
          `${n}\t${b.result.hash}\t${JSON.stringify(b.result)}\t${JSON.stringify(rcBy.get(n) ?? [])}\n`,
        );
      }
    }
    await new Promise<void>((r, j) => out.end((e?: Error | null) => (e ? j(e) : r())));
  }
  return {
    blocks,
    txs: o.txsTotal,
    logs: o.logsTotal,
    seconds,
    blocksPerSecond: blocks / seconds,
    eventsPerSecond: o.logsTotal / seconds,
    bytes,
    hashes,
  };
}

/** Block hashes `from..to` ('' for blocks without transactions), untimed, before the raw pass. */
export async function blockHashes(url: string, from: number, to: number): Promise<string[]> {
  const hashes: string[] = [];
  let next = from;
  const worker = async () => {
    for (;;) {
      const a = next;
      if (a > to) return;
      const b = Math.min(to, a + 99);
      next = b + 1;
      const nums: number[] = [];
      for (let n = a; n <= b; n++) nums.push(n);
      const parsed = JSON.parse(
        await post(
          url,
          batchBody(
            'eth_getBlockByNumber',
            nums.map((n) => [hex(n), false]),
          ),
        ),
      ) as Array<{
        id: number;
        result: { hash: string; transactions: unknown[] };
      }>;
      for (const r of parsed) hashes[nums[r.id]] = r.result.transactions.length ? r.result.hash : '';
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return hashes;
}

/** A logs-only history fetch ({@link logsFetch}): its time and what it moved. */
export interface LogsFetchResult {
  seconds: number;
  /** Response bytes (headers and logs). */
  bytes: number;
  /** Logs the node returned. */
  logs: number;
}

/**
 * What a history fetch plan for a log-only index would take from the node (issue AA: "fetching
 * history by range"), timed the way {@link rawFetch} times the indexer's own plan: blocks
 * `from..to` in ranges of `range` blocks, `concurrency` ranges in flight; per range one
 * `eth_getLogs` of `address`'s logs and one batch of the range's headers
 * (`eth_getBlockByNumber(n, false)`: hashes, parents and timestamps, which link the chain and date
 * the rows). Bodies are read as text and not parsed, except to count the logs (untimed after).
 * Subsquid takes its history this way.
 */
export async function logsFetch(o: {
  url: string;
  from: number;
  to: number;
  address: string;
  range: number;
  concurrency: number;
}): Promise<LogsFetchResult> {
  let next = o.from;
  let bytes = 0;
  const logTexts: string[] = [];
  const t0 = performance.now();
  const worker = async () => {
    for (;;) {
      const from = next;
      if (from > o.to) return;
      const to = Math.min(o.to, from + o.range - 1);
      next = to + 1;
      const nums: number[] = [];
      for (let n = from; n <= to; n++) nums.push(n);
      const [logs, headers] = await Promise.all([
        post(
          o.url,
          batchBody('eth_getLogs', [[{ fromBlock: hex(from), toBlock: hex(to), address: o.address }]]),
        ),
        post(
          o.url,
          batchBody(
            'eth_getBlockByNumber',
            nums.map((n) => [hex(n), false]),
          ),
        ),
      ]);
      bytes += logs.length + headers.length;
      logTexts.push(logs);
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  let logs = 0;
  for (const t of logTexts)
    for (const r of JSON.parse(t) as Array<{ result: unknown[] }>) logs += r.result.length;
  return { seconds, bytes, logs };
}
