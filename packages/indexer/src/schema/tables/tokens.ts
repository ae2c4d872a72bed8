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
import { tableDeclarer } from '../table.js';

const O = 'tokens';
const table = tableDeclarer(O);

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

export const TOKEN = table(0x20, 'token', [K.address], ['token'], V.json<TokenRow>(), 'token registry row');
// biome-ignore format: the registry keeps one table a line
export const TOKEN_BY_COORD = table(0x21, 'by_coordinate', [K.u64, K.u32, K.u32, K.address], ['block', 'txIndex', 'logIndex', 'token'], V.empty, 'catalogue order: first-seen coordinate (logIndex 0xffffffff for a creation)');
// biome-ignore format: the registry keeps one table a line
export const CREATOR_TOKEN = table(0x22, 'by_creator', [K.address, K.u64, K.u32, K.address], ['deployer', 'block', 'txIndex', 'token'], V.empty, 'tokens by deployer and creation coordinate');
// biome-ignore format: the registry keeps one table a line
export const STATS = table(0x23, 'stats', [K.address], ['token'], V.json<TokenStats>(), 'per-token counters (current)');
// biome-ignore format: the registry keeps one table a line
export const STATS_HIST = table(0x24, 'stats_history', [K.address, K.u64], ['token', 'block'], V.json<TokenStats>(), 'per-token counters as of the end of each block that changed them', { insertOnly: true });
// biome-ignore format: the registry keeps one table a line
export const BALANCE = table(0x25, 'balance', [K.address, K.address], ['token', 'wallet'], V.decimal, 'signed running sum of transfers (R9), base units (current; absent = 0)');
// biome-ignore format: the registry keeps one table a line
export const BALANCE_HIST = table(0x26, 'balance_history', [K.address, K.address, K.u64], ['token', 'wallet', 'block'], V.decimal, 'balance at the end of each block that changed it', { insertOnly: true });
// biome-ignore format: the registry keeps one table a line
export const HOLDER_CUR = table(0x27, 'holders_by_balance', [K.address, K.u256Desc, K.address], ['token', 'balanceDesc', 'wallet'], V.u64, 'positive non-sink balances, balance descending; value = fromBlock');
// biome-ignore format: the registry keeps one table a line
export const HOLDER_HIST = table(0x28, 'holders_by_balance_history', [K.address, K.u256Desc, K.address, K.u64], ['token', 'balanceDesc', 'wallet', 'fromBlock'], V.u64, 'retired versions of holders_by_balance; value = toBlock', { insertOnly: true });
// biome-ignore format: the registry keeps one table a line
export const HOLDER_ID_CUR = table(0x29, 'holders_by_wallet_id', [K.address, K.u64], ['token', 'walletId'], versionedBalance, 'every non-zero balance in interned wallet-id order; value = fromBlock + balance');
// biome-ignore format: the registry keeps one table a line
export const HOLDER_ID_HIST = table(0x2a, 'holders_by_wallet_id_history', [K.address, K.u64, K.u64], ['token', 'walletId', 'fromBlock'], versionedBalance, 'retired versions of holders_by_wallet_id; value = toBlock + balance', { insertOnly: true });
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
    // Array elements are read left to right: the fields in their byte order.
    const [block, txIndex, logIndex, txHash, from, to] = [
      u.u64(),
      u.u32(),
      u.u32(),
      u.hex(32),
      u.hex(20),
      u.hex(20),
    ];
    const kind = TRANSFER_KINDS[u.u8()];
    return { block, txIndex, logIndex, txHash, from, to, value: u.uint(), kind };
  },
);

// biome-ignore format: the registry keeps one table a line
export const TRANSFER = table(0x2b, 'transfer', [K.address, K.u64, K.u32], ['token', 'block', 'logIndex'], transferRow, 'transfers of a token in chain order');
// biome-ignore format: the registry keeps one table a line
export const AUTHORITY = table(0x2c, 'authority_event', [K.address, K.u64, K.u32], ['token', 'block', 'logIndex'], V.json<AuthorityEvent>(), 'privileged-action log shapes of a token in chain order');
// biome-ignore format: the registry keeps one table a line
export const SEARCH = table(0x2d, 'search', [K.u8, K.textz, K.address], ['kind', 'term', 'token'], V.empty, 'search terms: kind 1 symbol, 2 name; lowercase term (≤ 64 bytes)');
// biome-ignore format: the registry keeps one table a line
export const WALLET_ID = table(0x2e, 'wallet_id', [K.address], ['wallet'], V.u64, 'interned wallet ids in first-seen order');
// biome-ignore format: the registry keeps one table a line
export const WALLET_BY_ID = table(0x2f, 'wallet_by_id', [K.u64], ['walletId'], V.hex, 'wallet of an interned id');
// biome-ignore format: the registry keeps one table a line
export const COUNTER = table(0x30, 'counter', [K.textTail], ['name'], V.u64, 'named counters (next wallet id)');
// biome-ignore format: the registry keeps one table a line
export const LAUNCH_HIST = table(0x31, 'launch_history', [K.address, K.u64], ['token', 'block'], V.json<LaunchRow>(), 'launch state as of the end of each block that changed it');
// biome-ignore format: the registry keeps one table a line
export const LAUNCH_LAST = table(0x34, 'launch_last', [K.address], ['token'], V.u64, 'block of the latest launch_history row of a launched token (a point read for ingest)');
// biome-ignore format: the registry keeps one table a line
export const PAD_LAUNCH = table(0x32, 'launchpad_launch', [K.u16, K.u64, K.u32], ['launchpad', 'block', 'logIndex'], V.hex, 'launches of a registered launchpad (by its index) in chain order');
// biome-ignore format: the registry keeps one table a line
export const RECON = table(0x33, 'reconciliation', [K.address], ['token'], V.json<Reconciliation>(), 'last reconciliation verdict of a token against the node (observation, outside block batches)', { kind: 'observation' });

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
