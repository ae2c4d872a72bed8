/**
 * The encodings and the ordered-trie root on real data: every recorded block of test/fixtures
 * (Ethereum, Base, OP Mainnet, Arbitrum One, the devnet) rebuilds its block hash from its header
 * RLP, every full transaction its hash from its envelope, every full transaction list the
 * header's transactionsRoot, and every full receipt list its receiptsRoot. The one-pass root
 * builder agrees with @ethereumjs/mpt on generated lists of every shape.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyMerkleProof } from '@ethereumjs/mpt';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../../../test/fixtures/index.js';
import {
  encodeHeader,
  encodeReceipt,
  encodeTransaction,
  encodeTransactionLeaf,
  type Json,
  KNOWN_TX_TYPES,
  typeOf,
} from './encode.js';
import { bytesToHex } from './hex.js';
import { EMPTY_TRIE_ROOT, indexKey, orderedTrie, orderedTrieProof, orderedTrieRoot } from './trie.js';
import {
  proofKey,
  type RecordProof,
  verifyLogsProof,
  verifyReceiptProof,
  verifyTransactionProof,
} from './verify.js';

const read = (rel: string): unknown => JSON.parse(readFileSync(join(FIXTURES_DIR, rel), 'utf8'));

/** Every recorded block file (block.json of a set, or blocks/<n>.json). */
function blockFiles(): string[] {
  const out: string[] = [];
  for (const chain of readdirSync(FIXTURES_DIR)) {
    const dir = join(FIXTURES_DIR, chain);
    if (!existsSync(dir) || chain.endsWith('.json') || chain.endsWith('.md') || chain.endsWith('.ts'))
      continue;
    for (const sub of readdirSync(dir)) {
      if (existsSync(join(dir, sub, 'block.json'))) out.push(`${chain}/${sub}/block.json`);
      if (sub === 'blocks') for (const f of readdirSync(join(dir, sub))) out.push(`${chain}/blocks/${f}`);
    }
  }
  return out.sort();
}

/**
 * Blocks with every receipt recorded: the sets with receipts.json, and the single-transaction
 * L2 blocks whose one receipt is recorded.
 */
const FULL_RECEIPTS: Array<[string, string[]]> = [
  ...blockFiles()
    .filter(
      (f) =>
        f.endsWith('/block.json') && existsSync(join(FIXTURES_DIR, f.replace('block.json', 'receipts.json'))),
    )
    .map((f): [string, string[]] => [f, [f.replace('block.json', 'receipts.json')]]),
  [
    'optimism/blocks/2806776.json',
    ['optimism/receipts/0x4f1e95506c10f061ddfe28a7437f3b651959ff17f1e2a7a148c8896147ee357e.json'],
  ],
];

const hex = (b: Uint8Array) => bytesToHex(b);
const fullTxs = (b: Json) =>
  (b.transactions as unknown[]).length > 0 && typeof (b.transactions as unknown[])[0] === 'object';

describe('recorded blocks rebuild their hash, transaction hashes and transactions root', () => {
  const files = blockFiles();
  it('finds the recorded blocks', () => expect(files.length).toBeGreaterThanOrEqual(35));
  for (const f of files) {
    it(f, async () => {
      const b = read(f) as Json;
      expect(hex(keccak_256(encodeHeader(b)))).toBe(b.hash);
      if (!fullTxs(b)) return; // hashes only: the header is all there is
      const txs = b.transactions as Json[];
      const envs = txs.map((t) => encodeTransaction(t));
      for (let i = 0; i < txs.length; i++) {
        expect(envs[i], `type ${txs[i].type}`).not.toBeNull();
        expect(hex(keccak_256(envs[i] as Uint8Array))).toBe(txs[i].hash);
      }
      const leaves = txs.map((t) => encodeTransactionLeaf(t) as Uint8Array);
      expect(hex(orderedTrieRoot(leaves))).toBe(b.transactionsRoot);
      expect(hex((await orderedTrie(leaves)).root)).toBe(b.transactionsRoot);
    });
  }
});

