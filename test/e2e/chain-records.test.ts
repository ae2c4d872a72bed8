/**
 * Chain records end-to-end: a real anvil, the real indexer process, no mocks. Every body is
 * validated against its route's schema by the harness.
 *  - block, transaction and receipt routes equal what the node returns for the same block;
 *  - a hand-assembled contract (value forwarder that emits a decodable ERC-20 Transfer, an
 *    unknown log and an anonymous log) gives decoded logs and calldata, call trees and internal
 *    transfers equal to the node's own trace, a creation's origin fields, and a reverted variant;
 *  - the live RPC routes are anchored to the node block they observed (hash checked on the node),
 *    and the block-bound code observation reads the canonical block it names;
 *  - timestamp bounds, health, checkpoints and gaps answer their full schemas;
 *  - a cursor walk keeps its anchor while new blocks arrive;
 *  - a receipt read again after a block is the record cache's answer (same data, new anchor);
 *  - after anvil_reorg past a cursor's block the cursor answers 409 stale_cursor, the reorged
 *    blocks are re-indexed with their new hashes, and the dropped block's transactions and
 *    receipts are answered as the node now has them (never from the record cache's old fork).
 */
import { keccak256 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Anvil, DEV_ACCOUNTS, mineTransferBlocks, startAnvil } from '../harness/anvil.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';

let anvil: Anvil;
let idx: IndexerProcess;

beforeAll(async () => {
  anvil = await startAnvil();
  await mineTransferBlocks(anvil, 12, (b) => 3 + (b % 4));
  idx = await startIndexer({ rpcUrl: anvil.rpcUrl });
  await idx.waitForHead(await anvil.head());
});

afterAll(stopAll(() => [idx, anvil]));

