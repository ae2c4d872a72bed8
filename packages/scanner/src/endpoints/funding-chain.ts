/**
 * GET /v1/funding-chain?address=&depth= — funder hops of an address, closest first (free).
 * Rule: packages/scanner/src/scan/funding.ts.
 */
import { Type } from '@sinclair/typebox';
import { defineEndpoint } from '../endpoint.js';
import { fundingChain } from '../scan/funding.js';
import { anchorJson, readRole } from '../scan/read.js';
import { scanHead } from './heads.js';
import { AddressInput, AnchorSchema, FundingChainSchema, INDEX_ERRORS } from './scan-schemas.js';

export const fundingChainEndpoint = defineEndpoint({
  ...scanHead('scan.fundingChain', '/v1/funding-chain', 'GET'),
  summary: 'Funder hops of an address, closest first; stops at an exchange or bridge label (free)',
  query: {
    address: AddressInput('the wallet whose funders to trace'),
    depth: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 10, default: 5, description: 'hops, 1..10 (default 5)' }),
    ),
  },
  response: Type.Object({ anchor: AnchorSchema, fundingChain: FundingChainSchema }),
  errors: INDEX_ERRORS,
  handler: ({ index, query }) => {
    const r = readRole(index, 'main', (rc) => fundingChain(rc, query.address, query.depth ?? 5));
    return { anchor: anchorJson(r.anchor), fundingChain: r.value };
  },
});
