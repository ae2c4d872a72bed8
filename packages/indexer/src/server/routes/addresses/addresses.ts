/**
 * Address routes: kind (EOA, contract, unobserved) with evidence, labels (published only where
 * evidence exists) and a summary. The kind rule and the label evidence live in the addresses
 * reader (src/addresses/reader.ts); a recipient-only address is typed by its runtime code at the
 * anchor block (eth_getCode by block hash), and the answer says so.
 */

import { Type } from '@sinclair/typebox';
import { defineRoute, single } from '../../route.js';
import { singleRoute } from '../../route-shapes.js';
import { Address, Enum, Nullable, Obj, ReasonOf, Single } from '../../schemas.js';
import { FirstSeen } from '../wallets/schemas.js';

const WALLETS = 'wallets';
const Kind = Enum(['EOA', 'contract', 'unobserved']);
const Evidence = Type.String({
  description:
    'evidence code: created_in_block_<n>, emitted_logs_since_block_<n>, token_creation_observed, originated_transaction_in_block_<n>, never_seen_in_the_index, or "seen_as_recipient_only; code_at_anchor|no_code_at_anchor (eth_getCode)"',
});
const Label = Obj({
  label: Type.String({
    description:
      'a LABELS_FILE label, or token, token_candidate, pool, launchpad:<name>, pool_factory, pool_manager, deployer',
  }),
  evidence: Type.String({
    description: 'where the label comes from (labels_file, configuration, or the indexed fact)',
  }),
});
const ObservedAt = (what: string) =>
  Nullable(Type.Integer({ minimum: 0 }), `first block ${what}; null: not observed as of the anchor`);

export const addressTypeRoute = defineRoute({
  id: 'addresses.type',
  method: 'GET',
  path: '/address/{address}/type',
  scope: 'read',
  group: 'Addresses',
  summary:
    'EOA, contract or unobserved, with the evidence (created in the index, emitted logs, originated a transaction; recipients only: runtime code at the anchor via eth_getCode).',
  params: { address: Address },
  response: Single(Obj({ address: Address, type: Kind, evidence: Evidence })),
  errors: ['node_unavailable'],
  requires: [WALLETS, 'tokens'],
  batchable: false,
  anchored: true,
  kind: 'node',
  async handler(ctx) {
    const a = ctx.params.address.toLowerCase();
    const k = await ctx.readers.addresses.kind(ctx.view, a, ctx.anchor.number);
    return single(ctx.anchor, JSON.stringify({ address: a, ...k }));
  },
});

export const addressLabelRoute = singleRoute({
  id: 'addresses.label',
  path: '/address/{address}/label',
  scope: 'read',
  group: 'Addresses',
  summary:
    'Labels published only where evidence exists: LABELS_FILE entries, and what the index proves (token, pool, launchpad, pool factory/manager, deployer), each with its evidence. An empty list means no evidence, not a verdict.',
  params: { address: Address },
  data: Obj({ address: Address, labels: Type.Array(Label) }),
  errors: [],
  requires: [WALLETS, 'tokens', 'markets'],
  read(ctx) {
    const a = ctx.params.address.toLowerCase();
    const labels = ctx.readers.addresses.labels(ctx.view, a, ctx.anchor.number);
    return { address: a, labels };
  },
});

export const addressSummaryRoute = defineRoute({
  id: 'addresses.summary',
  method: 'GET',
  path: '/addresses/{address}',
  scope: 'read',
  group: 'Addresses',
  summary:
    'Summary: kind (EOA, contract, unobserved) with evidence, labels, first seen, and observation blocks (first originated, created, first emitted).',
  params: { address: Address },
  response: Single(
    Obj({
      address: Address,
      kind: Kind,
      kindEvidence: Evidence,
      labels: Type.Array(Label),
      firstSeen: Nullable(FirstSeen, 'see firstSeenReason'),
      firstSeenReason: ReasonOf(['not_observed'], 'not_observed: not in the index at the anchor'),
      observations: Obj({
        origin: ObservedAt('it originated a transaction'),
        created: ObservedAt('it was created (successful creation)'),
        emitted: ObservedAt('it emitted a log'),
      }),
    }),
  ),
  errors: ['node_unavailable'],
  requires: [WALLETS, 'tokens', 'markets'],
  anchored: true,
  kind: 'node',
  async handler(ctx) {
    const s = await ctx.readers.addresses.summary(ctx.view, ctx.params.address, ctx.anchor.number);
    return single(ctx.anchor, JSON.stringify(s));
  },
});
