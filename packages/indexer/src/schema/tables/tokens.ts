/**
 * Tables of the tokens projection (ids 0x20–0x33). Addresses are raw 20 bytes, blocks u64
 * big-endian, so every index sorts correctly as bytes.
 *
 * Versioned indices (R2: a walk at an older anchor sees that block's order): a `*_CUR` row holds
 * the current version with its `fromBlock`; when it changes, the old version moves to `*_HIST`
 * keyed by sort key + fromBlock with its `toBlock`. A row is valid at anchor A when
 * fromBlock ≤ A < toBlock.
 */

import { K, prefixEnd, V } from '../codec.js';
import { Packer, Unpacker } from '../pack.js';
import type {
  AuthorityEvent,
  LaunchRow,
  Reconciliation,
  TokenRow,
  TokenStats,
  TransferRow,
} from '../rows/tokens.js';
import { defineTable } from '../table.js';

/** A versioned balance: u64 block (fromBlock of a current row, toBlock of a history row) + decimal balance. */
export interface VersionedBalance {
  block: number;
  balance: bigint;
}

const versionedBalance = V.binary<VersionedBalance>(
  'u64 block + decimal balance',
  (v) => {
    const s = v.balance.toString();
    const b = Buffer.allocUnsafe(8 + s.length);
    K.u64.write(b, 0, v.block);
    b.write(s, 8, 'latin1');
    return b;
  },
  (b) => ({ block: K.u64.read(b, 0, 8)[0], balance: BigInt(b.toString('latin1', 8)) }),
);

const O = 'tokens';

export const TOKEN = defineTable({
  id: 0x20,
  owner: O,
  name: 'token',
  doc: 'token registry row',
  key: [K.address],
  keyNames: ['token'],
  value: V.json<TokenRow>(),
});
export const TOKEN_BY_COORD = defineTable({
  id: 0x21,
  owner: O,
  name: 'by_coordinate',
  doc: 'catalogue order: first-seen coordinate (logIndex 0xffffffff for a creation)',
  key: [K.u64, K.u32, K.u32, K.address],
  keyNames: ['block', 'txIndex', 'logIndex', 'token'],
  value: V.empty,
});
export const CREATOR_TOKEN = defineTable({
  id: 0x22,
  owner: O,
  name: 'by_creator',
  doc: 'tokens by deployer and creation coordinate',
  key: [K.address, K.u64, K.u32, K.address],
  keyNames: ['deployer', 'block', 'txIndex', 'token'],
  value: V.empty,
});
export const STATS = defineTable({
  id: 0x23,
  owner: O,
  name: 'stats',
  doc: 'per-token counters (current)',
  key: [K.address],
  keyNames: ['token'],
  value: V.json<TokenStats>(),
});
export const STATS_HIST = defineTable({
  id: 0x24,
  owner: O,
  name: 'stats_history',
  doc: 'per-token counters as of the end of each block that changed them',
  key: [K.address, K.u64],
  keyNames: ['token', 'block'],
  value: V.json<TokenStats>(),
});
export const BALANCE = defineTable({
  id: 0x25,
  owner: O,
  name: 'balance',
  doc: 'signed running sum of transfers (R9), base units (current; absent = 0)',
  key: [K.address, K.address],
  keyNames: ['token', 'wallet'],
  value: V.decimal,
});
export const BALANCE_HIST = defineTable({
  id: 0x26,
  owner: O,
  name: 'balance_history',
  doc: 'balance at the end of each block that changed it',
  key: [K.address, K.address, K.u64],
  keyNames: ['token', 'wallet', 'block'],
  value: V.decimal,
});
export const HOLDER_CUR = defineTable({
  id: 0x27,
  owner: O,
  name: 'holders_by_balance',
  doc: 'positive non-sink balances, balance descending; value = fromBlock',
  key: [K.address, K.u256Desc, K.address],
  keyNames: ['token', 'balanceDesc', 'wallet'],
  value: V.u64,
});
export const HOLDER_HIST = defineTable({
  id: 0x28,
  owner: O,
  name: 'holders_by_balance_history',
  doc: 'retired versions of holders_by_balance; value = toBlock',
  key: [K.address, K.u256Desc, K.address, K.u64],
  keyNames: ['token', 'balanceDesc', 'wallet', 'fromBlock'],
  value: V.u64,
});
export const HOLDER_ID_CUR = defineTable({
  id: 0x29,
  owner: O,
  name: 'holders_by_wallet_id',
  doc: 'every non-zero balance in interned wallet-id order; value = fromBlock + balance',
  key: [K.address, K.u64],
  keyNames: ['token', 'walletId'],
  value: versionedBalance,
});
export const HOLDER_ID_HIST = defineTable({
  id: 0x2a,
  owner: O,
  name: 'holders_by_wallet_id_history',
  doc: 'retired versions of holders_by_wallet_id; value = toBlock + balance',
  key: [K.address, K.u64, K.u64],
  keyNames: ['token', 'walletId', 'fromBlock'],
  value: versionedBalance,
});
const TRANSFER_KINDS = ['transfer', 'mint', 'burn'] as const;
/**
 * TransferRow packed (schema/pack.ts): block u64, txIndex u32, logIndex u32, txHash 32 bytes,
 * from and to 20 bytes each, kind u8, value (length-prefixed big-endian) — about 100 bytes instead
 * of ~270 of JSON.
 */
