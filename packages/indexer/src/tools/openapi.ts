/**
 * `node packages/indexer/dist/tools/openapi.js [out.json]`: writes the published contract (the same document
 * the service serves at GET /index/v1/openapi.json) without starting anything. `npm run client`
 * feeds it to openapi-typescript to regenerate the typed client in packages/client/generated/.
 */
import { writeFileSync } from 'node:fs';
import { contractJson } from './contract.js';

const out = process.argv[2];
if (out) writeFileSync(out, contractJson());
else process.stdout.write(contractJson());
