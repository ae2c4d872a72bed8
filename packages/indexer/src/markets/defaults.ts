/**
 * Built-in market defaults for the chains users run most: pointing `RPC_URL` at one of them needs
 * no MARKETS_FILE. Per chain id: Uniswap V2 factory, V3 factory, V4 PoolManager (+ its StateView
 * lens), wrapped native and USD stablecoins. Addresses are EIP-55 checksummed as published; the
 * service lowercases them ({@link builtInMarkets}). Every address carries its source.
 *
 * Sources (fetched 2026-11):
 *  - V2: https://docs.uniswap.org/contracts/v2/reference/smart-contracts/v2-deployments
 *  - V3: https://docs.uniswap.org/contracts/v3/reference/deployments (per-chain pages)
 *  - V4: https://docs.uniswap.org/contracts/v4/deployments
 *  - USDC: https://developers.circle.com/stablecoins/usdc-contract-addresses
 */

/** One chain's built-in markets (checksummed addresses as published). */
export interface MarketDefaults {
  /** Human chain name, for logs. */
  name: string;
  v2Factory: string;
  v3Factory: string;
  v4PoolManager: string;
  /** Uniswap v4-periphery StateView lens over the PoolManager (informational; reads use extsload). */
  v4StateView: string;
  wrappedNative: string;
  /** USD stablecoins (1 unit = 1 USD by convention), highest-priority quote first. */
  usdStablecoins: string[];
}

