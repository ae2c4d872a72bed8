/**
 * `@chain-indexer/devnet/contracts`: the devnet's contracts for a test or bench that deploys or
 * calls them itself — the solc-js compile of packages/devnet/src/contracts, the ABIs of the
 * deployed contracts and the devnet's funded accounts.
 */

/** ABIs of the deployed contracts (ERC-20, Uniswap V3 position manager, V4 pool manager and test routers, launchpad). */
export {
  erc20Abi,
  launchpadAbi,
  modifyLiquidityTestAbi,
  npmAbi,
  poolManagerAbi,
  poolSwapTestAbi,
} from '../abis.js';
/** Compiles the devnet's contracts (cached) into ABIs and bytecode. */
export { compileContracts } from '../compile.js';
/** A funded account of the devnet's mnemonic. */
export { devAccount } from '../signer.js';
