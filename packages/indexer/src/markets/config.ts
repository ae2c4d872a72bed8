/**
 * Where pools come from on the served chain: Uniswap V2 factories (PairCreated), V3 factories
 * (PoolCreated), V4 PoolManagers (Initialize) and launchpad curves (LaunchCreated/CurveTrade).
 * Ethereum, Base, Arbitrum One and OP Mainnet defaults are built in (src/markets/defaults.ts); the
 * devnet registers its own deployment; other chains use MARKETS_FILE `{"v2Factories":[…], "v3Factories":[…], "v4Managers":[…]}`.
 */
import { readFileSync } from 'node:fs';
import { builtInMarkets } from './defaults.js';

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

/**
 * The markets config of chain `chainId`: MARKETS_FILE when given (it replaces the defaults), else the
 * built-in defaults of that chain id, else none (no pools are registered).
 * @throws Error when the file cannot be read or is not JSON.
 */
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
  const builtIn = builtInMarkets(chainId);
  if (builtIn) return builtIn;
  return { v2Factories: [], v3Factories: [], v4Managers: [], usdStablecoins: [] };
}

/** Quote assets in priority order (see {@link MarketsConfig.quoteAssets}). */
export function quoteAssetsOf(c: MarketsConfig): string[] {
  return c.quoteAssets ?? [...c.usdStablecoins, '0x0000000000000000000000000000000000000000'];
}
