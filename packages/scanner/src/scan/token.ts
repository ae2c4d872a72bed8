/**
 * Token findings: first buys from a venue, bundles (same-block buyers funded by one funder), the
 * launch-manipulation flags of /detect, and the token scan. Read through the tokens, cohorts,
 * wallets and addresses readers at the answer's anchor; every flag carries its rule and inputs.
 */
import type { CohortRow, MemberRow, PoolRow, TransferRow } from '@chain-indexer/indexer/types';
import type { ReadCtx } from '../index-port.js';
import { collect, isVenueLabel, type Share, shareOf } from './common.js';
import { firstFunding } from './funding.js';

const BURN_SINKS = new Set([
  '0x0000000000000000000000000000000000000000',
  '0x000000000000000000000000000000000000dead',
]);

/** Token transfers a first-buys walk reads at most (chain order from the first). */
export const TRANSFER_SCAN = 5000;

/** A wallet's first buy of a token from a venue. */
export interface Buy {
  wallet: string;
  /** The venue the tokens came from (a pool or a launchpad curve) and its label. */
  venue: string;
  venueLabel: string;
  /** Token base units received. */
  amount: string;
  block: number;
  txIndex: number;
  logIndex: number;
  txHash: string;
}

export const BUY_RULE =
  'a buy is a transfer of the token from a venue (an address labelled pool or launchpad:<name>) to a wallet that is neither a venue nor a burn sink; a wallet counts once, at its first such transfer';

/** The labelled-venue check of one walk, cached per address. */
function venueLabeller(rc: ReadCtx): (a: string) => string | null {
  const cache = new Map<string, string | null>();
  return (a) => {
    let v = cache.get(a);
    if (v === undefined) {
      v =
        rc.readers.addresses.labels(rc.view, a, rc.anchor.block).find((l) => isVenueLabel(l.label))?.label ??
        null;
      cache.set(a, v);
    }
    return v;
  };
}

/** First buys of `token` in chain order, over its first {@link TRANSFER_SCAN} transfers. */
export function firstBuys(
  rc: ReadCtx,
  token: string,
): { buys: Buy[]; transfersRead: number; complete: boolean } {
  const venue = venueLabeller(rc);
  const { rows, more } = collect<TransferRow>(
    (q, sink) => rc.readers.tokens.transfers(rc.view, token, q, sink),
    rc.anchor.block,
    TRANSFER_SCAN,
  );
  const seen = new Set<string>();
  const buys: Buy[] = [];
  for (const t of rows) {
    const from = t.from.toLowerCase();
    const to = t.to.toLowerCase();
    const label = venue(from);
    if (!label || seen.has(to) || BURN_SINKS.has(to) || venue(to)) continue;
    seen.add(to);
    buys.push({ wallet: to, venue: from, venueLabel: label, amount: t.value, ...coord(t) });
  }
  return { buys, transfersRead: rows.length, complete: !more };
}

const coord = (t: { block: number; txIndex: number; logIndex: number; txHash: string }) => ({
  block: t.block,
  txIndex: t.txIndex,
  logIndex: t.logIndex,
  txHash: t.txHash,
});

/** Cohorts of a token read at most, and members per cohort. */
export const COHORT_SCAN = 100;
export const MEMBER_SCAN = 500;

export const BUNDLE_RULE =
  'a bundle is ≥ 2 wallets whose first incoming native transfer came from the same funder (a funding cohort of the cohorts reader) and whose first buys of the token are in the same block';

/** A bundle member with its evidence edges. */
export interface BundleMember {
  wallet: string;
  /** The funding edge (funder → wallet, first native transfer); null when not retained. */
  funding: { from: string; to: string; block: number; txIndex: number; txHash: string; value: string } | null;
  buy: { block: number; txIndex: number; logIndex: number; txHash: string };
  /** Balance at the anchor, token base units (signed transfer sum). */
  balance: string;
}

/** A cohort member as a bundle member: its evidence edges and its balance at the anchor. */
export function bundleMember(rc: ReadCtx, token: string, m: MemberRow): BundleMember {
  const e = m.admittedBy.edge;
  return {
    wallet: m.wallet,
    funding: e
      ? { from: e.from, to: e.to, block: e.block, txIndex: e.txIndex, txHash: e.txHash, value: e.value }
      : null,
    buy: m.firstBuy,
    balance: rc.readers.tokens.balance(rc.view, token, m.wallet, rc.anchor.block).toString(),
  };
}

export interface Bundle {
  cohortId: string;
  funder: string;
  block: number;
  size: number;
  members: BundleMember[];
  /** Members' balances at the anchor, token base units. */
  balance: string;
  shareOfSupply: Share | null;
}

