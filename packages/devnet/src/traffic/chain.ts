/**
 * What the traffic generator watches on the chain besides its own sends: the head (reorg
 * detection by block hash), the receipts its actions wait for (V3 token ids, launch addresses,
 * funding-chain hops, top-ups) and stalled nonces (a tx the node dropped). Sends nothing; reads
 * blocks (`eth_getBlockByNumber`), receipts and pending transaction counts.
 */
import { type Hex, toHex } from 'viem';
import { rpc } from '../anvil.js';
import type { ReceiptLite } from '../signer.js';
import type { TrafficGenerator } from './generator.js';
import { isNodeDown, pmap, sleep } from './support.js';

/** The latest block's number and hash. */
export async function headRef(g: TrafficGenerator): Promise<{ n: number; hash: Hex }> {
  const b = await rpc<{ number: Hex; hash: Hex }>(g.url, 'eth_getBlockByNumber', ['latest', false]);
  return { n: Number(b.number), hash: b.hash };
}

/** Whether any of the recorded blocks has another hash now (or is gone). */
export async function changedSince(g: TrafficGenerator, refs: { n: number; hash: Hex }[]): Promise<boolean> {
  const now = await pmap(refs, (r) =>
    rpc<{ hash: Hex } | null>(g.url, 'eth_getBlockByNumber', [toHex(r.n), false]),
  );
  return now.some((b, i) => b?.hash !== refs[i].hash);
}

/** {@link reorged}, counted and logged; marks a set-up check as due. */
export async function noticeReorg(g: TrafficGenerator): Promise<boolean> {
  if (!(await reorged(g))) return false;
  g.reorgsDetected++;
  g.reorgPending = true;
  g.log(`traffic: reorg seen (now at block ${g.seen?.n}); checking the set-up`);
  return true;
}

/**
 * Whether the chain was reorganised since the last check: the block at the height seen last has
 * another hash now (or the chain is shorter). Records the new head.
 */
async function reorged(g: TrafficGenerator): Promise<boolean> {
  const head = await headRef(g);
  const seen = g.seen;
  g.seen = head;
  if (!seen) return false;
  if (head.n < seen.n) return true;
  if (head.n === seen.n) return head.hash !== seen.hash;
  const then = await rpc<{ hash: Hex } | null>(g.url, 'eth_getBlockByNumber', [toHex(seen.n), false]);
  return then?.hash !== seen.hash;
}

/** The receipt of `hash`, or null when there is none yet (or the node answered with an error). */
const receiptOf = (g: TrafficGenerator, hash: Hex) =>
  rpc<ReceiptLite | null>(g.url, 'eth_getTransactionReceipt', [hash]).catch((e) => {
    if (isNodeDown(e)) throw e;
    return null;
  });

/**
 * Waits (30 s at most) until every hash has a receipt. Returns early when a reorg is noticed
 * (the txs may be gone for good: the caller's set-up check redoes what is missing).
 */
export async function waitFor(g: TrafficGenerator, hashes: Hex[], timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  const left = new Set(hashes);
  let lastCheck = Date.now();
  while (left.size > 0 && Date.now() < deadline && !g.stopped) {
    if (Date.now() - lastCheck > 1000) {
      lastCheck = Date.now();
      if (await noticeReorg(g)) return;
    }
    const arr = [...left];
    const rs = await Promise.all(arr.map((h) => receiptOf(g, h)));
    rs.forEach((r, i) => {
      if (r) left.delete(arr[i]);
    });
    if (left.size > 0) await sleep(Math.min(250, g.input.blockTimeMs / 2));
  }
}

/** Runs the receipt handlers of up to 200 pending sends that have a receipt now; the rest wait. */
export async function pollReceipts(g: TrafficGenerator) {
  if (g.pending.length === 0) return;
  const batch = g.pending.splice(0, 200);
  const rs = await Promise.all(batch.map((p) => receiptOf(g, p.hash)));
  rs.forEach((r, i) => {
    if (!r) g.pending.push(batch[i]);
    else {
      try {
        batch[i].onReceipt(r);
      } catch (e) {
        g.log(`traffic: receipt handler failed: ${(e as Error).message}`);
      }
    }
  });
}

/**
 * Anvil can drop a tx (e.g. one that does not fit the block being built), which leaves a nonce
 * gap that nothing fills. A sender whose mined nonce did not move since the last check while
 * our local nonce is ahead is reset to the mined nonce.
 */
export async function healNonces(g: TrafficGenerator) {
  const all = [...g.wallets.map((w) => w.w), g.admin];
  const mined = await Promise.all(
    all.map((w) =>
      rpc<Hex>(g.url, 'eth_getTransactionCount', [w.address, 'pending'])
        .then(Number)
        .catch((e) => {
          if (isNodeDown(e)) throw e;
          return -1;
        }),
    ),
  );
  let healed = 0;
  all.forEach((w, i) => {
    const m = mined[i];
    if (m < 0) return;
    // Pending count below our nonce on two checks in a row: txs after a gap sit queued forever.
    if (w.nonce > m && g.lastMined.get(w) === m) {
      w.nonce = m;
      healed++;
    }
    g.lastMined.set(w, w.nonce > m ? m : -1);
  });
  if (healed > 0) g.log(`traffic: reset ${healed} stalled nonce(s) after dropped txs`);
}
