/**
 * Response schemas of the token routes (registry, holders, transfers, launches). Amounts are
 * token base units as decimal strings (R6); null fields carry a sibling reason (R7).
 */
import { Type } from '@sinclair/typebox';
import { Address, Amount, Count, Enum, Hash, Nullable, Obj } from '../../schemas.js';
import { ABSENCE } from '../rpc/schemas.js';

/** Why a metadata field is null (the typed absence vocabulary of indexed and live metadata). */
export const AbsenceReason = Enum(
  [...ABSENCE, 'not_probed'],
  'why the value is null: no_code, reverted, empty_return, undecodable, non_utf8 (raw kept), out_of_range (decimals > 255), node_state_unavailable (pruned state), not_probed (never probed)',
);

/** A chain coordinate of a log (logIndex) or a transaction-level fact (logIndex null). */
export const TokenCoordinate = Obj({
  block: Type.Integer({ minimum: 0 }),
  txIndex: Type.Integer({ minimum: 0 }),
  logIndex: Nullable(Type.Integer({ minimum: 0 }), 'null for a transaction-level fact (a creation)'),
  txHash: Hash,
});

/** How a token was first observed. */
export const FirstSeen = Obj({
  ...TokenCoordinate.properties,
  evidence: Enum(['top_level_creation', 'launch_event', 'transfer_log', 'weth_deposit'], 'evidence class'),
});

/** Where and by whom the contract was created. */
export const Creation = Obj({
  ...TokenCoordinate.properties,
  deployer: Address,
  via: Enum(['transaction', 'launchpad'], 'a top-level creation, or a launchpad factory'),
  factory: Nullable(Address, 'the launchpad factory; null for a top-level creation'),
});

/** The uniform holder count of every holder-bearing route. */
export const HolderCount = Obj(
  {
    value: Nullable(
      Count('wallets with a positive transfer-sum balance, burn sinks excluded'),
      'null: token_not_indexed',
    ),
    status: Enum(
      ['exact', 'backfilling', 'token_not_indexed'],
      'exact: every transfer of the token was seen (its creation was observed, or the chain was indexed from block 0); backfilling: the token predates the indexed range (START_BLOCK), so counts cover only what was seen; token_not_indexed',
    ),
    asOfBlock: Type.Integer({ minimum: 0 }),
    burnSinkHolders: Nullable(
      Count('burn sinks (0x0, 0x…dead) with a non-zero balance'),
      'null: token_not_indexed',
    ),
  },
  {
    description:
      'holder count, uniform shape on every holder-bearing route; counts of transfer-sum balances (see reconciliation)',
  },
);

/** The overview's holder count (richer shape of the spec). */
export const OverviewHolderCount = Obj(
  {
    status: Enum(['exact', 'backfilling', 'token_not_indexed']),
    count: Nullable(Count('wallets with a positive balance, burn sinks excluded'), 'null: token_not_indexed'),
    retainedListSize: Nullable(
      Count('holders retained in the index (every holder: no cap)'),
      'null: token_not_indexed',
    ),
    retainedListCap: Type.Null({ description: 'null: the index retains every holder (no capped list)' }),
    asOfBlock: Type.Integer({ minimum: 0 }),
    burnSinkHolders: Nullable(Count('burn sinks with a non-zero balance'), 'null: token_not_indexed'),
  },
  { description: 'overview holder count; retained list = every holder (uncapped)' },
);

/** Balance fidelity: whether transfer-sum balances and supply equal the chain's (last reconciliation). */
export const BalanceFidelity = Obj(
  {
    status: Enum(
      ['exact', 'diverges', 'not_yet_checked', 'not_checkable'],
      'exact: at checkedAtBlock supply and every checked balance equalled the chain (eth_call totalSupply/balanceOf); diverges: balances or supply move without Transfer events (fee-on-transfer, rebasing, reflection): figures are sums of events, NOT the chain balances; not_yet_checked; not_checkable: the node answered neither call',
    ),
    checkedAtBlock: Nullable(Type.Integer({ minimum: 0 }), 'null: not_yet_checked'),
    supplyOnChain: Nullable(Amount, 'totalSupply() at checkedAtBlock; null: not checked or unanswerable'),
    supplyFromTransfers: Nullable(Amount, 'the index supply at checkedAtBlock; null: not checked'),
    holdersChecked: Count('balances compared with balanceOf at checkedAtBlock'),
    holdersMismatched: Count('of those, how many differed'),
    reason: Type.Union(
      [
        ...[
          'supply_and_balances_move_without_transfers',
          'supply_moves_without_transfers',
          'balances_move_without_transfers',
          'total_supply_unanswerable',
          'not_yet_checked',
          'node_inconsistent',
        ].map((r) => Type.Literal(r)),
        Type.Null(),
      ],
      {
        description:
          'why the figures diverge or are unchecked; null when exact. node_inconsistent: the node contradicted itself at the check (a block it served it can no longer return, or a parent it does not have: see nodeFault and /health ingest.nodeFault) — the figures follow the blocks the node served, its state does not',
      },
    ),
    nodeFault: Nullable(
      Type.String(),
      'the node fault standing at the check (reason node_inconsistent): which block and what the node answered; null otherwise',
    ),
    basis: Type.Literal('transfer_events_vs_eth_call'),
  },
  {
    description:
      'the token reconciliation state, carried beside every figure it affects (field name: reconciliation)',
  },
);

