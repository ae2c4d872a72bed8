/**
 * The addresses reader: what the index proves about an address as of an anchor. Kind rule, held
 * here once — evidence in order: created in the index (receipt contractAddress or a launch),
 * emitted logs (only contracts emit logs), a token creation observed, originated a transaction
 * (only EOAs sign). An address seen only as a recipient is typed by its runtime code at the anchor
 * block (eth_getCode by block hash, through the chain reader's bounded live client), and the
 * answer says so. Labels are published only where evidence exists (LABELS_FILE, token registry,
 * markets registry and configuration, launchpad configuration, token creations).
 *
 * Sources: the wallets projection's address observations and first-seen rows, the tokens
 * registry, the markets pool registry; the node for recipient-only addresses.
 */
import type { CodeObservation } from '../chain/index.js';
import type { MarketsConfig } from '../markets/index.js';
import { poolAt } from '../markets/index.js';
import type { WalletFirstSeen } from '../schema/rows/wallets.js';
import { poolKeyOf } from '../schema/tables/markets.js';
import { CREATOR_TOKEN } from '../schema/tables/tokens.js';
import { ADDRESS, FIRST_SEEN } from '../schema/tables/wallets.js';
import type { View } from '../storage/index.js';
import type { LaunchpadDeployments } from '../tokens/index.js';
import { tokenAt } from '../tokens/index.js';

type Hex = `0x${string}`;
const K = (a: string) => a.toLowerCase() as Hex;

/** Blocks at which the address was first seen originating, created, emitting logs (null: not as of the anchor). */
export interface Observations {
  origin: number | null;
  created: number | null;
  emitted: number | null;
}

/** The kind of an address with the evidence that decided it. */
export interface AddressKind {
  type: 'EOA' | 'contract' | 'unobserved';
  /** Evidence code; block-bearing codes end in the block number. */
  evidence: string;
}

/** A label with its evidence. */
export interface AddressLabel {
  label: string;
  evidence: string;
}

/** The address summary. */
export interface AddressSummary {
  address: string;
  kind: AddressKind['type'];
  kindEvidence: string;
  labels: AddressLabel[];
  firstSeen: WalletFirstSeen | null;
  firstSeenReason: 'not_observed' | null;
  observations: Observations;
}

export interface AddressesReader {
  /**
   * EOA, contract or unobserved with its evidence. Reads the view synchronously before its first
   * await (call it from a node route's synchronous prefix).
   * @throws DomainError node_unavailable when the node must answer and cannot.
   */
  kind(view: View, address: string, at: number): Promise<AddressKind>;
  /** Labels with evidence (an empty list means no evidence, not a verdict). */
  labels(view: View, address: string, at: number): AddressLabel[];
  /** Blocks at which the address was first seen originating, created, emitting logs, as of `at`. */
  observations(view: View, address: string, at: number): Observations;
  /** Kind, labels, first seen and observation blocks. Same view rule as {@link kind}. */
  summary(view: View, address: string, at: number): Promise<AddressSummary>;
}

/** What the addresses reader needs besides a request's view. */
export interface AddressesReaderDeps {
  /** LABELS_FILE: address → labels. */
  labels: ReadonlyMap<string, string[]>;
  launchpads: LaunchpadDeployments;
  markets: MarketsConfig;
  /**
   * The node's runtime code of `address` at canonical block `n` (eth_getCode; the chain reader's
   * live reads satisfy it): the one node read of the type rule.
   */
  live: { codeAt(view: View, at: number, address: string, n: number): Promise<CodeObservation> };
}

/** Creates the addresses reader (stateless). */
export function createAddressesReader(deps: AddressesReaderDeps): AddressesReader {
  const observations = (view: View, a: Hex, at: number): Observations => {
    const f = view.get(ADDRESS, a) ?? {};
    const asOf = (n: number | undefined) => (n !== undefined && n <= at ? n : null);
    return { origin: asOf(f.origin), created: asOf(f.created), emitted: asOf(f.emitted) };
  };
  const firstSeenAt = (view: View, a: Hex, at: number) => {
    const f = view.get(FIRST_SEEN, a);
    return f && f.block <= at ? f : null;
  };
  const kind = (view: View, address: string, at: number): Promise<AddressKind> => {
    const a = K(address);
    const f = observations(view, a, at);
    if (f.created !== null)
      return Promise.resolve({ type: 'contract', evidence: `created_in_block_${f.created}` });
    if (f.emitted !== null)
      return Promise.resolve({ type: 'contract', evidence: `emitted_logs_since_block_${f.emitted}` });
    if (tokenAt(view, a, at)?.creation)
      return Promise.resolve({ type: 'contract', evidence: 'token_creation_observed' });
    if (f.origin !== null)
      return Promise.resolve({ type: 'EOA', evidence: `originated_transaction_in_block_${f.origin}` });
    if (!firstSeenAt(view, a, at))
      return Promise.resolve({ type: 'unobserved', evidence: 'never_seen_in_the_index' });
    // The canonical hash of the anchor is read from the view before codeAt's first await.
    return deps.live
      .codeAt(view, at, a, at)
      .then((c) =>
        c.isContract
          ? { type: 'contract', evidence: 'seen_as_recipient_only; code_at_anchor (eth_getCode)' }
          : { type: 'EOA', evidence: 'seen_as_recipient_only; no_code_at_anchor (eth_getCode)' },
      );
  };
  const labels = (view: View, address: string, at: number): AddressLabel[] => {
    const a = K(address);
    const out: AddressLabel[] = [];
    for (const l of deps.labels.get(a) ?? []) out.push({ label: l, evidence: 'labels_file' });
    const t = tokenAt(view, a, at);
    if (t)
      out.push({
        label: t.confirmedAt ? 'token' : 'token_candidate',
        evidence: `first_seen_${t.firstSeen.evidence}_block_${t.firstSeen.block}`,
      });
    if (poolAt(view, poolKeyOf('v2', a), at))
      out.push({ label: 'pool', evidence: 'registered_by_configured_factory' });
    for (const [name, d] of deps.launchpads)
      if (d.factories.includes(a) || d.curve === a)
        out.push({ label: `launchpad:${name}`, evidence: 'launchpad_configuration' });
    const m = deps.markets;
    if (m.v2Factories.includes(a) || m.v3Factories.includes(a))
      out.push({ label: 'pool_factory', evidence: 'markets_configuration' });
    if (m.v4Managers.includes(a)) out.push({ label: 'pool_manager', evidence: 'markets_configuration' });
    const created = view.first(CREATOR_TOKEN, { prefix: [a], lte: [a, at] });
    if (created) out.push({ label: 'deployer', evidence: `created_token_${created.key[3]}` });
    return out;
  };
  return {
    kind,
    labels,
    observations: (view, address, at) => observations(view, K(address), at),
    summary(view, address, at) {
      const a = K(address);
      // Every view read happens here, before the node is awaited.
      const l = labels(view, a, at);
      const fs = firstSeenAt(view, a, at);
      const observed = observations(view, a, at);
      return kind(view, a, at).then((k) => ({
        address: a,
        kind: k.type,
        kindEvidence: k.evidence,
        labels: l,
        firstSeen: fs,
        firstSeenReason: fs ? null : 'not_observed',
        observations: observed,
      }));
    },
  };
}
