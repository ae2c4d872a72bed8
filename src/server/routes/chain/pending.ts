/** Chain views backed by decoders and call-trace replay; typed 503 until those lanes land. */
import { Type } from '@sinclair/typebox';
import { pendingRoute } from '../../pending.js';
import { BlockNumber, Hash, pageQuery } from '../../schemas.js';

const page = pageQuery();
export const chainPendingRoutes = [
  pendingRoute({ id: 'chain.transactionCalls', path: '/transactions/{hash}/calls/decoded', group: 'Chain', scope: 'read', projection: 'traces', summary: 'Decoded call tree, frames paged (limit 1..64, default 32).', params: { hash: Hash }, query: { cursor: Type.Optional(Type.String({ maxLength: 1024 })), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 64, default: 32 })) }, batchable: true }),
  pendingRoute({ id: 'chain.transactionInternal', path: '/transactions/{hash}/internal', group: 'Chain', scope: 'read', projection: 'traces', summary: 'Retained internal transfers and creations (PAGE).', params: { hash: Hash }, query: page, batchable: true }),
];
