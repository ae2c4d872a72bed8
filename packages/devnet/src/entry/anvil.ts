/**
 * `@chain-indexer/devnet/anvil`: the devnet's node process (anvil) on its own — spawning it,
 * probing, stopping and a bare JSON-RPC call. The suites that need a node without the devnet's
 * deployment and traffic use it.
 */

/** Spawns a detached anvil (state directory, port, block time); is one running there. */
/** Stops the anvil of a state directory (SIGTERM, then SIGKILL). */
/** The chain id a node answers, or null. */
/** One JSON-RPC call to a node URL. */
export { isRunning, killAnvil, probeChainId, rpc, spawnNode } from '../anvil.js';
