/**
 * ERC-20 metadata probing with the typed absence vocabulary shared by indexed metadata (issue D)
 * and the live probe route. Sources: `eth_call` of `name()`, `symbol()`, `decimals()`,
 * `totalSupply()` at one block number, and `eth_getCode` at the same block.
 *
 * A field is `{value, reason, encoding}`: `value` null always carries a reason (R7).
 */
import { decodeAbiParameters, type Hex, hexToBytes, keccak256 } from 'viem';
import type { AbsenceReason, MetaField, TokenMetadata } from '../schema/rows/tokens.js';
import type { Rpc } from './client.js';
import { RpcError } from './client.js';

const SELECTORS = {
  name: '0x06fdde03',
  symbol: '0x95d89b41',
  decimals: '0x313ce567',
  totalSupply: '0x18160ddd',
} as const;
const utf8 = new TextDecoder('utf-8', { fatal: true });

const absent = <T>(reason: AbsenceReason, raw?: Hex): MetaField<T> => ({
  value: null,
  reason,
  encoding: null,
  ...(raw ? { raw } : {}),
});

/** Decodes a `string`-or-`bytes32` return value. */
export function decodeStringReturn(data: Hex): MetaField<string> {
  if (data === '0x') return absent('empty_return');
  const bytes = hexToBytes(data);
  if (bytes.length >= 64) {
    try {
      const [s] = decodeAbiParameters([{ type: 'bytes' }], data);
      try {
        return { value: utf8.decode(hexToBytes(s)), reason: null, encoding: 'string' };
      } catch {
        return absent('non_utf8', data);
      }
    } catch {
      // not an ABI string: fall through to bytes32
    }
  }
  if (bytes.length === 32) {
    let end = 32;
    while (end > 0 && bytes[end - 1] === 0) end--;
    try {
      return { value: utf8.decode(bytes.subarray(0, end)), reason: null, encoding: 'bytes32' };
    } catch {
      return absent('non_utf8', data);
    }
  }
  return absent('undecodable', data);
}

function decodeUint(data: Hex): bigint | null {
  if (data === '0x' || data.length < 66) return null;
  return BigInt(data.slice(0, 66));
}

async function call(
  rpc: Rpc,
  to: string,
  data: string,
  block: string,
): Promise<{ ok: true; data: Hex } | { ok: false }> {
  try {
    return { ok: true, data: await rpc.call<Hex>('eth_call', [{ to, data }, block]) };
  } catch (err) {
    // A revert is an answer (the method is missing or failing); anything else is a node failure.
    if (
      err instanceof RpcError &&
      !err.retryable &&
      /revert|execution|invalid opcode|3/i.test(`${err.code} ${err.message}`)
    ) {
      return { ok: false };
    }
    throw err;
  }
}

/**
 * Probes ERC-20 metadata of `address` at `blockTag` (a hex block number).
 * @throws RpcError when the node cannot answer (timeouts, 5xx) — callers answer 503.
 */
export async function probeTokenMetadata(
  rpc: Rpc,
  address: string,
  blockTag: string,
): Promise<TokenMetadata> {
  const code = await rpc.call<Hex>('eth_getCode', [address, blockTag]);
  if (code === '0x') {
    return {
      name: absent('no_code'),
      symbol: absent('no_code'),
      decimals: absent('no_code'),
      totalSupply: absent('no_code'),
      codeHash: null,
    };
  }
  const [n, s, d, t] = await Promise.all(
    [SELECTORS.name, SELECTORS.symbol, SELECTORS.decimals, SELECTORS.totalSupply].map((sel) =>
      call(rpc, address, sel, blockTag),
    ),
  );
  const str = (r: typeof n) => (r.ok ? decodeStringReturn(r.data) : absent<string>('reverted'));
  /** A uint return as a field: absent when it reverted, returned nothing or does not decode. */
  const uint = <T>(r: typeof d, field: (v: bigint, raw: Hex) => MetaField<T>): MetaField<T> => {
    if (!r.ok) return absent('reverted');
    if (r.data === '0x') return absent('empty_return');
    const v = decodeUint(r.data);
    return v === null ? absent<T>('undecodable', r.data) : field(v, r.data);
  };
  const decimals = uint<number>(d, (v, raw) =>
    v > 255n ? absent<number>('out_of_range', raw) : { value: Number(v), reason: null, encoding: null },
  );
  const totalSupply = uint<string>(t, (v) => ({ value: v.toString(), reason: null, encoding: null }));
  return { name: str(n), symbol: str(s), decimals, totalSupply, codeHash: keccak256(code) };
}

/**
 * {@link probeTokenMetadata}, but a node that cannot answer at that block (pruned state, invalid
 * block for its history) yields typed absence instead of an error, so ingest never stalls on a
 * metadata probe. Retryable failures (timeouts, 5xx) still throw: the block is retried.
 */
export async function probeTokenMetadataOrAbsent(
  rpc: Rpc,
  address: string,
  blockTag: string,
): Promise<TokenMetadata> {
  try {
    return await probeTokenMetadata(rpc, address, blockTag);
  } catch (err) {
    if (err instanceof RpcError && err.retryable) throw err;
    const a = absent<never>('node_state_unavailable');
    return { name: a, symbol: a, decimals: a, totalSupply: a, codeHash: null };
  }
}
