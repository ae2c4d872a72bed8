/**
 * How decode workers hand deltas to the main thread, measured on recorded mainnet blocks
 * (test/fixtures/ethereum/<n>/block.json + receipts.json, shaped by the decode worker's own
 * shapeBlock): the main thread's receive cost per block of
 *   (a) a structured clone (what piscina's postMessage does: V8's ValueSerializer, deserialized on
 *       the receiving thread — measured as v8.deserialize of v8.serialize's bytes), versus
 *   (b) a transferable buffer of JSON (the worker serializes; the main thread pays JSON.parse).
 * Prints bytes and main-thread µs per block for each, and the ratio; the choice is recorded in
 * docs/guide.md ("Decode pool").
 *
 * Usage: node dist/bench/delta-transfer.js [--rounds 200]
 */
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import { shapeBlock } from '@chain-indexer/indexer/testing';
import { recordedBlocks } from '../test/fixtures/index.js';

function main(): void {
  const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1] || 200);
  const deltas = recordedBlocks('ethereum')
    .map((f) => {
      const block = JSON.parse(readFileSync(f.block, 'utf8'));
      const receipts = JSON.parse(readFileSync(f.receipts, 'utf8'));
      try {
        return shapeBlock(block, receipts);
      } catch {
        return null; // a fixture whose receipts were recorded from another source than its block
      }
    })
    .filter((d) => d !== null && d.txs.length > 0) as ReturnType<typeof shapeBlock>[];
  const cloneBytes = deltas.map((d) => v8.serialize(d));
  const jsonBytes = deltas.map((d) => Buffer.from(JSON.stringify(d)));
  const time = (f: () => void) => {
    for (let i = 0; i < 20; i++) f(); // warm-up
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < rounds; i++) f();
    return Number(process.hrtime.bigint() - t0) / 1000 / rounds / deltas.length;
  };
  // Alternating trials, the fastest of each kept: the least disturbed by other load on the machine.
  let clone = Number.POSITIVE_INFINITY;
  let json = Number.POSITIVE_INFINITY;
  for (let trial = 0; trial < 7; trial++) {
    clone = Math.min(
      clone,
      time(() => {
        for (const b of cloneBytes) v8.deserialize(b);
      }),
    );
    json = Math.min(
      json,
      time(() => {
        for (const b of jsonBytes) JSON.parse(b.toString('utf8'));
      }),
    );
  }
  const avg = (xs: Buffer[]) => Math.round(xs.reduce((a, b) => a + b.length, 0) / xs.length);
  const logs = deltas.reduce((a, d) => a + d.logs.length, 0) / deltas.length;
  process.stdout.write(
    `${deltas.length} recorded mainnet blocks (avg ${(deltas.reduce((a, d) => a + d.txs.length, 0) / deltas.length).toFixed(0)} txs, ${logs.toFixed(0)} logs)\n` +
      `structured clone : ${avg(cloneBytes)} bytes/block, main-thread receive ${clone.toFixed(0)} µs/block\n` +
      `JSON in transferable buffer : ${avg(jsonBytes)} bytes/block, main-thread receive ${json.toFixed(0)} µs/block\n` +
      `ratio (JSON / clone) : ${(json / clone).toFixed(2)} (fastest of 7 alternating trials each)\n`,
  );
}

main();
