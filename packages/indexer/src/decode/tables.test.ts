/**
 * Provenance of the hand-written tables: every built-in event / function is checked against the
 * published artifact in the @uniswap npm packages (devDependencies), input by input (type,
 * `indexed`, and name where the artifact names it), and Router02 coverage is checked complete.
 * Launchpad entries are checked against the devnet contract's ABI (packages/devnet/src/abis.ts).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { launchpadAbi } from '@chain-indexer/devnet/contracts';
import { type AbiEvent, type AbiFunction, type AbiParameter, parseAbi, parseAbiItem } from 'viem';
import { describe, expect, it } from 'vitest';
import { canonicalSignature } from './codec.js';
import { EVENT_TABLES, FUNCTION_TABLES } from './tables.js';

const require = createRequire(import.meta.url);
const artifact = (p: string) =>
  (JSON.parse(readFileSync(require.resolve(`@uniswap/${p}`), 'utf8')) as { abi: (AbiEvent | AbiFunction)[] })
    .abi;

const EVENT_SOURCES: Record<string, string[]> = {
  erc20: ['v2-core/build/ERC20.json'],
  erc721: ['v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json'],
  weth: ['v2-periphery/build/WETH9.json'],
  ownable: ['v4-core/out/PoolManager.sol/PoolManager.json'],
  uniswap_v2_pair: ['v2-core/build/UniswapV2Pair.json'],
  uniswap_v2_factory: ['v2-core/build/UniswapV2Factory.json'],
  uniswap_v3_pool: ['v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json'],
  uniswap_v3_factory: ['v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json'],
  uniswap_v4_pool_manager: ['v4-core/out/PoolManager.sol/PoolManager.json'],
  erc6909: ['v4-core/out/PoolManager.sol/PoolManager.json'],
};
/** Sources whose parameter names differ by design (other naming of the same standard). */
const NAMES_DIFFER = new Set(['erc20', 'ownable']);

const FUNCTION_SOURCES: Record<string, string[]> = {
  erc20: ['v2-core/build/ERC20.json'],
  weth: ['v2-periphery/build/WETH9.json'],
  uniswap_v2_router: ['v2-periphery/build/UniswapV2Router02.json'],
  uniswap_v3_router: ['v3-periphery/artifacts/contracts/SwapRouter.sol/SwapRouter.json'],
  uniswap_v3_position_manager: [
    'v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json',
  ],
  uniswap_v4_test_router: [
    'v4-core/out/PoolSwapTest.sol/PoolSwapTest.json',
    'v4-core/out/PoolModifyLiquidityTest.sol/PoolModifyLiquidityTest.json',
  ],
};

function sameParams(ours: readonly AbiParameter[], theirs: readonly AbiParameter[], names: boolean): void {
  expect(ours.length).toBe(theirs.length);
  ours.forEach((p, i) => {
    const q = theirs[i];
    expect(p.type).toBe(q.type);
    expect(Boolean((p as { indexed?: boolean }).indexed)).toBe(Boolean((q as { indexed?: boolean }).indexed));
    if (names && q.name) expect(p.name).toBe(q.name);
    const pc = (p as { components?: readonly AbiParameter[] }).components;
    if (pc) sameParams(pc, (q as { components: readonly AbiParameter[] }).components, names);
  });
}

function findIn(sources: string[], item: AbiEvent | AbiFunction): AbiEvent | AbiFunction | undefined {
  const sig = canonicalSignature(item);
  for (const s of sources) {
    const hit = artifact(s).find(
      (x) =>
        x.type === item.type &&
        canonicalSignature(x) === sig &&
        (item.type !== 'event' || sameIndexing(x as AbiEvent, item)),
    );
    if (hit) return hit;
  }
  return undefined;
}
function sameIndexing(a: AbiEvent, b: AbiEvent): boolean {
  return a.inputs.every((p, i) => Boolean(p.indexed) === Boolean(b.inputs[i].indexed));
}

describe('built-in tables match the published artifacts', () => {
  for (const table of EVENT_TABLES) {
    if (table.standard === 'launchpad') continue;
    it(`events: ${table.standard}`, () => {
      for (const s of table.events) {
        const ours = parseAbiItem(s) as AbiEvent;
        const theirs = findIn(EVENT_SOURCES[table.standard], ours);
        expect(theirs, s).toBeDefined();
        sameParams(ours.inputs, theirs!.inputs, !NAMES_DIFFER.has(table.standard));
      }
    });
  }
  for (const table of FUNCTION_TABLES) {
    if (table.decoder === 'launchpad') continue;
    it(`functions: ${table.decoder}`, () => {
      for (const s of table.functions) {
        const ours = parseAbiItem(s) as AbiFunction;
        // burn/mint/Ownable are common ERC-20 extensions the plain ERC20 artifact lacks
        if (table.decoder === 'erc20' && !['transfer', 'transferFrom', 'approve'].includes(ours.name))
          continue;
        const theirs = findIn(FUNCTION_SOURCES[table.decoder], ours);
        expect(theirs, s).toBeDefined();
        sameParams(ours.inputs, theirs!.inputs, !NAMES_DIFFER.has(table.decoder));
      }
    });
  }

  it('Router02: every swap*/addLiquidity*/removeLiquidity* function is covered', () => {
    const theirs = artifact('v2-periphery/build/UniswapV2Router02.json')
      .filter((x) => x.type === 'function' && /^(swap|addLiquidity|removeLiquidity)/.test(x.name))
      .map((x) => canonicalSignature(x))
      .sort();
    const ours = parseAbi(
      FUNCTION_TABLES.find((t) => t.decoder === 'uniswap_v2_router')!.functions as string[],
    )
      .map((x) => canonicalSignature(x as AbiFunction))
      .sort();
    expect(ours).toEqual(theirs);
    expect(ours).toHaveLength(17);
  });

  it('launchpad: events equal the devnet contract; its buy/sell/createLaunch are covered', () => {
    const devEvents = launchpadAbi.filter((x) => x.type === 'event') as AbiEvent[];
    const ours = parseAbi(
      EVENT_TABLES.find((t) => t.standard === 'launchpad')!.events as string[],
    ) as AbiEvent[];
    expect(ours.map(canonicalSignature).sort()).toEqual(devEvents.map(canonicalSignature).sort());
    for (const e of ours) sameParams(e.inputs, devEvents.find((d) => d.name === e.name)!.inputs, true);
    const fns = new Set(
      parseAbi(FUNCTION_TABLES.find((t) => t.decoder === 'launchpad')!.functions as string[]).map((x) =>
        canonicalSignature(x as AbiFunction),
      ),
    );
    for (const f of launchpadAbi.filter(
      (x) => x.type === 'function' && ['buy', 'sell', 'createLaunch'].includes(x.name),
    ))
      expect(fns.has(canonicalSignature(f as AbiFunction)), f.name).toBe(true);
  });
});