describe('recorded receipt lists rebuild their receipts root', () => {
  for (const [f, receiptFiles] of FULL_RECEIPTS) {
    it(f, () => {
      const b = read(f) as Json;
      const rs = receiptFiles.flatMap((r) => {
        const v = read(r);
        return Array.isArray(v) ? (v as Json[]) : [v as Json];
      });
      expect(rs).toHaveLength((b.transactions as unknown[]).length);
      const enc = rs.map((r) => encodeReceipt(r));
      expect(enc.every((e) => e !== null)).toBe(true);
      expect(hex(orderedTrieRoot(enc as Uint8Array[]))).toBe(b.receiptsRoot);
    });
  }

  it('covers Ethereum, Arbitrum, OP Mainnet and the devnet', () => {
    const chains = new Set(FULL_RECEIPTS.map(([f]) => f.split('/')[0]));
    expect([...chains].sort()).toEqual(['arbitrum', 'devnet', 'ethereum', 'optimism']);
  });

  it('leaves Arbitrum classic (0x78) receipts unencoded: their recorded fields do not rebuild the root', () => {
    const b = read('arbitrum/blocks/10107970.json') as Json;
    const r = read(
      'arbitrum/receipts/0x52f8b96df94af89566fb6048026d10411928f8cf1518788b2d3d0ef6623bafe2.json',
    ) as Json;
    expect((b.transactions as Json[]).map(typeOf)).toEqual([0x78]);
    expect(encodeReceipt(r)).toBeNull();
    expect(encodeTransaction((b.transactions as Json[])[0])).not.toBeNull();
  });
});

describe('recorded data covers the types the encoder claims', () => {
  it('every encoded type appears in a recorded block (devnet/tx-types: one of each standard type)', () => {
    const seen = new Set<number>();
    for (const f of blockFiles()) {
      const b = read(f) as Json;
      if (fullTxs(b)) for (const t of b.transactions as Json[]) seen.add(typeOf(t));
    }
    for (const t of KNOWN_TX_TYPES) expect(seen.has(t), `0x${t.toString(16)}`).toBe(true);
  });

  it('anvil commits a blob transaction served with its sidecar in its network form (devnet/tx-types)', () => {
    const b = read('devnet/tx-types/block.json') as Json;
    const txs = b.transactions as Json[];
    const blob = txs.find((t) => t.type === '0x3') as Json;
    expect(Array.isArray(blob.blobs)).toBe(true);
    const env = encodeTransaction(blob) as Uint8Array;
    const leaf = encodeTransactionLeaf(blob) as Uint8Array;
    expect(leaf.length).toBeGreaterThan(131072); // one blob
    expect(hex(keccak_256(env))).toBe(blob.hash);
    // The envelope alone does not rebuild anvil's root; without the sidecar the leaf is the envelope.
    expect(hex(orderedTrieRoot(txs.map((t) => encodeTransaction(t) as Uint8Array)))).not.toBe(
      b.transactionsRoot,
    );
    const { blobs: _b, commitments: _c, proofs: _p, ...bare } = blob;
    expect(hex(encodeTransactionLeaf(bare) as Uint8Array)).toBe(hex(env));
  });

  it('an unknown type is not encoded', () => {
    expect(encodeTransaction({ type: '0x65', chainId: '0xa4b1', input: '0x' })).toBeNull();
    expect(
      encodeReceipt({ type: '0x66', status: '0x1', cumulativeGasUsed: '0x0', logsBloom: '0x', logs: [] }),
    ).toBeNull();
  });
});

describe('one-pass root = @ethereumjs/mpt root', () => {
  const items = (n: number, seed: number) =>
    Array.from({ length: n }, (_, i) =>
      Uint8Array.from({ length: 1 + ((i * 7 + seed) % 70) }, (_, j) => (i * 31 + j + seed) & 255),
    );
  it('no items: the empty trie root', async () => {
    expect(hex(orderedTrieRoot([]))).toBe(hex(EMPTY_TRIE_ROOT));
    expect(hex((await orderedTrie([])).root)).toBe(hex(EMPTY_TRIE_ROOT));
  });
  for (const n of [1, 2, 3, 15, 16, 17, 127, 128, 129, 130, 255, 256, 257, 700, 1200]) {
    it(`${n} items`, async () => {
      for (const seed of [0, 5]) {
        const xs = items(n, seed);
        expect(hex(orderedTrieRoot(xs))).toBe(hex((await orderedTrie(xs)).root));
      }
    });
  }
});

