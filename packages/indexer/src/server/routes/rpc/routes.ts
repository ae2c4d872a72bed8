/** Live RPC routes (scope `rpc`): read-through to the node, each pinned to one observed block. */
import { Type } from '@sinclair/typebox';
import type { BlockRef } from '../../../storage/index.js';
import { anchorJson, defineRoute } from '../../route.js';
import { Address, Amount, Hash, Nullable, Obj, ReasonOf, UnixSeconds } from '../../schemas.js';
import { Live, MetaField } from './schemas.js';

/** Node refusals every live route can answer besides the framework's. */
const errors = ['node_unavailable'] as const;

/** `{anchor, source, data}` with `dataJson` embedded as is. */
const live = (anchor: BlockRef, dataJson: string) => ({
  json: `{"anchor":${anchorJson(anchor)},"source":"node","data":${dataJson}}`,
});

const CodeFields = {
  address: Address,
  isContract: Type.Boolean({ description: 'whether runtime code exists at the address' }),
  codeHash: Nullable(Hash, 'keccak256 of the runtime code'),
  codeHashReason: ReasonOf(['no_code']),
  codeSize: Type.Integer({ minimum: 0, description: 'runtime code size, bytes' }),
};

export const rpcHeadRoute = defineRoute({
  id: 'rpc.head',
  method: 'GET',
  path: '/rpc/head',
  scope: 'rpc',
  group: 'Live RPC',
  summary:
    "The node's latest block as observed now (eth_getBlockByNumber latest): anchor = that (block, hash), data adds its parent hash and timestamp.",
  response: Live(
    Obj({
      block: Type.Integer({ minimum: 0 }),
      hash: Hash,
      parentHash: Hash,
      timestamp: UnixSeconds('block timestamp'),
    }),
  ),
  errors: [...errors],
  kind: 'node',
  async handler(ctx) {
    const h = await ctx.readers.chain.live.head();
    const data = {
      block: h.anchor.number,
      hash: h.anchor.hash,
      parentHash: h.parentHash,
      timestamp: h.timestamp,
    };
    return live(h.anchor, JSON.stringify(data));
  },
});

export const rpcBalanceRoute = defineRoute({
  id: 'rpc.balance',
  method: 'GET',
  path: '/rpc/address/{address}/balance',
  scope: 'rpc',
  group: 'Live RPC',
  summary: 'Native balance now (eth_getBalance at the observed node block), wei as a decimal string.',
  params: { address: Address },
  response: Live(Obj({ address: Address, balance: Amount })),
  errors: [...errors],
  kind: 'node',
  async handler(ctx) {
    const b = await ctx.readers.chain.live.balance(ctx.params.address);
    return live(b.anchor, `{"address":"${b.address}","balance":"${b.balance}"}`);
  },
});

export const rpcCodeRoute = defineRoute({
  id: 'rpc.code',
  method: 'GET',
  path: '/rpc/address/{address}/code',
  scope: 'rpc',
  group: 'Live RPC',
  summary:
    'Whether the address is a contract now, and its runtime code hash and size (eth_getCode at the observed node block).',
  params: { address: Address },
  response: Live(Obj(CodeFields)),
  errors: [...errors],
  kind: 'node',
  async handler(ctx) {
    const { anchor, code } = await ctx.readers.chain.live.code(ctx.params.address);
    const { observedAt: _, ...fields } = code;
    return live(anchor, JSON.stringify(fields));
  },
});

export const rpcTokenMetadataRoute = defineRoute({
  id: 'rpc.tokenMetadata',
  method: 'GET',
  path: '/rpc/tokens/{address}/metadata',
  scope: 'rpc',
  group: 'Live RPC',
  summary:
    'Live ERC-20 probe at the observed node block: name, symbol (ABI string or bytes32), decimals, exact totalSupply, each {value, reason, encoding} with the typed absence vocabulary of indexed metadata (no_code, reverted, empty_return, undecodable, non_utf8, out_of_range, node_state_unavailable).',
  params: { address: Address },
  response: Live(
    Obj({
      address: Address,
      name: MetaField(Type.String(), 'name()'),
      symbol: MetaField(Type.String(), 'symbol()'),
      decimals: MetaField(Type.Integer({ minimum: 0, maximum: 255 }), 'decimals()'),
      totalSupply: MetaField(Amount, 'totalSupply(), base units'),
      codeHash: Nullable(Hash, 'keccak256 of the runtime code at the observed block'),
      codeHashReason: ReasonOf(['no_code']),
    }),
  ),
  errors: [...errors],
  kind: 'node',
  async handler(ctx) {
    const { anchor, address, metadata: m } = await ctx.readers.chain.live.tokenMetadata(ctx.params.address);
    const data = {
      address,
      name: m.name,
      symbol: m.symbol,
      decimals: m.decimals,
      totalSupply: m.totalSupply,
      codeHash: m.codeHash,
      codeHashReason: m.codeHash ? null : 'no_code',
    };
    return live(anchor, JSON.stringify(data));
  },
});
