/**
 * Fetch + parse + shape of a block range, run inside the decode pool (never on the HTTP thread).
 * Source: `eth_getBlockByNumber(n, true)` and `eth_getBlockReceipts(n)`, asked together and held
 * to each other by the block hash (again by hash when they disagree; falling back to
 * `eth_getTransactionReceipt` per transaction on nodes without eth_getBlockReceipts).
 */
import { defaultVerifiedAbisDir } from '../../decode/abis-dir.js';
import { createDecoders, type Decoders, loadVerifiedAbis } from '../../decode/index.js';
import { type Rpc, RpcError } from '../../rpc/client.js';
import { elementSpans, memberSpan, type Span } from '../../rpc/json-spans.js';
import type { RawResult, RawRpc } from '../../rpc/raw.js';
import { probeTokenMetadataOrAbsent } from '../../rpc/token-metadata.js';
import {
  type BlockDelta,
  type BlockParts,
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

/** A node answer that may come with its text: a {@link RawRpc}, else a plain {@link Rpc}. */
export type NodeRpc = Rpc & Partial<RawRpc>;

/**
 * Calls `method` for its value and its JSON text: the node's own bytes through a {@link RawRpc},
 * else (a plain caller, as in tests and rebuilds) the value serialised again.
 */
async function rawCall<T>(rpc: NodeRpc, method: string, params: unknown[]): Promise<RawResult<T>> {
  if (rpc.callRaw) return rpc.callRaw<T>(method, params);
  const value = await rpc.call<T>(method, params);
  return { value, text: JSON.stringify(value) };
}

/** The elements of an array result, each with its own text (a block's receipts). */
function elementsOf(r: RawResult<Json[]>): Array<RawResult<Json>> {
  const spans = elementSpans(r.text, 0);
  if (spans.length !== r.value.length)
    throw new RpcError('receipts text and value disagree', 'eth_getBlockReceipts', true);
  return r.value.map((value, i) => ({ value, text: r.text.slice(spans[i].start, spans[i].end) }));
}

/**
 * The receipts of `block`, each with its text. `early` is the answer to
 * `eth_getBlockReceipts(number)` asked together with the block (a result, or the call's error):
 * kept when it holds one receipt per transaction, each naming the block's hash — else the node
 * moved between the two calls (or does not know the block yet) and the receipts are asked again
 * by the block's hash.
 * @throws RpcError when the node keeps failing or a receipt is missing.
 */
async function receiptsOf(rpc: NodeRpc, block: Json, early?: unknown): Promise<Array<RawResult<Json>>> {
  const txs = block.transactions as Json[];
  if (txs.length === 0) return [];
  const got = (early as RawResult<unknown> | undefined)?.value;
  if (
    Array.isArray(got) &&
    got.length === txs.length &&
    got.every((r, i) => r && r.blockHash === block.hash && r.transactionHash === txs[i].hash)
  )
    return elementsOf(early as RawResult<Json[]>);
  if (early instanceof RpcError && (early.code === -32601 || early.code === -32602))
    blockReceiptsSupported = false;
  if (blockReceiptsSupported) {
    try {
      const r = await rawCall<Json[] | null>(rpc, 'eth_getBlockReceipts', [block.hash]);
      if (r.value) return elementsOf(r as RawResult<Json[]>);
    } catch (err) {
      if (err instanceof RpcError && (err.code === -32601 || err.code === -32602))
        blockReceiptsSupported = false;
      else throw err;
    }
  }
  return Promise.all(
    txs.map(async (tx) => {
      const r = await rawCall<Json | null>(rpc, 'eth_getTransactionReceipt', [tx.hash]);
      if (!r.value)
        throw new RpcError(`receipt of ${tx.hash} not available`, 'eth_getTransactionReceipt', true);
      return r as RawResult<Json>;
    }),
  );
}

/** The texts {@link shapeBlock} stores: the header (transactions as hashes), each transaction and receipt. */
export interface RecordTexts {
  header: string;
  txs: string[];
  receipts: string[];
}

/**
 * The node's texts of a block fetched with its transactions (`blockText`, the answer to
 * `eth_getBlockByNumber(n, true)`) and of its receipts: each transaction's own bytes, and the
 * header as the node sent it with the transactions array replaced by their hashes (what
 * `eth_getBlockByNumber(n, false)` answers).
 */
export function recordTexts(blockText: string, hashes: readonly string[], receipts: string[]): RecordTexts {
  const arr = memberSpan(blockText, 0, 'transactions');
  if (!arr) throw new RpcError('block text without transactions', 'eth_getBlockByNumber', true);
  const txs = elementSpans(blockText, arr.start).map((sp) => blockText.slice(sp.start, sp.end));
  const header = `${blockText.slice(0, arr.start)}${JSON.stringify(hashes)}${blockText.slice(arr.end)}`;
  return { header, txs, receipts };
}

/** Builds this worker's decoders now (verified ABIs loaded) instead of on its first block. */
export function warmDecoders(): void {
  getDecoders();
}

/** Spans of the logs in a receipt's text (its `logs` array's elements). */
function logSpans(receiptText: string): Span[] {
  const arr = memberSpan(receiptText, 0, 'logs');
  return arr ? elementSpans(receiptText, arr.start) : [];
}

/**
 * Shapes one block and its receipts into a {@link BlockDelta}; checks the two belong together.
 * With `texts` (the node's bytes, {@link recordTexts}), the stored records and each log's text are
 * those bytes; without, the parsed values serialised again (same content, key order kept).
 */
export function shapeBlock(block: Json, receipts: Json[], texts?: RecordTexts): BlockDelta {
  const txObjs = block.transactions as Json[];
  if (receipts.length !== txObjs.length) {
    throw new RpcError(
      `block ${block.number}: ${txObjs.length} txs but ${receipts.length} receipts`,
      'eth_getBlockReceipts',
      true,
    );
  }
  const header: Json = {};
  if (!texts)
    for (const k of Object.keys(block))
      header[k] = k === 'transactions' ? txObjs.map((t) => t.hash) : block[k];
  if (texts && (texts.txs.length !== txObjs.length || texts.receipts.length !== receipts.length))
    throw new RpcError(`block ${block.number}: texts and values disagree`, 'eth_getBlockByNumber', true);
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
    const rcText = texts?.receipts[i];
    const logTexts = rcText && rcLogs.length ? logSpans(rcText) : null;
    for (let j = 0; j < rcLogs.length; j++) {
      const log = rcLogs[j];
      const logIndex = Number.parseInt(log.logIndex as string, 16);
      const address = (log.address as string).toLowerCase() as `0x${string}`;
      const topics = log.topics as `0x${string}`[];
      const d = getDecoders().decodeLog({ address, topics, data: log.data as string });
      logs.push({
        logIndex,
        txIndex: i,
        address,
        topics,
        json: logTexts ? rcText!.slice(logTexts[j].start, logTexts[j].end) : JSON.stringify(log),
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
      json: texts?.txs[i] ?? JSON.stringify(tx),
      receipt: rcText ?? JSON.stringify(rc),
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
    header: texts?.header ?? JSON.stringify(header),
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
  rpc: NodeRpc,
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
      ? rawCall<Json[] | null>(rpc, 'eth_getBlockReceipts', [toHex(n)]).catch((err: unknown) => err)
      : Promise.resolve(undefined),
  );
  const raw = await Promise.all(
    numbers.map((n) => rawCall<Json | null>(rpc, 'eth_getBlockByNumber', [toHex(n), true])),
  );
  const blocks: BlockDelta[] = [];
  let missingFrom: number | null = null;
  const present: Json[] = [];
  // Each block's text and its receipts' texts, by the block's number (a roots refetch replaces them).
  const textsOf = new Map<string, { block: string; receipts: string[] }>();
  for (let i = 0; i < raw.length; i++) {
    if (!raw[i].value) {
      missingFrom = numbers[i];
      break;
    }
    present.push(raw[i].value as Json);
  }
  const earlyReceipts = await Promise.all(early);
  const receipts = await Promise.all(
    present.map(async (b, i) => {
      const rs = await receiptsOf(rpc, b, earlyReceipts[i]);
      textsOf.set(b.number as string, { block: raw[i].text, receipts: rs.map((r) => r.text) });
      return rs.map((r) => r.value);
    }),
  );
  const fetched = epochMs();
  // Held to the header's roots before anything is shaped (roots.ts; throws RootsMismatchError).
  const roots = await verifyBlocks(present, receipts, opts.verifyRoots ?? true, async (n) => {
    const b = await rawCall<Json | null>(rpc, 'eth_getBlockByNumber', [n, true]);
    if (!b.value) return null;
    const rs = await receiptsOf(rpc, b.value);
    textsOf.set(n, { block: b.text, receipts: rs.map((r) => r.text) });
    return { block: b.value, receipts: rs.map((r) => r.value) };
  });
  const verified = epochMs();
  for (let i = 0; i < present.length; i++) {
    const b = present[i];
    const t = textsOf.get(b.number as string)!;
    const hashes = (b.transactions as Json[]).map((tx) => tx.hash as string);
    blocks.push({ ...shapeBlock(b, receipts[i], recordTexts(t.block, hashes, t.receipts)), roots: roots[i] });
  }
  await Promise.all(blocks.map((b) => probeBlock(rpc, b)));
  const shaped = epochMs();
  if (opts.rows) for (const d of blocks) encodeRows(d, opts.texts ?? true, opts.priors ?? false);
  return { blocks, missingFrom, marks: { start, fetched, verified, shaped, encoded: epochMs() } };
}

/** Now, epoch milliseconds with sub-millisecond precision (comparable across threads). */
export const epochMs = (): number => performance.timeOrigin + performance.now();

/**
 * Lists the state rows `d`'s projections read first into `d.stateKeys` (an encoded key list) and
 * counts its probes (`d.partProbes`, the probe row its chain part holds). With `priors` (the
 * block's batch keeps undo), the keys the encoded rows overwrite (the hash indices) are listed
 * too, so ingest reads their prior values ahead, off its thread, instead of once per block when it
 * adds the rows.
 */
export function encodeStateKeys(d: BlockDelta, priors: boolean): void {
  d.partProbes = Object.keys(d.probes).length;
  d.stateKeys = encodeKeyList((add) => {
    stateKeys(d, add);
    if (priors) overwrittenKeys(d, add);
  });
}

/** The stateless rows of `d` (after its probes are in), encoded by owner (see rows.ts). */
export function encodeParts(d: BlockDelta): BlockParts {
  const t: BlockTexts = {
    header: d.header,
    txs: d.txs.map((x) => x.json),
    receipts: d.txs.map((x) => x.receipt),
    decodedLogs: d.logs.map((l) => l.decoded),
    decodedTxs: d.txs.map((x) => x.decoded),
  };
  return {
    chain: chainRows(d, t),
    decodedViews: decodedViewRows(d, t),
    tokens: statelessRows(d, tokenRows),
    wallets: statelessRows(d, walletRows),
  };
}

/**
 * Encodes the stateless rows of `d` into `d.parts` and its state keys ({@link encodeStateKeys}).
 * Without `texts`, the JSON strings the rows now hold and the logs' topics are dropped from the
 * delta (the ingest thread needs them only for stream frames), so the hand-over carries little
 * more than the buffers.
 */
export function encodeRows(d: BlockDelta, texts: boolean, priors = false): void {
  d.parts = encodeParts(d);
  encodeStateKeys(d, priors);
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
    if (d.parts) for (const p of Object.values(d.parts)) if (p instanceof ArrayBuffer) out.push(p);
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
  // The stored texts are the records as ingest kept them: shaped again, they stay those bytes.
  const d = shapeBlock(
    header,
    s.receipts.map((r) => JSON.parse(r)),
    { header: s.header, txs: s.txs, receipts: s.receipts },
  );
  d.probes = s.probes ? JSON.parse(s.probes) : {};
  return d;
}
