/**
 * The scanner's {@link IndexPort} over the chains this process serves (the in-process scanner of
 * app/main.ts). A read opens one anchored view of the chain's store (its committed head), checks
 * what the indexer's anchored routes check — something indexed, ingest not halted past a deep
 * reorg, a replica within its lag, the projections scans read (tokens, markets, wallets) ready —
 * then hands the view and the chain's domain readers to the scan and closes the view when the
 * scan's synchronous part returns. Refusals are the indexer's own typed errors (ApiError); the
 * scanner maps them to its codes (packages/scanner/src/scan/read.ts).
 */
import { defaultVerifiedAbisDir, loadVerifiedAbis, quoteAssetsOf } from '@chain-indexer/indexer/port';
import type { ChainContext } from '@chain-indexer/indexer/server';
import { ApiError, requireProjection } from '@chain-indexer/indexer/server';
import type { IndexedChain, IndexPort } from '@chain-indexer/scanner';
import { ScannerError } from '@chain-indexer/scanner';

/** Projections every scan reads (the wallets projection joins markets' swaps and tokens' balances). */
const SCAN_REQUIRES = ['tokens', 'markets', 'wallets'];

/** Refuses a read the chain cannot vouch for (the checks of packages/indexer/src/server/invoke.ts for anchored routes). */
function vouch(c: ChainContext, hasHead: boolean): void {
  if (!hasHead) throw new ApiError('not_ready', `nothing indexed yet for chain ${c.name}; retry shortly`);
  const s = c.ingest.status();
  if (s.state === 'halted' && s.haltReason !== 'storage_write_failed')
    throw new ApiError('ingest_halted', `ingest for chain ${c.name} halted (${s.haltReason})`, {
      haltReason: s.haltReason,
    });
  if (c.replica) {
    const r = c.replica.status();
    if (r.lagSeconds > c.replica.maxLagSeconds || r.state === 'bootstrapping')
      throw new ApiError(
        'replica_lagging',
        `replica of ${c.name} is ${r.lagSeconds.toFixed(1)} s behind its writer (state ${r.state})`,
        { lagSeconds: r.lagSeconds, state: r.state },
      );
  }
  for (const p of SCAN_REQUIRES) requireProjection(c, p);
}

/**
 * Builds the port over `chains` (in serving order) with their scanner roles.
 * @param roles chain name → scanner role (packages/scanner/src/index-port.ts chainRoles).
 */
export function createScannerIndexPort(
  chains: readonly ChainContext[],
  roles: ReadonlyMap<string, IndexedChain['role']>,
): IndexPort {
  const byName = new Map(chains.map((c) => [c.name, c]));
  // The same folder the indexer decodes with (loaded once; a malformed folder already stopped start-up).
  const verifiedAbis = loadVerifiedAbis(defaultVerifiedAbisDir()).entries.map((e) => ({
    name: e.name,
    address: e.address,
  }));
  return {
    chains: () =>
      chains.map((c) => ({ name: c.name, chainId: c.chainId, role: roles.get(c.name) ?? 'other' })),
    head(name) {
      const h = byName.get(name)?.store.committedHead();
      return h ? { chain: name, block: h.number, hash: h.hash } : null;
    },
    read(name, fn) {
      const c = byName.get(name);
      if (!c)
        throw new ScannerError('CHAIN_NOT_CONFIGURED', `chain "${name}" is not served by this index`, {
          missing: name,
        });
      const view = c.store.view();
      try {
        vouch(c, view.head !== null);
        const anchor = { chain: name, block: view.head!.number, hash: view.head!.hash };
        const value = fn({
          view,
          readers: c.readers,
          anchor,
          config: {
            usdStablecoins: c.markets.usdStablecoins.map((a) => a.toLowerCase()),
            quoteAssets: quoteAssetsOf(c.markets).map((a) => a.toLowerCase()),
            verifiedAbis,
            labelled: c.labels,
          },
        });
        return { anchor, value };
      } finally {
        view.close();
      }
    },
  };
}
