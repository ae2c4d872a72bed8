/**
 * traceBlock against a real anvil (no mocks): two native transfers and a contract creation whose
 * init code moves value by CALL, DELEGATECALLs an EOA, CREATEs a child with value, and CREATEs a
 * second child that sends value then reverts. Balances read back from the node confirm which
 * transfers were effective.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Anvil, DEV_ACCOUNTS, freePort, startAnvil } from '../../../../../test/harness/anvil.js';
import { createRpc, RpcError } from '../../rpc/client.js';
import { type BlockTraceResult, type TxTraceGap, type TxTraceOk, traceBlock } from './trace-block.js';

const [A, B, C] = DEV_ACCOUNTS;
const hexByte = (n: number) => n.toString(16).padStart(2, '0');
/** CALL(gas, to, value, 0, 0, 0, 0); POP — value < 256. */
const callAsm = (to: string, value: number) => `600060006000600060${hexByte(value)}73${to.slice(2)}5af150`;
/** DELEGATECALL(gas, to, 0, 0, 0, 0); POP. */
const delegateAsm = (to: string) => `600060006000600073${to.slice(2)}5af450`;

/**
 * Creation code: CALL B 100 wei; DELEGATECALL B; CREATE(7 wei, empty code); CREATE(3 wei, code
 * that CALLs C 2 wei then REVERTs); STOP. Needs ≥ 110 wei of tx value.
 */
function deployerInitCode(): string {
  const child = `${callAsm(C, 2)}60006000fd`;
  const childLen = child.length / 2;
  const head = `${callAsm(B, 100)}${delegateAsm(B)}600060006007f050`;
  // CODECOPY(0, off, len) = 7 bytes; CREATE(3, 0, len); POP = 8 bytes; STOP = 1 byte
  const off = head.length / 2 + 7 + 8 + 1;
  const copy = `60${hexByte(childLen)}60${hexByte(off)}600039`;
  const create = `60${hexByte(childLen)}60006003f050`;
  return `0x${head}${copy}${create}00${child}`;
}

let anvil: Anvil;
let block: number;
let hashes: string[];
let contractAddress: string;
const balancesBefore = new Map<string, bigint>();

const balance = async (a: string, tag = 'latest') =>
  BigInt(await anvil.rpc<string>('eth_getBalance', [a, tag]));

beforeAll(async () => {
  anvil = await startAnvil();
  for (const a of [B, C]) balancesBefore.set(a, await balance(a));
  hashes = [
    await anvil.rpc('eth_sendTransaction', [{ from: A, to: B, value: '0x3e8' }]),
    await anvil.rpc('eth_sendTransaction', [{ from: A, to: C, value: '0x7d0' }]),
    await anvil.rpc('eth_sendTransaction', [
      { from: A, value: '0x3e8', data: deployerInitCode(), gas: '0x100000' },
    ]),
  ];
  await anvil.mine(1);
  block = await anvil.head();
  const blk = await anvil.rpc<{ transactions: string[] }>('eth_getBlockByNumber', [
    `0x${block.toString(16)}`,
    false,
  ]);
  hashes = blk.transactions; // block order
  const rc = await anvil.rpc<{ contractAddress: string; status: string }>('eth_getTransactionReceipt', [
    hashes[2],
  ]);
  expect(rc.status).toBe('0x1');
  contractAddress = rc.contractAddress.toLowerCase();
});

afterAll(async () => {
  await anvil?.stop();
});

const ok = (r: BlockTraceResult, i: number) => {
  expect(r.txs[i].status).toBe('ok');
  return r.txs[i] as TxTraceOk;
};

