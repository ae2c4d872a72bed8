/**
 * The address on every chain the index serves: kind (EOA/contract) with its evidence, first seen,
 * activity counts (transactions, transfers, trades; bounded), runtime code hash at each chain's
 * anchor block (eth_getCode by hash), and which chains share one code hash. Each chain is read at
 * its own anchor; a chain that cannot answer now is listed with its refusal, never dropped.
 */
import { ScannerError } from '../errors.js';
import type { ChainAnchor, IndexPort } from '../index-port.js';
import { collect } from './common.js';
import { readChain } from './read.js';

/** Rows counted at most per activity kind and chain. */
export const ACTIVITY_BOUND = 10_000;

export interface ChainPresence {
  chain: string;
  chainId: number;
  role: 'main' | 'rh' | 'other';
  anchor: ChainAnchor | null;
  /** The refusal of a chain that cannot answer now (INDEX_UNAVAILABLE); null otherwise. */
  unavailable: { code: string; error: string } | null;
  kind: 'EOA' | 'contract' | 'unobserved' | null;
  kindEvidence: string | null;
  firstSeen: { block: number; txHash: string; timestamp: number; evidence: string } | null;
  activity: {
    transactions: { count: number; complete: boolean };
    transfers: { count: number; complete: boolean };
    trades: { count: number; complete: boolean };
  } | null;
  codeHash: string | null;
}

export interface CrossChain {
  address: string;
  chains: ChainPresence[];
  /** Groups of chains (≥ 2) holding the same runtime code hash at their anchors. */
  sameCodeHash: Array<{ codeHash: string; chains: string[] }>;
}

/** The presence of `address` on one chain (see the module rule). */
async function presence(
  index: IndexPort,
  c: { name: string; chainId: number; role: ChainPresence['role'] },
  a: string,
): Promise<ChainPresence> {
  const base = { chain: c.name, chainId: c.chainId, role: c.role };
  try {
    const r = readChain(index, c.name, (rc) => {
      const at = rc.anchor.block;
      const w = rc.readers.wallets;
      const count = (walk: Parameters<typeof collect>[0]) => {
        const x = collect(walk, at, ACTIVITY_BOUND);
        return { count: x.rows.length, complete: !x.more };
      };
      const activity = {
        transactions: count((q, s) => w.transactions(rc.view, a, q, s)),
        transfers: count((q, s) => w.transfers(rc.view, a, q, s)),
        trades: count((q, s) => w.trades(rc.view, a, q, s)),
      };
      let firstSeen: ChainPresence['firstSeen'] = null;
      try {
        const f = w.firstSeen(rc.view, a, at);
        firstSeen = { block: f.block, txHash: f.txHash, timestamp: f.timestamp, evidence: f.evidence };
      } catch (err) {
        if ((err as { code?: string }).code !== 'not_found') throw err;
      }
      // Both node reads take the anchor's canonical hash from the view now, before any await.
      const code = rc.readers.chain.live.codeAt(rc.view, at, a, at);
      const kind = rc.readers.addresses.kind(rc.view, a, at);
      return Promise.all([code, kind]).then(([o, k]) => ({
        activity,
        firstSeen,
        codeHash: o.codeHash,
        kind: k,
      }));
    });
    const v = await r.value;
    return {
      ...base,
      anchor: r.anchor,
      unavailable: null,
      kind: v.kind.type,
      kindEvidence: v.kind.evidence,
      firstSeen: v.firstSeen,
      activity: v.activity,
      codeHash: v.codeHash,
    };
  } catch (err) {
    if (!(err instanceof ScannerError) || err.code !== 'INDEX_UNAVAILABLE') throw err;
    return {
      ...base,
      anchor: null,
      unavailable: { code: err.code, error: err.message },
      kind: null,
      kindEvidence: null,
      firstSeen: null,
      activity: null,
      codeHash: null,
    };
  }
}

/** `address` on every served chain. */
export async function crossChain(index: IndexPort, address: string): Promise<CrossChain> {
  const a = address.toLowerCase();
  const chains: ChainPresence[] = [];
  for (const c of index.chains()) chains.push(await presence(index, c, a));
  const byHash = new Map<string, string[]>();
  for (const c of chains)
    if (c.codeHash) byHash.set(c.codeHash, [...(byHash.get(c.codeHash) ?? []), c.chain]);
  return {
    address: a,
    chains,
    sameCodeHash: [...byHash]
      .filter(([, cs]) => cs.length > 1)
      .map(([codeHash, cs]) => ({ codeHash, chains: cs })),
  };
}
