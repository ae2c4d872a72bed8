/**
 * POST /v1/scan and /v1/rh/scan `{address, depth}` — the wallet scan or, when the address is a
 * token indexed at the anchor, the token scan. Credits: wallet quick 1, deep 2, max 4; token 1.
 * Findings: packages/scanner/src/scan/wallet.ts and token-scan.ts.
 */
import { Type } from '@sinclair/typebox';
import { defineEndpoint, type Endpoint } from '../endpoint.js';
import type { IndexPort } from '../index-port.js';
import { anchorJson, readRole, type ScanRole } from '../scan/read.js';
import { tokenScan } from '../scan/token-scan.js';
import { type ScanDepth, walletScan } from '../scan/wallet.js';
import {
  AddressInput,
  AnchorSchema,
  INDEX_ERRORS,
  TokenScanSchema,
  WalletScanSchema,
} from './scan-schemas.js';

const PRICE: Record<ScanDepth, number> = { quick: 1, deep: 2, max: 4 };

/** Whether `address` is a token indexed on the role's chain now (decides the price). */
const isToken = (index: IndexPort, role: ScanRole, address: string) =>
  readRole(index, role, (rc) => rc.readers.tokens.find(rc.view, address, rc.anchor.block) !== null).value;

/** The scan endpoint of one endpoint family (`main`: /v1/scan, `rh`: /v1/rh/scan). */
export function scanEndpoint(role: ScanRole): Endpoint {
  const prefix = role === 'rh' ? '/v1/rh' : '/v1';
  return defineEndpoint({
    id: role === 'rh' ? 'rh.scan' : 'scan',
    method: 'POST',
    path: `${prefix}/scan`,
    auth: 'key',
    tag: role === 'rh' ? 'Scans (rh chain)' : 'Scans',
    summary: `Wallet scan (funding chain, cohorts, counterparties, PnL, holdings) or token scan (supply, holders, concentration, creator, authority, launch, bundles, first buyers)${role === 'rh' ? ' on the chain configured as rh' : ''}`,
    description:
      'A wallet scan follows the funding chain 1 hop (quick), 3 (deep) or 6 (max). An address that is a token indexed at the anchor gets the token scan (depth does not change it). Every finding carries its rule and inputs; the answer carries the anchor it was read at.',
    body: Type.Object(
      {
        address: AddressInput('wallet or token address'),
        depth: Type.Optional(
          Type.Union([Type.Literal('quick'), Type.Literal('deep'), Type.Literal('max')], {
            default: 'quick',
            description: 'wallet scans: quick (1 hop), deep (3), max (6); default quick',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    response: Type.Object({
      anchor: AnchorSchema,
      scan: Type.Union([WalletScanSchema, TokenScanSchema]),
    }),
    errors: INDEX_ERRORS,
    credits: {
      cost: ({ body, index }) => (isToken(index, role, body.address) ? 1 : PRICE[body.depth ?? 'quick']),
      cacheKey: ({ body }) => `${body.address.toLowerCase()}|${body.depth ?? 'quick'}`,
      rule: 'wallet scan: quick 1, deep 2, max 4; token scan 1',
    },
    handler: ({ index, body }) => {
      const r = readRole(index, role, (rc) =>
        rc.readers.tokens.find(rc.view, body.address, rc.anchor.block)
          ? tokenScan(rc, body.address)
          : walletScan(rc, body.address, body.depth ?? 'quick'),
      );
      return { anchor: anchorJson(r.anchor), scan: r.value };
    },
  });
}

export const scan = scanEndpoint('main');
export const rhScan = scanEndpoint('rh');
