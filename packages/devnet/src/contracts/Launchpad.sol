// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

import "./Tokens.sol";

interface IUniswapV2Router02Like {
    function factory() external view returns (address);
    function addLiquidityETH(address token, uint256 amountTokenDesired, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline)
        external payable returns (uint256 amountToken, uint256 amountETH, uint256 liquidity);
}

interface IUniswapV2FactoryLike {
    function getPair(address a, address b) external view returns (address);
}

/// Token created by the launchpad; the whole supply is minted to the pad (the curve).
contract LaunchToken is SimpleToken {
    address public immutable launchpad;
    string public metadataUri;
    string public imageUri;

    constructor(string memory n, string memory s, uint256 supply, string memory meta, string memory image)
        SimpleToken(n, s, 18, supply, msg.sender)
    {
        launchpad = msg.sender;
        metadataUri = meta;
        imageUri = image;
    }
}

/// Launchpad with one shared bonding-curve address (this contract holds every curve's
/// reserves). Curve: constant product over (ethReserve + VIRTUAL_ETH) * tokenReserve.
/// When a buy lifts ethReserve to `graduationTarget`, the curve's reserves seed a
/// Uniswap V2 pool (LP tokens burned to 0xdead) and curve trading stops.
contract Launchpad {
    event LaunchCreated(address indexed token, address indexed creator, uint256 indexed launchSequence, string name, string symbol, string metadataUri, string imageUri);
    event CurveTrade(address indexed token, address indexed trader, bool isBuy, uint256 ethAmount, uint256 tokenAmount, uint256 ethReserve, uint256 tokenReserve);
    event GraduationStarted(address indexed token, uint256 ethReserve);
    event Graduated(address indexed token, address indexed pool, uint256 ethAmount, uint256 tokenAmount);

    struct Curve { uint256 ethReserve; uint256 tokenReserve; bool graduated; address creator; }

    uint256 public constant SUPPLY = 1_000_000_000 ether;
    uint256 public constant VIRTUAL_ETH = 1 ether;

    IUniswapV2Router02Like public immutable router;
    address public immutable weth;
    uint256 public immutable graduationTarget;
    uint256 public launchCount;
    mapping(address => Curve) public curves;
    address[] public launches;

    constructor(address router_, address weth_, uint256 graduationTarget_) {
        router = IUniswapV2Router02Like(router_);
        weth = weth_;
        graduationTarget = graduationTarget_;
    }

    function createLaunch(string calldata name, string calldata symbol, string calldata metadataUri, string calldata imageUri)
        external payable returns (address token)
    {
        token = address(new LaunchToken(name, symbol, SUPPLY, metadataUri, imageUri));
        curves[token] = Curve({ethReserve: 0, tokenReserve: SUPPLY, graduated: false, creator: msg.sender});
        launches.push(token);
        launchCount += 1;
        emit LaunchCreated(token, msg.sender, launchCount, name, symbol, metadataUri, imageUri);
        if (msg.value > 0) _buy(token, msg.value, 0);
    }

    function quoteBuy(address token, uint256 ethIn) public view returns (uint256) {
        Curve storage c = curves[token];
        uint256 k = (c.ethReserve + VIRTUAL_ETH) * c.tokenReserve;
        return c.tokenReserve - k / (c.ethReserve + VIRTUAL_ETH + ethIn);
    }

    function quoteSell(address token, uint256 tokenIn) public view returns (uint256) {
        Curve storage c = curves[token];
        uint256 k = (c.ethReserve + VIRTUAL_ETH) * c.tokenReserve;
        uint256 newEth = k / (c.tokenReserve + tokenIn);
        uint256 out = c.ethReserve + VIRTUAL_ETH - newEth;
        return out > c.ethReserve ? c.ethReserve : out;
    }

    function buy(address token, uint256 minTokensOut) external payable returns (uint256) {
        return _buy(token, msg.value, minTokensOut);
    }

    function _buy(address token, uint256 ethIn, uint256 minTokensOut) internal returns (uint256 out) {
        Curve storage c = curves[token];
        require(c.creator != address(0), "unknown token");
        require(!c.graduated, "graduated");
        require(ethIn > 0, "zero");
        out = quoteBuy(token, ethIn);
        require(out >= minTokensOut && out > 0, "slippage");
        c.ethReserve += ethIn;
        c.tokenReserve -= out;
        BaseERC20(token).transfer(msg.sender, out);
        emit CurveTrade(token, msg.sender, true, ethIn, out, c.ethReserve, c.tokenReserve);
        if (c.ethReserve >= graduationTarget) _graduate(token, c);
    }

    function sell(address token, uint256 tokenIn, uint256 minEthOut) external returns (uint256 out) {
        Curve storage c = curves[token];
        require(c.creator != address(0), "unknown token");
        require(!c.graduated, "graduated");
        out = quoteSell(token, tokenIn);
        require(out >= minEthOut && out > 0, "slippage");
        BaseERC20(token).transferFrom(msg.sender, address(this), tokenIn);
        c.ethReserve -= out;
        c.tokenReserve += tokenIn;
        (bool ok,) = msg.sender.call{value: out}("");
        require(ok, "eth send");
        emit CurveTrade(token, msg.sender, false, out, tokenIn, c.ethReserve, c.tokenReserve);
    }

    function _graduate(address token, Curve storage c) internal {
        emit GraduationStarted(token, c.ethReserve);
        c.graduated = true;
        uint256 ethAmount = c.ethReserve;
        uint256 tokenAmount = c.tokenReserve;
        c.ethReserve = 0;
        c.tokenReserve = 0;
        BaseERC20(token).approve(address(router), tokenAmount);
        (uint256 usedToken, uint256 usedEth,) = router.addLiquidityETH{value: ethAmount}(token, tokenAmount, 0, 0, address(0xdead), block.timestamp);
        address pool = IUniswapV2FactoryLike(router.factory()).getPair(token, weth);
        emit Graduated(token, pool, usedEth, usedToken);
    }

    function launchesLength() external view returns (uint256) { return launches.length; }

    receive() external payable {}
}
