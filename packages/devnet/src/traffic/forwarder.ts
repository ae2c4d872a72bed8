/**
 * Traffic on the project's ValueForwarder and plain contract creations: `split` of ETH to 2–5
 * wallets (internal value transfers), `spawn` of a child contract by the forwarder — CREATE for
 * the zero salt, CREATE2 otherwise (`Spawned`) — that pays a wallet, and top-level creations of the compiled `Child` contract (constructor with
 * value). Exercises internal transactions (call traces) and contract-creation indexing.
 */
import { encodeDeployData, keccak256, toHex } from 'viem';
import { forwarderAbi } from '../abis.js';
import type { TrafficGenerator } from './generator.js';

/** Constructor of the compiled `Child` contract: (uint256 t, address p), payable. */
const CHILD_ABI = [
  {
    type: 'constructor',
    inputs: [
      { name: 't', type: 'uint256' },
      { name: 'p', type: 'address' },
    ],
    stateMutability: 'payable',
  },
] as const;

/** 0.01–1 ETH split between 2–5 other wallets. */
export async function forwardSplit(g: TrafficGenerator) {
  const x = g.wallet();
  const n = 2 + Math.floor(g.rnd() * 4);
  const recips = Array.from({ length: n }, () => g.other(x).w.address);
  return g.call(
    'forwarder-split',
    x.w,
    g.d.contracts.valueForwarder,
    forwarderAbi,
    'split',
    [recips],
    60_000n + 40_000n * BigInt(n),
    BigInt(Math.floor(g.range(0.01, 1) * 1e6)) * 10n ** 12n,
  );
}

/** A child spawned by the forwarder with 0.01 ETH: half by CREATE (zero salt), half by CREATE2 (a fresh salt). */
export async function forwardSpawn(g: TrafficGenerator) {
  const x = g.wallet();
  const salt =
    g.rnd() < 0.5 ? `0x${'0'.repeat(64)}` : keccak256(toHex(`${x.w.address}:${x.w.nonce}:${g.input.seed}`));
  return g.call(
    'forwarder-spawn',
    x.w,
    g.d.contracts.valueForwarder,
    forwarderAbi,
    'spawn',
    [salt, g.other(x).w.address],
    400_000n,
    10n ** 16n,
  );
}

/** A top-level creation of `Child` (a forwarder spawn without its bytecode), half with value. */
export async function deploy(g: TrafficGenerator) {
  const x = g.wallet();
  if (!g.childBytecode) return forwardSpawn(g);
  const data = encodeDeployData({
    abi: CHILD_ABI,
    bytecode: g.childBytecode,
    args: [BigInt(g.sent), g.other(x).w.address],
  });
  return g.tx('contract-deploy', x.w, undefined, data, 400_000n, g.rnd() < 0.5 ? 10n ** 15n : 0n);
}
