/**
 * Projection rebuilds: a projection that is new or whose version changed lags the head; it is
 * advanced over the stored blocks (raw records as the node sent them, re-shaped by the decode
 * pool's `restore` task), a step at a time between two looks at the node. Each block is one
 * atomic batch that also moves the projection's checkpoint.
 */
import type { Logger } from 'pino';
import type { Piscina } from 'piscina';
import type { Registry } from '../projections/index.js';
import type { BlockDelta } from '../schema/delta.js';
import { HEADER, PROBE, RECEIPT, TX } from '../schema/tables/chain.js';
import { inView, type Store } from '../storage/index.js';
import type { StoredBlock } from '../workers/decode/fetch-blocks.js';

/** Blocks per projection-rebuild step, between two looks at the node. */
const REBUILD_STEP_BLOCKS = 200;
/** Blocks per restore task of the decode pool. */
const RESTORE_CHUNK = 20;

/** Reads block n's stored records (raw strings, byte-exact as stored) for a rebuild. */
function storedBlock(store: Store, n: number): StoredBlock {
  return inView(store, (v) => {
    const header = v.get(HEADER, n);
    if (header === undefined) throw new Error(`rebuild: no stored header for block ${n}`);
    const txs: string[] = [];
    v.eachValue(TX, { prefix: [n] }, (t) => {
      txs.push(t);
    });
    const receipts = txs.map((_, i) => {
      const r = v.get(RECEIPT, n, i);
      if (r === undefined) throw new Error(`rebuild: no stored receipt for block ${n} tx ${i}`);
      return r;
    });
    const probes = v.get(PROBE, n);
    return { header, txs, receipts, probes: probes === undefined ? null : JSON.stringify(probes) };
  });
}

/**
 * One rebuild step: up to {@link REBUILD_STEP_BLOCKS} blocks for the lagging projections (none:
 * returns at once). Reads stored blocks through views, so every write of ingest is committed first.
 * @throws when a stored block is incomplete (a header or receipt missing).
 */
export function createRebuilder(o: { store: Store; registry: Registry; pool: Piscina; log: Logger }) {
  const { store, registry, pool } = o;
  return async function rebuildStep(): Promise<void> {
    const head = store.head();
    if (!head) return;
    const lagging = registry.lagging(head.number);
    if (!lagging.length) return;
    await store.settled();
    const from = Math.min(...lagging.map((p) => (registry.state(p.name).checkpoint ?? -1) + 1));
    const to = Math.min(head.number, from + REBUILD_STEP_BLOCKS - 1);
    const tasks: Array<Promise<BlockDelta[]>> = [];
    for (let n = from; n <= to; n += RESTORE_CHUNK) {
      const blocks: StoredBlock[] = [];
      for (let m = n; m <= Math.min(to, n + RESTORE_CHUNK - 1); m++) blocks.push(storedBlock(store, m));
      const task = pool.run(blocks, { name: 'restore' }) as Promise<BlockDelta[]>;
      task.catch(() => {}); // surfaced when awaited in order (a rollback may stop the loop first)
      tasks.push(task);
    }
    for (const t of tasks) {
      for (const d of await t) {
        // The chain may have moved (a rollback) while we awaited: only apply blocks still canonical.
        if (store.canonicalHash(d.number) !== d.hash) return;
        const expected = d.number > 0 ? d.number - 1 : null;
        const ps = lagging.filter((p) => registry.state(p.name).checkpoint === expected);
        if (!ps.length) continue;
        const meta: Record<string, unknown> = {};
        for (const p of ps) meta[registry.metaKeyOf(p.name)] = { version: p.version, checkpoint: d.number };
        store.commitLate(
          d.number,
          (batch) => {
            for (const p of ps) p.apply(batch, d);
          },
          meta,
        );
        for (const p of ps) registry.setCheckpoint(p.name, d.number);
      }
      // Rebuild batches walk committed rows (the wallets projection reads a block's swaps): they
      // are committed before the next chunk is built.
      await store.settled();
    }
    o.log.info({ from, to, projections: lagging.map((p) => p.name) }, 'projection rebuild step');
  };
}
