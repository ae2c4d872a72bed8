/**
 * GET /v1/contracts?address= and /v1/rh/contracts — the contract scan (1 scan): runtime code
 * hash, EIP-1967 proxy slots, creator and creation coordinate, verified ABI present or not,
 * privileged selectors, authority events. Findings: packages/scanner/src/scan/contract.ts.
 */
import { Type } from '@sinclair/typebox';
import { defineEndpoint, type Endpoint } from '../endpoint.js';
import { contractScan } from '../scan/contract.js';
import { anchorJson, readRole, type ScanRole } from '../scan/read.js';
import { familyHead } from './heads.js';
import { AddressInput, AnchorSchema, ContractScanSchema, INDEX_ERRORS } from './scan-schemas.js';

/** The contract scan of one endpoint family (`main`: /v1/contracts, `rh`: /v1/rh/contracts). */
export function contractsEndpoint(role: ScanRole): Endpoint {
  return defineEndpoint({
    ...familyHead(role, 'contracts', '/v1/contracts', 'GET'),
    summary: `Contract scan: code hash, EIP-1967 proxy slots, creator, verified ABI, privileged selectors, authority events (1 scan)${role === 'rh' ? ' on the chain configured as rh' : ''}`,
    description:
      'Code and proxy slots are node reads (eth_getCode, eth_getStorageAt) pinned to the anchor block by hash; creation and authority events come from the index at the same anchor.',
    query: { address: AddressInput('the contract') },
    response: Type.Object({ anchor: AnchorSchema, contract: ContractScanSchema }),
    errors: INDEX_ERRORS,
    credits: {
      cost: () => 1,
      cacheKey: ({ query }) => query.address.toLowerCase(),
      rule: '1 per contract scan',
    },
    handler: async ({ index, query }) => {
      const r = readRole(index, role, (rc) => contractScan(rc, query.address));
      return { anchor: anchorJson(r.anchor), contract: await r.value };
    },
  });
}

export const contracts = contractsEndpoint('main');
export const rhContracts = contractsEndpoint('rh');
