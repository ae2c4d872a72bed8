/**
 * Built-in, hand-written ABI tables (human-readable signatures) for the events and functions the
 * indexer decodes without any verified ABI. Parameter names and `indexed` flags are copied from
 * the published artifacts noted per group; `tables.test.ts` re-checks every entry against those
 * npm packages, so the runtime needs none of them (they are devDependencies, and multi-MB).
 *
 * Order matters: within one topic0 / selector the FIRST matching entry wins, so the arrays are
 * written in the documented priority order.
 */

/** Label of the contract family an event was decoded as. */
export type BuiltinLogStandard =
  | 'erc20'
  | 'erc721'
  | 'erc6909'
  | 'weth'
  | 'ownable'
  | 'uniswap_v2_pair'
  | 'uniswap_v2_factory'
  | 'uniswap_v3_pool'
  | 'uniswap_v3_factory'
  | 'uniswap_v4_pool_manager'
  | 'launchpad';

/** Label of the calldata decoder table a call was decoded by. */
export type BuiltinCallDecoder =
  | 'erc20'
  | 'weth'
  | 'uniswap_v2_router'
  | 'uniswap_v3_router'
  | 'uniswap_v3_position_manager'
  | 'uniswap_v4_test_router'
  | 'launchpad';

/**
 * Event tables. ERC-20 and ERC-721 share the topic0 of `Transfer(address,address,uint256)` and
 * of `Approval(...)`: they are told apart by topic count (3 = ERC-20, value in data; 4 = ERC-721,
 * tokenId indexed). WETH's Transfer/Approval are ERC-20 shaped and decode as `erc20`.
 */
export const EVENT_TABLES: readonly {
  standard: BuiltinLogStandard;
  source: string;
  events: readonly string[];
}[] = [
  {
    standard: 'erc20',
    source: 'EIP-20; @uniswap/v2-core build/ERC20.json',
    events: [
      'event Transfer(address indexed from, address indexed to, uint256 value)',
      'event Approval(address indexed owner, address indexed spender, uint256 value)',
    ],
  },
  {
    standard: 'erc721',
    source: 'EIP-721; @uniswap/v3-periphery NonfungiblePositionManager.json',
    events: [
      'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
      'event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)',
      'event ApprovalForAll(address indexed owner, address indexed operator, bool approved)',
    ],
  },
  {
    standard: 'weth',
    source: '@uniswap/v2-periphery build/WETH9.json',
    events: [
      'event Deposit(address indexed dst, uint256 wad)',
      'event Withdrawal(address indexed src, uint256 wad)',
    ],
  },
  {
    standard: 'ownable',
    source: 'OpenZeppelin Ownable (same topic0 as solmate Owned in v4 PoolManager)',
    events: ['event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)'],
  },
  {
    standard: 'uniswap_v2_pair',
    source: '@uniswap/v2-core build/UniswapV2Pair.json',
    events: [
      'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
      'event Sync(uint112 reserve0, uint112 reserve1)',
      'event Mint(address indexed sender, uint256 amount0, uint256 amount1)',
      'event Burn(address indexed sender, uint256 amount0, uint256 amount1, address indexed to)',
    ],
  },
  {
    standard: 'uniswap_v2_factory',
    source:
      '@uniswap/v2-core build/UniswapV2Factory.json (4th input unnamed there; named allPairsLength here)',
    events: [
      'event PairCreated(address indexed token0, address indexed token1, address pair, uint256 allPairsLength)',
    ],
  },
  {
    standard: 'uniswap_v3_pool',
    source: '@uniswap/v3-core artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json',
    events: [
      'event Initialize(uint160 sqrtPriceX96, int24 tick)',
      'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
      'event Mint(address sender, address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)',
      'event Burn(address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)',
      'event Collect(address indexed owner, address recipient, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount0, uint128 amount1)',
      'event Flash(address indexed sender, address indexed recipient, uint256 amount0, uint256 amount1, uint256 paid0, uint256 paid1)',
      'event CollectProtocol(address indexed sender, address indexed recipient, uint128 amount0, uint128 amount1)',
      'event SetFeeProtocol(uint8 feeProtocol0Old, uint8 feeProtocol1Old, uint8 feeProtocol0New, uint8 feeProtocol1New)',
      'event IncreaseObservationCardinalityNext(uint16 observationCardinalityNextOld, uint16 observationCardinalityNextNew)',
    ],
  },
  {
    standard: 'uniswap_v3_factory',
    source: '@uniswap/v3-core artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json',
    events: [
      'event PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool)',
      'event OwnerChanged(address indexed oldOwner, address indexed newOwner)',
      'event FeeAmountEnabled(uint24 indexed fee, int24 indexed tickSpacing)',
    ],
  },
  {
    standard: 'uniswap_v4_pool_manager',
    source: '@uniswap/v4-core out/PoolManager.sol/PoolManager.json (Currency is address in the ABI)',
    events: [
      'event Initialize(bytes32 indexed id, address indexed currency0, address indexed currency1, uint24 fee, int24 tickSpacing, address hooks, uint160 sqrtPriceX96, int24 tick)',
      'event Swap(bytes32 indexed id, address indexed sender, int128 amount0, int128 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee)',
      'event ModifyLiquidity(bytes32 indexed id, address indexed sender, int24 tickLower, int24 tickUpper, int256 liquidityDelta, bytes32 salt)',
      'event Donate(bytes32 indexed id, address indexed sender, uint256 amount0, uint256 amount1)',
      'event ProtocolFeeUpdated(bytes32 indexed id, uint24 protocolFee)',
      'event ProtocolFeeControllerUpdated(address indexed protocolFeeController)',
    ],
  },
  {
    standard: 'erc6909',
    source: 'ERC-6909 claims of @uniswap/v4-core out/PoolManager.sol/PoolManager.json',
    events: [
      'event Transfer(address caller, address indexed from, address indexed to, uint256 indexed id, uint256 amount)',
      'event Approval(address indexed owner, address indexed spender, uint256 indexed id, uint256 amount)',
      'event OperatorSet(address indexed owner, address indexed operator, bool approved)',
    ],
  },
  {
    standard: 'launchpad',
    source: "this project's Launchpad (src/devnet/contracts/Launchpad.sol)",
    events: [
      'event LaunchCreated(address indexed token, address indexed creator, uint256 indexed launchSequence, string name, string symbol, string metadataUri, string imageUri)',
      'event CurveTrade(address indexed token, address indexed trader, bool isBuy, uint256 ethAmount, uint256 tokenAmount, uint256 ethReserve, uint256 tokenReserve)',
      'event GraduationStarted(address indexed token, uint256 ethReserve)',
      'event Graduated(address indexed token, address indexed pool, uint256 ethAmount, uint256 tokenAmount)',
    ],
  },
];

