/**
 * Deploys the whole devnet in a few blocks: every tx is signed locally with an explicit nonce
 * and gas limit and sent without waiting (addresses are predicted from nonces and CREATE2), then
 * blocks are forced with `evm_mine` until every receipt is in. Works under any mining mode.
 */
import {
  type Abi,
  type Address,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  keccak256,
  stringToHex,
  zeroAddress,
} from 'viem';
import {
  erc20Abi,
  launchpadAbi,
  modifyLiquidityTestAbi,
  npmAbi,
  poolManagerAbi,
  v2RouterAbi,
  wethAbi,
} from './abis.js';
import { DEVNET_CHAIN_ID, rpc } from './anvil.js';
import { artifacts, linkLibrary } from './artifacts.js';
import type { CompiledContracts } from './compile.js';
import {
  alignTick,
  amountsFor,
  ETH_USD,
  FAR_DEADLINE,
  liquidityFor,
  NATIVE_ETH,
  priceToTick,
  rawPrice,
  sortPair,
  sqrtPriceX96,
  usdToRaw,
  v2PairAddress,
  v3PoolAddress,
  v4PoolId,
} from './math.js';
import { devAccount, NonceWallet, type SignedTx, waitReceipts } from './signer.js';
import type { DevnetDeployment, PoolInfo, TokenInfo, TokenKind } from './types.js';

/** Curve ETH reserve at which a launch graduates, wei (3 ETH: a handful of traffic buys). */
export const GRADUATION_TARGET_WEI = 3_000_000_000_000_000_000n;
const MAX = 2n ** 256n - 1n;
/** Sum of gas limits sent before waiting for them to be mined (anvil is started with a 60M block gas limit). */
const BATCH_GAS = 50_000_000n;

interface TokenSpec {
  key: string;
  name: string;
  symbol: string;
  decimals: number;
  kind: TokenKind;
  usd: number;
}

/**
 * The contract of a token spec's kind and its constructor arguments (`supply` in base units,
 * minted to `deployer`; `admin` owns the ownable and rebasing tokens).
 */
function tokenConstructor(
  s: TokenSpec,
  supply: bigint,
  deployer: Address,
  admin: Address,
): [string, unknown[]] {
  switch (s.kind) {
    case 'ownable':
      return ['OwnableToken', [s.name, s.symbol, supply, deployer, admin]];
    case 'bytes32-metadata':
      return [
        'Bytes32MetaToken',
        [stringToHex(s.name, { size: 32 }), stringToHex(s.symbol, { size: 32 }), supply, deployer],
      ];
    case 'reverting-metadata':
      return ['RevertingMetaToken', [supply, deployer]];
    case 'fee-on-transfer':
      return ['FeeOnTransferToken', [s.name, s.symbol, supply, deployer, 200n]];
    case 'rebasing':
      return ['RebasingToken', [s.name, s.symbol, supply, deployer, admin]];
    default:
      return ['SimpleToken', [s.name, s.symbol, s.decimals, supply, deployer]];
  }
}

