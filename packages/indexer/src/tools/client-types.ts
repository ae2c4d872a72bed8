/**
 * `node packages/indexer/dist/tools/client-types.js`: regenerates the typed client's openapi.json and
 * schema.d.ts (packages/client/generated/) from the route list (run by `npm run client`), and the
 * generated list of the routes that take atBlock in docs/contract-choices.md.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { writeAsOfSection } from './as-of-doc.js';
import { CLIENT_GENERATED, clientTypes, contractJson } from './contract.js';

const dir = fileURLToPath(CLIENT_GENERATED);
const doc = contractJson();
writeFileSync(`${dir}openapi.json`, doc);
writeFileSync(`${dir}schema.d.ts`, await clientTypes(doc));
process.stdout.write(`wrote ${dir}openapi.json and ${dir}schema.d.ts\n`);
if (writeAsOfSection()) process.stdout.write('wrote the as-of routes of docs/contract-choices.md\n');
