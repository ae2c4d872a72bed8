/**
 * flattenCallTrace on real recorded mainnet callTracer output (test/fixtures, see its
 * README): block 24,298,763 (361 txs from debug_traceBlockByNumber) and five single-tx traces
 * (CALLCODE frames, inner out-of-gas error, Router02 swap). Expectations are computed
 * independently by recursion over the raw tree.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../../../../../test/fixtures/index.js';
import type { TraceResult } from '../../schema/rows/traces.js';
import { type CallTracerFrame, flattenCallTrace, MalformedTraceError } from './frames.js';

const FIXTURES = FIXTURES_DIR;
const readJson = (p: string) => JSON.parse(readFileSync(join(FIXTURES, p), 'utf8'));

const block: Array<{ txHash: string; result: CallTracerFrame }> = readJson(
  'ethereum/24298763/calltraces.json',
);
const singles: Array<{ txHash: string; result: CallTracerFrame }> = readdirSync(
  join(FIXTURES, 'ethereum/tx-traces'),
)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ txHash: f.replace(/\.json$/, ''), result: readJson(`ethereum/tx-traces/${f}`) }));
const all = [...block, ...singles];

// --- independent recursive oracles over the raw tree ---
const countNodes = (f: CallTracerFrame): number => 1 + (f.calls ?? []).reduce((s, c) => s + countNodes(c), 0);
const MOVING = new Set(['CALL', 'CALLCODE', 'CREATE', 'CREATE2', 'SELFDESTRUCT']);
/** Sum of value over value-moving non-root frames; `onlyEffective` skips subtrees under an error. */
function sumMoved(f: CallTracerFrame, isRoot: boolean, onlyEffective: boolean): bigint {
  if (onlyEffective && f.error) return 0n;
  let s = !isRoot && MOVING.has(f.type) && f.value ? BigInt(f.value) : 0n;
  for (const c of f.calls ?? []) s += sumMoved(c, false, onlyEffective);
  return s;
}
const countType = (f: CallTracerFrame, types: string[]): number =>
  (types.includes(f.type) ? 1 : 0) + (f.calls ?? []).reduce((s, c) => s + countType(c, types), 0);
/** Nodes strictly below some node with an error. */
const countUnderError = (f: CallTracerFrame, under: boolean): number =>
  (under ? 1 : 0) + (f.calls ?? []).reduce((s, c) => s + countUnderError(c, under || !!f.error), 0);

const flat: TraceResult[] = all.map((t) => flattenCallTrace(t.txHash, t.result));