export interface Bundles {
  token: string;
  bundles: Bundle[];
  wallets: number;
  /** Every bundle's balance at the anchor, and its share of supply. */
  balance: string;
  supply: string;
  shareOfSupply: Share | null;
  cohortsRead: number;
  complete: boolean;
  rule: string;
}

/**
 * The bundles `wallet` is in: for each of its cohort memberships (at most `max`), the members of
 * that cohort whose first buy is in the wallet's first-buy block, when there are ≥ 2.
 */
export function walletBundles(
  rc: ReadCtx,
  wallet: string,
  memberships: ReadonlyArray<{ id: string; token: string; funder: string }>,
  max: number,
): { bundles: Array<Omit<Bundle, 'shareOfSupply'> & { token: string }>; complete: boolean } {
  const w = wallet.toLowerCase();
  const out: Array<Omit<Bundle, 'shareOfSupply'> & { token: string }> = [];
  let complete = memberships.length <= max;
  for (const c of memberships.slice(0, max)) {
    const ms = collect<MemberRow>(
      (q, sink) => void rc.readers.cohorts.members(rc.view, c.id, q, sink),
      rc.anchor.block,
      MEMBER_SCAN,
    );
    if (ms.more) complete = false;
    const self = ms.rows.find((m) => m.wallet.toLowerCase() === w);
    if (!self) continue;
    const group = ms.rows.filter((m) => m.firstBuy.block === self.firstBuy.block);
    if (group.length < 2) continue;
    const members = group.map((m) => bundleMember(rc, c.token, m));
    out.push({
      token: c.token,
      cohortId: c.id,
      funder: c.funder,
      block: self.firstBuy.block,
      size: members.length,
      members,
      balance: members.reduce((s, m) => s + BigInt(m.balance), 0n).toString(),
    });
  }
  return { bundles: out, complete };
}

/** Bundles of `token` at the anchor (see {@link BUNDLE_RULE}), largest share first. */
export function bundlesOf(rc: ReadCtx, token: string): Bundles {
  const t = token.toLowerCase();
  const { cohorts, tokens } = rc.readers;
  const at = rc.anchor.block;
  const supply = tokens.supply(rc.view, t, at);
  const cs = collect<CohortRow>((q, sink) => void cohorts.byToken(rc.view, t, q, sink), at, COHORT_SCAN);
  let complete = !cs.more;
  const bundles: Bundle[] = [];
  for (const c of cs.rows) {
    const ms = collect<MemberRow>((q, sink) => void cohorts.members(rc.view, c.id, q, sink), at, MEMBER_SCAN);
    if (ms.more) complete = false;
    const byBlock = new Map<number, MemberRow[]>();
    for (const m of ms.rows) byBlock.set(m.firstBuy.block, [...(byBlock.get(m.firstBuy.block) ?? []), m]);
    for (const [block, group] of byBlock) {
      if (group.length < 2) continue;
      const members = group.map((m) => bundleMember(rc, t, m));
      const balance = members.reduce((s, m) => s + BigInt(m.balance), 0n);
      bundles.push({
        cohortId: c.id,
        funder: c.funder,
        block,
        size: members.length,
        members,
        balance: balance.toString(),
        shareOfSupply: shareOf(balance, supply),
      });
    }
  }
  bundles.sort((a, b) =>
    BigInt(b.balance) > BigInt(a.balance)
      ? 1
      : BigInt(b.balance) < BigInt(a.balance)
        ? -1
        : a.block - b.block,
  );
  const total = bundles.reduce((s, b) => s + BigInt(b.balance), 0n);
  return {
    token: t,
    bundles,
    wallets: bundles.reduce((s, b) => s + b.size, 0),
    balance: total.toString(),
    supply: supply.toString(),
    shareOfSupply: shareOf(total, supply),
    cohortsRead: cs.rows.length,
    complete,
    rule: BUNDLE_RULE,
  };
}

/** The token's earliest registered pool at the anchor (markets reader membership), or null. */
function firstPool(rc: ReadCtx, token: string): PoolRow | null {
  const pools = rc.readers.markets.tokenVenues(rc.view, token, undefined, rc.anchor.block).membership.pools;
  let best: PoolRow | null = null;
  for (const p of pools)
    if (
      !best ||
      p.created.block < best.created.block ||
      (p.created.block === best.created.block && (p.created.logIndex ?? -1) < (best.created.logIndex ?? -1))
    )
      best = p;
  return best;
}

/** Default /detect windows, blocks. */
export const SNIPER_BLOCKS = 3;
export const FRESH_BLOCKS = 100;
/** Buyers /detect examines at most (the earliest). */
export const DETECT_BUYERS = 200;

