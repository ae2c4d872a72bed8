/**
 * decodeCalldata on real recorded mainnet tx inputs and callTracer frames
 * (test/fixtures, see its README.md), plus synthetic calls built with viem's encoder for
 * tables the fixtures do not exercise (V3 routers, V4 test routers, launchpad, nested multicall).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AbiFunction, encodeFunctionData, parseAbi, parseAbiItem } from 'viem';
import { describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../../../../test/fixtures/index.js';
import {
  CALL_DECODER_PRIORITY,
  type CallDecoded,
  createCalldataDecoder,
  type DecodedCall,
  decodeCalldata,
  MAX_MULTICALL_DEPTH,
} from './calldata.js';
import { FUNCTION_TABLES } from './tables.js';
import { loadVerifiedAbis } from './verified-abis.js';

const FIXTURES = FIXTURES_DIR;
const ABIS_DIR = fileURLToPath(new URL('../../../../abis', import.meta.url));
const ROUTER02 = '0x7a250d5630b4cf539739df2c5dacb4c659f2488d';
const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';

interface Tx {
  hash: string;
  to: string | null;
  input: string;
}
interface Frame {
  type: string;
  to?: string;
  input: string;
  calls?: Frame[];
}
const read = <T>(p: string): T => JSON.parse(readFileSync(join(FIXTURES, p), 'utf8')) as T;
function decoded(d: DecodedCall): CallDecoded {
  if (d.status !== 'decoded') throw new Error(`not decoded: ${JSON.stringify(d)}`);
  return d;
}
function* walk(f: Frame): Generator<Frame> {
  yield f;
  for (const c of f.calls ?? []) yield* walk(c);
}
const abiOf = (decoder: string) =>
  parseAbi(FUNCTION_TABLES.find((t) => t.decoder === decoder)!.functions as string[]);

describe('decodeCalldata on recorded mainnet data', () => {
  const blocks = ['17000000', '17000001', '18000000', '18000001', '18500000'].map((b) =>
    read<{ transactions: Tx[] }>(`ethereum/${b}/block.json`),
  );
  const frames: Frame[] = [
    ...read<{ result: Frame }[]>('ethereum/24298763/calltraces.json').flatMap((t) => [...walk(t.result)]),
    ...readdirSync(join(FIXTURES, 'ethereum/tx-traces')).flatMap((f) => [
      ...walk(read<Frame>(`ethereum/tx-traces/${f}`)),
    ]),
  ];

  it('decodes or types as unknown every tx input and every trace frame, never throwing', () => {
    const reasons = new Map<string, number>();
    const inputs = [
      ...blocks.flatMap((b) => b.transactions.map((t) => [t.input, t.to] as const)),
      ...frames.map((f) => [f.input, f.type.startsWith('CREATE') ? null : (f.to ?? null)] as const),
    ];
    for (const [input, to] of inputs) {
      const d = decodeCalldata(input, to);
      const key = d.status === 'decoded' ? 'decoded' : d.reason;
      reasons.set(key, (reasons.get(key) ?? 0) + 1);
      expect(JSON.parse(JSON.stringify(d))).toEqual(d);
    }
    expect(inputs.length).toBe(601 + 1758 + 34);
    expect(reasons.get('contract_creation')).toBe(2 + 3); // 2 block txs with to=null, 3 CREATE/CREATE2 frames
    expect(reasons.get('empty_calldata')).toBeGreaterThan(0);
    expect(reasons.get('no_decoder_for_selector')).toBeGreaterThan(0);
    expect(reasons.get('decoded')).toBeGreaterThan(500);
    expect(reasons.has('calldata_does_not_match_abi')).toBe(false);
  });

  it('Router02 swapTokensForExactETH (tx 0x5929…) decodes with the right path', () => {
    const t = read<Frame & { to: string }>(
      'ethereum/tx-traces/0x59299b761c52755ef6b88fb96c44e93f16c5608ff7ae105bf170cbd88e70879f.json',
    );
    expect(t.to).toBe(ROUTER02);
    const d = decoded(decodeCalldata(t.input, t.to));
    const w = (i: number) => t.input.slice(10 + 64 * i, 74 + 64 * i);
    expect(d).toMatchObject({
      function: 'swapTokensForExactETH',
      decoder: 'uniswap_v2_router',
      selector: '0x4a25d94a',
    });
    expect(d.args).toEqual({
      amountOut: BigInt(`0x${w(0)}`).toString(),
      amountInMax: BigInt(`0x${w(1)}`).toString(),
      path: ['0x6dcc10db1b1a7f7a49f6cd3669114aff053295fc', WETH],
      to: `0x${w(3).slice(24)}`,
      deadline: BigInt(`0x${w(4)}`).toString(),
    });
    // the inner WETH withdraw frame carries the ETH the router forwards
    const inner = [...walk(t)].find((f) => f.to === WETH && f.input.startsWith('0x2e1a7d4d'))!;
    expect(decoded(decodeCalldata(inner.input, inner.to!))).toMatchObject({
      decoder: 'weth',
      function: 'withdraw',
    });
  });

  it('every Router02 tx in the blocks decodes as uniswap_v2_router with a path of ≥ 2 lowercase addresses', () => {
    const txs = blocks.flatMap((b) => b.transactions).filter((t) => t.to === ROUTER02);
    expect(txs.length).toBeGreaterThanOrEqual(20);
    for (const t of txs) {
      const d = decoded(decodeCalldata(t.input, t.to));
      expect(d.decoder).toBe('uniswap_v2_router');
      if (d.function.startsWith('swap')) {
        const path = d.args.path as string[];
        expect(path.length).toBeGreaterThanOrEqual(2);
        for (const a of path) expect(a).toMatch(/^0x[0-9a-f]{40}$/);
        if (/ETHFor/.test(d.function)) expect(path[0]).toBe(WETH);
        if (/ForExactETH|ForETH/.test(d.function)) expect(path[path.length - 1]).toBe(WETH);
      }
    }
  });

  it('a recorded multicall(bytes[]) into a non-Uniswap contract: inner calls typed unknown, one per element', () => {
    const t = read<{ txHash: string; result: Frame }[]>('ethereum/24298763/calltraces.json').find(
      (x) => x.txHash === '0xf082fb09f2998f146ac5e753629c6c9431d8ec70773c83b98766c1934b31c858',
    )!.result;
    const d = decoded(decodeCalldata(t.input, t.to!));
    // no registry: the fixed priority picks the first table with this selector
    expect(d.decoder).toBe('uniswap_v3_router');
    const calls = d.args.calls as DecodedCall[];
    expect(calls).toHaveLength((d.args.data as string[]).length);
    expect(calls.map((c) => c.status)).toEqual(['unknown', 'unknown', 'unknown', 'unknown']);
    expect(calls[0]).toEqual({
      status: 'unknown',
      reason: 'no_decoder_for_selector',
      selector: '0x9d5b5af8',
    });
  });
});

describe('decodeCalldata: synthetic calls per table', () => {
  const to = '0x00000000000000000000000000000000000000c0';
  const a = '0x00000000000000000000000000000000000000aa';
  const b = '0x00000000000000000000000000000000000000bb';

  it('V3 SwapRouter exactInputSingle / exactInput: tuple params as objects, amounts as strings', () => {
    const abi = abiOf('uniswap_v3_router');
    const p = {
      tokenIn: a,
      tokenOut: b,
      fee: 3000,
      recipient: a,
      deadline: 9n,
      amountIn: 10n ** 24n,
      amountOutMinimum: 1n,
      sqrtPriceLimitX96: 0n,
    };
    const d = decoded(
      decodeCalldata(encodeFunctionData({ abi, functionName: 'exactInputSingle', args: [p] }), to),
    );
    expect(d).toMatchObject({
      decoder: 'uniswap_v3_router',
      signature: 'exactInputSingle((address,address,uint24,address,uint256,uint256,uint256,uint160))',
    });
    expect(d.args).toEqual({
      params: {
        tokenIn: a,
        tokenOut: b,
        fee: '3000',
        recipient: a,
        deadline: '9',
        amountIn: (10n ** 24n).toString(),
        amountOutMinimum: '1',
        sqrtPriceLimitX96: '0',
      },
    });
    const e = decoded(
      decodeCalldata(
        encodeFunctionData({
          abi,
          functionName: 'exactInput',
          args: [{ path: '0xAABB', recipient: a, deadline: 1n, amountIn: 2n, amountOutMinimum: 3n }],
        }),
        to,
      ),
    );
    expect(e.args.params).toEqual({
      path: '0xaabb',
      recipient: a,
      deadline: '1',
      amountIn: '2',
      amountOutMinimum: '3',
    });
  });

  it('multicall: recursive inner decoding, knownContracts preference, depth bound', () => {
    const npm = abiOf('uniswap_v3_position_manager');
    const collect = encodeFunctionData({
      abi: npm,
      functionName: 'collect',
      args: [{ tokenId: 5n, recipient: a, amount0Max: 1n, amount1Max: 2n }],
    });
    const dec = encodeFunctionData({
      abi: npm,
      functionName: 'decreaseLiquidity',
      args: [{ tokenId: 5n, liquidity: 100n, amount0Min: 0n, amount1Min: 0n, deadline: 1n }],
    });
    const mc = encodeFunctionData({ abi: npm, functionName: 'multicall', args: [[dec, collect]] });

    // no registry: fixed priority (uniswap_v3_router before uniswap_v3_position_manager)
    expect(CALL_DECODER_PRIORITY.indexOf('uniswap_v3_router')).toBeLessThan(
      CALL_DECODER_PRIORITY.indexOf('uniswap_v3_position_manager'),
    );
    const plain = decoded(decodeCalldata(mc, to));
    expect(plain.decoder).toBe('uniswap_v3_router');
    expect(
      (plain.args.calls as DecodedCall[]).map((c) => c.status === 'decoded' && `${c.decoder}.${c.function}`),
    ).toEqual(['uniswap_v3_position_manager.decreaseLiquidity', 'uniswap_v3_position_manager.collect']);

    // with a registry naming `to` as the position manager, it wins the tie, inner calls inherit it
    const withRegistry = createCalldataDecoder({
      knownContracts: new Map([[to, 'uniswap_v3_position_manager']]),
    });
    const d = decoded(withRegistry(mc, to.toUpperCase().replace('0X', '0x')));
    expect(d.decoder).toBe('uniswap_v3_position_manager');
    expect((d.args.calls as CallDecoded[])[1]).toMatchObject({
      decoder: 'uniswap_v3_position_manager',
      args: { params: { tokenId: '5', amount1Max: '2' } },
    });

    // nesting: multicall(multicall(multicall(multicall(collect)))) decodes down to MAX_MULTICALL_DEPTH
    let nested = collect;
    for (let i = 0; i < 4; i++)
      nested = encodeFunctionData({ abi: npm, functionName: 'multicall', args: [[nested]] });
    let level = decoded(decodeCalldata(nested, to));
    let depth = 0;
    while (level.args.calls) {
      depth++;
      level = decoded((level.args.calls as DecodedCall[])[0]);
    }
    expect(depth).toBe(MAX_MULTICALL_DEPTH);
    expect(level.function).toBe('multicall'); // the deepest one keeps only raw data
    expect(level.args.data).toHaveLength(1);
  });

  it('NonfungiblePositionManager mint and increaseLiquidity', () => {
    const npm = abiOf('uniswap_v3_position_manager');
    const mint = encodeFunctionData({
      abi: npm,
      functionName: 'mint',
      args: [
        {
          token0: a,
          token1: b,
          fee: 500,
          tickLower: -887270,
          tickUpper: 887270,
          amount0Desired: 1n,
          amount1Desired: 2n,
          amount0Min: 0n,
          amount1Min: 0n,
          recipient: a,
          deadline: 3n,
        },
      ],
    });
    expect(decoded(decodeCalldata(mint, to)).args.params).toMatchObject({
      fee: '500',
      tickLower: '-887270',
      tickUpper: '887270',
    });
    const inc = encodeFunctionData({
      abi: npm,
      functionName: 'increaseLiquidity',
      args: [
        { tokenId: 1n, amount0Desired: 1n, amount1Desired: 1n, amount0Min: 0n, amount1Min: 0n, deadline: 0n },
      ],
    });
    expect(decoded(decodeCalldata(inc, to))).toMatchObject({
      decoder: 'uniswap_v3_position_manager',
      function: 'increaseLiquidity',
    });
  });

  it('V4 PoolSwapTest.swap and PoolModifyLiquidityTest.modifyLiquidity (both overloads)', () => {
    const abi = abiOf('uniswap_v4_test_router');
    const key = {
      currency0: '0x0000000000000000000000000000000000000000',
      currency1: b,
      fee: 3000,
      tickSpacing: 60,
      hooks: a,
    };
    const swap = encodeFunctionData({
      abi,
      functionName: 'swap',
      args: [
        key,
        { zeroForOne: true, amountSpecified: -(10n ** 18n), sqrtPriceLimitX96: 4295128740n },
        { takeClaims: false, settleUsingBurn: false },
        '0x',
      ],
    });
    expect(decoded(decodeCalldata(swap, to)).args).toEqual({
      key: { currency0: key.currency0, currency1: b, fee: '3000', tickSpacing: '60', hooks: a },
      params: { zeroForOne: true, amountSpecified: '-1000000000000000000', sqrtPriceLimitX96: '4295128740' },
      testSettings: { takeClaims: false, settleUsingBurn: false },
      hookData: '0x',
    });
    const params = {
      tickLower: -120,
      tickUpper: 120,
      liquidityDelta: -5n,
      salt: `0x${'00'.repeat(31)}01` as const,
    };
    const ml3 = (abi as readonly AbiFunction[]).find(
      (f) => f.name === 'modifyLiquidity' && f.inputs.length === 3,
    )!;
    const ml5 = (abi as readonly AbiFunction[]).find(
      (f) => f.name === 'modifyLiquidity' && f.inputs.length === 5,
    )!;
    const d3 = decoded(decodeCalldata(encodeFunctionData({ abi: [ml3], args: [key, params, '0x01'] }), to));
    expect(d3.args.params).toEqual({
      tickLower: '-120',
      tickUpper: '120',
      liquidityDelta: '-5',
      salt: params.salt,
    });
    const d5 = decoded(
      decodeCalldata(encodeFunctionData({ abi: [ml5], args: [key, params, '0x', true, false] }), to),
    );
    expect(d5).toMatchObject({
      decoder: 'uniswap_v4_test_router',
      args: { settleUsingBurn: true, takeClaims: false },
    });
  });

  it('launchpad createLaunch / buy / sell (spec and devnet variants)', () => {
    const abi = abiOf('launchpad');
    const create = encodeFunctionData({
      abi,
      functionName: 'createLaunch',
      args: ['Name', 'SYM', 'ipfs://m', 'ipfs://i'],
    });
    expect(decoded(decodeCalldata(create, to))).toMatchObject({
      decoder: 'launchpad',
      args: { name: 'Name', symbol: 'SYM', metadataUri: 'ipfs://m', imageUri: 'ipfs://i' },
    });
    const buy1 = encodeFunctionData({ abi: [parseAbiItem('function buy(address token)')], args: [a] });
    expect(decoded(decodeCalldata(buy1, to))).toMatchObject({
      function: 'buy',
      signature: 'buy(address)',
      args: { token: a },
    });
    const sell2 = encodeFunctionData({
      abi: [parseAbiItem('function sell(address token, uint256 amount)')],
      args: [a, 42n],
    });
    expect(decoded(decodeCalldata(sell2, to)).args).toEqual({ token: a, amount: '42' });
    const buy2 = encodeFunctionData({
      abi: [parseAbiItem('function buy(address token, uint256 minTokensOut)')],
      args: [a, 1n],
    });
    expect(decoded(decodeCalldata(buy2, to)).args).toEqual({ token: a, minTokensOut: '1' });
  });

  it('ERC-20, WETH and edge cases', () => {
    const erc20 = abiOf('erc20');
    const transfer = encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [a, 2n ** 255n] });
    expect(decoded(decodeCalldata(transfer, to)).args).toEqual({ to: a, amount: (2n ** 255n).toString() });
    // trailing bytes after the arguments are ignored, as the EVM does
    expect(decodeCalldata(`${transfer}deadbeef`, to).status).toBe('decoded');
    expect(decodeCalldata(transfer.slice(0, -2), to)).toEqual({
      status: 'unknown',
      reason: 'calldata_does_not_match_abi',
      selector: '0xa9059cbb',
    });
    expect(decodeCalldata('0xd0e30db0', to)).toMatchObject({
      decoder: 'weth',
      function: 'deposit',
      args: {},
    });
    expect(
      decodeCalldata(encodeFunctionData({ abi: erc20, functionName: 'renounceOwnership' }), to),
    ).toMatchObject({ function: 'renounceOwnership' });
    expect(decodeCalldata('0x', to)).toEqual({ status: 'unknown', reason: 'empty_calldata', selector: null });
    expect(decodeCalldata('', to)).toEqual({ status: 'unknown', reason: 'empty_calldata', selector: null });
    expect(decodeCalldata('0xabcd', to)).toEqual({
      status: 'unknown',
      reason: 'no_decoder_for_selector',
      selector: null,
    });
    expect(decodeCalldata('0x12345678', to)).toEqual({
      status: 'unknown',
      reason: 'no_decoder_for_selector',
      selector: '0x12345678',
    });
    expect(decodeCalldata(transfer, null)).toEqual({
      status: 'unknown',
      reason: 'contract_creation',
      selector: null,
    });
  });

  it('verified ABIs (abis/ folder) are the fallback, and can be named in knownContracts', () => {
    const verifiedAbis = loadVerifiedAbis(ABIS_DIR);
    const createPair = encodeFunctionData({
      abi: [parseAbiItem('function createPair(address tokenA, address tokenB) returns (address pair)')],
      args: [a, b],
    });
    expect(decodeCalldata(createPair, to)).toMatchObject({
      status: 'unknown',
      reason: 'no_decoder_for_selector',
    });
    const dec = createCalldataDecoder({ verifiedAbis });
    expect(dec(createPair, to)).toMatchObject({
      decoder: 'verified_abi:UniswapV2Factory',
      function: 'createPair',
      args: { tokenA: a, tokenB: b },
    });
    // built-ins still win where both know the selector
    const transfer = encodeFunctionData({ abi: abiOf('erc20'), functionName: 'transfer', args: [a, 1n] });
    expect(dec(transfer, to)).toMatchObject({ decoder: 'erc20' });
  });
});