describe('one-pass proofs = @ethereumjs/mpt proofs', () => {
  const items = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      Uint8Array.from({ length: 1 + ((i * 13) % 90) }, (_, j) => (i * 7 + j) & 255),
    );
  for (const n of [1, 2, 3, 17, 128, 129, 300]) {
    it(`${n} items: every index`, async () => {
      const xs = items(n);
      const ref = await orderedTrie(xs);
      for (let i = 0; i < n; i += n > 50 ? 7 : 1) {
        const p = orderedTrieProof(xs, i);
        expect(hex(p.root)).toBe(hex(ref.root));
        expect(p.nodes.map(hex)).toEqual((await ref.prove(i)).map(hex));
        const v = await verifyMerkleProof(indexKey(i), p.nodes, { root: ref.root });
        expect(v && hex(v)).toBe(hex(xs[i]));
      }
    });
  }
  it('an index outside the items is refused', () => {
    expect(() => orderedTrieProof(items(3), 3)).toThrow(RangeError);
  });
});

describe('proofs of recorded blocks verify against the block hash; one flipped byte does not', () => {
  const proofOf = (
    b: Json,
    items: Uint8Array[],
    i: number,
    trie: 'transactions' | 'receipts',
  ): RecordProof => ({
    blockHash: b.hash as string,
    headerRlp: hex(encodeHeader(b)),
    trie,
    key: proofKey(i),
    nodes: orderedTrieProof(items, i).nodes.map(hex),
  });
  for (const set of ['devnet/tx-types', 'ethereum/18000000', 'arbitrum/150000000', 'optimism/154497277']) {
    it(`${set}: every transaction, receipt and log`, async () => {
      const b = read(`${set}/block.json`) as Json;
      const rs = read(`${set}/receipts.json`) as Json[];
      const txs = b.transactions as Json[];
      const leaves = txs.map((t) => encodeTransactionLeaf(t) as Uint8Array);
      const rcs = rs.map((r) => encodeReceipt(r) as Uint8Array);
      let first = 0;
      for (let i = 0; i < txs.length; i += set.startsWith('ethereum') ? 9 : 1) {
        const tp = proofOf(b, leaves, i, 'transactions');
        expect(await verifyTransactionProof(txs[i], tp, b.hash as string)).toMatchObject({
          ok: true,
          transactionIndex: i,
        });
        const rp = proofOf(b, rcs, i, 'receipts');
        expect(await verifyReceiptProof(rs[i], rp, b.hash as string)).toMatchObject({ ok: true });
        first = Number(rs[i].logs.length ? (rs[i].logs as Json[])[0].logIndex : first);
        if ((rs[i].logs as Json[]).length)
          expect(await verifyLogsProof(rs[i].logs as Json[], rp, first, b.hash as string)).toMatchObject({
            ok: true,
          });
        // One flipped byte in the leaf node, in the header, in the record, or another block: refused.
        const leafFlipped = { ...rp, nodes: [...rp.nodes] };
        const last = leafFlipped.nodes.length - 1;
        leafFlipped.nodes[last] = flipLast(leafFlipped.nodes[last]);
        expect((await verifyReceiptProof(rs[i], leafFlipped, b.hash as string)).ok).toBe(false);
        expect(
          (await verifyReceiptProof(rs[i], { ...rp, headerRlp: flipLast(rp.headerRlp) }, b.hash as string))
            .ok,
        ).toBe(false);
        expect(
          (await verifyTransactionProof({ ...txs[i], input: `${txs[i].input}00` }, tp, b.hash as string)).ok,
        ).toBe(false);
        expect((await verifyTransactionProof(txs[i], tp, b.parentHash as string)).ok).toBe(false);
      }
    });
  }
});

function flipLast(h: string): string {
  const i = h.length - 3;
  return h.slice(0, i) + (h[i] === '0' ? '1' : '0') + h.slice(i + 1);
}