describe('chain records equal the node', () => {
  it('blocks by number and by hash', async () => {
    const head = await anvil.head();
    for (let n = 0; n <= head; n++) {
      const node = await anvil.rpc('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
      const r = await idx.get(`/blocks/${n}`);
      expect(r.status).toBe(200);
      expect(r.body.data).toEqual(node);
      expect(r.body.anchor.block).toBeGreaterThanOrEqual(n);
      const byHash = await idx.get(`/blocks/by-hash/${node.hash}`);
      expect(byHash.body.data).toEqual(node);
    }
  });

  it('transactions, receipts and logs', async () => {
    const head = await anvil.head();
    let seen = 0;
    for (let n = 1; n <= head; n++) {
      const block = await anvil.rpc('eth_getBlockByNumber', [`0x${n.toString(16)}`, true]);
      const page = await idx.get(`/blocks/${n}/transactions?limit=1000`);
      expect(page.body.data).toEqual(block.transactions);
      expect(page.body.page.stoppedBy).toBe('exhausted');
      for (const tx of block.transactions) {
        const t = await idx.get(`/transactions/${tx.hash}`);
        expect(t.body.data.transaction).toEqual(await anvil.rpc('eth_getTransactionByHash', [tx.hash]));
        expect(t.body.data.from).toBe(tx.from.toLowerCase());
        expect(t.body.data.value).toBe(BigInt(tx.value).toString());
        const rc = await idx.get(`/transactions/${tx.hash}/receipt`);
        expect(rc.body.data.receipt).toEqual(await anvil.rpc('eth_getTransactionReceipt', [tx.hash]));
        expect(rc.body.data.l1Gas).toBeNull();
        expect(rc.body.data.l1GasReason).toBe('not_an_l2_receipt');
        seen++;
      }
    }
    expect(seen).toBeGreaterThan(30);
  });

  it('timestamp bounds', async () => {
    const b5 = await anvil.rpc('eth_getBlockByNumber', ['0x5', false]);
    const r = await idx.get(`/blocks/at?timestamp=${Number.parseInt(b5.timestamp, 16)}`);
    expect(r.status).toBe(200);
    expect(Number.parseInt(b5.timestamp, 16)).toBe(r.body.data.lastAtOrBefore.timestamp);
    expect(r.body.data.firstAtOrAfter.timestamp).toBe(r.body.data.lastAtOrBefore.timestamp);
    const missing = await idx.get('/blocks/at');
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('bad_request');
  });
});

/** keccak256("Transfer(address,address,uint256)"): the ERC-20 Transfer topic0. */
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
/** A topic no decoder knows. */
const ODD_TOPIC = `0x${'5a'.repeat(32)}`;

/**
 * Runtime code of a value forwarder, assembled by hand: calldata word 0 is a recipient, word 1 a
 * revert flag. It emits Transfer(caller, recipient, callvalue) (decodes as ERC-20), LOG1 with an
 * unknown topic and an anonymous LOG0, CALLs the recipient with the whole value, then REVERTs when
 * the flag is set (after the inner call: the transfer is undone by its ancestor).
 */
function forwarderRuntime(): string {
  const ops = [
    '34600052', // CALLVALUE PUSH1 0 MSTORE: mem[0..32) = value
    '600035', // recipient word (topic2)
    '33', // CALLER (topic1)
    `7f${TRANSFER.slice(2)}`, // topic0
    '60206000a3', // LOG3(0, 32, topic0, caller, recipient)
    `7f${ODD_TOPIC.slice(2)}60206000a1`, // LOG1(0, 32, odd topic)
    '60006000a0', // LOG0(0, 0)
    '6000600060006000', // retSize retOffset argsSize argsOffset
    '34600035', // CALLVALUE, recipient
    '5af150', // GAS CALL POP
    '60203515', // ISZERO(flag word)
  ];
  const head = ops.join('');
  const dest = head.length / 2 + 3 + 5; // PUSH1 dest JUMPI (3) + PUSH1 0 PUSH1 0 REVERT (5)
  return `${head}60${dest.toString(16).padStart(2, '0')}57${'60006000fd'}5b00`;
}

/** Init code that returns `runtime` (CODECOPY + RETURN, 12 bytes). */
const initCode = (runtime: string) =>
  `0x61${(runtime.length / 2).toString(16).padStart(4, '0')}80600c6000396000f3${runtime}`;

const word = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0');

describe('contracts, decoded views, call trees and live reads', () => {
  const runtime = forwarderRuntime();
  const sender = DEV_ACCOUNTS[0];
  const recipient = DEV_ACCOUNTS[3];
  let fwd: string;
  let deployBlock: number;
  let creationHash: string;
  let callHash: string;
  let revertHash: string;
  const value = 123_456_789n;

  const send = (tx: Record<string, string>) =>
    anvil.rpc<string>('eth_sendTransaction', [{ from: sender, gas: '0x100000', ...tx }]);

  /** Waits until the traces lane has replayed block `n` (its routes answer 503 until then). */
  const waitTraced = async (n: number) => {
    for (let i = 0; i < 200; i++) {
      const lanes = (await idx.get('/checkpoints')).body.lanes;
      if ((lanes.find((l: any) => l.lane === 'traces')?.block ?? -1) >= n) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`traces lane did not reach block ${n}`);
  };

  beforeAll(async () => {
    creationHash = await send({ data: initCode(runtime) });
    await anvil.mine();
    deployBlock = await anvil.head();
    fwd = (await anvil.rpc('eth_getTransactionReceipt', [creationHash])).contractAddress;
    callHash = await send({
      to: fwd,
      value: `0x${value.toString(16)}`,
      data: `0x${word(recipient)}${word('0')}`,
    });
    revertHash = await send({ to: fwd, value: '0x5', data: `0x${word(recipient)}${word('1')}` });
    await anvil.mine();
    await idx.waitForHead(await anvil.head());
    await waitTraced(deployBlock + 1);
  });

  it('a creation: origin fields, to null with its reason, calldata typed contract_creation', async () => {
    const t = await idx.get(`/transactions/${creationHash}`);
    expect(t.status).toBe(200);
    expect(t.body.data.transaction).toEqual(await anvil.rpc('eth_getTransactionByHash', [creationHash]));
    expect(t.body.data).toMatchObject({
      from: sender,
      fromReason: null,
      to: null,
      toReason: 'contract_creation',
      value: '0',
      originCoverage: 'full',
      blockNumber: deployBlock,
    });
    const d = await idx.get(`/transactions/${creationHash}/decoded`);
    expect(d.body.data).toMatchObject({ to: null, toReason: 'contract_creation' });
    expect(d.body.data.decoded).toEqual({ status: 'unknown', reason: 'contract_creation', selector: null });
    const rc = await idx.get(`/transactions/${creationHash}/receipt`);
    expect(rc.body.data.receipt.contractAddress).toBe(fwd);
  });

  it('decoded logs: the Transfer decodes as ERC-20, the others are typed unknown, 1:1 with the raw logs', async () => {
    const raw = await idx.get(`/transactions/${callHash}/logs`);
    const dec = await idx.get(`/transactions/${callHash}/logs/decoded`);
    expect(raw.body.data).toEqual((await anvil.rpc('eth_getTransactionReceipt', [callHash])).logs);
    expect(dec.body.data.map((r: any) => r.log)).toEqual(raw.body.data);
    expect(dec.body.data.map((r: any) => r.decoded)).toEqual([
      {
        status: 'decoded',
        event: 'Transfer',
        standard: 'erc20',
        signature: 'Transfer(address,address,uint256)',
        args: { from: sender, to: recipient, value: value.toString() },
      },
      { status: 'unknown', reason: 'no_decoder_for_topic0', topic0: ODD_TOPIC },
      { status: 'unknown', reason: 'anonymous_or_no_topics', topic0: null },
    ]);
    const n = deployBlock + 1;
    const block = await idx.get(`/blocks/${n}/logs/decoded?limit=2`);
    expect(block.body.data).toEqual(dec.body.data.slice(0, 2));
    const rest = await idx.get(`/blocks/${n}/logs/decoded?limit=2&cursor=${block.body.page.nextCursor}`);
    expect(rest.body.data).toEqual(dec.body.data.slice(2));
    expect(rest.body.page.stoppedBy).toBe('exhausted');
    const call = await idx.get(`/transactions/${callHash}/decoded`);
    expect(call.body.data.decoded).toEqual({
      status: 'unknown',
      reason: 'no_decoder_for_selector',
      selector: '0x00000000',
    });
  });

  it('call tree and internal transfers equal the node trace; pages of one frame keep their anchor', async () => {
    const node = await anvil.rpc('debug_traceTransaction', [callHash, { tracer: 'callTracer' }]);
    const p1 = await idx.get(`/transactions/${callHash}/calls/decoded?limit=1`);
    expect(p1.body).toMatchObject({ coverage: 'retained', reason: null, frames: 2 });
    const p2 = await idx.get(
      `/transactions/${callHash}/calls/decoded?limit=1&cursor=${p1.body.page.nextCursor}`,
    );
    expect(p2.body.anchor).toEqual(p1.body.anchor);
    expect(p2.body.page.stoppedBy).toBe('exhausted');
    const [root, child] = [...p1.body.data, ...p2.body.data];
    expect(root).toMatchObject({
      ordinal: 0,
      parent: null,
      depth: 0,
      kind: 'call',
      from: sender,
      to: fwd,
      value: value.toString(),
      movesValue: true,
      input: node.input,
      reverted: false,
    });
    expect(child).toMatchObject({
      ordinal: 1,
      parent: 0,
      depth: 1,
      kind: 'call',
      from: fwd,
      to: recipient,
      toReason: null,
      value: BigInt(node.calls[0].value).toString(),
      movesValue: true,
      reverted: false,
      revertedByAncestor: false,
      decoded: { status: 'unknown', reason: 'empty_calldata', selector: null },
    });
    const internal = await idx.get(`/transactions/${callHash}/internal`);
    expect(internal.body.retention).toEqual({
      coverage: 'retained',
      reason: null,
      source: expect.any(String),
    });
    expect(internal.body.reconciliation).toEqual({
      rootMatchesEnvelope: true,
      verifiableAgainstBlockRoot: false,
      internalTransfers: 1,
      creations: 0,
    });
    expect(internal.body.data).toEqual([
      {
        ordinal: 1,
        from: fwd,
        to: recipient,
        toReason: null,
        value: value.toString(),
        kind: 'call',
        effective: true,
        type: 'transfer',
      },
    ]);
  });

  it('a reverted transaction: the inner transfer is undone by its ancestor (effective false)', async () => {
    const calls = await idx.get(`/transactions/${revertHash}/calls/decoded`);
    expect(calls.body.data[0]).toMatchObject({ reverted: true, error: expect.any(String) });
    expect(calls.body.data[1]).toMatchObject({ reverted: false, revertedByAncestor: true });
    const internal = await idx.get(`/transactions/${revertHash}/internal`);
    expect(internal.body.data).toEqual([expect.objectContaining({ value: '5', effective: false })]);
    const rc = await idx.get(`/transactions/${revertHash}/receipt`);
    expect(rc.body.data.receipt.status).toBe('0x0');
    expect((await idx.get(`/transactions/${revertHash}/logs`)).body.data).toEqual([]);
  });

  it('a plain transfer: one root frame, no internal transfer', async () => {
    const [h] = await anvil.sendTransfers(1);
    await anvil.mine();
    await idx.waitForHead(await anvil.head());
    await waitTraced(await anvil.head());
    const calls = await idx.get(`/transactions/${h}/calls/decoded`);
    expect(calls.body.frames).toBe(1);
    expect(calls.body.data[0].decoded).toEqual({
      status: 'unknown',
      reason: 'empty_calldata',
      selector: null,
    });
    const internal = await idx.get(`/transactions/${h}/internal`);
    expect(internal.body.data).toEqual([]);
    expect(internal.body.reconciliation.rootMatchesEnvelope).toBe(true);
  });

  it('live RPC routes are anchored to the node block they observed, every read made at that block', async () => {
    const head = await idx.get('/rpc/head');
    expect(head.status).toBe(200);
    expect(head.body.source).toBe('node');
    const nodeBlock = await anvil.rpc('eth_getBlockByNumber', [
      `0x${head.body.anchor.block.toString(16)}`,
      false,
    ]);
    expect(head.body.anchor.hash).toBe(nodeBlock.hash);
    expect(head.body.data).toEqual({
      block: head.body.anchor.block,
      hash: nodeBlock.hash,
      parentHash: nodeBlock.parentHash,
      timestamp: Number.parseInt(nodeBlock.timestamp, 16),
    });
    const bal = await idx.get(`/rpc/address/${recipient}/balance`);
    const at = `0x${bal.body.anchor.block.toString(16)}`;
    expect(bal.body.data).toEqual({
      address: recipient,
      balance: BigInt(await anvil.rpc('eth_getBalance', [recipient, at])).toString(),
    });
    const code = await idx.get(`/rpc/address/${fwd}/code`);
    expect(code.body.data).toEqual({
      address: fwd,
      isContract: true,
      codeHash: keccak256(`0x${runtime}`),
      codeHashReason: null,
      codeSize: runtime.length / 2,
    });
    const eoa = await idx.get(`/rpc/address/${recipient}/code`);
    expect(eoa.body.data).toMatchObject({
      isContract: false,
      codeHash: null,
      codeHashReason: 'no_code',
      codeSize: 0,
    });
    const meta = await idx.get(`/rpc/tokens/${recipient}/metadata`);
    expect(meta.body.data.symbol).toEqual({ value: null, reason: 'no_code', encoding: null });
    expect(meta.body.data).toMatchObject({ codeHash: null, codeHashReason: 'no_code' });
    // The forwarder answers every call with no data: each field is typed empty_return.
    const fm = await idx.get(`/rpc/tokens/${fwd}/metadata`);
    for (const f of ['name', 'symbol', 'decimals', 'totalSupply'])
      expect(fm.body.data[f]).toEqual({ value: null, reason: 'empty_return', encoding: null });
    expect(fm.body.data.codeHash).toBe(keccak256(`0x${runtime}`));
  });

  it('the block-bound code observation reads the canonical block it names', async () => {
    const before = await idx.get(`/contracts/${fwd}/code?block=${deployBlock - 1}`);
    expect(before.body.data).toMatchObject({ isContract: false, codeHash: null, codeHashReason: 'no_code' });
    const hash = (await anvil.rpc('eth_getBlockByNumber', [`0x${deployBlock.toString(16)}`, false])).hash;
    const after = await idx.get(`/contracts/${fwd}/code?block=${deployBlock}`);
    expect(after.body.data).toEqual({
      address: fwd,
      observedAt: { block: deployBlock, hash },
      isContract: true,
      codeHash: keccak256(`0x${runtime}`),
      codeHashReason: null,
      codeSize: runtime.length / 2,
    });
    const future = await idx.get(`/contracts/${fwd}/code?block=${after.body.anchor.block + 1000}`);
    expect(future.status).toBe(404);
  });

  it('batch: index items from one snapshot, each body valid for its own route; node routes are not batchable', async () => {
    const r = await idx.post('/batch', {
      requests: [
        { id: 'tx', route: 'chain.transaction', params: { hash: callHash } },
        { route: '/transactions/{hash}/calls/decoded', params: { hash: callHash, limit: 1 } },
        { route: '/blocks/{number}/logs/decoded', params: { number: deployBlock + 1 } },
        { route: '/rpc/head' },
        { route: '/transactions/{hash}', params: { hash: `0x${'cd'.repeat(32)}` } },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: any) => [x.id, x.status])).toEqual([
      ['tx', 200],
      [1, 200],
      [2, 200],
      [3, 404],
      [4, 404],
    ]);
    for (const x of r.body.results.slice(0, 3)) expect(x.body.anchor).toEqual(r.body.anchor);
    expect(r.body.results[3].error.error).toBe('not_found');
  });
});

describe('timestamps and monitoring', () => {
  it('timestamp bounds before the first block and after the anchor are null with their reasons', async () => {
    const early = await idx.get('/blocks/at?timestamp=0');
    expect(early.body.data).toMatchObject({
      timestamp: 0,
      lastAtOrBefore: null,
      lastAtOrBeforeReason: 'before_first_indexed_block',
      firstAtOrAfter: { number: 0 },
      firstAtOrAfterReason: null,
    });
    const late = await idx.get(`/blocks/at?timestamp=${2 ** 40}`);
    expect(late.body.data).toMatchObject({
      firstAtOrAfter: null,
      firstAtOrAfterReason: 'after_anchor_block',
      lastAtOrBefore: { number: late.body.anchor.block, hash: late.body.anchor.hash },
      lastAtOrBeforeReason: null,
    });
  });

  it('health: follower, projections, traces lane, stream gauges, storage', async () => {
    const h = (await idx.get('/health')).body;
    expect(h.anchorReason).toBeNull();
    expect(h.ingest.state).toBe('following');
    expect(h.projections.map((p: any) => p.name)).toContain('decoded_views');
    for (const p of h.projections) expect(p.status).toBe('ready');
    expect(h.traces).toMatchObject({ enabled: true, state: 'following', reason: null });
    expect(h.traces.behindBlocks).toBeGreaterThanOrEqual(0);
    expect(h.traces.behindBlocks).toBe(h.anchor.block - h.traces.checkpoint);
    expect(h.streams.topics.find((t: any) => t.topic === 'blocks').lastSequence).toBeGreaterThan(0);
    expect(h.storage).toMatchObject({ writable: true, writeError: null });
    // The writer thread has committed everything by now (the node stands still), and the state
    // cache holds what ingest read and wrote, within its bound.
    expect(h.storage.writesInFlight).toBe(0);
    expect(h.storage.stateCache.bytes).toBeGreaterThan(0);
    expect(h.storage.stateCache.bytes).toBeLessThanOrEqual(h.storage.stateCache.maxBytes);
    // A short chain stays inside the unfinalised window: every block went through live mode.
    expect(h.ingest).toMatchObject({ historyEnd: -1, mode: null });
    expect(h.ingest.rates.live.blocksPerSecond).toBeGreaterThanOrEqual(0);
    expect(h.openGaps).toBe(0);
  });

  it('checkpoints per lane and the (empty) gaps page', async () => {
    const c = (await idx.get('/checkpoints')).body;
    const lanes = c.lanes.map((l: any) => l.lane);
    expect(lanes.slice(0, 3)).toEqual(['blocks', 'receipts', 'traces']);
    expect(lanes).toContain('projection:decoded_views');
    const blocks = c.lanes[0];
    expect(blocks).toEqual({ lane: 'blocks', block: c.anchor.block, hash: c.anchor.hash, reason: null });
    const g = await idx.get('/gaps');
    expect(g.status).toBe(200);
    expect(g.body.data).toEqual([]);
    expect(g.body.page.stoppedBy).toBe('exhausted');
  });
});

describe('cursors', () => {
  it('a walk keeps its anchor while new blocks arrive', async () => {
    const n = 4; // 3 + (3 % 4) = 6 transfers in block 4
    const p1 = await idx.get(`/blocks/${n}/transactions?limit=2`);
    expect(p1.body.data).toHaveLength(2);
    expect(p1.body.page.stoppedBy).toBe('rows');
    const anchor = p1.body.anchor;
    await anvil.sendTransfers(2);
    await anvil.mine(3);
    await idx.waitForHead(anchor.block + 3);
    const p2 = await idx.get(`/blocks/${n}/transactions?limit=2&cursor=${p1.body.page.nextCursor}`);
    expect(p2.status).toBe(200);
    expect(p2.body.anchor).toEqual(anchor);
    const fresh = await idx.get(`/blocks/${n}/transactions`);
    expect(fresh.body.anchor.block).toBeGreaterThan(anchor.block);
    expect([...p1.body.data, ...p2.body.data]).toEqual(fresh.body.data.slice(0, 4));
  });

  it('refuses forged, cross-route and truncated cursors with 400', async () => {
    const p1 = await idx.get('/blocks/4/transactions?limit=1');
    const c: string = p1.body.page.nextCursor;
    const flipped = c.slice(0, 10) + (c[10] === 'A' ? 'B' : 'A') + c.slice(11);
    for (const bad of [flipped, c.slice(0, c.length - 4), 'not-a-cursor']) {
      const r = await idx.get(`/blocks/4/transactions?cursor=${bad}`);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('bad_cursor');
    }
    const other = await idx.get(`/blocks/5/transactions?cursor=${c}`);
    expect(other.body.error).toBe('bad_cursor');
    const otherOrder = await idx.get(`/blocks/4/transactions?order=desc&cursor=${c}`);
    expect(otherOrder.body.error).toBe('bad_cursor');
  });

  it('after anvil_reorg past the cursor block: 409 stale_cursor and the new branch is indexed', async () => {
    await anvil.sendTransfers(3);
    await anvil.mine();
    const target = await anvil.head();
    await anvil.mine();
    const head = await anvil.head();
    await idx.waitForHead(head);
    const before = await idx.get(`/blocks/${target}`);
    const p1 = await idx.get(`/blocks/${target}/transactions?limit=1`);
    expect(p1.body.anchor.block).toBe(head);
    const cursor: string = p1.body.page.nextCursor;
    expect(cursor).toBeTruthy();
    // An older block's walk anchored at the same head is also bound to the dropped fork.
    const onOld = (await idx.get('/blocks/4/transactions?limit=1')).body.page.nextCursor as string;
    // The target block's transactions and receipts, read at this head and again after a block:
    // the second answer is the record cache's (same data, the new anchor), counted in the metrics.
    const oldTxs: string[] = (await idx.get(`/blocks/${target}/transactions`)).body.data.map(
      (t: { hash: string }) => t.hash,
    );
    expect(oldTxs.length).toBeGreaterThan(0);
    const recordHits = async () => {
      const port = [...idx.logs().matchAll(/"metricsPort":(\d+)/g)].at(-1)![1];
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      return Number(
        /indexer_response_cache_requests_total\{chain="testnet",outcome="record_hit"\} (\d+)/.exec(
          text,
        )?.[1] ?? 0,
      );
    };
    const firstReads = await Promise.all(oldTxs.map((h) => idx.get(`/transactions/${h}/receipt`)));
    await anvil.mine();
    await idx.waitForHead(head + 1);
    const hitsBefore = await recordHits();
    for (const [i, h] of oldTxs.entries()) {
      const again = await idx.get(`/transactions/${h}/receipt`);
      expect(again.body.anchor.block).toBe(head + 1);
      expect(again.body.data).toEqual(firstReads[i].body.data);
      await idx.get(`/transactions/${h}`);
    }
    expect(await recordHits()).toBeGreaterThanOrEqual(hitsBefore + oldTxs.length);
    await anvil.rpc('anvil_reorg', [
      3,
      [
        [
          {
            from: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
            to: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
            value: '0x7',
          },
          0,
        ],
        [
          {
            from: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
            to: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
            value: '0x9',
          },
          1,
        ],
      ],
    ]);
    const newHash = (await anvil.rpc('eth_getBlockByNumber', [`0x${target.toString(16)}`, false])).hash;
    expect(newHash).not.toBe(before.body.data.hash);
    // The indexer notices on its next poll (same height, different hash) and rolls back.
    const t0 = Date.now();
    for (;;) {
      const r = await idx.get(`/blocks/${target}`);
      if (r.body?.data?.hash === newHash) break;
      if (Date.now() - t0 > 20_000) throw new Error(`not re-indexed:\n${idx.logs().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const c of [cursor, onOld]) {
      const path = c === cursor ? `/blocks/${target}` : '/blocks/4';
      const stale = await idx.get(`${path}/transactions?cursor=${c}`);
      expect(stale.status).toBe(409);
      expect(stale.body.error).toBe('stale_cursor');
    }
    // Every reorged block equals the node's new branch, transactions included.
    const nodeHead = await anvil.head();
    await idx.waitForHead(nodeHead);
    for (let n = target - 2; n <= nodeHead; n++) {
      const node = await anvil.rpc('eth_getBlockByNumber', [`0x${n.toString(16)}`, true]);
      const r = await idx.get(`/blocks/${n}`);
      expect(r.body.data.hash).toBe(node.hash);
      const txs = await idx.get(`/blocks/${n}/transactions`);
      expect(txs.body.data).toEqual(node.transactions);
    }
    // The transactions of the dropped block: each answered as the node now has it (re-included in
    // another block, or not found) — never the record cache's answer from the dropped fork.
    for (const h of oldTxs) {
      const [tx, receipt] = await Promise.all([
        anvil.rpc('eth_getTransactionByHash', [h]),
        anvil.rpc('eth_getTransactionReceipt', [h]),
      ]);
      const [t, r] = await Promise.all([
        idx.get(`/transactions/${h}`),
        idx.get(`/transactions/${h}/receipt`),
      ]);
      if (!receipt || !tx?.blockHash) {
        expect([t.status, r.status]).toEqual([404, 404]);
        continue;
      }
      expect(t.body.data.transaction).toEqual(tx);
      expect(t.body.data.blockNumber).toBe(Number(tx.blockNumber));
      expect(r.body.data.receipt.blockHash).toBe(receipt.blockHash);
      expect(r.body.data.receipt).toEqual(receipt);
    }
    // The old hash is no longer served.
    const old = await idx.get(`/blocks/by-hash/${before.body.data.hash}`);
    expect(old.status).toBe(404);
    const health = await idx.get('/health');
    expect(health.body.ingest.reorgs).toBeGreaterThanOrEqual(1);
    // anvil offers eth_subscribe over WebSocket: live following is woken by newHeads.
    expect(health.body.ingest.headSource).toBe('newHeads');
  });
});
