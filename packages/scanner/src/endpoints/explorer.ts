/**
 * GET /v1/explorer?q= and /v1/rh/explorer — resolves an address, transaction hash, block number
 * or token symbol to a summary (free); GET /v1/cross-chain?address= — the address on every
 * served chain (free). Findings: packages/scanner/src/scan/explorer.ts, cross-chain.ts.
 */
import { Type } from '@sinclair/typebox';
import { defineEndpoint, type Endpoint } from '../endpoint.js';
import { crossChain } from '../scan/cross-chain.js';
import { explore } from '../scan/explorer.js';
import { anchorJson, chainFor, readRole, type ScanRole } from '../scan/read.js';
import { familyHead, scanHead } from './heads.js';
import {
  AddressInput,
  AnchorSchema,
  CrossChainSchema,
  ExplorerSchema,
  INDEX_ERRORS,
} from './scan-schemas.js';

/** The explorer of one endpoint family (`main`: /v1/explorer, `rh`: /v1/rh/explorer). */
export function explorerEndpoint(role: ScanRole): Endpoint {
  return defineEndpoint({
    ...familyHead(role, 'explorer', '/v1/explorer', 'GET'),
    summary: `Resolves an address, transaction hash, block number or token symbol to a summary (free)${role === 'rh' ? ' on the chain configured as rh' : ''}`,
    description:
      '0x + 64 hex: a transaction, else a block by hash; 0x + 40 hex: an address (kind, labels, first seen, token row); digits: a block number; anything else: a token search by symbol, name or address prefix.',
    query: {
      q: Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'address, tx hash, block number or token symbol',
      }),
    },
    response: Type.Object({ anchor: AnchorSchema, result: ExplorerSchema }),
    errors: [...INDEX_ERRORS, 'INVALID_INPUT'],
    handler: async ({ index, query }) => {
      const r = readRole(index, role, (rc) => explore(rc, query.q));
      return { anchor: anchorJson(r.anchor), result: await r.value };
    },
  });
}

export const explorer = explorerEndpoint('main');
export const rhExplorer = explorerEndpoint('rh');

export const crossChainEndpoint = defineEndpoint({
  ...scanHead('crossChain', '/v1/cross-chain', 'GET'),
  summary:
    'The address on every configured chain: kind, first seen, activity counts, runtime code hash (free)',
  description:
    'Each chain is read at its own anchor (listed per chain); a chain that cannot answer now is listed with its refusal. `sameCodeHash` groups chains holding the same runtime code hash.',
  query: { address: AddressInput('the address') },
  response: CrossChainSchema,
  errors: INDEX_ERRORS,
  handler: ({ index, query }) => {
    chainFor(index, 'main'); // CHAIN_NOT_CONFIGURED without an index
    return crossChain(index, query.address);
  },
});
