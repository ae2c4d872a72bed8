/**
 * The contract family of the scan schemas: detections, the contract scan, the explorer and cross-
 * chain answers.
 */
import { Type } from '@sinclair/typebox';
import {
  Address,
  Amount,
  AnchorSchema,
  Hash,
  Int,
  LabelSchema,
  Lit,
  Nullable,
  ShareSchema,
  WalletFirstSeenSchema,
} from './common.js';
import { AuthorityEventSchema, TokenListRowSchema } from './token.js';
import { BundleSchema, BuySchema } from './wallet.js';

export const DetectionSchema = Type.Object({
  token: Address(),
  bundles: Type.Object({
    flagged: Type.Boolean(),
    rule: Type.String(),
    count: Int(),
    wallets: Int(),
    shareOfSupply: Nullable(ShareSchema),
    evidence: Type.Array(BundleSchema),
  }),
  snipers: Type.Object({
    evaluated: Type.Boolean(),
    notEvaluatedReason: Nullable(Type.Literal('no_launch_or_pool_observed')),
    flagged: Type.Boolean(),
    rule: Type.String(),
    inputs: Type.Object({
      reference: Nullable(Lit(['launch_created', 'first_pool_registered'])),
      referenceBlock: Nullable(Int('the block the sniper window starts at')),
      pool: Nullable(
        Type.Object({
          key: Type.String({ description: 'pool key (hex)' }),
          protocol: Type.String(),
          registeredBy: Lit(['factory_event', 'first_sight']),
        }),
      ),
      launchBlock: Nullable(Int()),
      withinBlocks: Int(),
    }),
    wallets: Type.Array(
      Type.Object({
        ...BuySchema.properties,
        blocksAfterLaunch: Type.Integer({ description: 'blocks after the reference block' }),
      }),
    ),
  }),
  freshWallets: Type.Object({
    flagged: Type.Boolean(),
    rule: Type.String(),
    inputs: Type.Object({ withinBlocks: Int(), buyersExamined: Int() }),
    wallets: Type.Array(
      Type.Object({
        wallet: Address(),
        firstSeen: Type.Object({ block: Int(), txHash: Hash(), evidence: Type.String() }),
        funder: Nullable(Address()),
        buy: Type.Object({ block: Int(), txIndex: Int(), logIndex: Int(), txHash: Hash() }),
        blocksBeforeBuy: Type.Integer(),
      }),
    ),
  }),
  buys: Type.Object({ rule: Type.String(), transfersRead: Int(), complete: Type.Boolean() }),
});

export const ContractScanSchema = Type.Object({
  address: Address(),
  isContract: Type.Boolean({ description: 'runtime code at the anchor block' }),
  codeHash: Nullable(Hash('keccak256 of the runtime code')),
  codeSize: Int('bytes'),
  proxy: Type.Object({
    rule: Type.String(),
    implementation: Nullable(Address()),
    admin: Nullable(Address()),
    beacon: Nullable(Address()),
    slots: Type.Record(Type.String(), Type.Object({ slot: Hash(), value: Hash('the storage word') })),
  }),
  creation: Type.Object({
    deployer: Nullable(Address()),
    block: Nullable(Int()),
    txIndex: Nullable(Int()),
    txHash: Nullable(Hash()),
    via: Nullable(Lit(['transaction', 'launchpad'])),
    reason: Nullable(Type.Literal('creation_not_observed')),
  }),
  verifiedAbi: Type.Object({
    present: Type.Boolean({ description: 'a verified ABI (VERIFIED_ABIS_DIR) is bound to this address' }),
    names: Type.Array(Type.String()),
  }),
  privilegedSelectors: Type.Object({
    rule: Type.String(),
    found: Type.Array(
      Type.Object({
        category: Lit(['mint', 'pause', 'blacklist', 'fees', 'ownership', 'upgrade']),
        signature: Type.String(),
        selector: Type.String({ pattern: '^0x[0-9a-f]{8}$' }),
      }),
    ),
  }),
  authorityEvents: Type.Object({ rows: Type.Array(AuthorityEventSchema), complete: Type.Boolean() }),
});

export const ExplorerSchema = Type.Object({
  query: Type.String(),
  kind: Lit(['transaction', 'block', 'address', 'tokens']),
  transaction: Nullable(
    Type.Object({
      hash: Hash(),
      block: Int(),
      txIndex: Int(),
      from: Nullable(Address()),
      to: Nullable(Address('null for a contract creation')),
      value: Amount('wei'),
      status: Nullable(Lit(['success', 'reverted'])),
      contractAddress: Nullable(Address()),
      logs: Int(),
    }),
  ),
  block: Nullable(
    Type.Object({
      number: Int(),
      hash: Hash(),
      parentHash: Hash(),
      timestamp: Int('unix seconds'),
      transactions: Int(),
      gasUsed: Amount('gas'),
      miner: Nullable(Address()),
    }),
  ),
  address: Nullable(
    Type.Object({
      address: Address(),
      kind: Lit(['EOA', 'contract', 'unobserved']),
      kindEvidence: Type.String(),
      labels: Type.Array(LabelSchema),
      firstSeen: Nullable(WalletFirstSeenSchema),
      firstSeenReason: Nullable(Type.Literal('not_observed')),
      observations: Type.Object({
        origin: Nullable(Int()),
        created: Nullable(Int()),
        emitted: Nullable(Int()),
      }),
      token: Nullable(TokenListRowSchema),
    }),
  ),
  tokens: Nullable(
    Type.Object({
      matches: Type.Array(
        Type.Object({ ...TokenListRowSchema.properties, matchClass: Int('1 exact symbol … 5 name prefix') }),
      ),
      truncated: Type.Boolean(),
    }),
  ),
});

const Counted = Type.Object({ count: Int(), complete: Type.Boolean() });
export const CrossChainSchema = Type.Object({
  address: Address(),
  chains: Type.Array(
    Type.Object({
      chain: Type.String(),
      chainId: Int(),
      role: Lit(['main', 'rh', 'other']),
      anchor: Nullable(AnchorSchema),
      unavailable: Nullable(Type.Object({ code: Type.String(), error: Type.String() })),
      kind: Nullable(Lit(['EOA', 'contract', 'unobserved'])),
      kindEvidence: Nullable(Type.String()),
      firstSeen: Nullable(
        Type.Object({ block: Int(), txHash: Hash(), timestamp: Int(), evidence: Type.String() }),
      ),
      activity: Nullable(Type.Object({ transactions: Counted, transfers: Counted, trades: Counted })),
      codeHash: Nullable(Hash('keccak256 of the runtime code at this chain’s anchor block')),
    }),
  ),
  sameCodeHash: Type.Array(Type.Object({ codeHash: Hash(), chains: Type.Array(Type.String()) })),
});
