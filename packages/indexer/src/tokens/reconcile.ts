/**
 * Reconciliation against the node: the index's balances are sums of transfer events (R9), so a
 * token whose balances do not follow its events (fee-on-transfer, rebasing, silent burns) would
 * otherwise be silently wrong. The reconciler periodically compares, at one block, the token's
 * `totalSupply()` and its top holders' `balanceOf()` (eth_call) with the indexed figures, and
 * records the verdict per token. Routes publish it as `reconciliation` and flag mismatches.
 *
 * Observations are not block data: they are written outside block batches, carry the block they
 * were made at, and are superseded by the next check.
 */
import type { Logger } from 'pino';
import type { Rpc } from '../rpc/client.js';
import { probeTokenMetadata } from '../rpc/token-metadata.js';
import { type Reconciliation, ZERO } from '../schema/rows/tokens.js';
import { HOLDER_CUR, HOLDER_ID_CUR, RECON, STATS, TRANSFER, WALLET_BY_ID } from '../schema/tables/tokens.js';
import type { Store, View } from '../storage/index.js';
import { balanceAt, statsAt, tokenAt } from './read.js';

/**
 * Asked on a mismatch: the node fault standing (a description), or null. `turned`: the token's
 * previous verdict was consistent (a standard token turning to diverging: the node is checked
 * at once).
 */
export type NodeFaultProbe = (turned: boolean) => Promise<string | null>;

type Hex = `0x${string}`;

/** Largest holders compared per token per check. */
const HOLDERS_PER_CHECK = 10;
/** Tokens with at most this many non-zero balances have every balance checked. */
const ALL_HOLDERS_BOUND = 100;
/** Counterparties of the latest transfers compared per check. */
const RECENT_COUNTERPARTIES = 20;
/** Blocks after which a token is checked again even without a transfer (rebasing drifts silently). */
const RECHECK_BLOCKS = 20;
/** Tokens checked per round, so one round stays a bounded amount of node work. */
const TOKENS_PER_ROUND = 25;

const BALANCE_OF = '0x70a08231';
const TOTAL_SUPPLY = '0x18160ddd';

/** Longest wait for the node's head to pass a checked block before a mismatch is asked again, ms. */
const RECHECK_WAIT_MS = 5_000;

/**
 * Resolves once the node's head (eth_blockNumber) is past `block`, or after
 * {@link RECHECK_WAIT_MS} (a chain that does not move has no block being built to race with).
 * Never throws: an unanswered head poll ends the wait.
 */
