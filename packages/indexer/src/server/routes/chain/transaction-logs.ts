import { Type } from '@sinclair/typebox';
import { CHAIN_LOGS } from '../../../schema/cursors.js';
import { PageBuilder, pageQueryOf, pageRequest } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Hash, Nullable, Paged, pageQuery } from '../../schemas.js';
import { proofFields } from './proof.js';
import { LogRecord, LogsProof, ProofReason, proofQuery } from './schemas.js';

const raw = (json: string) => json;

/**
 * GET /transactions/{hash}/logs (PAGE, key: log index): the transaction's logs as the node sent
 * them; with `?proof=true`, the Merkle proof of their receipt against the block header (proof.ts).
 */
export const transactionLogsRoute = defineRoute({
  id: 'chain.transactionLogs',
  method: 'GET',
  path: '/transactions/{hash}/logs',
  scope: 'read',
  group: 'Chain',
  summary:
    'Logs of one transaction by log index (byte-exact node records); ?proof=true adds the Merkle proof of their receipt against the block header. PAGE, limit 1..1000 default 100.',
  params: { hash: Hash },
  query: { ...pageQuery(), ...proofQuery },
  response: Paged(LogRecord, {
    proof: Type.Optional(
      Nullable(
        LogsProof,
        "with ?proof=true: the proof of the logs' receipt in the receipts trie of its block (each log is the receipt's log at logIndex − firstLogIndex)",
      ),
    ),
    proofReason: Type.Optional(ProofReason),
  }),
  errors: ['not_found'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const req = pageRequest(ctx, CHAIN_LOGS.tag(this.id, ctx.params.hash.toLowerCase()));
    const page = new PageBuilder(ctx, req);
    ctx.readers.chain.transactionLogs(ctx.view, ctx.params.hash, pageQueryOf(req), page.sink(raw));
    if (!ctx.query.proof) return page.finish();
    const p = proofFields(ctx, 'receipts');
    const firstLogIndex = ctx.readers.chain.txLocation(
      ctx.view,
      ctx.anchor.number,
      ctx.params.hash,
    ).firstLogIndex;
    const proof = p.proof && { ...p.proof, firstLogIndex };
    return page.finish(JSON.stringify({ proof, proofReason: p.proofReason }).slice(1, -1));
  },
});