describe('traceBlock on anvil', () => {
  it('traces the block with debug_traceBlockByNumber and flattens each tx', async () => {
    const r = await traceBlock(createRpc({ url: anvil.rpcUrl }), block, hashes);
    expect(r.blockNumber).toBe(block);
    expect(r.source).toBe('debug_traceBlockByNumber');
    expect(r.txs.map((t) => t.txHash)).toEqual(hashes);

    // plain transfers: one root frame, value on the root only, no internal transfers
    const t0 = ok(r, 0);
    expect(t0.frames).toHaveLength(1);
    expect(t0.frames[0]).toMatchObject({
      kind: 'call',
      from: A,
      to: B,
      value: '1000',
      depth: 0,
      parent: null,
    });
    expect(t0.internalTransfers).toEqual([]);
    expect(ok(r, 1).frames[0]).toMatchObject({ to: C, value: '2000' });

    const d = ok(r, 2);
    expect(d.frames.map((f) => [f.kind, f.depth, f.parent])).toEqual([
      ['create', 0, null],
      ['call', 1, 0],
      ['delegatecall', 1, 0],
      ['create', 1, 0],
      ['create', 1, 0],
      ['call', 2, 4],
    ]);
    expect(d.frames[0].to).toBe(contractAddress);
    // the delegatecall carries the caller's value in the tracer, but moves nothing
    expect(d.frames[2]).toMatchObject({ value: '1000', movesValue: false });
    expect(d.frames[4]).toMatchObject({ reverted: true, to: null, error: 'execution reverted' });
    expect(d.frames[5]).toMatchObject({ reverted: false, revertedByAncestor: true });

    const childAddr = d.frames[3].to as string;
    expect(d.internalTransfers).toEqual([
      { ordinal: 1, from: contractAddress, to: B, value: '100', kind: 'call', effective: true },
      { ordinal: 3, from: contractAddress, to: childAddr, value: '7', kind: 'create', effective: true },
      { ordinal: 4, from: contractAddress, to: null, value: '3', kind: 'create', effective: false },
      { ordinal: 5, from: d.frames[5].from, to: C, value: '2', kind: 'call', effective: false },
    ]);
    expect(d.creations).toEqual([
      { ordinal: 0, creator: A, address: contractAddress, depth: 0, effective: true },
      { ordinal: 3, creator: contractAddress, address: childAddr, depth: 1, effective: true },
      { ordinal: 4, creator: contractAddress, address: null, depth: 1, effective: false },
    ]);

    // the node's balances agree with `effective`: B got 1000 + 100, C got 2000 and not the reverted 2
    expect((await balance(B)) - (balancesBefore.get(B) as bigint)).toBe(1100n);
    expect((await balance(C)) - (balancesBefore.get(C) as bigint)).toBe(2000n);
    expect(await balance(childAddr)).toBe(7n);
    expect(await balance(contractAddress)).toBe(1000n - 100n - 7n);
  });

  it('maps block traces to transactions by txHash, whatever order they are asked in', async () => {
    const rpc = createRpc({ url: anvil.rpcUrl });
    const fwd = await traceBlock(rpc, block, hashes);
    const rev = await traceBlock(rpc, block, [...hashes].reverse());
    expect(rev.source).toBe('debug_traceBlockByNumber');
    expect(rev.txs).toEqual([...fwd.txs].reverse());
  });

  it('falls back to debug_traceTransaction when the count does not match, and reports the gap', async () => {
    const rpc = createRpc({ url: anvil.rpcUrl });
    const bogus = `0x${'ab'.repeat(32)}`;
    const blockPath = await traceBlock(rpc, block, hashes);
    const r = await traceBlock(rpc, block, [...hashes, bogus]);
    expect(r.source).toBe('debug_traceTransaction');
    expect(r.txs).toHaveLength(4);
    expect(r.txs.slice(0, 3)).toEqual(blockPath.txs);
    const gap = r.txs[3] as TxTraceGap;
    expect(gap).toMatchObject({ txHash: bogus, status: 'not_available', retryable: false });
    expect(gap.reason.length).toBeGreaterThan(0);
  });

  it('falls back per tx when the node refuses the whole block', async () => {
    // a block the node does not have: debug_traceBlockByNumber answers an error for the block
    const r = await traceBlock(createRpc({ url: anvil.rpcUrl }), block + 1000, [hashes[0]]);
    expect(r.source).toBe('debug_traceTransaction');
    expect(ok(r, 0).frames[0]).toMatchObject({ from: A, to: B, value: '1000' });
  });

  it('answers an empty block without asking the node', async () => {
    const r = await traceBlock(createRpc({ url: anvil.rpcUrl }), block, []);
    expect(r.txs).toEqual([]);
  });

  it('throws instead of recording gaps when the node is unreachable', async () => {
    const port = await freePort(); // nothing listens there
    const rpc = createRpc({ url: `http://127.0.0.1:${port}`, maxAttempts: 1 });
    await expect(traceBlock(rpc, block, hashes)).rejects.toBeInstanceOf(RpcError);
  });
});
