/**
 * The seam between the scanner and the index: everything scanner endpoints read from the
 * indexer goes through an {@link IndexPort}, handed to every handler as `ctx.index`.
 *
 * It declares which chains are indexed (with their scanner role), the head each has committed,
 * and {@link IndexPort.read}: one anchored view of one chain with the domain readers the indexer's
 * routes use (chain, tokens, markets, wallets, cohorts, addresses), for one synchronous turn, so each scan
 * answer carries the `(chain, block, hash)` it was read at. The scan endpoints (endpoints/scan.ts,
 * contracts.ts, lookups.ts, explorer.ts, people.ts, funding-chain.ts) read only through it, via
 * scan/read.ts, which also maps the indexer's refusals to the scanner's codes.
 *
 * Implementations: the indexer builds one over its chains when it starts the scanner in-process
 * (app/scanner-port.ts, from app/main.ts); the standalone scanner
 * (`node packages/scanner/dist/main.js`) runs with {@link NO_INDEX}: no chains, and every scan
 * endpoint refuses with 404 CHAIN_NOT_CONFIGURED (it has no index to read).
 */
import type {
  AddressesReader,
  ChainReader,
  CohortsReader,
  MarketsReader,
  TokensReader,
  WalletsReader,
} from '@chain-indexer/indexer/port';
import { ScannerError } from './errors.js';

/** A canonical block an answer was read at: the scanner's form of the indexer's anchor (R1). */
export interface ChainAnchor {
  /** Chain name as served by the indexer under /index/v1/{chain}. */
  chain: string;
  block: number;
  hash: `0x${string}`;
}

/** One chain the index serves. */
export interface IndexedChain {
  /** Chain name (the indexer's `{chain}`). */
  name: string;
  /** EIP-155 chain id. */
  chainId: number;
  /**
   * The scanner's role of this chain: `main` answers the unprefixed endpoints, `rh` the `/rh/`
   * family (Robinhood Chain), `other` is indexed but not routed by the scanner.
   */
  role: 'main' | 'rh' | 'other';
}

/**
 * An anchored view of one chain's index (the indexer's storage View, named here by the readers'
 * own signatures so the scanner never imports storage). Valid only during the synchronous turn of
 * {@link IndexPort.read}; any read after that throws.
 */
export type ScanView = Parameters<TokensReader['find']>[0];
/** A page walk request of the readers (`{at, after, order, limit}`), as their signatures name it. */
export type ScanPage = Parameters<TokensReader['holdersByBalance']>[2];

/** The domain readers of one chain, the same ones the indexer's routes use. */
export interface ScanReaders {
  chain: ChainReader;
  tokens: TokensReader;
  /** Pools, venues, prices and swaps (USD marks, the swap-based buyer and trader lists). */
  markets: MarketsReader;
  wallets: WalletsReader;
  cohorts: CohortsReader;
  addresses: AddressesReader;
}

/** Configuration of the chain, as scans need it. */
export interface ScanChainConfig {
  /** USD stablecoins of the chain (marked at par), lower-case. */
  usdStablecoins: readonly string[];
  /** Quote assets by priority, lower-case (the zero address is native). */
  quoteAssets: readonly string[];
  /** The verified ABIs the indexer decodes with (VERIFIED_ABIS_DIR): name and bound address (lower-case) if any. */
  verifiedAbis: ReadonlyArray<{ name: string; address: string | null }>;
  /** LABELS_FILE: lower-case address → its labels (the source of `kol`, `exchange`, `entity:<name>` labels). */
  labelled: ReadonlyMap<string, readonly string[]>;
}

/** What a read function receives. */
export interface ReadCtx {
  view: ScanView;
  readers: ScanReaders;
  /** The anchor of the view: the committed head when it was opened. */
  anchor: ChainAnchor;
  config: ScanChainConfig;
}

/** An answer computed at one anchor. */
export interface Anchored<T> {
  anchor: ChainAnchor;
  value: T;
}

/** What the scanner reads from the index. Synchronous: reads sit between two committed blocks. */
export interface IndexPort {
  /** The chains the index serves. */
  chains(): readonly IndexedChain[];
  /** The head the chain's index has committed, or null when nothing is indexed yet (or unknown). */
  head(chain: string): ChainAnchor | null;
  /**
   * Opens one anchored view of `chain` (its committed head), checks that the index can vouch for
   * it (something indexed, ingest not halted, a replica within its lag, the tokens, markets and
   * wallets projections ready) and runs `fn` with the view and the chain's readers; the view is
   * closed when `fn` returns. `fn` reads everything synchronously; when it returns a promise (a
   * node read such as an address's runtime code), only its synchronous prefix may use the view.
   * @throws ScannerError CHAIN_NOT_CONFIGURED when the chain is not served; the indexer's own typed
   *   refusals (ServiceError: not_ready, ingest_halted, replica_lagging, projection_unavailable)
   *   otherwise — the scan layer maps them (packages/scanner/src/scan/read.ts).
   */
  read<T>(chain: string, fn: (ctx: ReadCtx) => T): Anchored<T>;
}

/** The port of a scanner with no index attached (standalone): no chains, no reads. */
export const NO_INDEX: IndexPort = {
  chains: () => [],
  head: () => null,
  read(chain) {
    throw new ScannerError(
      'CHAIN_NOT_CONFIGURED',
      `no index is attached to this scanner (chain "${chain}"): scan endpoints are served by the scanner started inside the indexer (npm start, SCANNER=on)`,
      { missing: 'index' },
    );
  },
};

/**
 * The scanner role of each served chain: `main` is SCANNER_MAIN_CHAIN (default: the first chain),
 * `rh` is SCANNER_RH_CHAIN (default: the second embedded devnet of DEVNET_CHAINS=2, otherwise no
 * chain, and the /rh/ family will answer a typed refusal naming the missing configuration); the
 * rest are `other`.
 * @throws Error when a named chain is not served, or main and rh are the same chain.
 */
export function chainRoles(
  names: readonly string[],
  env: NodeJS.ProcessEnv,
  embeddedDevnet: boolean,
): Map<string, IndexedChain['role']> {
  const main = env.SCANNER_MAIN_CHAIN || names[0];
  const rh = env.SCANNER_RH_CHAIN || (embeddedDevnet && names.length > 1 ? names[1] : null);
  for (const [v, n] of [
    ['SCANNER_MAIN_CHAIN', main],
    ['SCANNER_RH_CHAIN', rh],
  ] as const)
    if (n !== null && n !== undefined && !names.includes(n))
      throw new Error(`${v}: chain "${n}" is not served (served: ${names.join(', ')})`);
  if (rh !== null && rh === main) throw new Error(`SCANNER_RH_CHAIN and SCANNER_MAIN_CHAIN are both "${rh}"`);
  return new Map(names.map((n) => [n, n === main ? 'main' : n === rh ? 'rh' : 'other']));
}
