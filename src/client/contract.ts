/**
 * The contract document and its TypeScript rendering, computed from the route list: what
 * `npm run client` writes to src/client/openapi.json and src/client/schema.d.ts, and what the
 * staleness test compares them with.
 */

import { VERSION } from '@chain-indexer/platform/version.js';
import { buildOpenApi } from '../server/openapi.js';
import { routes } from '../server/routes/index.js';

/** The OpenAPI 3.1 document as pretty JSON with a trailing newline (stable for diffs). */
export function contractJson(): string {
  return `${JSON.stringify(buildOpenApi(routes, VERSION), null, 2)}\n`;
}

/** The TypeScript types openapi-typescript generates from `doc` (header comment included). */
export async function clientTypes(doc: string): Promise<string> {
  const { default: openapiTS, astToString, COMMENT_HEADER } = await import('openapi-typescript');
  const ast = await openapiTS(doc);
  return COMMENT_HEADER + astToString(ast);
}
