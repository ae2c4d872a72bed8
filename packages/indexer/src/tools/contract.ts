/**
 * The contract document and its TypeScript rendering, computed from the route list: what
 * `npm run client` writes to the client package (packages/client/generated/openapi.json and
 * schema.d.ts), and what the staleness test compares them with.
 */

import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { VERSION } from '@chain-indexer/platform/version';
import { buildOpenApi } from '../server/openapi.js';
import { routes } from '../server/routes/index.js';

/**
 * The client package's generated files (the folder of openapi.json and schema.d.ts), found
 * through the package: the tools write them, the staleness test reads them.
 */
export const CLIENT_GENERATED = new URL(
  './',
  pathToFileURL(createRequire(import.meta.url).resolve('@chain-indexer/client/openapi.json')),
);

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