/** A catalogue row. */
export const TokenListRow = Obj({
  address: Address,
  name: Nullable(Type.String(), 'see the detail route for the reason'),
  symbol: Nullable(Type.String(), 'see the detail route for the reason'),
  decimals: Nullable(Type.Integer({ minimum: 0, maximum: 255 }), 'see the detail route for the reason'),
  kind: Enum(['erc20', 'candidate'], 'candidate: a creation never confirmed as ERC-20 by a Transfer log'),
  confirmedErc20: Type.Boolean(),
  firstSeen: FirstSeen,
  deployer: Nullable(Address, 'see deployerReason'),
  deployerReason: Nullable(Type.Literal('creation_not_observed')),
});

/** A transfer row (base units). */
export const TransferRow = Obj({
  block: Type.Integer({ minimum: 0 }),
  txIndex: Type.Integer({ minimum: 0 }),
  logIndex: Type.Integer({ minimum: 0 }),
  txHash: Hash,
  from: Address,
  to: Address,
  value: Amount,
  kind: Enum(['transfer', 'mint', 'burn'], 'transfer: ERC-20 Transfer; mint/burn: WETH Deposit/Withdrawal'),
});

/** A privileged-action log shape (evidence only, no verdict). */
export const AuthorityEvent = Type.Union([
  Obj({
    kind: Type.Literal('ownership_transferred'),
    ...TokenCoordinate.properties,
    previousOwner: Address,
    newOwner: Address,
  }),
  Obj({
    kind: Type.Literal('post_creation_mint'),
    ...TokenCoordinate.properties,
    to: Address,
    value: Amount,
  }),
]);

const UriReason = Nullable(
  Enum(['absent', 'unparseable']),
  'why the URI is null (absent) or kept verbatim (unparseable)',
);

/** A launch (spec: {launchpad, state, metadataUri, imageUri, launchSequence} and provenance). */
export const Launch = Obj({
  launchpad: Type.String({ description: 'canonical launchpad name' }),
  state: Enum(['new', 'graduating', 'graduated']),
  token: Address,
  creator: Address,
  launchSequence: Type.String({ description: 'the pad sequence number, decimal' }),
  name: Type.String(),
  symbol: Type.String(),
  metadataUri: Nullable(Type.String(), 'see metadataUriReason'),
  metadataUriReason: UriReason,
  imageUri: Nullable(Type.String(), 'see imageUriReason'),
  imageUriReason: UriReason,
  imageProvenance: Obj({
    source: Type.Literal('launch_event'),
    scheme: Nullable(Type.String(), 'ipfs, arweave, https, http, data, other; null when absent'),
    raw: Type.String({ description: 'the URI as the event carried it' }),
  }),
  created: TokenCoordinate,
  graduationStarted: Nullable(TokenCoordinate, 'null until GraduationStarted'),
  graduated: Nullable(Obj({ ...TokenCoordinate.properties, pool: Address }), 'null until Graduated'),
});

/** Identity fields of the token detail, with the typed absence vocabulary. */
export const TokenIdentity = {
  address: Address,
  name: Nullable(Type.String(), 'see nameReason'),
  nameReason: Nullable(AbsenceReason),
  nameEncoding: Nullable(Enum(['string', 'bytes32'])),
  symbol: Nullable(Type.String(), 'see symbolReason'),
  symbolReason: Nullable(AbsenceReason),
  symbolEncoding: Nullable(Enum(['string', 'bytes32'])),
  decimals: Nullable(Type.Integer({ minimum: 0, maximum: 255 }), 'see decimalsReason'),
  decimalsReason: Nullable(AbsenceReason),
  totalSupplyAtProbe: Nullable(
    Amount,
    'totalSupply() when metadata was probed (eth_call); see totalSupplyAtProbeReason',
  ),
  totalSupplyAtProbeReason: Nullable(AbsenceReason),
  metadataProbedAtBlock: Nullable(Type.Integer({ minimum: 0 }), 'null: not_probed'),
  kind: Enum(['erc20', 'candidate']),
  confirmedErc20: Type.Boolean(),
  confirmedAt: Nullable(TokenCoordinate, 'null: a candidate (no Transfer log yet)'),
};

/** Metadata re-probed with the last reconciliation (metadata "on change"). */
export const MetadataNow = Obj({
  checkedAtBlock: Nullable(Type.Integer({ minimum: 0 }), 'null: not yet re-probed'),
  now: Nullable(
    Obj({
      name: Nullable(Type.String()),
      symbol: Nullable(Type.String()),
      decimals: Nullable(Type.Integer({ minimum: 0, maximum: 255 })),
    }),
    'null: not yet re-probed or the probe failed',
  ),
  changed: Type.Boolean({
    description: 'the re-probed metadata differs from the metadata probed at first sight',
  }),
});

/** What of a token's figures is complete (a token older than START_BLOCK is partial). */
export const TokenCoverage = Obj(
  {
    indexedFromBlock: Type.Integer({
      minimum: 0,
      description: 'the first indexed block of this chain (START_BLOCK)',
    }),
    predatesIndexedRange: Type.Boolean({
      description: 'the token existed before START_BLOCK (its creation was not observed)',
    }),
    supplySeededAtBlock: Nullable(
      Type.Integer({ minimum: 0 }),
      'block whose totalSupply() (eth_call) seeded supplyFromTransfers; null when the supply counts every mint',
    ),
    seedFailures: Count(
      'first-sight balanceOf/totalSupply calls the node could not answer (pruned state): those figures started at zero',
    ),
    holdersComplete: Type.Boolean({
      description:
        'false when only wallets seen since START_BLOCK are known (each seeded with balanceOf at the block before it first appeared)',
    }),
  },
  {
    description:
      'coverage of the token figures; holderCount.status is backfilling when holdersComplete is false',
  },
);