/** The ERC-20s deployed besides WETH (12: two stables, six plain, four deliberately odd). */
export const TOKEN_SPECS: TokenSpec[] = [
  { key: 'USDC', name: 'USD Coin', symbol: 'USDC', decimals: 6, kind: 'stable', usd: 1 },
  { key: 'DAI', name: 'Dai Stablecoin', symbol: 'DAI', decimals: 18, kind: 'stable', usd: 1 },
  { key: 'WBTC', name: 'Wrapped BTC', symbol: 'WBTC', decimals: 8, kind: 'standard', usd: 60000 },
  { key: 'LINK', name: 'ChainLink Token', symbol: 'LINK', decimals: 18, kind: 'standard', usd: 15 },
  { key: 'UNI', name: 'Uniswap', symbol: 'UNI', decimals: 18, kind: 'standard', usd: 8 },
  { key: 'AAVE', name: 'Aave Token', symbol: 'AAVE', decimals: 18, kind: 'standard', usd: 90 },
  { key: 'PEPE', name: 'Pepe', symbol: 'PEPE', decimals: 18, kind: 'standard', usd: 0.00001 },
  { key: 'GOV', name: 'Governed Token', symbol: 'GOV', decimals: 18, kind: 'ownable', usd: 2 },
  { key: 'MKR', name: 'Maker', symbol: 'MKR', decimals: 18, kind: 'bytes32-metadata', usd: 1500 },
  { key: 'NOMETA', name: '', symbol: '', decimals: 18, kind: 'reverting-metadata', usd: 0.5 },
  { key: 'FOT', name: 'Fee On Transfer', symbol: 'FOT', decimals: 18, kind: 'fee-on-transfer', usd: 0.1 },
  { key: 'RBS', name: 'Rebasing Share', symbol: 'RBS', decimals: 18, kind: 'rebasing', usd: 1 },
];

/** V2 pairs as [keyA, keyB, usd per side]. LINK and WBTC trade against both WETH and USDC. */
const V2_PAIRS: [string, string, number][] = [
  ['WETH', 'USDC', 3_000_000],
  ['WETH', 'DAI', 2_000_000],
  ['USDC', 'DAI', 1_000_000],
  ['WBTC', 'WETH', 500_000],
  ['WBTC', 'USDC', 500_000],
  ['LINK', 'WETH', 300_000],
  ['LINK', 'USDC', 300_000],
  ['UNI', 'WETH', 300_000],
  ['AAVE', 'WETH', 300_000],
  ['AAVE', 'DAI', 200_000],
  ['PEPE', 'WETH', 200_000],
  ['GOV', 'WETH', 100_000],
  ['MKR', 'WETH', 200_000],
  ['NOMETA', 'WETH', 50_000],
  ['FOT', 'WETH', 50_000],
  ['RBS', 'WETH', 50_000],
];
/** V3 pools as [keyA, keyB, fee, usd per side]; fee 500 → spacing 10, 3000 → 60, 10000 → 200. */
const V3_POOLS: [string, string, number, number][] = [
  ['WETH', 'USDC', 500, 2_000_000],
  ['WETH', 'USDC', 3000, 1_000_000],
  ['WETH', 'DAI', 3000, 500_000],
  ['WBTC', 'WETH', 3000, 500_000],
  ['LINK', 'WETH', 3000, 300_000],
  ['LINK', 'USDC', 10000, 200_000],
  ['UNI', 'WETH', 3000, 200_000],
];
const V3_SPACING: Record<number, number> = { 500: 10, 3000: 60, 10000: 200 };
/** V4 pools as [keyA, keyB, fee, tickSpacing, usd per side]; 'ETH' = native currency (address 0). */
const V4_POOLS: [string, string, number, number, number][] = [
  ['ETH', 'USDC', 3000, 60, 1_000_000],
  ['ETH', 'PEPE', 10000, 200, 200_000],
  ['LINK', 'UNI', 500, 10, 200_000],
  ['WBTC', 'USDC', 3000, 60, 300_000],
];

const URI_SAMPLES = [
  [
    'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/meta.json',
    'ipfs://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG',
  ],
  ['https://launch.example.org/meta/2.json', 'ar://bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U'],
];

interface Step {
  label: string;
  hash: Hex;
}

/**
 * Sends the deployment's transactions without waiting for them, from locally managed nonces. Anvil
 * drops (not queues) txs whose gas limits overflow the block being built, which would leave a
 * nonce gap: each unmined batch is kept under one block's gas ({@link BATCH_GAS}) and settled
 * (every receipt in, none reverted) before the next.
 */
class Batches {
  /** Every step sent, in order. */
  readonly steps: Step[] = [];
  private unsettled: Step[] = [];
  private unsettledGas = 0n;

