// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

/// Small contract deployed by plain creation txs and by the forwarder (CREATE / CREATE2).
contract Child {
    event ChildCreated(address indexed creator, uint256 value, uint256 tag);
    address public immutable creator;
    uint256 public tag;

    constructor(uint256 tag_, address payable payTo) payable {
        creator = msg.sender;
        tag = tag_;
        emit ChildCreated(msg.sender, msg.value, tag_);
        // Forward half the endowment during construction: an internal CALL inside a CREATE frame.
        if (payTo != address(0) && msg.value > 0) {
            (bool ok,) = payTo.call{value: msg.value / 2}("");
            require(ok, "child pay");
        }
    }

    function ping(uint256 t) external { tag = t; }
    receive() external payable {}
}

/// Forwards native value to several recipients internally and creates children, so call
/// traces carry nested CALLs with value and CREATE/CREATE2 frames.
contract ValueForwarder {
    event Forwarded(address indexed from, uint256 total, uint256 recipients);
    event Spawned(address indexed child, bool create2, uint256 value);

    /// Splits msg.value equally across `recipients` (remainder to the last one).
    function split(address payable[] calldata recipients) external payable {
        uint256 n = recipients.length;
        require(n > 0, "no recipients");
        uint256 each = msg.value / n;
        for (uint256 i = 0; i < n; i++) {
            uint256 v = i == n - 1 ? msg.value - each * (n - 1) : each;
            (bool ok,) = recipients[i].call{value: v}("");
            require(ok, "forward failed");
        }
        emit Forwarded(msg.sender, msg.value, n);
    }

    /// Creates a Child with msg.value (CREATE, or CREATE2 when salt != 0); the child pays half to payTo.
    function spawn(bytes32 salt, address payable payTo) external payable returns (address child) {
        if (salt == bytes32(0)) {
            child = address(new Child{value: msg.value}(block.number, payTo));
        } else {
            child = address(new Child{value: msg.value, salt: salt}(block.number, payTo));
        }
        emit Spawned(child, salt != bytes32(0), msg.value);
    }

    /// Forwards then reverts: a mined, reverted tx whose trace still has inner value calls.
    function splitThenRevert(address payable[] calldata recipients) external payable {
        for (uint256 i = 0; i < recipients.length; i++) {
            (bool ok,) = recipients[i].call{value: msg.value / recipients.length}("");
            ok;
        }
        revert("ValueForwarder: deliberate revert");
    }

    function fail(string calldata reason) external pure {
        revert(reason);
    }
}