const POOL_KEY = '(address currency0, address currency1, uint24 fee, int24 tickSpacing, address hooks) key';
const MODIFY_PARAMS = '(int24 tickLower, int24 tickUpper, int256 liquidityDelta, bytes32 salt) params';

/**
 * Function tables in the FIXED PRIORITY used when two decoders share a selector and `to` is not
 * a known contract: erc20, weth, uniswap_v2_router, uniswap_v3_router,
 * uniswap_v3_position_manager, uniswap_v4_test_router, launchpad (then verified ABIs). Today the
 * only shared selector is `multicall(bytes[])` (0xac9650d8: SwapRouter and the position manager).
 */
export const FUNCTION_TABLES: readonly {
  decoder: BuiltinCallDecoder;
  source: string;
  functions: readonly string[];
}[] = [
  {
    decoder: 'erc20',
    source: 'EIP-20 + common mint/burn/Ownable extensions (src/devnet/contracts/Tokens.sol)',
    functions: [
      'function transfer(address to, uint256 amount)',
      'function transferFrom(address from, address to, uint256 amount)',
      'function approve(address spender, uint256 amount)',
      'function mint(address to, uint256 amount)',
      'function burn(uint256 amount)',
      'function burn(address from, uint256 amount)',
      'function transferOwnership(address newOwner)',
      'function renounceOwnership()',
    ],
  },
  {
    decoder: 'weth',
    source: '@uniswap/v2-periphery build/WETH9.json',
    functions: ['function deposit()', 'function withdraw(uint256 wad)'],
  },
  {
    decoder: 'uniswap_v2_router',
    source: '@uniswap/v2-periphery build/UniswapV2Router02.json (every swap*/addLiquidity*/removeLiquidity*)',
    functions: [
      'function addLiquidity(address tokenA, address tokenB, uint256 amountADesired, uint256 amountBDesired, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline)',
      'function addLiquidityETH(address token, uint256 amountTokenDesired, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline)',
      'function removeLiquidity(address tokenA, address tokenB, uint256 liquidity, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline)',
      'function removeLiquidityETH(address token, uint256 liquidity, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline)',
      'function removeLiquidityETHSupportingFeeOnTransferTokens(address token, uint256 liquidity, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline)',
      'function removeLiquidityETHWithPermit(address token, uint256 liquidity, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline, bool approveMax, uint8 v, bytes32 r, bytes32 s)',
      'function removeLiquidityETHWithPermitSupportingFeeOnTransferTokens(address token, uint256 liquidity, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline, bool approveMax, uint8 v, bytes32 r, bytes32 s)',
      'function removeLiquidityWithPermit(address tokenA, address tokenB, uint256 liquidity, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline, bool approveMax, uint8 v, bytes32 r, bytes32 s)',
      'function swapETHForExactTokens(uint256 amountOut, address[] path, address to, uint256 deadline)',
      'function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline)',
      'function swapExactETHForTokensSupportingFeeOnTransferTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline)',
      'function swapExactTokensForETH(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)',
      'function swapExactTokensForETHSupportingFeeOnTransferTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)',
      'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)',
      'function swapExactTokensForTokensSupportingFeeOnTransferTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)',
      'function swapTokensForExactETH(uint256 amountOut, uint256 amountInMax, address[] path, address to, uint256 deadline)',
      'function swapTokensForExactTokens(uint256 amountOut, uint256 amountInMax, address[] path, address to, uint256 deadline)',
    ],
  },
  {
    decoder: 'uniswap_v3_router',
    source: '@uniswap/v3-periphery artifacts/contracts/SwapRouter.sol/SwapRouter.json',
    functions: [
      'function exactInputSingle((address tokenIn, address tokenOut, uint24 fee, address recipient, uint256 deadline, uint256 amountIn, uint256 amountOutMinimum, uint160 sqrtPriceLimitX96) params)',
      'function exactInput((bytes path, address recipient, uint256 deadline, uint256 amountIn, uint256 amountOutMinimum) params)',
      'function exactOutputSingle((address tokenIn, address tokenOut, uint24 fee, address recipient, uint256 deadline, uint256 amountOut, uint256 amountInMaximum, uint160 sqrtPriceLimitX96) params)',
      'function exactOutput((bytes path, address recipient, uint256 deadline, uint256 amountOut, uint256 amountInMaximum) params)',
      'function multicall(bytes[] data)',
    ],
  },
  {
    decoder: 'uniswap_v3_position_manager',
    source:
      '@uniswap/v3-periphery artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json',
    functions: [
      'function mint((address token0, address token1, uint24 fee, int24 tickLower, int24 tickUpper, uint256 amount0Desired, uint256 amount1Desired, uint256 amount0Min, uint256 amount1Min, address recipient, uint256 deadline) params)',
      'function increaseLiquidity((uint256 tokenId, uint256 amount0Desired, uint256 amount1Desired, uint256 amount0Min, uint256 amount1Min, uint256 deadline) params)',
      'function decreaseLiquidity((uint256 tokenId, uint128 liquidity, uint256 amount0Min, uint256 amount1Min, uint256 deadline) params)',
      'function collect((uint256 tokenId, address recipient, uint128 amount0Max, uint128 amount1Max) params)',
      'function multicall(bytes[] data)',
    ],
  },
  {
    decoder: 'uniswap_v4_test_router',
    source:
      '@uniswap/v4-core out/PoolSwapTest.sol/PoolSwapTest.json, out/PoolModifyLiquidityTest.sol/PoolModifyLiquidityTest.json',
    functions: [
      `function swap(${POOL_KEY}, (bool zeroForOne, int256 amountSpecified, uint160 sqrtPriceLimitX96) params, (bool takeClaims, bool settleUsingBurn) testSettings, bytes hookData)`,
      `function modifyLiquidity(${POOL_KEY}, ${MODIFY_PARAMS}, bytes hookData)`,
      `function modifyLiquidity(${POOL_KEY}, ${MODIFY_PARAMS}, bytes hookData, bool settleUsingBurn, bool takeClaims)`,
    ],
  },
  {
    decoder: 'launchpad',
    source:
      "this project's launchpad spec (buy(address), sell(address,uint256)) and the devnet contract src/devnet/contracts/Launchpad.sol (buy/sell with slippage bounds)",
    functions: [
      'function createLaunch(string name, string symbol, string metadataUri, string imageUri)',
      'function buy(address token)',
      'function sell(address token, uint256 amount)',
      'function buy(address token, uint256 minTokensOut)',
      'function sell(address token, uint256 tokenIn, uint256 minEthOut)',
    ],
  },
];
