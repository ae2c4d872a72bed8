/**
 * `node dist/src/tools/client-types.js`: regenerates src/client/openapi.json and
 * src/client/schema.d.ts from the route list (run by `npm run client`).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { clientTypes, contractJson } from '../client/contract.js';

const dir = fileURLToPath(new URL('../../../src/client/', import.meta.url));
const doc = contractJson();
writeFileSync(`${dir}openapi.json`, doc);
writeFileSync(`${dir}schema.d.ts`, await clientTypes(doc));
process.stdout.write(`wrote ${dir}openapi.json and ${dir}schema.d.ts\n`);