  constructor(
    readonly rpcUrl: string,
    readonly deployer: NonceWallet,
  ) {}

  /** Waits for the unmined batch. @throws Error naming the steps that reverted. */
  async settle() {
    if (this.unsettled.length === 0) return;
    const rs = await waitReceipts(
      this.rpcUrl,
      this.unsettled.map((s) => s.hash),
      { timeoutMs: 60_000 },
    );
    const bad = rs
      .map((r, i) => (r.status === '0x1' ? null : this.unsettled[i].label))
      .filter((x) => x !== null);
    if (bad.length > 0) throw new Error(`devnet: deployment steps reverted: ${bad.join(', ')}`);
    this.unsettled = [];
    this.unsettledGas = 0n;
  }

  private async reserve(gas: bigint) {
    if (this.unsettledGas + gas > BATCH_GAS) await this.settle();
    this.unsettledGas += gas;
  }

  private push(st: Step) {
    this.steps.push(st);
    this.unsettled.push(st);
  }

  /** Sends `functionName(...args)` of `abi` on `to` from `w`. */
  async send(
    w: NonceWallet,
    label: string,
    to: Address,
    abi: Abi,
    functionName: string,
    args: unknown[],
    gas: bigint,
    value = 0n,
  ) {
    const data = encodeFunctionData({ abi, functionName, args } as never);
    await this.reserve(gas);
    this.push({ label, hash: await w.send({ to, data, value, gas }) });
  }

  /** Creates a contract from the deployer. @returns its address (predicted from the nonce). */
  async create(label: string, abi: Abi, bytecode: Hex, args: unknown[], gas: bigint): Promise<Address> {
    await this.reserve(gas);
    const address = getContractAddress({ from: this.deployer.address, nonce: BigInt(this.deployer.nonce) });
    const data = encodeDeployData({ abi, bytecode, args } as never);
    this.push({ label, hash: await this.deployer.send({ data, gas }) });
    return address;
  }
}

/** The compiled contract `name` of the project's own sources. @throws Error when it is missing. */
function own(compiled: CompiledContracts, name: string) {
  const c = compiled[name];
  if (!c) throw new Error(`devnet: compiled contract ${name} missing`);
  return c;
}

/** WETH9 and the Uniswap V2, V3 and V4 contracts (factories, routers, position manager, test routers). */
async function deployProtocol(b: Batches) {
  const deployer = b.deployer.address;
  const a = {
    weth: artifacts.weth9(),
    v2f: artifacts.v2Factory(),
    v2r: artifacts.v2Router02(),
    v3f: artifacts.v3Factory(),
    nftd: artifacts.nftDescriptor(),
    ptd: artifacts.positionDescriptor(),
    npm: artifacts.positionManager(),
    sr: artifacts.swapRouter(),
    pm: artifacts.poolManager(),
    pst: artifacts.poolSwapTest(),
    pmlt: artifacts.poolModifyLiquidityTest(),
  };
  const weth9 = await b.create('WETH9', a.weth.abi, a.weth.bytecode, [], 2_000_000n);
  const uniswapV2Factory = await b.create(
    'UniswapV2Factory',
    a.v2f.abi,
    a.v2f.bytecode,
    [deployer],
    6_000_000n,
  );
  const uniswapV2Router02 = await b.create(
    'UniswapV2Router02',
    a.v2r.abi,
    a.v2r.bytecode,
    [uniswapV2Factory, weth9],
    6_000_000n,
  );
  const uniswapV3Factory = await b.create('UniswapV3Factory', a.v3f.abi, a.v3f.bytecode, [], 8_000_000n);
  const nftDescriptorLibrary = await b.create('NFTDescriptor', a.nftd.abi, a.nftd.bytecode, [], 8_000_000n);
  const nonfungibleTokenPositionDescriptor = await b.create(
    'NonfungibleTokenPositionDescriptor',
    a.ptd.abi,
    linkLibrary(a.ptd, 'NFTDescriptor', nftDescriptorLibrary),
    [weth9, stringToHex('ETH', { size: 32 })],
    6_000_000n,
  );
  const nonfungiblePositionManager = await b.create(
    'NonfungiblePositionManager',
    a.npm.abi,
    a.npm.bytecode,
    [uniswapV3Factory, weth9, nonfungibleTokenPositionDescriptor],
    8_000_000n,
  );
  const swapRouter = await b.create(
    'SwapRouter',
    a.sr.abi,
    a.sr.bytecode,
    [uniswapV3Factory, weth9],
    6_000_000n,
  );
  const poolManager = await b.create('PoolManager', a.pm.abi, a.pm.bytecode, [deployer], 8_000_000n);
  const poolSwapTest = await b.create('PoolSwapTest', a.pst.abi, a.pst.bytecode, [poolManager], 4_000_000n);
  const poolModifyLiquidityTest = await b.create(
    'PoolModifyLiquidityTest',
    a.pmlt.abi,
    a.pmlt.bytecode,
    [poolManager],
    4_000_000n,
  );
  return {
    weth9,
    uniswapV2Factory,
    uniswapV2Router02,
    uniswapV3Factory,
    nftDescriptorLibrary,
    nonfungibleTokenPositionDescriptor,
    nonfungiblePositionManager,
    swapRouter,
    poolManager,
    poolSwapTest,
    poolModifyLiquidityTest,
  };
}

