/**
 * Wallet lists and the analysis: GET /v1/kol, /v1/alpha, /v1/wallet-finder (+ /v1/rh/wallet-finder)
 * (free) and POST /v1/analyze (1 scan per analysis). Findings: packages/scanner/src/scan/people.ts,
 * analyze.ts.
 */
import { Type } from '@sinclair/typebox';
import { defineEndpoint, type Endpoint } from '../endpoint.js';
import { ScannerError } from '../errors.js';
import { analyze } from '../scan/analyze.js';
import { alpha, kolFeed, walletFinder } from '../scan/people.js';
import { anchorJson, readRole, type ScanRole } from '../scan/read.js';
import { familyHead, scanHead } from './heads.js';
import {
  AddressInput,
  AlphaSchema,
  AnalysisSchema,
  AnchorSchema,
  FinderSchema,
  INDEX_ERRORS,
  KolSchema,
} from './scan-schemas.js';

const ZERO = '0x0000000000000000000000000000000000000000';

export const kol = defineEndpoint({
  ...scanHead('kol', '/v1/kol', 'GET'),
  summary: 'Recent trades of wallets labelled kol (LABELS_FILE), newest first (free)',
  query: {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'trades, 1..200 (default 50)' }),
    ),
  },
  response: Type.Object({ anchor: AnchorSchema, kol: KolSchema }),
  errors: INDEX_ERRORS,
  handler: ({ index, query }) => {
    const r = readRole(index, 'main', (rc) => kolFeed(rc, query.limit ?? 50));
    return { anchor: anchorJson(r.anchor), kol: r.value };
  },
});

export const alphaEndpoint = defineEndpoint({
  ...scanHead('alpha', '/v1/alpha', 'GET'),
  summary:
    'Wallets ranked by realised PnL over a window of UTC days, formula and every input published (free)',
  query: {
    days: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 90,
        default: 7,
        description: 'UTC days ending with the anchor block’s day (default 7)',
      }),
    ),
    quote: Type.Optional(AddressInput('quote asset the PnL is in (default: native value, 0x0…0)')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  },
  response: Type.Object({ anchor: AnchorSchema, alpha: AlphaSchema }),
  errors: INDEX_ERRORS,
  handler: ({ index, query }) => {
    const r = readRole(index, 'main', (rc) =>
      alpha(rc, { days: query.days ?? 7, quote: query.quote ?? ZERO, limit: query.limit ?? 20 }),
    );
    return { anchor: anchorJson(r.anchor), alpha: r.value };
  },
});

/** The wallet finder of one endpoint family (`main`: /v1/wallet-finder, `rh`: /v1/rh/wallet-finder). */
export function walletFinderEndpoint(role: ScanRole): Endpoint {
  return defineEndpoint({
    ...familyHead(role, 'walletFinder', '/v1/wallet-finder', 'GET'),
    summary: `A token's buyers matching published filters: early buyers, realised PnL, win rate (free)${role === 'rh' ? ' on the chain configured as rh' : ''}`,
    query: {
      token: AddressInput('the token'),
      earlyBuyers: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 500, description: 'keep the first N buyers' }),
      ),
      minRealised: Type.Optional(
        Type.String({
          pattern: '^-?[0-9]{1,78}$',
          description: 'keep wallets with realised PnL in the token ≥ this (quote base units, any quote)',
        }),
      ),
      minWinRateBps: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: 10_000,
          description: 'keep wallets whose win rate ≥ this (basis points)',
        }),
      ),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    },
    response: Type.Object({ anchor: AnchorSchema, finder: FinderSchema }),
    errors: INDEX_ERRORS,
    handler: ({ index, query }) => {
      const r = readRole(index, role, (rc) =>
        walletFinder(
          rc,
          query.token,
          {
            earlyBuyers: query.earlyBuyers ?? null,
            minRealised: query.minRealised === undefined ? null : BigInt(query.minRealised),
            minWinRateBps: query.minWinRateBps ?? null,
          },
          query.limit ?? 50,
        ),
      );
      return { anchor: anchorJson(r.anchor), finder: r.value };
    },
  });
}

export const walletFinderMain = walletFinderEndpoint('main');
export const rhWalletFinder = walletFinderEndpoint('rh');

const AnalyzeBody = Type.Union([
  Type.Object(
    {
      addresses: Type.Array(AddressInput('a wallet'), {
        minItems: 2,
        maxItems: 50,
        description: '2..50 wallets',
      }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    { token: AddressInput('a token: its first 50 buyers are analysed') },
    { additionalProperties: false },
  ),
]);

export const analyzeEndpoint = defineEndpoint({
  ...scanHead('analyze', '/v1/analyze', 'POST'),
  summary:
    'One analysis of wallets (or a token’s first buyers): shared funders, clusters, common tokens, coordinated buys, each with its evidence (1 scan)',
  body: AnalyzeBody,
  response: Type.Object({ anchor: AnchorSchema, analysis: AnalysisSchema }),
  errors: [...INDEX_ERRORS, 'INVALID_INPUT'],
  credits: {
    cost: () => 1,
    cacheKey: ({ body }) =>
      'token' in body
        ? `token:${body.token.toLowerCase()}`
        : `addresses:${[...new Set(body.addresses.map((a) => a.toLowerCase()))].sort().join(',')}`,
    rule: '1 per analysis',
  },
  handler: ({ index, body }) => {
    if ('addresses' in body && new Set(body.addresses.map((a) => a.toLowerCase())).size < 2)
      throw new ScannerError('INVALID_INPUT', 'an analysis needs at least 2 distinct addresses');
    const r = readRole(index, 'main', (rc) => analyze(rc, body));
    return { anchor: anchorJson(r.anchor), analysis: r.value };
  },
});
