/**
 * The embedded devnet: a detached devnet node (anvil, chain id 31337, behind a JSON-RPC front
 * that serialises mining, reorgs and traces; see front.ts) with real Uniswap V2/V3/V4 bytecode,
 * WETH9, test tokens, a launchpad and a value forwarder, plus a traffic generator running in a
 * worker thread. See README.md in this folder for what is deployed and the emitted events.
 */

/** The devnet's chain id, and stopping every node this process started (graceful or now). */
export { DEVNET_CHAIN_ID, killNodesStartedHere, killNodesStartedHereNow } from './anvil.js';
/** Starts (or reuses) the devnet; its options and defaults, its handle, and the refusal of a foreign node. */
export {
  DEVNET_DEFAULTS,
  type DevnetHandle,
  type DevnetOptions,
  ForeignNodeError,
  startDevnet,
} from './devnet.js';
/** The JSON-RPC front's status (mining, reorgs, traces). */
export type { FrontStatus } from './front.js';
/** Why a traffic transaction was refused, and by whom. */
export type { RefusalCause, RefusedBy } from './funds.js';
/** The traffic generator (a worker thread): start it, its handle, options, statistics, funding chains. */
export {
  type FundingChainRecord,
  startTraffic,
  type TrafficHandle,
  type TrafficOptions,
  type TrafficStats,
} from './traffic.js';
/** What the devnet deployed (contracts, tokens, pools, launchpad) and its status. */
export type {
  DevnetContracts,
  DevnetDeployment,
  DevnetStatus,
  LaunchpadInfo,
  PoolInfo,
  PoolProtocol,
  TokenInfo,
  TokenKind,
  TrafficState,
  TrafficStatus,
} from './types.js';
