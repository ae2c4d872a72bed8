/**
 * Response schemas of the live RPC routes. A live answer is read from the node, not the index:
 * its `anchor` is the node block every read was pinned to (observed first, then read by hash,
 * EIP-1898), so R1 holds (one canonical pair, every value read at that block) but the pair is the
 * node's view, which may be ahead of the index head other routes anchor to, or on a fork the index
 * has not followed yet. `source: "node"` says so on every body.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import type { AbsenceReason } from '../../../schema/rows/tokens.js';
import { Enum, Hash, Nullable, Obj, ReasonOf } from '../../schemas.js';

/** The node block a live answer was pinned to. */
export const NodeAnchor = Obj(
  {
    block: Type.Integer({
      minimum: 0,
      description: "the node's latest block number when the request observed it",
    }),
    hash: Hash,
  },
  {
    description:
      "R1 anchor of a live answer: the node block observed first, at which every read of the answer was made by hash (EIP-1898); the node's view, not the index head (it may be ahead of the anchors of index routes)",
  },
);

/** `{anchor, source: "node", data}`. */
export const Live = (data: TSchema) =>
  Obj({
    anchor: NodeAnchor,
    source: Type.Literal('node', { description: 'read through to the node, bypassing the index' }),
    data,
  });

/** The typed absence vocabulary of token metadata (src/rpc/token-metadata.ts), indexed and live alike. */
export const ABSENCE = [
  'no_code',
  'reverted',
  'empty_return',
  'undecodable',
  'non_utf8',
  'out_of_range',
  'node_state_unavailable',
] as const satisfies readonly AbsenceReason[];
type Missing = Exclude<AbsenceReason, (typeof ABSENCE)[number]>;
const _every: Missing extends never ? true : never = true;
void _every;

/** One probed metadata field `{value, reason, encoding, raw?}`. */
export const MetaField = (value: TSchema, what: string) =>
  Obj(
    {
      value: Nullable(value, `${what}; null with a reason when the probe could not answer it`),
      reason: ReasonOf(
        ABSENCE,
        'no_code: no contract at that block; reverted: the call reverted; empty_return: it returned no data; undecodable: the data fits neither ABI string nor bytes32; non_utf8: the string is not valid UTF-8 (raw kept); out_of_range: decimals above 255; node_state_unavailable: the node cannot call at that block; null when value is set',
      ),
      encoding: Nullable(
        Enum(['string', 'bytes32']),
        'how a string was encoded (ABI string, or bytes32 as MKR does); null for numbers and absent values',
      ),
      raw: Type.Optional(
        Type.String({
          pattern: '^0x[0-9a-fA-F]*$',
          description: 'return data kept when it could not be decoded',
        }),
      ),
    },
    { description: what },
  );
