/**
 * A chain that moves while the release bench measures reads: every `blockMs` the bench node (anvil,
 * `--no-mining`) gets `txPerBlock` native transfers between its dev accounts (`eth_sendTransaction`,
 * unlocked accounts) and mines one block with them (`evm_mine`). The indexer follows each block live
 * (fetch, decode, apply with undo, commit, the serving thread's commit message) while the reads run:
 * the release budget "c=1 point-read p99 ≤ 1.5 × bare uWS while the chain moves" is measured so.
 */
import { type IndexerChild, lanesAtHead, log, rpc, rpcBatch } from '../lib.js';
import { startUwsHello } from '../uws-hello.js';
import type { Chain } from './chain.js';
import type { Release } from './context.js';

/** What a moving chain did between start and stop. */
export interface MovingFigures {
  /** Blocks mined. */
  blocks: number;
  /** Transactions mined in them. */
  txs: number;
  /** Seconds between the first and the last block. */
  seconds: number;
  /** Block period asked for, ms. */
  blockMs: number;
}

export interface MovingChain {
  /** Stops mining (after the block being built, if any) and says what was mined. */
  stop(): Promise<MovingFigures>;
}

/**
 * Starts mining a block every `blockMs` ms with `txPerBlock` value transfers (1 wei, from one dev
 * account to the next, in turn). Mining errors stop the loop and are rethrown by `stop()`.
 */
export async function startMovingChain(
  rpcUrl: string,
  o: { blockMs: number; txPerBlock: number },
): Promise<MovingChain> {
  const accounts = await rpc<string[]>(rpcUrl, 'eth_accounts');
  if (accounts.length < 2) throw new Error('moving chain: the node has fewer than two unlocked accounts');
  let stopping = false;
  let blocks = 0;
  let txs = 0;
  let first = 0;
  let last = 0;
  let failure: Error | null = null;
  let turn = 0;
  // Explicit nonces: anvil runs a JSON-RPC batch concurrently, so two transfers of one sender in a
  // batch would otherwise be given the same nonce.
  const nonces = (
    await rpcBatch(
      rpcUrl,
      accounts.map((a) => ['eth_getTransactionCount', [a, 'pending']]),
    )
  ).map((n: string) => Number.parseInt(n, 16));
  const loop = (async () => {
    while (!stopping) {
      const t0 = performance.now();
      const calls: Array<[string, unknown[]]> = [];
      for (let i = 0; i < o.txPerBlock; i++) {
        const a = (turn + i) % accounts.length;
        const to = accounts[(a + 1) % accounts.length];
        const nonce = `0x${(nonces[a]++).toString(16)}`;
        calls.push(['eth_sendTransaction', [{ from: accounts[a], to, value: '0x1', nonce }]]);
      }
      turn++;
      try {
        if (calls.length) await rpcBatch(rpcUrl, calls);
        await rpc(rpcUrl, 'evm_mine');
      } catch (err) {
        failure = err as Error;
        return;
      }
      blocks++;
      txs += calls.length;
      last = performance.now();
      if (!first) first = last;
      const wait = o.blockMs - (performance.now() - t0);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  })();
  log(`moving chain: a block every ${o.blockMs} ms with ${o.txPerBlock} transfers`);
  return {
    async stop() {
      stopping = true;
      await loop;
      if (failure) throw new Error(`moving chain: ${failure.message}`);
      return { blocks, txs, seconds: first ? (last - first) / 1000 : 0, blockMs: o.blockMs };
    },
  };
}

/**
 * Waits until every lane (the traces lane too) is at the node's head (bench/lib.ts
 * lanesAtHead): the point reads measure an indexer that follows (reads during a backfill are
 * section 5's). Records how long it waited.
 */
async function lanesAtHeadFig(r: Release, rpcUrl: string, ix: IndexerChild): Promise<void> {
  const head = Number.parseInt(await rpc<string>(rpcUrl, 'eth_blockNumber'), 16);
  const waited = await lanesAtHead(ix, head);
  r.fig({
    id: 'chain.lanes_at_head',
    group: 'Chain',
    label: 'wait after the backfill until every lane (traces too) was at the head, before the point reads',
    value: Math.round(waited * 10) / 10,
    unit: 's',
    status: 'info',
  });
}

/** The block period and transfers per block of the release bench's moving chain. */
export const MOVING = { blockMs: 2_000, txPerBlock: 20 } as const;

/**
 * Runs `reads` while the bench chain moves ({@link MOVING}), then records what moved: blocks and
 * transactions mined, and how far the indexer's anchor was behind the node when the reads ended
 * (figures `chain.moving.*`; a note says every point-read figure was measured so).
 * @throws when mining fails, or the indexer does not reach the last mined block within 30 s.
 */
export async function movingReads<T>(r: Release, { node }: Chain, ix: IndexerChild, reads: () => Promise<T>) {
  await lanesAtHeadFig(r, node.rpcUrl, ix);
  if (r.args.frozen) {
    r.notes.push(
      '--frozen: the point reads ran on a chain that did not move (a diagnostic: the budget is on a moving chain).',
    );
    return reads();
  }
  const hello = await startUwsHello();
  r.movingHello = hello.url;
  const moving = await startMovingChain(node.rpcUrl, MOVING);
  const out = await reads().finally(async () => {
    r.movingHello = null;
    await hello.stop();
    await moving.stop().catch(() => undefined);
  });
  const mined = await moving.stop();
  const head = Number.parseInt(await rpc<string>(node.rpcUrl, 'eth_blockNumber'), 16);
  const anchorAtEnd = await ix.anchor();
  const t0 = performance.now();
  while ((await ix.anchor()) < head) {
    if (performance.now() - t0 > 30_000)
      throw new Error(`moving chain: the indexer is not at block ${head} 30 s after the last block`);
    await new Promise((res) => setTimeout(res, 20));
  }
  r.fig({
    id: 'chain.moving.blocks',
    group: 'Chain',
    label: `blocks mined during the point reads (one every ${MOVING.blockMs} ms, ${MOVING.txPerBlock} transfers each)`,
    value: mined.blocks,
    unit: 'blocks',
    status: 'info',
  });
  r.fig({
    id: 'chain.moving.lag',
    group: 'Chain',
    label: 'indexer anchor behind the node head when the point reads ended',
    value: head - anchorAtEnd,
    unit: 'blocks',
    status: 'info',
  });
  r.notes.push(
    `Point reads (section 4: blocks, transactions, receipts and the token/pool/wallet routes) ran while the chain moved: ${mined.blocks} blocks with ${mined.txs} transfers mined over ${mined.seconds.toFixed(0)} s, each followed live by the indexer under measure (its anchor ${head - anchorAtEnd} block(s) behind the node when the reads ended).`,
  );
  return out;
}
