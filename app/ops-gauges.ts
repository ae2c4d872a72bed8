/**
 * What the alerting gauges (packages/indexer/src/metrics/ops.ts) read of one served chain: the
 * follower's state, the projections' /health records, the replica's lag, the reconciliation
 * verdicts of the chain's standard tokens (its USD stablecoins and the wrapped native token of its
 * markets config) and its data directory.
 */
import type { ChainRuntime, OpsGaugeSource } from '@chain-indexer/indexer/chain';
import { projectionsOf } from '@chain-indexer/indexer/server';

const NATIVE = '0x0000000000000000000000000000000000000000';

/** The standard tokens of a chain: its USD stablecoins and ERC-20 quote assets (wrapped native). */
export function standardTokensOf(markets: { usdStablecoins: string[]; quoteAssets?: string[] }): string[] {
  return [
    ...new Set([...markets.usdStablecoins, ...(markets.quoteAssets ?? [])].map((a) => a.toLowerCase())),
  ].filter((a) => a !== NATIVE);
}

/** The ops gauge source of runtime `r`, whose store lives under `dataDir`. */
export function opsGaugeSource(r: ChainRuntime, dataDir: string): OpsGaugeSource {
  const standard = standardTokensOf(r.ctx.markets);
  return {
    name: r.name,
    ingest: () => {
      const s = r.ingest.status();
      return { state: s.state, lastReorgDepth: s.lastReorgDepth };
    },
    projections: () => projectionsOf(r.ctx),
    replica: () => {
      const rep = r.ctx.replica;
      if (!rep) return null;
      const s = rep.status();
      return { state: s.state, lagSeconds: s.lagSeconds, maxLagSeconds: rep.maxLagSeconds };
    },
    standardTokens: () => {
      const head = r.store.committedHead();
      if (!head) return [];
      const view = r.store.view();
      try {
        return standard.map((token) => {
          let symbol: string | null = null;
          try {
            symbol = r.ctx.readers.tokens.token(view, token, head.number)?.metadata?.symbol.value ?? null;
          } catch {
            symbol = null; // not seen yet on this chain
          }
          return { token, symbol, status: r.ctx.readers.tokens.fidelityOf(view, token).status };
        });
      } finally {
        view.close();
      }
    },
    dataDir,
  };
}
