/**
 * Authority events: privileged-action log shapes of a token, evidence only (no verdict):
 * `OwnershipTransferred(previousOwner, newOwner)` emitted by a registered token, and mints outside
 * the token's creation transaction (`Transfer(0x0, to, value)` after creation).
 */
import type { EventDelta } from '../../schema/delta.js';
import type { TokenRow } from '../../schema/rows/tokens.js';
import { AUTHORITY } from '../../schema/tables/tokens.js';
import { coordOf, type TokensBlock, tokenOf } from './block.js';

type Hex = `0x${string}`;

/** `OwnershipTransferred` of a registered token. */
export function onOwnershipTransferred(b: TokensBlock, e: EventDelta): void {
  if (!tokenOf(b, e.address)) return;
  b.batch.put(AUTHORITY, [e.address as Hex, b.d.number, e.logIndex], {
    kind: 'ownership_transferred',
    ...coordOf(b, e.txIndex, e.logIndex),
    previousOwner: String(e.args.previousOwner),
    newOwner: String(e.args.newOwner),
  });
}

/** A mint (`from` = 0x0) outside the token's creation transaction is a post-creation mint. */
export function checkPostCreationMint(
  b: TokensBlock,
  t: TokenRow,
  e: EventDelta,
  to: string,
  value: bigint,
): void {
  if (!t.creation || (t.creation.block === b.d.number && t.creation.txIndex === e.txIndex)) return;
  b.batch.put(AUTHORITY, [t.address as Hex, b.d.number, e.logIndex], {
    kind: 'post_creation_mint',
    ...coordOf(b, e.txIndex, e.logIndex),
    to,
    value: value.toString(),
  });
}
