/**
 * Live node reads (the live RPC routes and the block-bound code observation): the one place the
 * read side waits on the node. Each live read first observes the node's latest block, then makes
 * every read at that block by hash (EIP-1898 `{blockHash}`), so the whole answer is pinned to one
 * observed `(number, hash)` even if the node moves or reorganises meanwhile; that pair is the
 * answer's anchor. Any node failure is a typed 503 `node_unavailable`, bounded by the live RPC
 * client's own timeout and attempts (see src/runtime/chain.ts).
 */
import { type Hex, keccak256 } from 'viem';
import { DomainError } from '../errors/index.js';
import { type Rpc, RpcError } from '../rpc/client.js';
import { probeTokenMetadata } from '../rpc/token-metadata.js';
import type { TokenMetadata } from '../schema/rows/tokens.js';
import type { BlockRef, View } from '../storage/index.js';
import { canonicalAt } from './records.js';
import type { CodeObservation } from './types.js';

/** The node's latest block as observed by a live read. */
export interface ObservedHead {
  anchor: BlockRef;
  parentHash: Hex;
  /** Unix seconds. */
  timestamp: number;
}

/** Live reads, each pinned to the node block it observed first (its `anchor`). */
export interface LiveReader {
  /** The node's latest block (eth_getBlockByNumber latest). */
  head(): Promise<ObservedHead>;
  /** Native balance of `address` at the observed block, wei. */
  balance(address: string): Promise<{ anchor: BlockRef; address: string; balance: bigint }>;
  /** Runtime code of `address` at the observed block. */
  code(address: string): Promise<{ anchor: BlockRef; code: CodeObservation }>;
  /** ERC-20 metadata probe of `address` at the observed block (src/rpc/token-metadata.ts). */
  tokenMetadata(address: string): Promise<{ anchor: BlockRef; address: string; metadata: TokenMetadata }>;
  /**
   * Runtime code of `address` at canonical block `n` of the index (anchor `at`). The canonical hash
   * is read from `view` before the first await (the view closes when the handler returns).
   * @throws DomainError not_found when `n` is not canonical at `at`; node_unavailable.
   */
  codeAt(view: View, at: number, address: string, n: number): Promise<CodeObservation>;
  /**
   * Runtime code bytes and the storage words at `slots` of `address` at canonical block `n` of the
   * index (anchor `at`), every read pinned to that block's hash (eth_getCode, eth_getStorageAt).
   * Same view rule as {@link codeAt}.
   * @throws DomainError not_found when `n` is not canonical at `at`; node_unavailable.
   */
  contractAt(
    view: View,
    at: number,
    address: string,
    n: number,
    slots: readonly Hex[],
  ): Promise<{ observation: CodeObservation; code: Hex; storage: Record<Hex, Hex> }>;
}

/** Turns a node failure into a typed 503 (a refusal already typed passes through). */
async function bounded<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof DomainError) throw err;
    const why = err instanceof RpcError ? err.message : (err as Error).message;
    throw new DomainError('node_unavailable', `bounded node read failed: ${String(why).slice(0, 200)}`);
  }
}

/** EIP-1898 block parameter: the read fails rather than answer from another block. */
const atBlock = (b: BlockRef) => ({ blockHash: b.hash });

function observation(address: string, at: BlockRef, code: Hex): CodeObservation {
  const has = code !== '0x';
  return {
    address,
    observedAt: at,
    isContract: has,
    codeHash: has ? keccak256(code) : null,
    codeHashReason: has ? null : 'no_code',
    codeSize: (code.length - 2) / 2,
  };
}

/** Creates the live reader over a bounded node client. */
export function createLiveReader(node: Rpc | null): LiveReader {
  // A read replica without a node (ROLE=replica, no rpcUrl for the chain) refuses every live read
  // with the same typed 503, naming why, instead of dialling an address that cannot answer.
  const rpc: Rpc =
    node ??
    (new Proxy(
      {},
      {
        get: () => () =>
          Promise.reject(
            new DomainError(
              'node_unavailable',
              'this read replica has no node for the chain (no rpcUrl configured): live reads are answered by the writer or a replica given RPC_URL',
            ),
          ),
      },
    ) as Rpc);
  const head = async (): Promise<ObservedHead> => {
    const b = await bounded(
      rpc.call<{ number: Hex; hash: Hex; parentHash: Hex; timestamp: Hex } | null>('eth_getBlockByNumber', [
        'latest',
        false,
      ]),
    );
    if (!b) throw new DomainError('node_unavailable', 'the node returned no latest block');
    return {
      anchor: { number: Number.parseInt(b.number, 16), hash: b.hash.toLowerCase() as Hex },
      parentHash: b.parentHash.toLowerCase() as Hex,
      timestamp: Number.parseInt(b.timestamp, 16),
    };
  };
  const getCode = (address: string, b: BlockRef) =>
    bounded(rpc.call<Hex>('eth_getCode', [address, atBlock(b)]));
  return {
    head,
    async balance(address) {
      const { anchor } = await head();
      const a = address.toLowerCase();
      const wei = await bounded(rpc.call<Hex>('eth_getBalance', [a, atBlock(anchor)]));
      return { anchor, address: a, balance: BigInt(wei) };
    },
    async code(address) {
      const { anchor } = await head();
      const a = address.toLowerCase();
      return { anchor, code: observation(a, anchor, await getCode(a, anchor)) };
    },
    async tokenMetadata(address) {
      const { anchor } = await head();
      const a = address.toLowerCase();
      // probeTokenMetadata passes its block parameter to eth_getCode / eth_call as is; an EIP-1898
      // object pins those reads to the observed hash like the others.
      const tag = atBlock(anchor) as unknown as string;
      return { anchor, address: a, metadata: await bounded(probeTokenMetadata(rpc, a, tag)) };
    },
    async codeAt(view, at, address, n) {
      const b = canonicalAt(view, at, n);
      const a = address.toLowerCase();
      return observation(a, b, await getCode(a, b));
    },
    async contractAt(view, at, address, n, slots) {
      const b = canonicalAt(view, at, n);
      const a = address.toLowerCase();
      const code = (await getCode(a, b)).toLowerCase() as Hex;
      const storage: Record<Hex, Hex> = {};
      for (const slot of slots)
        storage[slot] = (
          await bounded(rpc.call<Hex>('eth_getStorageAt', [a, slot, atBlock(b)]))
        ).toLowerCase() as Hex;
      return { observation: observation(a, b, code), code, storage };
    },
  };
}
