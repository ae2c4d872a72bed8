/**
 * Where pools come from on the served chain: Uniswap V2 factories (PairCreated), V3 factories
 * (PoolCreated), V4 PoolManagers (Initialize) and launchpad curves (LaunchCreated/CurveTrade).
 * Ethereum mainnet defaults are built in; the devnet registers its own deployment; other chains
 * use MARKETS_FILE `{"v2Factories":[…], "v3Factories":[…], "v4Managers":[…]}`.
 */
import { readFileSync } from 'node:fs';

export interface MarketsConfig {
  v2Factories: string[];
  v3Factories: string[];
  v4Managers: string[];
  /** Stablecoins whose pools mark USD (1 unit = 1 USD by convention, stated on responses). */
  usdStablecoins: string[];
  /**
   * Quote assets in priority order (wallet positions are held in the other side, quoted in the
   * highest-priority quote asset of the pool); default: the stablecoins, then wrapped native, then native.
   */
  quoteAssets?: string[];
}

/** Canonical Uniswap deployments on Ethereum mainnet (chain id 1). */
const MAINNET: MarketsConfig = {
  v2Factories: ['0x5c69bee701ef814a2b6a3edd4b1652cb9cc5aa6f'],
  v3Factories: ['0x1f98431c8ad98523631ae4a59f267346ea31f984'],
  v4Managers: ['0x000000000004444c5dc75cb358380d2e3de08a90'],
  usdStablecoins: [
    '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
    '0xdac17f958d2ee523a2206206994597c13d831ec7',
    '0x6b175474e89094c44da98b954eedeac495271d0f',
  ],
  quoteAssets: [
    '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
    '0xdac17f958d2ee523a2206206994597c13d831ec7',
    '0x6b175474e89094c44da98b954eedeac495271d0f',
    '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
    '0x0000000000000000000000000000000000000000',
  ],
};

export function marketsConfigFor(chainId: number, file: string | null): MarketsConfig {
  const lower = (xs: string[] | undefined) => (xs ?? []).map((x) => x.toLowerCase());
  if (file) {
    const j = JSON.parse(readFileSync(file, 'utf8')) as Partial<MarketsConfig>;
    return {
      v2Factories: lower(j.v2Factories),
      v3Factories: lower(j.v3Factories),
      v4Managers: lower(j.v4Managers),
      usdStablecoins: lower(j.usdStablecoins),
      quoteAssets: j.quoteAssets ? lower(j.quoteAssets) : undefined,
    };
  }
  if (chainId === 1) return MAINNET;
  return { v2Factories: [], v3Factories: [], v4Managers: [], usdStablecoins: [] };
}

/** Quote assets in priority order (see {@link MarketsConfig.quoteAssets}). */
export function quoteAssetsOf(c: MarketsConfig): string[] {
  return c.quoteAssets ?? [...c.usdStablecoins, '0x0000000000000000000000000000000000000000'];
}
