/**
 * The cost of the roots check (VERIFY_ROOTS) in the decode worker, on the recorded mainnet blocks
 * that hold their full transaction and receipt lists (test/fixtures/ethereum/<n>/block.json +
 * receipts.json). Per block, the decode worker's CPU work after the node's answer arrives:
 *
 *   without: JSON.parse of the node's block and receipts, shapeBlock (log and calldata decoding),
 *            encodeRows (the stateless rows handed to the ingest thread);
 *   with:    the same, plus checkRoots (header RLP hash, every transaction hash, both ordered-trie
 *            roots; src/workers/decode/roots.ts).
 *
 * Prints ms per block for both, the check alone, and the relative cost; the fastest of several
 * alternating trials is kept (the least disturbed by other load on the machine). Also prints the
 * insert-by-insert @ethereumjs/mpt build of both tries for comparison (why the check uses the
 * one-pass builder). The figure is quoted in docs/guide.md ("Verifiable records").
 *
 * Usage: node dist/bench/roots.js [--rounds 20]
 */
import { readFileSync } from 'node:fs';
import { checkRoots, encodeRows, shapeBlock } from '@chain-indexer/indexer/testing';
import { encodeReceipt, encodeTransaction, orderedTrie, useWasmKeccak } from '@chain-indexer/proofs';
import { recordedBlocks } from '../test/fixtures/index.js';

type Json = Record<string, unknown>;

async function main(): Promise<void> {
  const at = process.argv.indexOf('--rounds');
  const rounds = at > 0 ? Number(process.argv[at + 1]) : 20;
  const sets = recordedBlocks('ethereum')
    .map((f) => ({
      n: f.n,
      block: readFileSync(f.block, 'utf8'),
      receipts: readFileSync(f.receipts, 'utf8'),
    }))
    .filter((s) => typeof (JSON.parse(s.block) as { transactions: unknown[] }).transactions[0] === 'object');
  const txs = sets.reduce(
    (a, s) => a + (JSON.parse(s.block) as { transactions: unknown[] }).transactions.length,
    0,
  );

  const pass = (verify: boolean) => {
    for (const s of sets) {
      const block = JSON.parse(s.block) as Json;
      const receipts = JSON.parse(s.receipts) as Json[];
      if (verify) {
        const r = checkRoots(block, receipts);
        if (r.mismatches.length || r.check.status !== 'verified')
          throw new Error(`block ${s.n} does not verify`);
      }
      encodeRows(shapeBlock(block, receipts), false);
    }
  };
  const parsed = sets.map((s) => ({
    block: JSON.parse(s.block) as Json,
    receipts: JSON.parse(s.receipts) as Json[],
  }));
  const checkOnly = () => {
    for (const p of parsed) checkRoots(p.block, p.receipts);
  };
  const time = (f: () => void) => {
    for (let i = 0; i < 3; i++) f(); // warm-up
    const t0 = performance.now();
    for (let i = 0; i < rounds; i++) f();
    return (performance.now() - t0) / rounds / sets.length;
  };
  // The check with the JS keccak (@noble/hashes), then with the WebAssembly one the decode
  // workers use (hash-wasm).
  let checkJs = Number.POSITIVE_INFINITY;
  for (let trial = 0; trial < 3; trial++) checkJs = Math.min(checkJs, time(checkOnly));
  await useWasmKeccak();
  let without = Number.POSITIVE_INFINITY;
  let withCheck = Number.POSITIVE_INFINITY;
  let check = Number.POSITIVE_INFINITY;
  for (let trial = 0; trial < 5; trial++) {
    without = Math.min(
      without,
      time(() => pass(false)),
    );
    withCheck = Math.min(
      withCheck,
      time(() => pass(true)),
    );
    check = Math.min(check, time(checkOnly));
  }
  // The library's trie build, for comparison (async, insert by insert).
  let lib = Number.POSITIVE_INFINITY;
  for (let trial = 0; trial < 3; trial++) {
    const t0 = performance.now();
    for (const p of parsed) {
      await orderedTrie((p.block.transactions as Json[]).map((t) => encodeTransaction(t) as Uint8Array));
      await orderedTrie(p.receipts.map((r) => encodeReceipt(r) as Uint8Array));
    }
    lib = Math.min(lib, (performance.now() - t0) / parsed.length);
  }
  const f = (x: number) => x.toFixed(2);
  console.log(
    `roots check in the decode worker — ${sets.length} mainnet blocks (${sets.map((s) => s.n).join(', ')}), ${txs} transactions`,
  );
  console.log('  (WebAssembly keccak from here on, as in the decode workers)');
  console.log(`  decode work without the check: ${f(without)} ms/block`);
  console.log(
    `  decode work with the check:    ${f(withCheck)} ms/block (+${f(withCheck - without)} ms, ×${(withCheck / without).toFixed(2)})`,
  );
  console.log(
    `  the check alone:               ${f(check)} ms/block (${f((check / txs) * sets.length * 1000)} µs/transaction)`,
  );
  console.log(`  the check alone with the JS keccak (@noble/hashes): ${f(checkJs)} ms/block`);
  console.log(`  @ethereumjs/mpt build of both tries (insert by insert), for comparison: ${f(lib)} ms/block`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