/** WETH (already deployed at `weth9`) and the {@link TOKEN_SPECS} tokens, each with a $5bn supply. */
async function deployTokens(b: Batches, compiled: CompiledContracts, weth9: Address, admin: Address) {
  const tokens: TokenInfo[] = [
    {
      key: 'WETH',
      address: weth9,
      name: 'Wrapped Ether',
      symbol: 'WETH',
      decimals: 18,
      kind: 'weth',
      usdPrice: ETH_USD,
    },
  ];
  for (const s of TOKEN_SPECS) {
    const supply = usdToRaw(5e9, s.usd, s.decimals);
    const [contract, args] = tokenConstructor(s, supply, b.deployer.address, admin);
    const c = own(compiled, contract);
    const address = await b.create(s.key, c.abi, c.bytecode, args, 3_000_000n);
    tokens.push({
      key: s.key,
      address,
      name: s.name,
      symbol: s.symbol,
      decimals: s.decimals,
      kind: s.kind,
      usdPrice: s.usd,
    });
  }
  return tokens;
}

/**
 * The deployer wraps 40k ETH, approves the V2 router, the V3 position manager and the V4 liquidity
 * router for every token, and sends 30 % of each supply to the admin treasury.
 */
async function fundAndApprove(b: Batches, tokens: TokenInfo[], spenders: Address[], admin: Address) {
  const deployer = b.deployer;
  await b.send(
    deployer,
    'WETH deposit',
    tokens[0].address,
    wethAbi,
    'deposit',
    [],
    100_000n,
    40_000n * 10n ** 18n,
  );
  for (const t of tokens) {
    for (const spender of spenders) {
      await b.send(deployer, `approve ${t.key}`, t.address, erc20Abi, 'approve', [spender, MAX], 100_000n);
    }
    // 30 % of each supply to the admin treasury, which airdrops to traffic wallets.
    if (t.kind !== 'weth') {
      await b.send(
        deployer,
        `treasury ${t.key}`,
        t.address,
        erc20Abi,
        'transfer',
        [admin, usdToRaw(1.5e9, t.usdPrice, t.decimals)],
        150_000n,
      );
    }
  }
}

/** The two tokens of `a` and `b` in pool order (sorted by address). */
function ordered<T extends { address: Address }>(a: T, b: T): [T, T] {
  return sortPair(a.address, b.address)[0] === a.address ? [a, b] : [b, a];
}

type Contracts = Awaited<ReturnType<typeof deployProtocol>>;

