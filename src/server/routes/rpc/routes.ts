/** Live RPC routes (scope `rpc`): read-through to the node, each pinned to one observed block. */
import { Type } from '@sinclair/typebox';
import { type Hex, keccak256 } from 'viem';
import { probeTokenMetadata } from '../../../tokens/metadata.js';
import { defineRoute } from '../../route.js';
import { Address, Amount, Anchor, Hash } from '../../schemas.js';
import { guard, observedJson, observeHead } from './observe.js';

const Observed = Type.Object(
  { observed: Anchor, source: Type.Literal('node') },
  { additionalProperties: true },
);
const errors = ['bad_request', 'node_unavailable'] as const;

export const rpcHeadRoute = defineRoute({
  id: 'rpc.head',
  method: 'GET',
  path: '/rpc/head',
  scope: 'rpc',
  group: 'Live RPC',
  summary: "The node's latest observed (block, hash), read through (eth_getBlockByNumber latest).",
  response: Observed,
  errors: [...errors],
  kind: 'node',
  async handler(ctx) {
    const o = await observeHead(ctx.chain.rpc);
    return { json: `{"observed":${observedJson(o)},"source":"node"}` };
  },
});

export const rpcBalanceRoute = defineRoute({
  id: 'rpc.balance',
  method: 'GET',
  path: '/rpc/address/{address}/balance',
  scope: 'rpc',
  group: 'Live RPC',
  summary: 'Native balance now (eth_getBalance at the observed block), wei as a decimal string.',
  params: { address: Address },
  response: Type.Intersect([Observed, Type.Object({ address: Address, balance: Amount })]),
  errors: [...errors],
  kind: 'node',
  async handler(ctx) {
    const o = await observeHead(ctx.chain.rpc);
    const a = ctx.params.address.toLowerCase();
    const wei = await guard(ctx.chain.rpc.call<string>('eth_getBalance', [a, o.tag]));
    return {
      json: `{"observed":${observedJson(o)},"source":"node","address":"${a}","balance":"${BigInt(wei)}"}`,
    };
  },
});

export const rpcCodeRoute = defineRoute({
  id: 'rpc.code',
  method: 'GET',
  path: '/rpc/address/{address}/code',
  scope: 'rpc',
  group: 'Live RPC',
  summary:
    'Whether the address is a contract now, and its runtime code hash and size (eth_getCode at the observed block).',
  params: { address: Address },
  response: Type.Intersect([
    Observed,
    Type.Object({
      address: Address,
      isContract: Type.Boolean(),
      codeHash: Type.Union([Hash, Type.Null()]),
      codeHashReason: Type.Union([Type.Literal('no_code'), Type.Null()]),
      codeSize: Type.Integer({ description: 'bytes' }),
    }),
  ]),
  errors: [...errors],
  kind: 'node',
  async handler(ctx) {
    const o = await observeHead(ctx.chain.rpc);
    const a = ctx.params.address.toLowerCase();
    const code = await guard(ctx.chain.rpc.call<Hex>('eth_getCode', [a, o.tag]));
    const has = code !== '0x';
    return {
      json: `{"observed":${observedJson(o)},"source":"node","address":"${a}","isContract":${has},"codeHash":${has ? `"${keccak256(code)}"` : 'null'},"codeHashReason":${has ? 'null' : '"no_code"'},"codeSize":${(code.length - 2) / 2}}`,
    };
  },
});

export const rpcTokenMetadataRoute = defineRoute({
  id: 'rpc.tokenMetadata',
  method: 'GET',
  path: '/rpc/tokens/{address}/metadata',
  scope: 'rpc',
  group: 'Live RPC',
  summary:
    'Live ERC-20 probe at the observed block: name, symbol (ABI string or bytes32), decimals, exact totalSupply, each {value, reason, encoding} with the typed absence vocabulary (no_code, reverted, empty_return, undecodable, non_utf8, out_of_range).',
  params: { address: Address },
  response: Type.Intersect([Observed, Type.Object({ address: Address }, { additionalProperties: true })]),
  errors: [...errors],
  kind: 'node',
  async handler(ctx) {
    const o = await observeHead(ctx.chain.rpc);
    const a = ctx.params.address.toLowerCase();
    const m = await guard(probeTokenMetadata(ctx.chain.rpc, a, o.tag));
    return {
      json: `{"observed":${observedJson(o)},"source":"node","address":"${a}",${JSON.stringify(m).slice(1)}`,
    };
  },
});
