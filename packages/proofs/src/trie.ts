/**
 * The ordered tries of a block (transactions, receipts): a Merkle-Patricia trie keyed by
 * `rlp(index)` holding each item's canonical encoding, as every EVM client builds them
 * (go-ethereum `DeriveSha`).
 *
 * Two builders, one trie:
 *  - {@link orderedTrie} builds it with `@ethereumjs/mpt` (the reference; the client verifies
 *    proofs with the same library);
 *  - {@link orderedTrieRoot} and {@link orderedTrieProof} compute the root (and one item's
 *    proof) bottom-up over the sorted keys in one pass, synchronously, one keccak per node and
 *    nothing stored: the ingest check runs it on every block, where the library's
 *    insert-by-insert build costs several times more (bench/roots.ts), and the chain routes,
 *    which answer within one turn of the event loop, prove with it. The tests hold both to the
 *    same roots and the same proofs on every recorded block and on generated lists of every
 *    size up to a thousand items and more.
 */
import { createMerkleProof, createMPT, type MerklePatriciaTrie } from '@ethereumjs/mpt';
import { keccak } from './hash.js';
import { encodeRlp, integerBytes } from './rlp.js';

/** The trie key of item `index`: `rlp(index)` (0 → 0x80). */
export const indexKey = (index: number): Uint8Array => encodeRlp(integerBytes(index));

/** keccak256(rlp('')): the root of a trie with no items. */
export const EMPTY_TRIE_ROOT = keccak(encodeRlp(new Uint8Array(0)));

/** A block's ordered trie, built from its items' encodings. */
export interface OrderedTrie {
  /** 32-byte root (the empty trie's root for no items). */
  root: Uint8Array;
  /** Proof nodes (root first, each node's RLP) of item `index`. */
  prove(index: number): Promise<Uint8Array[]>;
}

/**
 * Builds the ordered trie of `items` (item i under key rlp(i)) with `@ethereumjs/mpt`.
 * @returns its root and a prover; in memory, nothing kept after.
 */
export async function orderedTrie(items: readonly Uint8Array[]): Promise<OrderedTrie> {
  const trie: MerklePatriciaTrie = await createMPT();
  for (let i = 0; i < items.length; i++) await trie.put(indexKey(i), items[i]);
  return {
    root: trie.root(),
    prove: (index) => createMerkleProof(trie, indexKey(index)),
  };
}

type Node = Uint8Array | Node[];

/** Hex-prefix encoding of `nibbles[from..to)` (Yellow Paper appendix C). */
function hexPrefix(nibbles: Uint8Array, from: number, to: number, leaf: boolean): Uint8Array {
  const n = to - from;
  const odd = n & 1;
  const out = new Uint8Array(1 + (n >> 1));
  let i = from;
  out[0] = ((leaf ? 2 : 0) + odd) << 4;
  if (odd) out[0] |= nibbles[i++];
  for (let o = 1; i < to; i += 2) out[o++] = (nibbles[i] << 4) | nibbles[i + 1];
  return out;
}

/** Where {@link build} records the nodes on one key's path: each node's RLP with its level. */
interface PathSink {
  /** Sorted position of the proved item. */
  at: number;
  nodes: Array<{ level: number; rlp: Uint8Array }>;
}

/**
 * How a node is referenced by its parent: inline when its RLP is under 32 bytes, else its hash.
 * A node on the proved path is recorded (embedded ones too, as @ethereumjs/mpt's proofs hold them).
 */
function ref(node: Node[], level: number, path: PathSink | null): Node {
  const enc = encodeRlp(node);
  if (path) path.nodes.push({ level, rlp: enc });
  return enc.length < 32 ? node : keccak(enc);
}

/**
 * The node over sorted keys [lo, hi) that share their first `depth` nibbles. Keys rlp(i) are
 * prefix-free (RLP is self-delimiting), so no branch holds a value. With `path`, the nodes of the
 * subtree holding `path.at` are recorded (`level`: this node's depth in nodes).
 */
function build(
  keys: Uint8Array[],
  values: Uint8Array[],
  lo: number,
  hi: number,
  depth: number,
  level: number,
  path: PathSink | null,
): Node[] {
  const first = keys[lo];
  if (hi - lo === 1) return [hexPrefix(first, depth, first.length, true), values[lo]];
  const last = keys[hi - 1];
  let cp = depth;
  while (first[cp] === last[cp]) cp++; // sorted: the first and last keys bound the common prefix
  if (cp > depth) {
    const child = build(keys, values, lo, hi, cp, level + 1, path);
    return [hexPrefix(first, depth, cp, false), ref(child, level + 1, path)];
  }
  const branch: Node[] = new Array(17).fill(new Uint8Array(0));
  for (let i = lo; i < hi; ) {
    const nib = keys[i][depth];
    let j = i + 1;
    while (j < hi && keys[j][depth] === nib) j++;
    const sub = path && path.at >= i && path.at < j ? path : null;
    branch[nib] = ref(build(keys, values, i, j, depth + 1, level + 1, sub), level + 1, sub);
    i = j;
  }
  return branch;
}

const nibblesOf = (b: Uint8Array): Uint8Array => {
  const out = new Uint8Array(b.length * 2);
  for (let i = 0; i < b.length; i++) {
    out[2 * i] = b[i] >> 4;
    out[2 * i + 1] = b[i] & 15;
  }
  return out;
};

const compare = (a: Uint8Array, b: Uint8Array): number => {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
};

/**
 * Root of the ordered trie of `items` (item i under key rlp(i)), computed bottom-up without
 * building a trie: the same root {@link orderedTrie} gives.
 * @returns the 32-byte root ({@link EMPTY_TRIE_ROOT} for no items).
 */
export function orderedTrieRoot(items: readonly Uint8Array[]): Uint8Array {
  if (items.length === 0) return EMPTY_TRIE_ROOT;
  const { keys, values } = sorted(items);
  return keccak(encodeRlp(build(keys, values, 0, keys.length, 0, 0, null)));
}

/** Items with their keys' nibbles, in key order. */
function sorted(items: readonly Uint8Array[]): { keys: Uint8Array[]; values: Uint8Array[]; index: number[] } {
  const order = items.map((_, i) => ({ key: nibblesOf(indexKey(i)), i }));
  order.sort((a, b) => compare(a.key, b.key));
  return {
    keys: order.map((o) => o.key),
    values: order.map((o) => items[o.i]),
    index: order.map((o) => o.i),
  };
}

/**
 * Root and proof of item `index` of the ordered trie of `items`, synchronously (the chain
 * routes answer within one turn of the event loop): the nodes from the root down to the item's
 * leaf, each node's RLP — what @ethereumjs/mpt's createMerkleProof gives for the same trie.
 * @throws RangeError when `index` is not an item's index.
 */
export function orderedTrieProof(
  items: readonly Uint8Array[],
  index: number,
): { root: Uint8Array; nodes: Uint8Array[] } {
  if (!Number.isInteger(index) || index < 0 || index >= items.length)
    throw new RangeError(`no item ${index} among ${items.length}`);
  const { keys, values, index: original } = sorted(items);
  const path: PathSink = { at: original.indexOf(index), nodes: [] };
  const rootRlp = encodeRlp(build(keys, values, 0, keys.length, 0, 0, path));
  path.nodes.sort((a, b) => a.level - b.level);
  return { root: keccak(rootRlp), nodes: [rootRlp, ...path.nodes.map((n) => n.rlp)] };
}