/** The {@link V2_PAIRS}, each created by its first `addLiquidity` through the router. */
async function addV2Pools(b: Batches, c: Contracts, tok: (k: string) => TokenInfo): Promise<PoolInfo[]> {
  const pools: PoolInfo[] = [];
  const pairInitHash = keccak256(artifacts.v2Pair().bytecode);
  for (const [ka, kb, usd] of V2_PAIRS) {
    const ta = tok(ka);
    const tb = tok(kb);
    await b.send(
      b.deployer,
      `V2 ${ka}/${kb}`,
      c.uniswapV2Router02,
      v2RouterAbi,
      'addLiquidity',
      [
        ta.address,
        tb.address,
        usdToRaw(usd, ta.usdPrice, ta.decimals),
        usdToRaw(usd, tb.usdPrice, tb.decimals),
        0n,
        0n,
        b.deployer.address,
        FAR_DEADLINE,
      ],
      4_000_000n,
    );
    const [x0, x1] = ordered(ta, tb);
    pools.push({
      protocol: 'uniswap-v2',
      address: v2PairAddress(c.uniswapV2Factory, pairInitHash, ta.address, tb.address),
      token0: x0.address,
      token1: x1.address,
      token0Key: x0.key,
      token1Key: x1.key,
      fee: 3000,
    });
  }
  return pools;
}

/** The {@link V3_POOLS}, each initialised at its USD price with one wide and one ±~10 % position. */
async function addV3Pools(b: Batches, c: Contracts, tok: (k: string) => TokenInfo): Promise<PoolInfo[]> {
  const pools: PoolInfo[] = [];
  const npm = c.nonfungiblePositionManager;
  const v3InitHash = keccak256(artifacts.v3Pool().bytecode);
  for (const [ka, kb, fee, usd] of V3_POOLS) {
    const [x0, x1] = ordered(tok(ka), tok(kb));
    const price = rawPrice(x0.usdPrice, x0.decimals, x1.usdPrice, x1.decimals);
    const spacing = V3_SPACING[fee];
    const init = [x0.address, x1.address, fee, sqrtPriceX96(price)];
    await b.send(
      b.deployer,
      `V3 init ${ka}/${kb}/${fee}`,
      npm,
      npmAbi,
      'createAndInitializePoolIfNecessary',
      init,
      6_000_000n,
    );
    const tick = priceToTick(price);
    // One wide position and one concentrated position (±~10 %) per pool.
    for (const [width, share] of [
      [887272, 0.5],
      [1000, 0.5],
    ] as const) {
      const tl = alignTick(tick - width, spacing);
      const tu = alignTick(tick + width, spacing) + (width === 887272 ? 0 : spacing);
      const mint = {
        token0: x0.address,
        token1: x1.address,
        fee,
        tickLower: tl,
        tickUpper: tu,
        amount0Desired: usdToRaw(usd * share, x0.usdPrice, x0.decimals),
        amount1Desired: usdToRaw(usd * share, x1.usdPrice, x1.decimals),
        amount0Min: 0n,
        amount1Min: 0n,
        recipient: b.deployer.address,
        deadline: FAR_DEADLINE,
      };
      await b.send(b.deployer, `V3 mint ${ka}/${kb}/${fee}`, npm, npmAbi, 'mint', [mint], 1_500_000n);
    }
    pools.push({
      protocol: 'uniswap-v3',
      address: v3PoolAddress(c.uniswapV3Factory, v3InitHash, x0.address, x1.address, fee),
      token0: x0.address,
      token1: x1.address,
      token0Key: x0.key,
      token1Key: x1.key,
      fee,
      tickSpacing: spacing,
    });
  }
  return pools;
}