describe('flattenCallTrace on recorded mainnet traces', () => {
  it('covers the recorded fixture set (361 block txs, 1758 frames; 5 single traces)', () => {
    expect(block).toHaveLength(361);
    expect(singles).toHaveLength(5);
    expect(flat.slice(0, 361).reduce((s, r) => s + r.frames.length, 0)).toBe(1758);
  });

  it('keeps ordinal/parent/depth consistent and counts every node', () => {
    all.forEach((t, i) => {
      const { frames } = flat[i];
      expect(frames.length).toBe(countNodes(t.result));
      frames.forEach((f, j) => {
        expect(f.ordinal).toBe(j);
        if (j === 0) {
          expect(f.parent).toBeNull();
          expect(f.depth).toBe(0);
        } else {
          expect(f.parent).not.toBeNull();
          const p = f.parent as number;
          expect(p).toBeLessThan(j);
          expect(f.depth).toBe(frames[p].depth + 1);
        }
      });
    });
  });

  it('visits frames in depth-first pre-order (first child right after its parent)', () => {
    const t = block.find(
      (x) => (x.result.calls?.length ?? 0) > 1 && x.result.calls?.[0].calls?.length,
    ) as (typeof block)[0];
    const { frames } = flattenCallTrace(t.txHash, t.result);
    const c0 = t.result.calls?.[0] as CallTracerFrame;
    expect(frames[1].to).toBe(c0.to?.toLowerCase());
    expect(frames[2].to).toBe(c0.calls?.[0].to?.toLowerCase());
    // the root's second child comes after the whole first subtree
    const second = frames.filter((f) => f.parent === 0)[1];
    expect(second.ordinal).toBe(1 + countNodes(c0));
  });

  it('sums internal transfers to an independent recursive sum (all, and effective only)', () => {
    let anyValue = 0;
    all.forEach((t, i) => {
      const r = flat[i];
      const total = r.internalTransfers.reduce((s, x) => s + BigInt(x.value), 0n);
      const effective = r.internalTransfers
        .filter((x) => x.effective)
        .reduce((s, x) => s + BigInt(x.value), 0n);
      expect(total).toBe(sumMoved(t.result, true, false));
      expect(effective).toBe(sumMoved(t.result, true, true));
      for (const x of r.internalTransfers) {
        expect(/^[1-9][0-9]*$/.test(x.value)).toBe(true);
        expect(r.frames[x.ordinal].depth).toBeGreaterThan(0);
      }
      anyValue += r.internalTransfers.length;
    });
    expect(anyValue).toBeGreaterThan(0);
  });

  it('never lists delegatecall frames as transfers, even when the tracer gives them a value', () => {
    let delegateWithValue = 0;
    for (const r of flat) {
      const kinds = new Map(r.frames.map((f) => [f.ordinal, f.kind]));
      for (const x of r.internalTransfers) {
        expect(kinds.get(x.ordinal)).not.toBe('delegatecall');
        expect(kinds.get(x.ordinal)).not.toBe('staticcall');
      }
      for (const f of r.frames) {
        if (f.kind === 'delegatecall' && f.value !== '0') {
          delegateWithValue++;
          expect(f.movesValue).toBe(false);
        }
      }
    }
    // the README-documented block has DELEGATECALL frames carrying the caller's value
    expect(delegateWithValue).toBeGreaterThan(0);
  });

  it('marks frames under a reverted frame as revertedByAncestor', () => {
    let under = 0;
    all.forEach((t, i) => {
      const { frames } = flat[i];
      expect(frames.filter((f) => f.revertedByAncestor).length).toBe(countUnderError(t.result, false));
      for (const f of frames) {
        expect(f.reverted).toBe(f.error !== null);
        if (f.parent !== null) {
          const p = frames[f.parent];
          expect(f.revertedByAncestor).toBe(p.reverted || p.revertedByAncestor);
        }
        if (f.revertedByAncestor) under++;
      }
    });
    expect(under).toBeGreaterThan(0);
    // tx 0xf082… reverts at the top with a 6-deep chain of reverting frames below
    const rev = flat[block.findIndex((x) => x.txHash.startsWith('0xf082fb09'))];
    expect(rev.frames[0].reverted).toBe(true);
    expect(rev.frames.slice(1).every((f) => f.revertedByAncestor)).toBe(true);
    expect(rev.internalTransfers.every((x) => !x.effective)).toBe(true);
  });

  it('keeps revertReason and an inner error without reverting the parent', () => {
    const c74 = flat[block.findIndex((x) => x.txHash.startsWith('0xc74d1666'))];
    expect(c74.frames[0].revertReason).toBe('52');
    const oog = flat[all.findIndex((x) => x.txHash.startsWith('0x0ccb5dbd'))];
    const failed = oog.frames.filter((f) => f.reverted);
    expect(failed).toHaveLength(1);
    expect(failed[0].depth).toBeGreaterThan(0);
    expect(failed[0].error).toMatch(/out of gas/);
    expect(oog.frames[0].reverted).toBe(false);
  });

  it('finds a creation for every CREATE/CREATE2 frame', () => {
    let n = 0;
    all.forEach((t, i) => {
      const r = flat[i];
      expect(r.creations.length).toBe(countType(t.result, ['CREATE', 'CREATE2']));
      for (const c of r.creations) {
        const f = r.frames[c.ordinal];
        expect(['create', 'create2']).toContain(f.kind);
        expect(c.creator).toBe(f.from);
        expect(c.address).toBe(f.to);
        expect(c.depth).toBe(f.depth);
        expect(c.effective).toBe(!(f.reverted || f.revertedByAncestor));
      }
      n += r.creations.length;
    });
    expect(n).toBe(3);
    // 0xd4af… is itself a contract deployment: the root is a creation
    const dep = flat[block.findIndex((x) => x.txHash.startsWith('0xd4af1506'))];
    expect(dep.creations[0]).toEqual({
      ordinal: 0,
      creator: '0x4ed533ac189806ba42423bfeb62d361a2899581c',
      address: '0xd346b83954d1a21b1e6edcf2bd07dbc4e557756b',
      depth: 0,
      effective: true,
    });
  });

  it('maps CALLCODE frames to kind callcode', () => {
    const cc = flat[all.findIndex((x) => x.txHash.startsWith('0xa620dc5f'))];
    expect(cc.frames.filter((f) => f.kind === 'callcode')).toHaveLength(4);
  });

  it('lowercases addresses and gives decimal gasUsed/value', () => {
    for (const r of flat) {
      for (const f of r.frames) {
        expect(f.from).toBe(f.from.toLowerCase());
        if (f.to) expect(f.to).toBe(f.to.toLowerCase());
        expect(f.gasUsed).toMatch(/^[0-9]+$/);
        expect(f.value).toMatch(/^[0-9]+$/);
      }
    }
  });
});

describe('flattenCallTrace edge cases', () => {
  it('keeps wei beyond 2^53 exact and nulls the address of a failed create', () => {
    const big = '0xde0b6b3a7640000000001'; // > 2^64
    const r = flattenCallTrace('0x01', {
      type: 'CALL',
      from: '0xAA',
      to: '0xBB',
      value: '0x0',
      gasUsed: '0x10',
      input: '0x',
      calls: [
        {
          type: 'CREATE2',
          from: '0xBB',
          to: '0xCC',
          value: big,
          gasUsed: '0x1',
          input: '0x',
          error: 'execution reverted',
        },
        { type: 'SELFDESTRUCT', from: '0xBB', to: '0xDD', value: big, input: '0x' },
      ],
    });
    expect(r.frames[1].to).toBeNull();
    expect(r.creations).toEqual([{ ordinal: 1, creator: '0xbb', address: null, depth: 1, effective: false }]);
    expect(r.internalTransfers.map((x) => [x.kind, x.value, x.effective])).toEqual([
      ['create2', BigInt(big).toString(), false],
      ['selfdestruct', BigInt(big).toString(), true],
    ]);
    expect(r.frames[2].gasUsed).toBe('0');
  });

  it('refuses an unknown frame type', () => {
    expect(() => flattenCallTrace('0x01', { type: 'BOGUS', from: '0x0' })).toThrow(MalformedTraceError);
  });
});
