/**
 * Fetch + parse + shape of a block range, run inside the decode pool (never on the HTTP thread).
 * Source: `eth_getBlockByNumber(n, true)` and `eth_getBlockReceipts(n)`, asked together and held
 * to each other by the block hash (again by hash when they disagree; falling back to
 * `eth_getTransactionReceipt` per transaction on nodes without eth_getBlockReceipts).
 */
import { defaultVerifiedAbisDir } from '../../decode/abis-dir.js';
import { createDecoders, type Decoders, loadVerifiedAbis } from '../../decode/index.js';
import { type Rpc, RpcError } from '../../rpc/client.js';
import { probeTokenMetadataOrAbsent } from '../../rpc/token-metadata.js';
import {
  type BlockDelta,
  canonicalProbes,
  type EventDelta,
  type FetchResult,
  type LogDelta,
  type MetadataProbes,
  type TxDelta,
} from '../../schema/delta.js';
import { stateKeys, tokenRows, walletRows } from '../../schema/stateless.js';
import { encodeKeyList } from '../../storage/index.js';
import { verifyBlocks } from './roots.js';
import { type BlockTexts, chainRows, decodedViewRows, overwrittenKeys, statelessRows } from './rows.js';

type Json = Record<string, unknown>;
const toHex = (n: number) => `0x${n.toString(16)}`;

let blockReceiptsSupported = true;

/** Decoders with the verified ABIs of VERIFIED_ABIS_DIR (default ./abis), built once per worker. */
let decoders: Decoders | null = null;
function getDecoders(): Decoders {
  decoders ??= createDecoders({ verifiedAbis: loadVerifiedAbis(defaultVerifiedAbisDir()) });
  return decoders;
}

/**
 * The receipts of `block`. `early` is the answer to `eth_getBlockReceipts(number)` asked together
 * with the block (an array, null, or the call's error): kept when it holds one receipt per
 * transaction, each naming the block's hash — else the node moved between the two calls (or does
 * not know the block yet) and the receipts are asked again by the block's hash.
 * @throws RpcError when the node keeps failing or a receipt is missing.
 */