/** The {@link V4_POOLS} on the PoolManager, each initialised and given a ±2000-tick position. */
async function addV4Pools(b: Batches, c: Contracts, tok: (k: string) => TokenInfo): Promise<PoolInfo[]> {
  const pools: PoolInfo[] = [];
  const eth: TokenInfo = NATIVE_ETH;
  for (const [ka, kb, fee, tickSpacing, usd] of V4_POOLS) {
    const [x0, x1] = ordered(ka === 'ETH' ? eth : tok(ka), kb === 'ETH' ? eth : tok(kb));
    const key = { currency0: x0.address, currency1: x1.address, fee, tickSpacing, hooks: zeroAddress };
    const price = rawPrice(x0.usdPrice, x0.decimals, x1.usdPrice, x1.decimals);
    const init = [key, sqrtPriceX96(price)];
    await b.send(
      b.deployer,
      `V4 init ${ka}/${kb}`,
      c.poolManager,
      poolManagerAbi,
      'initialize',
      init,
      1_000_000n,
    );
    const tick = priceToTick(price);
    const tl = alignTick(tick - 2000, tickSpacing);
    const tu = alignTick(tick + 2000, tickSpacing) + tickSpacing;
    const amt0 = Number(usdToRaw(usd, x0.usdPrice, x0.decimals));
    const amt1 = Number(usdToRaw(usd, x1.usdPrice, x1.decimals));
    const liq = liquidityFor(price, tl, tu, amt0, amt1);
    const [need0] = amountsFor(price, tl, tu, Number(liq));
    const value = x0.address === zeroAddress ? BigInt(Math.ceil(need0 * 1.01)) + 1000n : 0n;
    await b.send(
      b.deployer,
      `V4 liquidity ${ka}/${kb}`,
      c.poolModifyLiquidityTest,
      modifyLiquidityTestAbi,
      'modifyLiquidity',
      [key, { tickLower: tl, tickUpper: tu, liquidityDelta: liq, salt: `0x${'0'.repeat(64)}` }, '0x'],
      1_500_000n,
      value,
    );
    pools.push({
      protocol: 'uniswap-v4',
      address: c.poolManager,
      poolId: v4PoolId(key),
      token0: x0.address,
      token1: x1.address,
      token0Key: x0.key,
      token1Key: x1.key,
      fee,
      tickSpacing,
      hooks: zeroAddress,
    });
  }
  return pools;
}

/** The admin's example launches: one open curve and one that graduates at once. @returns their token addresses. */
async function seedLaunches(b: Batches, admin: NonceWallet, launchpad: Address): Promise<Address[]> {
  const seededLaunches: Address[] = [];
  for (const [i, [name, symbol, buyWei]] of (
    [
      ['Genesis Frog', 'GFROG', 500_000_000_000_000_000n],
      ['Instant Moon', 'IMOON', GRADUATION_TARGET_WEI + 10n ** 17n],
    ] as const
  ).entries()) {
    const nonce = BigInt(i + 1); // Launchpad's CREATE nonce starts at 1 (EIP-161)
    seededLaunches.push(getContractAddress({ from: launchpad, nonce }));
    await b.send(
      admin,
      `launch ${symbol}`,
      launchpad,
      launchpadAbi,
      'createLaunch',
      [name, symbol, URI_SAMPLES[i][0], URI_SAMPLES[i][1]],
      6_000_000n,
      buyWei,
    );
  }
  return seededLaunches;
}

/** Checks that every contract and every V2/V3 pool has code. @throws Error naming the first without. */
async function checkCode(rpcUrl: string, contracts: Record<string, Address>, pools: PoolInfo[]) {
  for (const [name, addr] of Object.entries(contracts)) {
    const code = await rpc<Hex>(rpcUrl, 'eth_getCode', [addr, 'latest']);
    if (code === '0x') throw new Error(`devnet: no code at ${name} ${addr}`);
  }
  for (const p of pools.filter((x) => x.protocol !== 'uniswap-v4')) {
    const code = await rpc<Hex>(rpcUrl, 'eth_getCode', [p.address, 'latest']);
    if (code === '0x')
      throw new Error(
        `devnet: no code at pool ${p.token0Key}/${p.token1Key} ${p.address} (address prediction wrong)`,
      );
  }
}

