/**
 * Keeps the tests' own block-producing calls (mine, reorg, revert) from landing while an indexer's
 * traces lane is replaying a block on the same anvil.
 *
 * Why: anvil 1.7.1 deadlocks when it mines while answering `debug_traceBlockByNumber` (its tracer,
 * `Backend::mined_geth_trace_transaction`, holds the chain-storage read lock and
 * `replay_tx_with_inspector` takes it again while `do_mine_block` waits for the write lock; gdb
 * stacks of such a hang are what test/harness/anvil.ts dumps to test-output/hangs/). Every RPC to
 * that anvil then hangs, the indexer's included. A real node has no such lock; this gate only
 * keeps the test harness from being the writer that meets the lane on a bare anvil. The embedded
 * devnet needs no gate: its JSON-RPC front orders every mine, reorg and trace itself
 * (packages/devnet/src/front.ts); an anvil's own interval miner (`--block-time`) cannot be gated.
 */

/** Methods that produce or replace blocks (they take anvil's chain-storage write lock). */
const NODE_WRITES = new Set([
  'anvil_mine',
  'evm_mine',
  'anvil_reorg',
  'anvil_rollback',
  'evm_revert',
  'anvil_reset',
]);

const gates = new Set<() => Promise<void>>();

/** Registers a wait run before every node write; returns its removal. */
export function addTraceGate(gate: () => Promise<void>): () => void {
  gates.add(gate);
  return () => gates.delete(gate);
}

/** Resolves when `method` may be sent: at once unless it writes blocks, else once every gate passed. */
export async function beforeNodeWrite(method: string): Promise<void> {
  if (!NODE_WRITES.has(method) || gates.size === 0) return;
  await Promise.all([...gates].map((g) => g().catch(() => undefined)));
}
