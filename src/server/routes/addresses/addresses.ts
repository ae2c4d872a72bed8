/**
 * Address routes: type (EOA, contract, unobserved), labels (published only where evidence
 * exists) and a summary. Evidence, in order: created in the index (receipt contractAddress or a
 * launch), emitted logs (only contracts emit logs), originated a transaction (only EOAs sign).
 * An address seen only as a recipient is typed by its runtime code at the anchor block
 * (eth_getCode), and the answer says so.
 */
import { Type } from '@sinclair/typebox';
import type { Hex } from 'viem';
import { poolAt } from '../../../markets/read.js';
import { poolKeyOf } from '../../../markets/tables.js';
import { prefixEnd } from '../../../storage/keys.js';
import { tokenAt } from '../../../tokens/read.js';
import { TokenTable, tokenPrefix } from '../../../tokens/tables.js';
import { addressKey, firstSeenKey } from '../../../wallets/tables.js';
import { requireProjection } from '../../projections.js';
import { type Ctx, defineRoute, single } from '../../route.js';
import { Address, Single } from '../../schemas.js';
import { guard } from '../rpc/observe.js';

interface Flags {
  origin?: number;
  created?: number;
  emitted?: number;
}

function flagsAt(ctx: Ctx<unknown, unknown>, a: string): Flags {
  const v = ctx.chain.store.rocks.get(addressKey(a));
  const f = v ? (JSON.parse(v.toString()) as Flags) : {};
  const A = ctx.anchor.number;
  return {
    origin: f.origin !== undefined && f.origin <= A ? f.origin : undefined,
    created: f.created !== undefined && f.created <= A ? f.created : undefined,
    emitted: f.emitted !== undefined && f.emitted <= A ? f.emitted : undefined,
  };
}

async function typeOf(
  ctx: Ctx<{ address: string }, unknown>,
): Promise<{ type: 'EOA' | 'contract' | 'unobserved'; evidence: string }> {
  requireProjection(ctx.chain, 'wallets');
  const a = ctx.params.address.toLowerCase();
  const f = flagsAt(ctx, a);
  if (f.created !== undefined) return { type: 'contract', evidence: `created_in_block_${f.created}` };
  if (f.emitted !== undefined) return { type: 'contract', evidence: `emitted_logs_since_block_${f.emitted}` };
  if (tokenAt(ctx.view, a, ctx.anchor.number)?.creation)
    return { type: 'contract', evidence: 'token_creation_observed' };
  if (f.origin !== undefined) return { type: 'EOA', evidence: `originated_transaction_in_block_${f.origin}` };
  const seen = ctx.chain.store.rocks.get(firstSeenKey(a));
  if (!seen) return { type: 'unobserved', evidence: 'never_seen_in_the_index' };
  const code = await guard(
    ctx.chain.rpc.call<Hex>('eth_getCode', [a, `0x${ctx.anchor.number.toString(16)}`]),
  );
  return code === '0x'
    ? { type: 'EOA', evidence: 'seen_as_recipient_only; no_code_at_anchor (eth_getCode)' }
    : { type: 'contract', evidence: 'seen_as_recipient_only; code_at_anchor (eth_getCode)' };
}

function labelsOf(ctx: Ctx<{ address: string }, unknown>): Array<{ label: string; evidence: string }> {
  const a = ctx.params.address.toLowerCase();
  const rocks = ctx.chain.store.rocks;
  const out: Array<{ label: string; evidence: string }> = [];
  for (const l of ctx.chain.labels.get(a) ?? []) out.push({ label: l, evidence: 'labels_file' });
  const t = tokenAt(ctx.view, a, ctx.anchor.number);
  if (t)
    out.push({
      label: t.confirmedAt ? 'token' : 'token_candidate',
      evidence: `first_seen_${t.firstSeen.evidence}_block_${t.firstSeen.block}`,
    });
  if (poolAt(ctx.view, poolKeyOf('v2', a), ctx.anchor.number))
    out.push({ label: 'pool', evidence: 'registered_by_configured_factory' });
  for (const [name, d] of ctx.chain.launchpads) {
    if (d.factories.includes(a) || d.curve === a)
      out.push({ label: `launchpad:${name}`, evidence: 'launchpad_configuration' });
  }
  const m = ctx.chain.markets;
  if (m.v2Factories.includes(a) || m.v3Factories.includes(a))
    out.push({ label: 'pool_factory', evidence: 'markets_configuration' });
  if (m.v4Managers.includes(a)) out.push({ label: 'pool_manager', evidence: 'markets_configuration' });
  const cp = tokenPrefix(TokenTable.CREATOR_TOKEN, a);
  const created = rocks.scan({ gte: cp, lt: prefixEnd(cp), limit: 1 });
  if (created.length)
    out.push({ label: 'deployer', evidence: `created_token_0x${created[0][0].toString('hex', 33, 53)}` });
  return out;
}

export const addressTypeRoute = defineRoute({
  id: 'addresses.type',
  method: 'GET',
  path: '/address/{address}/type',
  scope: 'read',
  group: 'Addresses',
  summary:
    'EOA, contract or unobserved, with the evidence (created in the index, emitted logs, originated a transaction; recipients only: runtime code at the anchor via eth_getCode).',
  params: { address: Address },
  response: Single(
    Type.Object({
      address: Address,
      type: Type.Union([Type.Literal('EOA'), Type.Literal('contract'), Type.Literal('unobserved')]),
      evidence: Type.String(),
    }),
  ),
  errors: ['projection_unavailable', 'node_unavailable'],
  batchable: false,
  anchored: true,
  kind: 'node',
  async handler(ctx) {
    const t = await typeOf(ctx);
    return single(ctx.anchor, JSON.stringify({ address: ctx.params.address.toLowerCase(), ...t }));
  },
});

export const addressLabelRoute = defineRoute({
  id: 'addresses.label',
  method: 'GET',
  path: '/address/{address}/label',
  scope: 'read',
  group: 'Addresses',
  summary:
    'Labels published only where evidence exists: LABELS_FILE entries, and what the index proves (token, pool, launchpad, pool factory/manager, deployer), each with its evidence. An empty list means no evidence, not a verdict.',
  params: { address: Address },
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    requireProjection(ctx.chain, 'wallets');
    return single(
      ctx.anchor,
      JSON.stringify({ address: ctx.params.address.toLowerCase(), labels: labelsOf(ctx) }),
    );
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
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['projection_unavailable', 'node_unavailable'],
  anchored: true,
  kind: 'node',
  async handler(ctx) {
    const a = ctx.params.address.toLowerCase();
    const t = await typeOf(ctx);
    const fs = ctx.chain.store.rocks.get(firstSeenKey(a));
    return single(
      ctx.anchor,
      JSON.stringify({
        address: a,
        kind: t.type,
        kindEvidence: t.evidence,
        labels: labelsOf(ctx),
        firstSeen: fs ? JSON.parse(fs.toString()) : null,
        observations: flagsAt(ctx, a),
      }),
    );
  },
});
