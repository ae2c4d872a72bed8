/** Real Uniswap/WETH bytecode and ABIs loaded from the npm packages (no compilation). */
import { createRequire } from 'node:module';
import type { Abi, Hex } from 'viem';

export interface Artifact {
  abi: Abi;
  bytecode: Hex;
  linkReferences?: Record<string, Record<string, { start: number; length: number }[]>>;
}

const require = createRequire(import.meta.url);

function load(path: string): Artifact {
  const j = require(path) as {
    abi: Abi;
    bytecode: string | { object: string };
    linkReferences?: Artifact['linkReferences'];
  };
  const raw = typeof j.bytecode === 'string' ? j.bytecode : j.bytecode.object;
  const bytecode = (raw.startsWith('0x') ? raw : `0x${raw}`) as Hex;
  return { abi: j.abi, bytecode, linkReferences: j.linkReferences };
}

const V3P = '@uniswap/v3-periphery/artifacts/contracts';
const V4 = '@uniswap/v4-core/out';

/** Lazily loaded so importing this module stays cheap. */
export const artifacts = {
  weth9: () => load('@uniswap/v2-periphery/build/WETH9.json'),
  v2Factory: () => load('@uniswap/v2-core/build/UniswapV2Factory.json'),
  v2Pair: () => load('@uniswap/v2-core/build/UniswapV2Pair.json'),
  v2Router02: () => load('@uniswap/v2-periphery/build/UniswapV2Router02.json'),
  v3Factory: () => load('@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json'),
  v3Pool: () => load('@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json'),
  nftDescriptor: () => load(`${V3P}/libraries/NFTDescriptor.sol/NFTDescriptor.json`),
  positionDescriptor: () =>
    load(`${V3P}/NonfungibleTokenPositionDescriptor.sol/NonfungibleTokenPositionDescriptor.json`),
  positionManager: () => load(`${V3P}/NonfungiblePositionManager.sol/NonfungiblePositionManager.json`),
  swapRouter: () => load(`${V3P}/SwapRouter.sol/SwapRouter.json`),
  poolManager: () => load(`${V4}/PoolManager.sol/PoolManager.json`),
  poolSwapTest: () => load(`${V4}/PoolSwapTest.sol/PoolSwapTest.json`),
  poolModifyLiquidityTest: () => load(`${V4}/PoolModifyLiquidityTest.sol/PoolModifyLiquidityTest.json`),
};

/** Replaces every library placeholder named `libName` in a Hardhat artifact's bytecode. */
export function linkLibrary(a: Artifact, libName: string, address: Hex): Hex {
  let code = a.bytecode.slice(2);
  const addr = address.slice(2).toLowerCase();
  for (const file of Object.values(a.linkReferences ?? {})) {
    for (const ref of file[libName] ?? []) {
      const at = ref.start * 2;
      code = code.slice(0, at) + addr + code.slice(at + ref.length * 2);
    }
  }
  return `0x${code}`;
}
