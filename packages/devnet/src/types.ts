/** Shapes shared by the devnet deployer, the traffic worker and callers. */
import type { Address, Hex } from 'viem';

/** What kind of ERC-20 a devnet token is; the odd kinds exist so reconciliation can flag them. */
export type TokenKind =
  | 'weth'
  | 'stable'
  | 'standard'
  | 'ownable' // owner-mintable, emits OwnershipTransferred
  | 'bytes32-metadata' // name()/symbol() return bytes32 (MKR-style)
  | 'reverting-metadata' // name()/symbol()/decimals() revert
  | 'fee-on-transfer' // Transfer event carries the gross amount, recipient gets net
  | 'rebasing'; // balances change on rebase() without Transfer events

export interface TokenInfo {
  /** Short stable key used by the traffic generator and tests, e.g. 'USDC'. */
  key: string;
  address: Address;
  /** Metadata as deployed (what a well-behaved reader should decode; may be unreadable on chain). */
  name: string;
  symbol: string;
  decimals: number;
  kind: TokenKind;
  /** Reference USD price used to seed pools (float, informational only). */
  usdPrice: number;
}

export type PoolProtocol = 'uniswap-v2' | 'uniswap-v3' | 'uniswap-v4';

export interface PoolInfo {
  protocol: PoolProtocol;
  /** V2 pair / V3 pool contract; for V4 the PoolManager (the pool itself is `poolId`). */
  address: Address;
  /** V4 only: keccak256(abi.encode(PoolKey)). */
  poolId?: Hex;
  /** Sorted currencies; V4 native ETH is 0x0000000000000000000000000000000000000000. */
  token0: Address;
  token1: Address;
  token0Key: string;
  token1Key: string;
  /** Fee in hundredths of a bip (V3/V4); 3000 for V2 (0.3 %). */
  fee: number;
  tickSpacing?: number;
  hooks?: Address;
}

export interface DevnetContracts {
  weth9: Address;
  uniswapV2Factory: Address;
  uniswapV2Router02: Address;
  uniswapV3Factory: Address;
  nftDescriptorLibrary: Address;
  nonfungibleTokenPositionDescriptor: Address;
  nonfungiblePositionManager: Address;
  swapRouter: Address;
  poolManager: Address;
  poolSwapTest: Address;
  poolModifyLiquidityTest: Address;
  launchpad: Address;
  valueForwarder: Address;
}

export interface LaunchpadInfo {
  address: Address;
  /** ETH reserve (wei, decimal string) at which a curve graduates to a V2 pool. */
  graduationTargetWei: string;
  /** Virtual ETH added to the curve's ETH reserve in the pricing formula (wei, decimal string). */
  virtualEthWei: string;
  /** Supply of each launched token (raw units, 18 decimals, decimal string). */
  tokenSupply: string;
  /** Launches made during deployment (examples; the traffic generator adds more). */
  seededLaunches: Address[];
}

export interface DevnetDeployment {
  /** Format version of deployment.json. */
  version: 1;
  chainId: number;
  /** Hash of block 0 of the node the deployment lives on (reuse check). */
  genesisHash: Hex;
  /** Block number of the last deployment transaction. */
  deployedAtBlock: number;
  /** Anvil dev account 0: deploys everything and holds the initial LP positions. */
  deployer: Address;
  /** Anvil dev account 1: token treasury for airdrops, rebaser, first owner of the ownable token. */
  admin: Address;
  contracts: DevnetContracts;
  tokens: TokenInfo[];
  pools: PoolInfo[];
  launchpad: LaunchpadInfo;
}

/**
 * The traffic generator's state as /health reports it.
 *  - `disabled`: txPerSecond = 0, no generator;
 *  - `starting`: checking or doing its set-up (funding, airdrops, ownership, launches);
 *  - `running`: sending traffic;
 *  - `retrying`: the node failed to answer (or the set-up failed); it retries with exponential
 *    backoff and resumes by itself once the node answers again;
 *  - `stopped`: stopped for good (shutdown); `stopReason` says why.
 */
export type TrafficState = 'disabled' | 'starting' | 'running' | 'retrying' | 'stopped';

/** Counters and state of the traffic generator (see {@link TrafficState}). */
export interface TrafficStatus {
  state: TrafficState;
  /** ISO time the current state was entered. */
  since: string;
  /** Why it stopped; null unless `stopped`. */
  stopReason: string | null;
  /** The last error that made it retry (or stop), with its ISO time; null before any. */
  lastError: { message: string; at: string } | null;
  /** Transactions the node accepted since start (all runs). */
  sent: number;
  /** Of which swaps (V2/V3/V4/graduated), since start. */
  swaps: number;
  /** Transactions the node refused (nonce, balance, fee, gas), since start. */
  refused: number;
  /** The same by cause: `insufficientFunds` stays 0 while the generator tops its wallets up in time. */
  refusedBy: import('./funds.js').RefusedBy;
  /** Actions that failed before sending anything (a read that reverted, …), since start. */
  failedActions: number;
  /** Times its loop restarted after an outage or failure. */
  restarts: number;
  /** Times it found its set-up (deployment, funding, airdrops, ownership) gone after a reorg and redid it. */
  setupRedone: number;
  /** Reorgs it noticed (block hash at a height it saw changed). */
  reorgsDetected: number;
  /** Active traffic wallets. */
  wallets: number;
}

/** The embedded devnet's state for /health. */
export interface DevnetStatus {
  rpcUrl: string;
  /** The devnet node process, anvil behind the front (pid null when it no longer runs); reused: it was running before this start. */
  node: { pid: number | null; reused: boolean };
  traffic: TrafficStatus;
}