/**
 * Deploys everything (see README.md) and returns the deployment. Every transaction the node
 * accepted is appended to `signed` (in send order) when given, so that a reorg that drops part of
 * the deployment can be repaired by `replayDeployment` (signer.ts) at the same addresses.
 * @throws Error when a step reverts, a receipt does not come within 60 s, or an address prediction fails.
 */
export async function deployAll(
  rpcUrl: string,
  compiled: CompiledContracts,
  log: (m: string) => void,
  signed?: SignedTx[],
): Promise<DevnetDeployment> {
  const t0 = Date.now();
  const deployer = new NonceWallet(devAccount(0), rpcUrl);
  const admin = new NonceWallet(devAccount(1), rpcUrl);
  if (signed) {
    deployer.onAccepted = (t) => signed.push(t);
    admin.onAccepted = (t) => signed.push(t);
  }
  await Promise.all([deployer.syncNonce(), admin.syncNonce()]);
  const b = new Batches(rpcUrl, deployer);

  const protocol = await deployProtocol(b);
  const tokens = await deployTokens(b, compiled, protocol.weth9, admin.address);
  const lp = own(compiled, 'Launchpad');
  const launchArgs = [protocol.uniswapV2Router02, protocol.weth9, GRADUATION_TARGET_WEI];
  const launchpad = await b.create('Launchpad', lp.abi, lp.bytecode, launchArgs, 6_000_000n);
  const fw = own(compiled, 'ValueForwarder');
  const valueForwarder = await b.create('ValueForwarder', fw.abi, fw.bytecode, [], 3_000_000n);

  const byKey = new Map(tokens.map((t) => [t.key, t]));
  const tok = (k: string) => {
    const t = byKey.get(k);
    if (!t) throw new Error(`devnet: unknown token ${k}`);
    return t;
  };
  const spenders = [
    protocol.uniswapV2Router02,
    protocol.nonfungiblePositionManager,
    protocol.poolModifyLiquidityTest,
  ];
  await fundAndApprove(b, tokens, spenders, admin.address);
  const pools = [
    ...(await addV2Pools(b, protocol, tok)),
    ...(await addV3Pools(b, protocol, tok)),
    ...(await addV4Pools(b, protocol, tok)),
  ];

  // The admin's launches below must land after the launchpad exists: settle the deployer first.
  await b.settle();
  const seededLaunches = await seedLaunches(b, admin, launchpad);

  // --- wait for everything and check ---------------------------------------------------------
  await b.settle();
  const receipts = await waitReceipts(
    rpcUrl,
    b.steps.map((s) => s.hash),
  );
  const contracts = { ...protocol, launchpad, valueForwarder };
  await checkCode(rpcUrl, contracts, pools);
  const genesis = await rpc<{ hash: Hex }>(rpcUrl, 'eth_getBlockByNumber', ['0x0', false]);
  const last = Math.max(...receipts.map((r) => Number(r.blockNumber)));
  log(
    `devnet: deployed ${Object.keys(contracts).length} contracts, ${tokens.length} tokens, ${pools.length} pools in ${b.steps.length} txs (blocks ≤ ${last}) in ${Date.now() - t0} ms`,
  );
  return {
    version: 1,
    chainId: DEVNET_CHAIN_ID,
    genesisHash: genesis.hash,
    deployedAtBlock: last,
    deployer: deployer.address,
    admin: admin.address,
    contracts,
    tokens,
    pools,
    launchpad: {
      address: launchpad,
      graduationTargetWei: GRADUATION_TARGET_WEI.toString(),
      virtualEthWei: (10n ** 18n).toString(),
      tokenSupply: (1_000_000_000n * 10n ** 18n).toString(),
      seededLaunches,
    },
  };
}
