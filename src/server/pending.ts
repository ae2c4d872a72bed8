/**
 * Routes of the contract whose projection this build does not produce yet. They are registered
 * from the start with their full parameter schemas (so bad input still answers 400) and answer
 * a typed `503 projection_unavailable` naming the projection — never a fake or empty body (R5).
 */
import { type TProperties, Type } from '@sinclair/typebox';
import { ApiError } from './errors.js';
import { type Route, type Scope, defineRoute } from './route.js';

export interface PendingSpec {
  id: string;
  path: string;
  group: string;
  scope: Scope;
  summary: string;
  /** The projection that will back this route. */
  projection: string;
  params?: TProperties;
  query?: TProperties;
  batchable?: boolean;
}

/** Projections not built in this version; listed as `disabled` in /health. */
export const PENDING_PROJECTIONS = new Set<string>();

export function pendingRoute(s: PendingSpec): Route {
  PENDING_PROJECTIONS.add(s.projection);
  return defineRoute({
    id: s.id,
    method: 'GET',
    path: s.path,
    scope: s.scope,
    group: s.group,
    summary: `${s.summary} [projection "${s.projection}": not built in this version — answers 503 projection_unavailable]`,
    params: s.params,
    query: s.query,
    response: Type.Object({}, { additionalProperties: true, description: `backed by projection ${s.projection}` }),
    errors: ['bad_request', 'projection_unavailable'],
    batchable: s.batchable ?? false,
    anchored: false,
    handler() {
      throw new ApiError('projection_unavailable', `projection "${s.projection}" is not built in this version`, {
        projection: s.projection,
        status: 'disabled',
        retryable: false,
      });
    },
  });
}
