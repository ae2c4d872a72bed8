/**
 * The contract scan: runtime code hash, EIP-1967 proxy slots, creator and creation coordinate,
 * whether a verified ABI is present, privileged selectors present in the code, and authority
 * events. Index reads (creation, authority events) come from the view; code and storage are node
 * reads pinned to the anchor block's hash (chain reader `live.contractAt`).
 *
 * Privileged selectors (rule {@link SELECTOR_RULE}): the 4-byte selectors of known privileged
 * functions found as PUSH4 immediates in the runtime code (how Solidity and Vyper dispatchers
 * compare the call's selector). Presence is evidence a function exists, not that it is callable
 * by anyone in particular, and a proxy's own code does not hold its implementation's selectors.
 */

import type { AuthorityEvent } from '@chain-indexer/indexer/types';
import { type Hex, toFunctionSelector } from 'viem';
import type { ReadCtx } from '../index-port.js';
import { collect } from './common.js';

/** EIP-1967 slots: keccak256('eip1967.proxy.<name>') − 1. */
export const EIP1967 = {
  implementation: '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc',
  admin: '0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103',
  beacon: '0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50',
} as const satisfies Record<string, Hex>;

/** Known privileged functions by category (signatures; selectors computed once). */
const PRIVILEGED: Record<string, string[]> = {
  mint: ['mint(address,uint256)', 'mint(uint256)', 'mintTo(address,uint256)'],
  pause: ['pause()', 'unpause()'],
  blacklist: [
    'blacklist(address)',
    'addToBlacklist(address)',
    'setBlacklist(address,bool)',
    'blockAccount(address)',
  ],
  fees: [
    'setFee(uint256)',
    'setFees(uint256,uint256)',
    'setTaxFee(uint256)',
    'setBuyFee(uint256)',
    'setSellFee(uint256)',
  ],
  ownership: ['transferOwnership(address)', 'renounceOwnership()'],
  upgrade: ['upgradeTo(address)', 'upgradeToAndCall(address,bytes)'],
};
const SELECTORS = Object.entries(PRIVILEGED).flatMap(([category, sigs]) =>
  sigs.map((signature) => ({ category, signature, selector: toFunctionSelector(signature) as Hex })),
);

export const SELECTOR_RULE =
  'a privileged function is present when its 4-byte selector appears as a PUSH4 immediate in the runtime code at the anchor block (evidence that the function exists; who may call it is not decided here)';

/** PUSH4 immediates of EVM bytecode, walking opcodes (push data is skipped, never read as opcodes). */
export function push4Immediates(code: Hex): Set<string> {
  const b = Buffer.from(code.slice(2), 'hex');
  const out = new Set<string>();
  for (let i = 0; i < b.length; i++) {
    const op = b[i];
    if (op >= 0x60 && op <= 0x7f) {
      const n = op - 0x5f;
      if (op === 0x63 && i + 4 < b.length + 1) out.add(`0x${b.subarray(i + 1, i + 5).toString('hex')}`);
      i += n;
    }
  }
  return out;
}

/** An address held in a storage word (its low 20 bytes), or null for a zero word. */
const addressIn = (word: Hex): string | null => {
  const w = BigInt(word);
  return w === 0n ? null : `0x${w.toString(16).padStart(64, '0').slice(24)}`;
};

export interface ContractScan {
  address: string;
  isContract: boolean;
  codeHash: Hex | null;
  codeSize: number;
  proxy: {
    rule: string;
    implementation: string | null;
    admin: string | null;
    beacon: string | null;
    slots: Record<string, { slot: Hex; value: Hex }>;
  };
  creation: {
    deployer: string | null;
    block: number | null;
    txIndex: number | null;
    txHash: string | null;
    via: 'transaction' | 'launchpad' | null;
    reason: 'creation_not_observed' | null;
  };
  verifiedAbi: { present: boolean; names: string[] };
  privilegedSelectors: {
    rule: string;
    found: Array<{ category: string; signature: string; selector: Hex }>;
  };
  authorityEvents: { rows: AuthorityEvent[]; complete: boolean };
}

/** Transactions of the creation block examined at most to find a top-level creation's sender. */
const CREATION_TX_SCAN = 2000;

/** The deployer and coordinate of `a`: the token registry's record, else the creating top-level tx. */
function creationOf(rc: ReadCtx, a: string): ContractScan['creation'] {
  const at = rc.anchor.block;
  const t = rc.readers.tokens.find(rc.view, a, at);
  if (t?.creation)
    return {
      deployer: t.creation.deployer.toLowerCase(),
      block: t.creation.block,
      txIndex: t.creation.txIndex,
      txHash: t.creation.txHash,
      via: t.creation.via,
      reason: null,
    };
  const none = {
    deployer: null,
    block: null,
    txIndex: null,
    txHash: null,
    via: null,
    reason: 'creation_not_observed' as const,
  };
  const created = rc.readers.addresses.observations(rc.view, a, at).created;
  if (created === null) return none;
  const txs = collect<string>(
    (q, sink) => rc.readers.chain.blockTransactions(rc.view, created, q, sink),
    at,
    CREATION_TX_SCAN,
  );
  for (const raw of txs.rows) {
    const tx = JSON.parse(raw) as { hash: string; from: string; to: string | null; transactionIndex: string };
    if (tx.to !== null) continue;
    const rcpt = JSON.parse(rc.readers.chain.receipt(rc.view, at, tx.hash).raw) as {
      contractAddress?: string | null;
    };
    if (rcpt.contractAddress?.toLowerCase() === a)
      return {
        deployer: tx.from.toLowerCase(),
        block: created,
        txIndex: Number(tx.transactionIndex),
        txHash: tx.hash,
        via: 'transaction',
        reason: null,
      };
  }
  return { ...none, block: created };
}

/**
 * Scans contract `address`: index reads now, then the node reads (code and proxy slots at the
 * anchor block). Returns a promise; the view is used only before its first await.
 */
export function contractScan(rc: ReadCtx, address: string): Promise<ContractScan> {
  const a = address.toLowerCase();
  const at = rc.anchor.block;
  const creation = creationOf(rc, a);
  const auth = rc.readers.tokens.find(rc.view, a, at)
    ? collect<AuthorityEvent>((q, sink) => rc.readers.tokens.authorityEvents(rc.view, a, q, sink), at, 100)
    : { rows: [], more: false };
  const names = rc.config.verifiedAbis.filter((v) => v.address === a).map((v) => v.name);
  const node = rc.readers.chain.live.contractAt(rc.view, at, a, at, Object.values(EIP1967));
  return node.then(({ observation, code, storage }) => {
    const pushed = push4Immediates(code);
    const slots = Object.fromEntries(
      Object.entries(EIP1967).map(([k, slot]) => [k, { slot, value: storage[slot] }]),
    );
    return {
      address: a,
      isContract: observation.isContract,
      codeHash: observation.codeHash,
      codeSize: observation.codeSize,
      proxy: {
        rule: 'EIP-1967: the implementation, admin and beacon slots read with eth_getStorageAt at the anchor block; a non-zero slot names an address',
        implementation: addressIn(storage[EIP1967.implementation]),
        admin: addressIn(storage[EIP1967.admin]),
        beacon: addressIn(storage[EIP1967.beacon]),
        slots,
      },
      creation,
      verifiedAbi: { present: names.length > 0, names },
      privilegedSelectors: { rule: SELECTOR_RULE, found: SELECTORS.filter((s) => pushed.has(s.selector)) },
      authorityEvents: { rows: auth.rows, complete: !auth.more },
    };
  });
}
