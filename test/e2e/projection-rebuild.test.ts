/**
 * A projection whose stored version differs from the code's is wiped and rebuilt from the stored
 * blocks (headers, transactions, receipts and metadata probes read back byte-exact through the
 * typed store), never from the node. On the full devnet with traffic: index to a frozen head, stop,
 * mark the tokens, markets and wallets projections as written by another version, restart on the
 * same data directory, and the rebuilt store equals the original table by table.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createStore } from '@chain-indexer/indexer/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { differing, digestOf, tempDir } from '../faults/lib.js';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { freezeNode, jsonRpc } from '../harness/rpc.js';

let dev: TestDevnet;
let idx: IndexerProcess;
const dataDir = tempDir('idx-rebuild-');
const REBUILT = ['tokens', 'markets', 'wallets'];

beforeAll(async () => {
  dev = await startTestDevnet({ blockTimeMs: 400, traffic: true, txPerSecond: 20 });
  await dev.traffic?.ready;
  idx = await startIndexer({ rpcUrl: dev.rpcUrl, dataDir, env: { ...devnetIndexerEnv(dev), TRACES: 'off' } });
  await idx.waitForHead(30, 120_000);
  await dev.traffic?.stop();
  await freezeNode(dev.rpcUrl);
}, 300_000);

afterAll(async () => {
  await idx?.stop();
  await dev?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Waits until every projection is ready at the indexed head. */
async function settled(head: number): Promise<void> {
  for (const t0 = Date.now(); Date.now() - t0 < 120_000; ) {
    const h = (await idx.get('/health')).body;
    if (
      h.anchor?.block === head &&
      h.projections.every(
        (p: { status: string; checkpoint: number | null }) => p.status === 'ready' && p.checkpoint === head,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`projections did not settle at ${head}`);
}

describe('versioned rebuild from stored blocks', () => {
  it('a version-bumped projection rebuilds to the same rows, without the node', async () => {
    const head = Number.parseInt(await jsonRpc<string>(dev.rpcUrl, 'eth_blockNumber', []), 16);
    await idx.waitForHead(head, 60_000);
    await settled(head);
    const before = await (async () => {
      await idx.stop();
      return digestOf(dataDir);
    })();

    // Mark the projections as written by another version: the registry wipes and rebuilds them.
    const store = await createStore({ dataDir: join(dataDir, 'rocks'), unfinalisedWindow: 128 });
    for (const name of REBUILT) {
      const s = store.getMeta<{ version: number; checkpoint: number | null }>(`projection:${name}`);
      expect(s, name).toBeDefined();
      store.putMeta(`projection:${name}`, { ...s, version: s!.version + 1000 });
    }
    await store.close();

    await idx.restart();
    expect(idx.logs()).toMatch(/rebuilding from stored blocks/);
    await settled(head);
    const after = await (async () => {
      await idx.stop();
      return digestOf(dataDir);
    })();
    expect(after.head).toEqual(before.head);
    expect(differing(after, before)).toEqual([]);

    // The wallets projection alone: its trades come from the committed markets tables of each
    // block (no live markets delta in a rebuild of wallets only).
    const again = await createStore({ dataDir: join(dataDir, 'rocks'), unfinalisedWindow: 128 });
    const w = again.getMeta<{ version: number; checkpoint: number | null }>('projection:wallets')!;
    again.putMeta('projection:wallets', { ...w, version: w.version + 1000 });
    await again.close();
    await idx.restart();
    await settled(head);
    await idx.stop();
    const walletsOnly = await digestOf(dataDir);
    expect(differing(walletsOnly, before)).toEqual([]);
  }, 300_000);
});
