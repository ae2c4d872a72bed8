/**
 * The free lookups of the main chain: GET /v1/holdings, /v1/bundles, /v1/detect, /v1/identities.
 * Each reads at one anchor and carries it; findings and their rules: packages/scanner/src/scan/.
 */
import { Type } from '@sinclair/typebox';
import { defineEndpoint } from '../endpoint.js';
import { anchorJson, readRole } from '../scan/read.js';
import { bundlesOf, detect, FRESH_BLOCKS, SNIPER_BLOCKS } from '../scan/token.js';
import { holdingsOf } from '../scan/wallet.js';
import { scanHead } from './heads.js';
import {
  Address,
  AddressInput,
  AnchorSchema,
  BundlesSchema,
  DetectionSchema,
  HoldingsSchema,
  INDEX_ERRORS,
  LabelSchema,
  Nullable,
  WalletFirstSeenSchema,
} from './scan-schemas.js';

export const holdings = defineEndpoint({
  ...scanHead('scan.holdings', '/v1/holdings', 'GET'),
  summary: 'Holdings of a wallet with USD marks and coverage (free)',
  query: { address: AddressInput('the wallet') },
  response: Type.Object({ anchor: AnchorSchema, holdings: HoldingsSchema }),
  errors: INDEX_ERRORS,
  handler: ({ index, query }) => {
    const r = readRole(index, 'main', (rc) => holdingsOf(rc, query.address));
    return { anchor: anchorJson(r.anchor), holdings: r.value };
  },
});

export const bundles = defineEndpoint({
  ...scanHead('scan.bundles', '/v1/bundles', 'GET'),
  summary:
    "A token's bundles (same-block buyers funded by one funder) with share of supply and evidence edges (free)",
  query: { token: AddressInput('the token') },
  response: Type.Object({ anchor: AnchorSchema, bundles: BundlesSchema }),
  errors: INDEX_ERRORS,
  handler: ({ index, query }) => {
    const r = readRole(index, 'main', (rc) => {
      rc.readers.tokens.token(rc.view, query.token, rc.anchor.block); // 404 when not indexed
      return bundlesOf(rc, query.token);
    });
    return { anchor: anchorJson(r.anchor), bundles: r.value };
  },
});

export const detectEndpoint = defineEndpoint({
  ...scanHead('scan.detect', '/v1/detect', 'GET'),
  summary:
    'Launch manipulation evidence: bundles, snipers, fresh wallets — each flag with its rule and inputs (free)',
  query: {
    token: AddressInput('the token'),
    sniperBlocks: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100,
        default: SNIPER_BLOCKS,
        description: `blocks after the launch a buy counts as sniping (default ${SNIPER_BLOCKS})`,
      }),
    ),
    freshBlocks: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100_000,
        default: FRESH_BLOCKS,
        description: `blocks before its first buy a wallet counts as fresh when first seen (default ${FRESH_BLOCKS})`,
      }),
    ),
  },
  response: Type.Object({ anchor: AnchorSchema, detection: DetectionSchema }),
  errors: INDEX_ERRORS,
  handler: ({ index, query }) => {
    const r = readRole(index, 'main', (rc) =>
      detect(rc, query.token, query.sniperBlocks ?? SNIPER_BLOCKS, query.freshBlocks ?? FRESH_BLOCKS),
    );
    return { anchor: anchorJson(r.anchor), detection: r.value };
  },
});

export const identities = defineEndpoint({
  ...scanHead('scan.identities', '/v1/identities', 'GET'),
  summary: 'Labels and kind of an address, each with its evidence source (free)',
  description:
    'Labels come only with evidence (LABELS_FILE, the token registry, the pool registry, launchpad and markets configuration, token creations); an empty list means no evidence, not a verdict. The kind is decided by the index (created, emitted logs, originated a transaction), or by eth_getCode at the anchor block for an address seen only as a recipient.',
  query: { address: AddressInput('the address') },
  response: Type.Object({
    anchor: AnchorSchema,
    identity: Type.Object({
      address: Address(),
      kind: Type.Union([Type.Literal('EOA'), Type.Literal('contract'), Type.Literal('unobserved')]),
      kindEvidence: Type.String(),
      labels: Type.Array(LabelSchema),
      entity: Nullable(
        Type.String({ description: 'the entity named by a LABELS_FILE label `entity:<name>`' }),
      ),
      firstSeen: Nullable(WalletFirstSeenSchema),
      firstSeenReason: Nullable(Type.Literal('not_observed')),
    }),
  }),
  errors: INDEX_ERRORS,
  handler: async ({ index, query }) => {
    const r = readRole(index, 'main', (rc) =>
      rc.readers.addresses.summary(rc.view, query.address, rc.anchor.block),
    );
    const s = await r.value;
    const entity = s.labels.find((l) => l.label.startsWith('entity:'))?.label.slice('entity:'.length) ?? null;
    return {
      anchor: anchorJson(r.anchor),
      identity: {
        address: s.address,
        kind: s.kind,
        kindEvidence: s.kindEvidence,
        labels: s.labels,
        entity,
        firstSeen: s.firstSeen,
        firstSeenReason: s.firstSeenReason,
      },
    };
  },
});