async function nodePast(rpc: Rpc, block: number): Promise<void> {
  for (const t0 = Date.now(); Date.now() - t0 < RECHECK_WAIT_MS; ) {
    try {
      if (Number(BigInt(await rpc.call<string>('eth_blockNumber', []))) > block) return;
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Checks one token at `block`; returns the verdict (also stored). */
export async function reconcileToken(
  store: Store,
  rpc: Rpc,
  token: string,
  block: number,
  nodeFault?: NodeFaultProbe,
): Promise<Reconciliation> {
  const tag = `0x${block.toString(16)}`;
  // Index figures are read through short views (no await inside one): the store may move on
  // while the node answers, but every figure below is pinned to `block` by its history rows.
  const read = <T>(f: (view: View) => T): T => {
    const view = store.view();
    try {
      return f(view);
    } finally {
      view.close();
    }
  };
  const stats = read((v) => statsAt(v, token, block));
  const fromTransfers = stats?.supplyFromTransfers ?? '0';
  const askSupply = async (): Promise<{ value: string | null; reason: string | null }> => {
    try {
      const r = await rpc.call<string>('eth_call', [{ to: token, data: TOTAL_SUPPLY }, tag]);
      const value = r.length >= 66 ? BigInt(r.slice(0, 66)).toString() : null;
      return { value, reason: value === null ? 'totalSupply_empty_return' : null };
    } catch {
      return { value: null, reason: 'totalSupply_reverted' };
    }
  };
  let { value: supplyOnChain, reason } = await askSupply();
  // Top holders by balance at `block` (current index rows valid at that block), the counterparties
  // of the latest transfers (where fee-on-transfer or rebasing tokens drift first, even when those
  // wallets are not among the largest holders), and for small tokens every non-zero balance.
  const holders = read((v) => {
    const out: Array<[string, bigint]> = [];
    const t = token as Hex;
    v.each(HOLDER_CUR, { prefix: [t] }, (from, [, bal, w]) => {
      if (from <= block) out.push([w, bal]);
      return out.length < HOLDERS_PER_CHECK;
    });
    const seen = new Set(out.map(([w]) => w));
    v.eachValue(TRANSFER, { prefix: [t], lte: [t, block], reverse: true }, (tr) => {
      for (const w of [tr.to, tr.from]) {
        if (w !== ZERO && !seen.has(w)) {
          seen.add(w);
          out.push([w, 0n]);
        }
      }
      return out.length < HOLDERS_PER_CHECK + RECENT_COUNTERPARTIES;
    });
    const holderTotal = stats ? stats.holders + stats.burnSinkHolders + stats.negativeBalances : 0;
    if (holderTotal <= ALL_HOLDERS_BOUND) {
      v.each(HOLDER_ID_CUR, { prefix: [t] }, (_bal, [, id]) => {
        const addr = v.get(WALLET_BY_ID, id);
        if (addr && !seen.has(addr)) {
          seen.add(addr);
          out.push([addr, 0n]);
        }
      });
    }
    return out;
  });
  // A balance the node answers differently from the index (null: no answer).
  const differs = async (w: string): Promise<boolean> => {
    const data = `${BALANCE_OF}${w.slice(2).padStart(64, '0')}`;
    try {
      const r = await rpc.call<string>('eth_call', [{ to: token, data }, tag]);
      const onChain = r.length >= 66 ? BigInt(r.slice(0, 66)) : null;
      return onChain === null || onChain !== read((v) => balanceAt(v, token, w, block));
    } catch {
      return true;
    }
  };
  let suspects: string[] = [];
  for (const [w] of holders) if (await differs(w)) suspects.push(w);
  // A node can answer a call at its newest block from the state of the block it is building
  // (anvil: state at the best block is the live database while the next block is applied). A
  // mismatch only stands when the node, asked again once past `block`, still says it.
  const supplyDiffers = supplyOnChain !== null && supplyOnChain !== fromTransfers;
  if (suspects.length > 0 || supplyDiffers) {
    await nodePast(rpc, block);
    const again: string[] = [];
    for (const w of suspects) if (await differs(w)) again.push(w);
    suspects = again;
    if (supplyDiffers) ({ value: supplyOnChain, reason } = await askSupply());
  }
  const mismatched = suspects.length;
  const supplyMismatch = supplyOnChain !== null && supplyOnChain !== fromTransfers;
  let metadataNow: Reconciliation['metadataNow'] = null;
  let metadataChanged = false;
  try {
    const m = await probeTokenMetadata(rpc, token, tag);
    metadataNow = { name: m.name.value, symbol: m.symbol.value, decimals: m.decimals.value };
    const first = read((v) => tokenAt(v, token, block))?.metadata;
    if (first)
      metadataChanged =
        first.name.value !== m.name.value ||
        first.symbol.value !== m.symbol.value ||
        first.decimals.value !== m.decimals.value;
  } catch {
    metadataNow = null;
  }
  const status: Reconciliation['status'] =
    supplyOnChain === null && holders.length === 0
      ? 'not_checkable'
      : supplyMismatch || mismatched > 0
        ? 'mismatch'
        : 'consistent';
  const before = status === 'mismatch' && nodeFault ? read((v) => v.get(RECON, token as Hex)) : undefined;
  const verdict: Reconciliation = {
    status,
    checkedAtBlock: block,
    supplyOnChain,
    supplyFromTransfers: fromTransfers,
    holdersChecked: holders.length,
    holdersMismatched: mismatched,
    reason,
    metadataNow,
    metadataChanged,
    nodeFault: status === 'mismatch' && nodeFault ? await nodeFault(before?.status === 'consistent') : null,
  };
  store.putObservation(RECON, [token as Hex], verdict);
  return verdict;
}

/**
 * Starts the periodic reconciler: every `intervalMs`, checks tokens whose counters changed since
 * their last check (at most {@link TOKENS_PER_ROUND}), at the current head. Returns a stop function.
 */
export function startReconciler(o: {
  store: Store;
  rpc: Rpc;
  log: Logger;
  intervalMs: number;
  ready: () => boolean;
  /** The node fault standing on a mismatch (names it in the verdict); see {@link NodeFaultProbe}. */
  nodeFault?: NodeFaultProbe;
}): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const round = async () => {
    const head = o.store.committedHead();
    if (!head || !o.ready()) return;
    // Due: never checked, changed since the last check, or last checked RECHECK_BLOCKS ago
    // (balances of rebasing tokens drift without any event). Stalest first, bounded per round.
    const due: Array<{ token: string; at: number }> = [];
    const view = o.store.view();
    try {
      view.each(STATS, {}, (s, [token]) => {
        const last = view.get(RECON, token);
        if (
          !last ||
          last.checkedAtBlock < s.lastChangeBlock ||
          head.number - last.checkedAtBlock >= RECHECK_BLOCKS
        ) {
          due.push({ token, at: last?.checkedAtBlock ?? -1 });
        }
      });
    } finally {
      view.close();
    }
    due.sort((a, b) => a.at - b.at);
    due.splice(TOKENS_PER_ROUND);
    for (const { token: t } of due) {
      if (stopped) return;
      // The head may move while we await the node: each check pins its own block.
      const h = o.store.committedHead();
      if (!h) return;
      await reconcileToken(o.store, o.rpc, t, h.number, o.nodeFault).catch((err) =>
        o.log.warn({ token: t, err: (err as Error).message }, 'reconcile failed'),
      );
    }
  };
  const loop = () => {
    if (stopped) return;
    round()
      .catch((err) => o.log.warn({ err: (err as Error).message }, 'reconcile round failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, o.intervalMs);
      });
  };
  timer = setTimeout(loop, o.intervalMs);
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
