/**
 * The endpoints the scanner registers, in OpenAPI order. Phase 2 adds its scan endpoints here
 * (one file each under endpoints/, written against endpoint.ts); nothing else changes.
 * GET /v1/openapi.json is added by the service itself (it documents this list).
 */
import type { Endpoint } from '../endpoint.js';
import { cancelPlan, getAccount, getActivity, getCredits, getPlan } from './account.js';
import { health } from './health.js';
import { createKey, listKeys, renameKey, revokeAllKeys, revokeKey, rollKey, setAllowlist } from './keys.js';
import { usage } from './usage.js';
import { whoami } from './whoami.js';

/** Key endpoints (rate-limited, usage-counted). */
export const KEY_ENDPOINTS: readonly Endpoint[] = [whoami, usage];

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
