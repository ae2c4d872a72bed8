// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

/// Minimal ERC-20 base shared by the devnet's test tokens. Balances live in `_balances`
/// unless a subclass overrides `balanceOf` (the rebasing token does).
abstract contract BaseERC20 {
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    mapping(address => uint256) internal _balances;
    mapping(address => mapping(address => uint256)) public allowance;
    uint256 internal _totalSupply;

    function totalSupply() public view virtual returns (uint256) { return _totalSupply; }
    function balanceOf(address a) public view virtual returns (uint256) { return _balances[a]; }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 a = allowance[from][msg.sender];
        if (a != type(uint256).max) {
            require(a >= amount, "ERC20: allowance");
            allowance[from][msg.sender] = a - amount;
        }
        _transfer(from, to, amount);
        return true;
    }

    function _transfer(address from, address to, uint256 amount) internal virtual {
        require(_balances[from] >= amount, "ERC20: balance");
        _balances[from] -= amount;
        _balances[to] += amount;
        emit Transfer(from, to, amount);
    }

    function _mint(address to, uint256 amount) internal virtual {
        _totalSupply += amount;
        _balances[to] += amount;
        emit Transfer(address(0), to, amount);
    }
}

/// Plain ERC-20 with string metadata; the whole supply goes to `holder`.
contract SimpleToken is BaseERC20 {
    string public name;
    string public symbol;
    uint8 public immutable decimals;

    constructor(string memory n, string memory s, uint8 d, uint256 supply, address holder) {
        name = n; symbol = s; decimals = d;
        _mint(holder, supply);
    }
}

/// Owner-mintable token with Ownable-style events (`OwnershipTransferred`).
contract OwnableToken is BaseERC20 {
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    address public owner;

    constructor(string memory n, string memory s, uint256 supply, address holder, address owner_) {
        name = n; symbol = s;
        owner = owner_;
        emit OwnershipTransferred(address(0), owner_);
        _mint(holder, supply);
    }

    modifier onlyOwner() { require(msg.sender == owner, "Ownable: caller is not the owner"); _; }

    function mint(address to, uint256 amount) external onlyOwner { _mint(to, amount); }

    function transferOwnership(address newOwner) external onlyOwner {
        require(newOwner != address(0), "Ownable: zero");
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    function renounceOwnership() external onlyOwner {
        emit OwnershipTransferred(owner, address(0));
        owner = address(0);
    }
}

/// MKR-style token: `name()` and `symbol()` return bytes32, not string.
contract Bytes32MetaToken is BaseERC20 {
    bytes32 public name;
    bytes32 public symbol;
    uint256 public constant decimals = 18;

    constructor(bytes32 n, bytes32 s, uint256 supply, address holder) {
        name = n; symbol = s;
        _mint(holder, supply);
    }
}

/// Token whose metadata methods all revert (name, symbol, decimals).
contract RevertingMetaToken is BaseERC20 {
    constructor(uint256 supply, address holder) { _mint(holder, supply); }
    function name() external pure returns (string memory) { revert("no name"); }
    function symbol() external pure returns (string memory) { revert("no symbol"); }
    function decimals() external pure returns (uint8) { revert(); }
}

/// Fee-on-transfer token. On purpose, the `Transfer` event carries the full amount while the
/// recipient is credited `amount - fee` and the fee is burned silently, so balances do NOT
/// follow Transfer events (reconciliation must flag it). Mints and transfers from/to the
/// exempt address (the supply holder) are fee-free.
contract FeeOnTransferToken is BaseERC20 {
    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    uint256 public immutable feeBps;
    address public immutable exempt;

    constructor(string memory n, string memory s, uint256 supply, address holder, uint256 feeBps_) {
        name = n; symbol = s; feeBps = feeBps_; exempt = holder;
        _mint(holder, supply);
    }

    function _transfer(address from, address to, uint256 amount) internal override {
        require(_balances[from] >= amount, "ERC20: balance");
        uint256 fee = (from == exempt || to == exempt) ? 0 : amount * feeBps / 10_000;
        _balances[from] -= amount;
        _balances[to] += amount - fee;
        _totalSupply -= fee;
        emit Transfer(from, to, amount);
    }
}

/// Rebasing-ish token: balances are shares scaled by a global index. `rebase` changes every
/// balance without any Transfer event (reconciliation must flag it).
contract RebasingToken is BaseERC20 {
    event Rebased(uint256 oldIndex, uint256 newIndex);

    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    uint256 public index = 1e18;
    address public rebaser;

    constructor(string memory n, string memory s, uint256 supply, address holder, address rebaser_) {
        name = n; symbol = s; rebaser = rebaser_;
        _mint(holder, supply);
    }

    function totalSupply() public view override returns (uint256) { return _totalSupply * index / 1e18; }
    function balanceOf(address a) public view override returns (uint256) { return _balances[a] * index / 1e18; }

    /// Positive rebase only (so AMM pairs holding it never end up below their reserves).
    function rebase(uint256 bps) external {
        require(msg.sender == rebaser, "not rebaser");
        require(bps <= 1000, "too big");
        uint256 old = index;
        index = old + old * bps / 10_000;
        emit Rebased(old, index);
    }

    function _transfer(address from, address to, uint256 amount) internal override {
        uint256 shares = amount * 1e18 / index;
        require(_balances[from] >= shares, "ERC20: balance");
        _balances[from] -= shares;
        _balances[to] += shares;
        emit Transfer(from, to, amount);
    }

    function _mint(address to, uint256 amount) internal override {
        uint256 shares = amount * 1e18 / index;
        _totalSupply += shares;
        _balances[to] += shares;
        emit Transfer(address(0), to, amount);
    }
}
