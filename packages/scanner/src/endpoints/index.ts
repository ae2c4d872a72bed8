/**
 * The endpoints the scanner registers, in OpenAPI order: phase 1's service endpoints and phase 2's
 * scan endpoints (written against endpoint.ts; their findings live in ../scan/).
 * GET /v1/openapi.json is added by the service itself (it documents this list).
 */
import type { Endpoint } from '../endpoint.js';
import { cancelPlan, getAccount, getActivity, getCredits, getPlan } from './account.js';
import { contracts, rhContracts } from './contracts.js';
import { crossChainEndpoint, explorer, rhExplorer } from './explorer.js';
import { fundingChainEndpoint } from './funding-chain.js';
import { health } from './health.js';
import { createKey, listKeys, renameKey, revokeAllKeys, revokeKey, rollKey, setAllowlist } from './keys.js';
import { bundles, detectEndpoint, holdings, identities } from './lookups.js';
import { alphaEndpoint, analyzeEndpoint, kol, rhWalletFinder, walletFinderMain } from './people.js';
import { rhScan, scan } from './scan.js';
import { usage } from './usage.js';
import { whoami } from './whoami.js';

/** Key endpoints (rate-limited, usage-counted). */
export const KEY_ENDPOINTS: readonly Endpoint[] = [
  whoami,
  usage,
  scan,
  contracts,
  fundingChainEndpoint,
  holdings,
  bundles,
  detectEndpoint,
  identities,
  explorer,
  crossChainEndpoint,
  analyzeEndpoint,
  walletFinderMain,
  alphaEndpoint,
  kol,
  rhScan,
  rhContracts,
  rhExplorer,
  rhWalletFinder,
];

/** Dashboard endpoints (a session; refused with a key). */
export const DASHBOARD_ENDPOINTS: readonly Endpoint[] = [
  getAccount,
  getPlan,
  cancelPlan,
  getCredits,
  getActivity,
  listKeys,
  createKey,
  revokeAllKeys,
  renameKey,
  setAllowlist,
  rollKey,
  revokeKey,
];

/** Public endpoints (no credential). */
export const PUBLIC_ENDPOINTS: readonly Endpoint[] = [health];

/** Every endpoint of the service. */
export const ENDPOINTS: readonly Endpoint[] = [...KEY_ENDPOINTS, ...DASHBOARD_ENDPOINTS, ...PUBLIC_ENDPOINTS];