const transferRow = V.binary<TransferRow>(
  'TransferRow',
  (r) =>
    new Packer(8 + 4 + 4 + 32 + 40 + 1 + 33)
      .u64(r.block)
      .u32(r.txIndex)
      .u32(r.logIndex)
      .hex(r.txHash, 32)
      .hex(r.from, 20)
      .hex(r.to, 20)
      .u8(TRANSFER_KINDS.indexOf(r.kind))
      .uint(BigInt(r.value))
      .done(),
  (b) => {
    const u = new Unpacker(b);
    const block = u.u64();
    const txIndex = u.u32();
    const logIndex = u.u32();
    const txHash = u.hex(32);
    const from = u.hex(20);
    const to = u.hex(20);
    const kind = TRANSFER_KINDS[u.u8()];
    return { block, txIndex, logIndex, txHash, from, to, value: u.uint(), kind };
  },
);

export const TRANSFER = defineTable({
  id: 0x2b,
  owner: O,
  name: 'transfer',
  doc: 'transfers of a token in chain order',
  key: [K.address, K.u64, K.u32],
  keyNames: ['token', 'block', 'logIndex'],
  value: transferRow,
});
export const AUTHORITY = defineTable({
  id: 0x2c,
  owner: O,
  name: 'authority_event',
  doc: 'privileged-action log shapes of a token in chain order',
  key: [K.address, K.u64, K.u32],
  keyNames: ['token', 'block', 'logIndex'],
  value: V.json<AuthorityEvent>(),
});
export const SEARCH = defineTable({
  id: 0x2d,
  owner: O,
  name: 'search',
  doc: 'search terms: kind 1 symbol, 2 name; lowercase term (≤ 64 bytes)',
  key: [K.u8, K.textz, K.address],
  keyNames: ['kind', 'term', 'token'],
  value: V.empty,
});
export const WALLET_ID = defineTable({
  id: 0x2e,
  owner: O,
  name: 'wallet_id',
  doc: 'interned wallet ids in first-seen order',
  key: [K.address],
  keyNames: ['wallet'],
  value: V.u64,
});
export const WALLET_BY_ID = defineTable({
  id: 0x2f,
  owner: O,
  name: 'wallet_by_id',
  doc: 'wallet of an interned id',
  key: [K.u64],
  keyNames: ['walletId'],
  value: V.hex,
});
export const COUNTER = defineTable({
  id: 0x30,
  owner: O,
  name: 'counter',
  doc: 'named counters (next wallet id)',
  key: [K.textTail],
  keyNames: ['name'],
  value: V.u64,
});
export const LAUNCH_HIST = defineTable({
  id: 0x31,
  owner: O,
  name: 'launch_history',
  doc: 'launch state as of the end of each block that changed it',
  key: [K.address, K.u64],
  keyNames: ['token', 'block'],
  value: V.json<LaunchRow>(),
});
export const LAUNCH_LAST = defineTable({
  id: 0x34,
  owner: O,
  name: 'launch_last',
  doc: 'block of the latest launch_history row of a launched token (a point read for ingest)',
  key: [K.address],
  keyNames: ['token'],
  value: V.u64,
});
export const PAD_LAUNCH = defineTable({
  id: 0x32,
  owner: O,
  name: 'launchpad_launch',
  doc: 'launches of a registered launchpad (by its index) in chain order',
  key: [K.u16, K.u64, K.u32],
  keyNames: ['launchpad', 'block', 'logIndex'],
  value: V.hex,
});
export const RECON = defineTable({
  id: 0x33,
  owner: O,
  name: 'reconciliation',
  doc: 'last reconciliation verdict of a token against the node (observation, outside block batches)',
  key: [K.address],
  keyNames: ['token'],
  value: V.json<Reconciliation>(),
  kind: 'observation',
});

/**
 * Raw key bounds (`from` inclusive, `to` exclusive) of the SEARCH rows of `kind` whose term starts
 * with `termPrefix` (lowercase). Terms are NUL-terminated in the key, so no key-tuple prefix names
 * a term prefix: this byte range does.
 */
export function searchTermRange(kind: 1 | 2, termPrefix: string): { from: Buffer; to: Buffer } {
  const from = Buffer.concat([SEARCH.prefix(kind), Buffer.from(termPrefix)]);
  return { from, to: prefixEnd(from) };
}

/**
 * Raw key bounds of the TOKEN rows whose address starts with the hex digits `hex` (lowercase, no
 * `0x`, at most 40). An odd number of digits names half a byte: the range covers both nibbles.
 */
export function tokenAddressRange(hex: string): { from: Buffer; to: Buffer } {
  const odd = hex.length % 2 === 1;
  const from = Buffer.concat([TOKEN.prefix(), Buffer.from(odd ? `${hex}0` : hex, 'hex')]);
  const hi = Buffer.concat([TOKEN.prefix(), Buffer.from(odd ? `${hex}f` : hex, 'hex')]);
  return { from, to: prefixEnd(hi) };
}

export const TOKENS_TABLES = [
  TOKEN,
  TOKEN_BY_COORD,
  CREATOR_TOKEN,
  STATS,
  STATS_HIST,
  BALANCE,
  BALANCE_HIST,
  HOLDER_CUR,
  HOLDER_HIST,
  HOLDER_ID_CUR,
  HOLDER_ID_HIST,
  TRANSFER,
  AUTHORITY,
  SEARCH,
  WALLET_ID,
  WALLET_BY_ID,
  COUNTER,
  LAUNCH_HIST,
  LAUNCH_LAST,
  PAD_LAUNCH,
  RECON,
];