export interface Detection {
  token: string;
  bundles: {
    flagged: boolean;
    rule: string;
    count: number;
    wallets: number;
    shareOfSupply: Share | null;
    evidence: Bundle[];
  };
  snipers: {
    evaluated: boolean;
    notEvaluatedReason: 'no_launch_or_pool_observed' | null;
    flagged: boolean;
    rule: string;
    inputs: {
      /** What the window starts at: the launch's creation, else the token's first registered pool. */
      reference: 'launch_created' | 'first_pool_registered' | null;
      referenceBlock: number | null;
      /** The first registered pool (key, protocol, how it was registered) when it is the reference. */
      pool: { key: string; protocol: string; registeredBy: 'factory_event' | 'first_sight' } | null;
      launchBlock: number | null;
      withinBlocks: number;
    };
    wallets: Array<Buy & { blocksAfterLaunch: number }>;
  };
  freshWallets: {
    flagged: boolean;
    rule: string;
    inputs: { withinBlocks: number; buyersExamined: number };
    wallets: Array<{
      wallet: string;
      firstSeen: { block: number; txHash: string; evidence: string };
      funder: string | null;
      buy: { block: number; txIndex: number; logIndex: number; txHash: string };
      blocksBeforeBuy: number;
    }>;
  };
  buys: { rule: string; transfersRead: number; complete: boolean };
}

/** Launch-manipulation evidence of `token` (bundles, snipers, fresh wallets), each with rule and inputs. */
export function detect(rc: ReadCtx, token: string, sniperBlocks: number, freshBlocks: number): Detection {
  const t = token.toLowerCase();
  const at = rc.anchor.block;
  rc.readers.tokens.token(rc.view, t, at); // 404 when the token is not indexed at the anchor
  const b = bundlesOf(rc, t);
  const launch = rc.readers.tokens.launch(rc.view, t, at);
  const fb = firstBuys(rc, t);
  const launchBlock = launch?.created.block ?? null;
  const first = launchBlock === null ? firstPool(rc, t) : null;
  const refBlock = launchBlock ?? first?.created.block ?? null;
  const snipers =
    refBlock === null
      ? []
      : fb.buys
          .filter((x) => x.block - refBlock <= sniperBlocks)
          .map((x) => ({ ...x, blocksAfterLaunch: x.block - refBlock }));
  const examined = fb.buys.slice(0, DETECT_BUYERS);
  const fresh: Detection['freshWallets']['wallets'] = [];
  for (const x of examined) {
    let fs: { block: number; txHash: string; evidence: string } | null = null;
    try {
      fs = rc.readers.wallets.firstSeen(rc.view, x.wallet, at);
    } catch (err) {
      if ((err as { code?: string }).code !== 'not_found') throw err;
    }
    if (!fs || x.block - fs.block > freshBlocks) continue;
    fresh.push({
      wallet: x.wallet,
      firstSeen: { block: fs.block, txHash: fs.txHash, evidence: fs.evidence },
      funder: firstFunding(rc, x.wallet)?.funder ?? null,
      buy: { block: x.block, txIndex: x.txIndex, logIndex: x.logIndex, txHash: x.txHash },
      blocksBeforeBuy: x.block - fs.block,
    });
  }
  return {
    token: t,
    bundles: {
      flagged: b.bundles.length > 0,
      rule: b.rule,
      count: b.bundles.length,
      wallets: b.wallets,
      shareOfSupply: b.shareOfSupply,
      evidence: b.bundles,
    },
    snipers: {
      evaluated: refBlock !== null,
      notEvaluatedReason: refBlock === null ? 'no_launch_or_pool_observed' : null,
      flagged: snipers.length > 0,
      rule: `a sniper bought (see buys.rule) within ${sniperBlocks} blocks after the reference block: the launch's creation (LaunchCreated) for a launchpad token, else the registration of the token's first pool (markets reader: its creation event, or its first observed event for a pool that predates the indexed range, registeredBy first_sight); a token with neither is not evaluated`,
      inputs: {
        reference: launchBlock !== null ? 'launch_created' : first ? 'first_pool_registered' : null,
        referenceBlock: refBlock,
        pool: first
          ? {
              key: first.key,
              protocol: first.protocol,
              registeredBy: first.provenance?.discovery === 'first_sight' ? 'first_sight' : 'factory_event',
            }
          : null,
        launchBlock,
        withinBlocks: sniperBlocks,
      },
      wallets: snipers,
    },
    freshWallets: {
      flagged: fresh.length > 0,
      rule: `a fresh wallet was first seen in the index at most ${freshBlocks} blocks before its first buy (of the first ${DETECT_BUYERS} buyers)`,
      inputs: { withinBlocks: freshBlocks, buyersExamined: examined.length },
      wallets: fresh,
    },
    buys: { rule: BUY_RULE, transfersRead: fb.transfersRead, complete: fb.complete },
  };
}
