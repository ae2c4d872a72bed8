/**
 * The ordered tries of a block (transactions, receipts): a Merkle-Patricia trie keyed by
 * `rlp(index)` holding each item's canonical encoding, as every EVM client builds them
 * (go-ethereum `DeriveSha`).
 *
 * Two builders, one trie:
 *  - {@link orderedTrie} builds it with `@ethereumjs/mpt` and proves items (the proof routes);
 *  - {@link orderedTrieRoot} computes only the root, bottom-up over the sorted keys in one pass
 *    (one keccak per node, nothing stored): the ingest check runs it on every block, where the
 *    library's insert-by-insert build costs about ten times more (bench/roots.ts). The tests
 *    hold both to the same roots on every recorded block and on generated lists of every size
 *    up to a few thousand items.
 */
import { createMerkleProof, createMPT, type MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { keccak_256 } from '@noble/hashes/sha3.js';

/** The trie key of item `index`: `rlp(index)` (0 → 0x80). */
export const indexKey = (index: number): Uint8Array => RLP.encode(index);

/** keccak256(rlp('')): the root of a trie with no items. */
export const EMPTY_TRIE_ROOT = keccak_256(RLP.encode(new Uint8Array(0)));

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

/** How a node is referenced by its parent: inline when its RLP is under 32 bytes, else its hash. */
function ref(node: Node[]): Node {
  const enc = RLP.encode(node);
  return enc.length < 32 ? node : keccak_256(enc);
}

/**
 * The node over sorted keys [lo, hi) that share their first `depth` nibbles. Keys rlp(i) are
 * prefix-free (RLP is self-delimiting), so no branch holds a value.
 */
function build(keys: Uint8Array[], values: Uint8Array[], lo: number, hi: number, depth: number): Node[] {
  const first = keys[lo];
  if (hi - lo === 1) return [hexPrefix(first, depth, first.length, true), values[lo]];
  const last = keys[hi - 1];
  let cp = depth;
  while (first[cp] === last[cp]) cp++; // sorted: the first and last keys bound the common prefix
  if (cp > depth) return [hexPrefix(first, depth, cp, false), ref(build(keys, values, lo, hi, cp))];
  const branch: Node[] = new Array(17).fill(new Uint8Array(0));
  for (let i = lo; i < hi; ) {
    const nib = keys[i][depth];
    let j = i + 1;
    while (j < hi && keys[j][depth] === nib) j++;
    branch[nib] = ref(build(keys, values, i, j, depth + 1));
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
  const order = items.map((_, i) => ({ key: nibblesOf(indexKey(i)), value: items[i] }));
  order.sort((a, b) => compare(a.key, b.key));
  const keys = order.map((o) => o.key);
  const values = order.map((o) => o.value);
  return keccak_256(RLP.encode(build(keys, values, 0, keys.length, 0)));
}
