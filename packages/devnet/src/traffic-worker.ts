/**
 * Traffic generator entry (runs inside a worker thread; see traffic.ts). Sends ~txPerSecond signed
 * txs from a pool of wallets with locally managed nonces and never waits for a receipt on the
 * send path, so each block carries many txs. Receipts are polled in the background only where
 * the generator needs a result (V3 token ids, launch addresses, wallet activation).
 *
 * The generator is split by traffic kind under traffic/: generator.ts (state, sending, funds,
 * draws), scheduler.ts (the weighted action mix and the send loop), setup.ts (bootstrap and
 * recovery), chain.ts (reorgs, receipts, nonces), and one module per family — uniswap-v2.ts,
 * uniswap-v3.ts, uniswap-v4.ts, erc20.ts, wallets.ts, launchpad.ts, forwarder.ts, faults.ts.
 *
 * It keeps going (see scheduler.ts `run`): a node that stops answering (connection refused,
 * timeouts) puts it in `retrying` with exponential backoff until the node answers again; a reorg
 * (a block hash it saw changed) or symptoms of a lost set-up (calls answering no data, long runs
 * of refused txs) make it check its set-up — deployment code, wallet funds and airdrops, the
 * ownable token's owner — and redo what is missing before traffic resumes.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type Input, TrafficGenerator } from './traffic/generator.js';
import { run } from './traffic/scheduler.js';
import { errText } from './traffic/support.js';

export { isNodeDown } from './traffic/support.js';

const input = workerData as Input;
const gen = new TrafficGenerator(input);
gen.childBytecode = input.childBytecode;
// A stray rejection (a background receipt handler) is logged; the generator keeps running.
process.on('unhandledRejection', (e) => gen.log(`traffic: unhandled rejection: ${errText(e)}`));
parentPort?.on('message', (m: { type: string }) => {
  if (m.type === 'stop') gen.stopped = true;
});
run(gen).then(
  () => process.exit(0),
  (e: Error) => {
    // run() catches everything it can retry; this is a bug: traffic.ts logs the exit and restarts.
    gen.log(`traffic: generator crashed: ${e.stack ?? e.message}`);
    process.exit(1);
  },
);