async function receiptsOf(rpc: Rpc, block: Json, early?: unknown): Promise<Json[]> {
  const txs = block.transactions as Json[];
  if (txs.length === 0) return [];
  if (
    Array.isArray(early) &&
    early.length === txs.length &&
    early.every((r, i) => r && r.blockHash === block.hash && r.transactionHash === txs[i].hash)
  )
    return early as Json[];
  if (early instanceof RpcError && (early.code === -32601 || early.code === -32602))
    blockReceiptsSupported = false;
  if (blockReceiptsSupported) {
    try {
      const r = await rpc.call<Json[] | null>('eth_getBlockReceipts', [block.hash]);
      if (r) return r;
    } catch (err) {
      if (err instanceof RpcError && (err.code === -32601 || err.code === -32602))
        blockReceiptsSupported = false;
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

/** Builds this worker's decoders now (verified ABIs loaded) instead of on its first block. */
export function warmDecoders(): void {
  getDecoders();
}

/** Shapes one block and its receipts into a {@link BlockDelta}; checks the two belong together. */
export function shapeBlock(block: Json, receipts: Json[]): BlockDelta {
  const txObjs = block.transactions as Json[];
  if (receipts.length !== txObjs.length) {
    throw new RpcError(
      `block ${block.number}: ${txObjs.length} txs but ${receipts.length} receipts`,
      'eth_getBlockReceipts',
      true,
    );
  }
  const header: Json = {};
  for (const k of Object.keys(block)) header[k] = k === 'transactions' ? txObjs.map((t) => t.hash) : block[k];
  const txs: TxDelta[] = [];
  const logs: LogDelta[] = [];
  const events: EventDelta[] = [];
  for (let i = 0; i < txObjs.length; i++) {
    const tx = txObjs[i];
    const rc = receipts[i];
    if (rc.transactionHash !== tx.hash || rc.blockHash !== block.hash) {
      throw new RpcError(
        `block ${block.number}: receipt ${i} does not belong to the block (node moved mid-read)`,
        'eth_getBlockReceipts',
        true,
      );
    }
    const rcLogs = (rc.logs as Json[]) ?? [];
    const firstLogIndex = rcLogs.length ? Number.parseInt(rcLogs[0].logIndex as string, 16) : logs.length;
    for (const log of rcLogs) {
      const logIndex = Number.parseInt(log.logIndex as string, 16);
      const address = (log.address as string).toLowerCase() as `0x${string}`;
      const topics = log.topics as `0x${string}`[];
      const d = getDecoders().decodeLog({ address, topics, data: log.data as string });
      logs.push({
        logIndex,
        txIndex: i,
        address,
        topics,
        json: JSON.stringify(log),
        decoded: JSON.stringify(d),
      });
      if (d.status === 'decoded') {
        events.push({
          logIndex,
          txIndex: i,
          address,
          standard: d.standard,
          event: d.event,
          args: d.args as Record<string, unknown>,
        });
      }
    }
    const status = rc.status === undefined ? 1 : rc.status === '0x1' ? 1 : 0;
    txs.push({
      hash: tx.hash as `0x${string}`,
      json: JSON.stringify(tx),
      receipt: JSON.stringify(rc),
      from: (tx.from as string).toLowerCase() as `0x${string}`,
      value: ((tx.value as string | undefined) ?? '0x0') as `0x${string}`,
      to: tx.to ? ((tx.to as string).toLowerCase() as `0x${string}`) : null,
      firstLogIndex,
      logCount: rcLogs.length,
      status,
      contractAddress: rc.contractAddress
        ? ((rc.contractAddress as string).toLowerCase() as `0x${string}`)
        : null,
      decoded: JSON.stringify(
        getDecoders().decodeCalldata((tx.input as string) ?? '0x', (tx.to as string | null) ?? null),
      ),
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
    events,
    probes: {},
  };
}

/**
 * Addresses whose token metadata is probed at this block: top-level contract creations and
 * tokens announced by launch events. Both are new by construction, so the worker needs no state.
 */
export function probeTargets(d: BlockDelta): string[] {
  const out = new Set<string>();
  for (const tx of d.txs) if (tx.contractAddress && tx.status === 1) out.add(tx.contractAddress);
  for (const e of d.events)
    if (e.standard === 'launchpad' && e.event === 'LaunchCreated') out.add(String(e.args.token));
  return [...out];
}

/** Probes metadata (eth_call at the block) of every {@link probeTargets} address into `d.probes`. */
export async function probeBlock(rpc: Rpc, d: BlockDelta): Promise<void> {
  const targets = probeTargets(d);
  if (!targets.length) return;
  const tag = `0x${d.number.toString(16)}`;
  const found = await Promise.all(targets.map((a) => probeTokenMetadataOrAbsent(rpc, a, tag)));
  const probes: MetadataProbes = {};
  targets.forEach((a, i) => {
    probes[a] = found[i];
  });
  d.probes = canonicalProbes(probes);
}

/**
 * Fetches blocks `from..to` (inclusive). Stops at the first block the node does not have yet
 * (`missingFrom`), which is a node behind us — never a reorg. With `verifyRoots` (default) every
 * block is held to its header's roots first (roots.ts).
 * @throws RpcError when the node keeps failing past the retry budget.
 * @throws RootsMismatchError when a block's records still do not match its header after refetches.
 */
export async function fetchBlocks(
  rpc: Rpc,
  from: number,
  to: number,
  opts: { rows?: boolean; texts?: boolean; priors?: boolean; verifyRoots?: boolean } = {},
): Promise<FetchResult> {
  const start = epochMs();
  const numbers: number[] = [];
  for (let n = from; n <= to; n++) numbers.push(n);
  // Each block and its receipts are asked at once, by number (one round trip, not two); the
  // receipts stand only if they name the block's hash (receiptsOf), so a reorg between the two
  // answers costs a second call, never a mixed block. An error of the early call is kept for
  // receiptsOf to judge (a node without eth_getBlockReceipts, a block it does not have yet).
  const early = numbers.map((n) =>
    blockReceiptsSupported
      ? rpc.call<Json[] | null>('eth_getBlockReceipts', [toHex(n)]).catch((err: unknown) => err)
      : Promise.resolve(undefined),
  );
  const raw = await Promise.all(
    numbers.map((n) => rpc.call<Json | null>('eth_getBlockByNumber', [toHex(n), true])),
  );
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
  const earlyReceipts = await Promise.all(early);
  const receipts = await Promise.all(present.map((b, i) => receiptsOf(rpc, b, earlyReceipts[i])));
  const fetched = epochMs();
  // Held to the header's roots before anything is shaped (roots.ts; throws RootsMismatchError).
  const roots = await verifyBlocks(present, receipts, opts.verifyRoots ?? true, async (n) => {
    const b = await rpc.call<Json | null>('eth_getBlockByNumber', [n, true]);
    return b && { block: b, receipts: await receiptsOf(rpc, b) };
  });
  const verified = epochMs();
  for (let i = 0; i < present.length; i++)
    blocks.push({ ...shapeBlock(present[i], receipts[i]), roots: roots[i] });
  await Promise.all(blocks.map((b) => probeBlock(rpc, b)));
  const shaped = epochMs();
  if (opts.rows) for (const d of blocks) encodeRows(d, opts.texts ?? true, opts.priors ?? false);
  return { blocks, missingFrom, marks: { start, fetched, verified, shaped, encoded: epochMs() } };
}

/** Now, epoch milliseconds with sub-millisecond precision (comparable across threads). */
export const epochMs = (): number => performance.timeOrigin + performance.now();

/**
 * Encodes the stateless rows of `d` into `d.parts` (see rows.ts). Without `texts`, the JSON
 * strings the rows now hold and the logs' topics are dropped from the delta (the ingest thread
 * needs them only for stream frames), so the hand-over carries little more than the buffers.
 * With `priors` (the block's batch keeps undo), the keys the encoded rows overwrite (the hash
 * indices) are listed with the state keys, so ingest reads their prior values ahead, off its
 * thread, instead of once per block when it adds the rows.
 */
export function encodeRows(d: BlockDelta, texts: boolean, priors = false): void {
  const t: BlockTexts = {
    header: d.header,
    txs: d.txs.map((x) => x.json),
    receipts: d.txs.map((x) => x.receipt),
    decodedLogs: d.logs.map((l) => l.decoded),
    decodedTxs: d.txs.map((x) => x.decoded),
  };
  d.parts = {
    chain: chainRows(d, t),
    decodedViews: decodedViewRows(d, t),
    tokens: statelessRows(d, tokenRows),
    wallets: statelessRows(d, walletRows),
  };
  d.partProbes = Object.keys(d.probes).length;
  d.stateKeys = encodeKeyList((add) => {
    stateKeys(d, add);
    if (priors) overwrittenKeys(d, add);
  });
  if (texts) return;
  d.header = '';
  for (const x of d.txs) x.json = x.receipt = x.decoded = '';
  for (const l of d.logs) {
    l.json = l.decoded = '';
    // Read on the ingest thread only for a log's stream frame (its first topic): not made here.
    l.topics = [];
  }
}

/** ArrayBuffers of a fetch result's rows, to transfer with it. */
export function transferablesOf(r: FetchResult): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const d of r.blocks) {
    if (d.parts) out.push(...Object.values(d.parts));
    if (d.stateKeys) out.push(d.stateKeys);
  }
  return out;
}

/** Raw stored records of one block, as strings (what the store holds). */
export interface StoredBlock {
  header: string;
  txs: string[];
  receipts: string[];
  probes: string | null;
}

/**
 * Rebuilds the delta of a block from its stored records (projection rebuilds), without the node:
 * the same shaping and decoding as live ingest, and the metadata probes recorded at ingest.
 */
export function restoreBlock(s: StoredBlock): BlockDelta {
  const header = JSON.parse(s.header) as Json;
  header.transactions = s.txs.map((t) => JSON.parse(t));
  const d = shapeBlock(
    header,
    s.receipts.map((r) => JSON.parse(r)),
  );
  d.probes = s.probes ? JSON.parse(s.probes) : {};
  return d;
}
