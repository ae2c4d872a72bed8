/**
 * One analysis of a set of wallets (given, or a token's first buyers): shared funders, funding
 * clusters, common tokens and coordinated buys — each finding with its rule and evidence. Read
 * through the wallets and addresses readers at one anchor.
 */
import type { AssetRow, TradeRow } from '@chain-indexer/indexer/types';
import type { ReadCtx } from '../index-port.js';
import { collect, stopLabel } from './common.js';
import { type FundingHop, fundingChain } from './funding.js';
import { firstBuys } from './token.js';

/** Funding hops followed per subject. */
export const ANALYZE_HOPS = 3;
/** Buyers of a token analysed (the earliest). */
export const ANALYZE_TOKEN_BUYERS = 50;
/** Holdings and trades read per subject. */
const PER_SUBJECT = 500;

export const ANALYZE_RULES = {
  sharedFunders: `a funder reached by ≥ 2 subjects within ${ANALYZE_HOPS} hops of their funding chains (each hop: the earliest incoming value transfer; chains stop at exchange/bridge labels)`,
  clusters:
    'subjects linked (transitively) by a shared funder; funders labelled exchange or bridge do not link (pooled funds say nothing about who is behind)',
  commonTokens: 'tokens with a non-zero transfer-sum balance in ≥ 2 subjects at the anchor',
  coordinatedBuys: 'buys (swaps the subject originated) of one token by ≥ 2 subjects in the same block',
};

export interface Analysis {
  subjects: string[];
  subjectsFrom: 'addresses' | 'token_first_buyers';
  token: string | null;
  sharedFunders: Array<{
    funder: string;
    labels: Array<{ label: string; evidence: string }>;
    reachedBy: Array<{ subject: string; hop: number; path: FundingHop[] }>;
  }>;
  clusters: Array<{ members: string[]; via: string[] }>;
  commonTokens: Array<{
    token: string;
    symbol: string | null;
    holders: Array<{ wallet: string; balance: string }>;
  }>;
  coordinatedBuys: Array<{
    token: string;
    block: number;
    buys: Array<{ wallet: string; txHash: string; txIndex: number; logIndex: number; amountToken: string }>;
  }>;
  rules: typeof ANALYZE_RULES;
  bounds: { hops: number; perSubject: number; complete: boolean };
}

/** Analyses `subjects` (lower-cased, deduplicated by the caller or here). */
export function analyze(rc: ReadCtx, input: { addresses: string[] } | { token: string }): Analysis {
  const at = rc.anchor.block;
  let token: string | null = null;
  let subjects: string[];
  let complete = true;
  if ('token' in input) {
    token = input.token.toLowerCase();
    rc.readers.tokens.token(rc.view, token, at); // 404 when not indexed
    const fb = firstBuys(rc, token);
    subjects = fb.buys.slice(0, ANALYZE_TOKEN_BUYERS).map((b) => b.wallet);
    complete = fb.complete && fb.buys.length <= ANALYZE_TOKEN_BUYERS;
  } else subjects = [...new Set(input.addresses.map((a) => a.toLowerCase()))];

  // Shared funders.
  const reached = new Map<string, Analysis['sharedFunders'][number]>();
  for (const s of subjects) {
    const fc = fundingChain(rc, s, ANALYZE_HOPS);
    for (const [i, h] of fc.hops.entries()) {
      const e = reached.get(h.funder) ?? { funder: h.funder, labels: h.funderLabels, reachedBy: [] };
      if (!e.reachedBy.some((x) => x.subject === s))
        e.reachedBy.push({ subject: s, hop: h.hop, path: fc.hops.slice(0, i + 1) });
      reached.set(h.funder, e);
    }
  }
  const sharedFunders = [...reached.values()]
    .filter((f) => f.reachedBy.length >= 2)
    .sort((a, b) => b.reachedBy.length - a.reachedBy.length || (a.funder < b.funder ? -1 : 1));

  // Clusters: union-find over subjects through non-exchange shared funders.
  const parent = new Map(subjects.map((s) => [s, s]));
  const find = (x: string): string => (parent.get(x) === x ? x : find(parent.get(x)!));
  const via = new Map<string, Set<string>>();
  for (const f of sharedFunders) {
    if (stopLabel(f.labels)) continue;
    const [first, ...rest] = f.reachedBy.map((r) => r.subject);
    for (const o of rest) parent.set(find(o), find(first));
    via.set(f.funder, new Set(f.reachedBy.map((r) => r.subject)));
  }
  const groups = new Map<string, string[]>();
  for (const s of subjects) groups.set(find(s), [...(groups.get(find(s)) ?? []), s]);
  const clusters = [...groups.values()]
    .filter((g) => g.length >= 2)
    .map((members) => ({
      members: members.sort(),
      via: [...via]
        .filter(([, ss]) => members.some((m) => ss.has(m)))
        .map(([f]) => f)
        .sort(),
    }));

  // Common tokens and coordinated buys.
  const held = new Map<string, Analysis['commonTokens'][number]>();
  const buys = new Map<string, Analysis['coordinatedBuys'][number]>();
  for (const s of subjects) {
    const a = collect<AssetRow>(
      (q, sink) => void rc.readers.wallets.assets(rc.view, s, 'token', q, sink),
      at,
      PER_SUBJECT,
    );
    if (a.more) complete = false;
    for (const r of a.rows) {
      const e = held.get(r.token) ?? { token: r.token, symbol: r.symbol, holders: [] };
      e.holders.push({ wallet: s, balance: r.balance });
      held.set(r.token, e);
    }
    const t = collect<TradeRow>((q, sink) => rc.readers.wallets.trades(rc.view, s, q, sink), at, PER_SUBJECT);
    if (t.more) complete = false;
    for (const x of t.rows) {
      if (x.side !== 'buy') continue;
      const k = `${x.token}|${x.block}`;
      const e = buys.get(k) ?? { token: x.token, block: x.block, buys: [] };
      if (!e.buys.some((b) => b.wallet === s))
        e.buys.push({
          wallet: s,
          txHash: x.txHash,
          txIndex: x.txIndex,
          logIndex: x.logIndex,
          amountToken: x.amountToken,
        });
      buys.set(k, e);
    }
  }
  return {
    subjects,
    subjectsFrom: token ? 'token_first_buyers' : 'addresses',
    token,
    sharedFunders,
    clusters,
    commonTokens: [...held.values()]
      .filter((h) => h.holders.length >= 2)
      .sort((a, b) => (a.token < b.token ? -1 : 1)),
    coordinatedBuys: [...buys.values()].filter((b) => b.buys.length >= 2).sort((a, b) => a.block - b.block),
    rules: ANALYZE_RULES,
    bounds: { hops: ANALYZE_HOPS, perSubject: PER_SUBJECT, complete },
  };
}