/** Built-in defaults by EIP-155 chain id. */
export const MARKET_DEFAULTS: Readonly<Record<number, MarketDefaults>> = {
  1: {
    name: 'Ethereum',
    // docs.uniswap.org v2-deployments, row "Mainnet"
    v2Factory: '0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f',
    // docs.uniswap.org v3 deployments / github.com/Uniswap/v3-periphery deploys.md "UniswapV3Factory"
    v3Factory: '0x1F98431c8aD98523631AE4a59f267346ea31F984',
    // docs.uniswap.org/contracts/v4/deployments "Ethereum: 1" PoolManager
    v4PoolManager: '0x000000000004444c5dc75cB358380D2e3dE08A90',
    // docs.uniswap.org/contracts/v4/deployments "Ethereum: 1" StateView
    v4StateView: '0x7fFE42C4a5DEeA5b0feC41C94C136Cf115597227',
    // WETH9 (canonical; github.com/OffchainLabs/arbitrum-orbit-sdk src/contracts/WETH.ts, chain 1)
    wrappedNative: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
    usdStablecoins: [
      // USDC: developers.circle.com usdc-contract-addresses, "Ethereum"
      '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
      // USDT (Tether): etherscan.io token "Tether USD"; ethskills addresses page "USDT Mainnet"
      '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      // DAI: etherscan.io token "Dai Stablecoin"; ethskills addresses page "DAI Mainnet"
      '0x6B175474E89094C44Da98b954EedeAC495271d0F',
    ],
  },
  8453: {
    name: 'Base',
    // docs.uniswap.org v2-deployments, row "Base" (also docs.base.org/chain/contracts "Uniswap v2 Factory")
    v2Factory: '0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6',
    // docs.uniswap.org/contracts/v3/reference/deployments/base-deployments "UniswapV3Factory"
    v3Factory: '0x33128a8fC17869897dcE68Ed026d694621f6FDfD',
    // docs.uniswap.org/contracts/v4/deployments "Base: 8453" PoolManager
    v4PoolManager: '0x498581fF718922c3f8e6A244956aF099B2652b2b',
    // docs.uniswap.org/contracts/v4/deployments "Base: 8453" StateView
    v4StateView: '0xA3c0c9b65baD0b08107Aa264b0f3dB444b867A71',
    // OP-stack WETH predeploy (docs.base.org base-contracts "WETH9"; arbitrum-orbit-sdk WETH.ts, 8453)
    wrappedNative: '0x4200000000000000000000000000000000000006',
    usdStablecoins: [
      // USDC: developers.circle.com usdc-contract-addresses, "Base"
      '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      // DAI (bridged): ethskills addresses page "DAI Base" (no Tether-issued USDT on Base)
      '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb',
    ],
  },
  42161: {
    name: 'Arbitrum One',
    // docs.uniswap.org v2-deployments, row "Arbitrum"
    v2Factory: '0xf1D7CC64Fb4452F05c498126312eBE29f30Fbcf9',
    // docs.uniswap.org v3 arbitrum-deployments "UniswapV3Factory"
    v3Factory: '0x1F98431c8aD98523631AE4a59f267346ea31F984',
    // docs.uniswap.org/contracts/v4/deployments "Arbitrum One: 42161" PoolManager
    v4PoolManager: '0x360E68faCcca8cA495c1B759Fd9EEe466db9FB32',
    // docs.uniswap.org/contracts/v4/deployments "Arbitrum One: 42161" StateView
    v4StateView: '0x76Fd297e2D437cd7f76d50F01AfE6160f86e9990',
    // WETH (docs.arbitrum.io contract-addresses; arbitrum-orbit-sdk WETH.ts, 42161)
    wrappedNative: '0x82aF49447D8a07e3bd95BD0d56f35241523fBab1',
    usdStablecoins: [
      // USDC (native): developers.circle.com usdc-contract-addresses, "Arbitrum"
      '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
      // USDT: ethskills addresses page "USDT Arbitrum"
      '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9',
      // DAI: ethskills addresses page "DAI Arbitrum"
      '0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1',
    ],
  },
  10: {
    name: 'OP Mainnet',
    // docs.uniswap.org v2-deployments, row "Optimism"
    v2Factory: '0x0c3c1c532F1e39EdF36BE9Fe0bE1410313E074Bf',
    // github.com/Uniswap/v3-periphery deploys.md "Mainnet, Polygon, Optimism, Arbitrum" UniswapV3Factory
    v3Factory: '0x1F98431c8aD98523631AE4a59f267346ea31F984',
    // docs.uniswap.org/contracts/v4/deployments "Optimism: 10" PoolManager
    v4PoolManager: '0x9a13F98Cb987694C9F086b1F5eB990EeA8264Ec3',
    // docs.uniswap.org/contracts/v4/deployments "Optimism: 10" StateView
    v4StateView: '0xc18a3169788F4F75A170290584ECA6395C75Ecdb',
    // OP-stack WETH predeploy (github.com/raid-guild/wrapeth src/utils/contracts.ts "optimism")
    wrappedNative: '0x4200000000000000000000000000000000000006',
    usdStablecoins: [
      // USDC (native): developers.circle.com usdc-contract-addresses, "OP Mainnet"
      '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85',
      // USDT: ethskills addresses page "USDT Optimism"
      '0x94b008aA00579c1307B0EF2c499aD98a8ce58e58',
      // DAI: ethskills addresses page "DAI Optimism"
      '0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1',
    ],
  },
};

/**
 * The built-in markets config of chain `chainId` (lowercase addresses), or null when the chain has
 * no defaults. Quote assets: the stablecoins, then wrapped native, then native (0x0).
 */
export function builtInMarkets(chainId: number): {
  v2Factories: string[];
  v3Factories: string[];
  v4Managers: string[];
  usdStablecoins: string[];
  quoteAssets: string[];
} | null {
  const d = MARKET_DEFAULTS[chainId];
  if (!d) return null;
  const lc = (a: string) => a.toLowerCase();
  const stables = d.usdStablecoins.map(lc);
  return {
    v2Factories: [lc(d.v2Factory)],
    v3Factories: [lc(d.v3Factory)],
    v4Managers: [lc(d.v4PoolManager)],
    usdStablecoins: stables,
    quoteAssets: [...stables, lc(d.wrappedNative), '0x0000000000000000000000000000000000000000'],
  };
}
