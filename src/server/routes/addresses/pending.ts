/** Addresses (3) — issue F. Typed 503 until the address projection lands. */
import { pendingRoute } from '../../pending.js';
import { Address } from '../../schemas.js';

const A = (id: string, path: string, summary: string) =>
  pendingRoute({ id: `addresses.${id}`, path, group: 'Addresses', scope: 'read', summary, projection: 'addresses', params: { address: Address }, batchable: true });

export const addressRoutes = [
  A('summary', '/addresses/{address}', 'Summary: kind and what is known.'),
  A('type', '/address/{address}/type', 'EOA, contract or unobserved.'),
  A('label', '/address/{address}/label', 'Labels, published only where evidence exists.'),
];
