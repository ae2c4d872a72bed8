/**
 * A funding cohort scripted on a test devnet (the traffic does not reliably form one): `from` (an
 * unlocked anvil account) creates a launch on the devnet pad and funds a fresh funder, which funds
 * `members` fresh wallets that each buy the launch — the cohort admission rule's two signals.
 */
import { decodeEventLog, encodeFunctionData, parseAbi } from 'viem';
import type { TestDevnet } from './devnet.js';
import { jsonRpc } from './rpc.js';

const PAD_ABI = parseAbi([
  'function createLaunch(string name, string symbol, string metadataUri, string imageUri) returns (address)',
  'function buy(address token, uint256 minTokensOut) payable returns (uint256)',
  'event LaunchCreated(address indexed token, address indexed creator, uint256 indexed launchSequence, string name, string symbol, string metadataUri, string imageUri)',
]);

/**
 * Sends a transaction from an unlocked or impersonated account and waits for its receipt.
 * @throws Error when it reverts or no receipt arrives within ~30 s.
 */
/** The token a createLaunch receipt's logs announce (its LaunchCreated event), lowercase. */
export function launchedToken(logs: Array<{ data: string; topics: string[] }>): string {
  const created = logs
    .map((l: any) => {
      try {
        return decodeEventLog({ abi: PAD_ABI, data: l.data, topics: l.topics });
      } catch {
        return null;
      }
    })
    .find((e: any) => e?.eventName === 'LaunchCreated') as any;
  return (created.args.token as string).toLowerCase();
}

export async function sendAndWait(rpcUrl: string, tx: Record<string, string>): Promise<any> {
  const hash = await jsonRpc<string>(rpcUrl, 'eth_sendTransaction', [tx]);
  for (let i = 0; i < 600; i++) {
    const rc = await jsonRpc<any>(rpcUrl, 'eth_getTransactionReceipt', [hash]);
    if (rc) {
      if (rc.status !== '0x1') throw new Error(`reverted: ${JSON.stringify(tx)}`);
      return rc;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no receipt for ${hash}`);
}

/**
 * Scripts the cohort. `freshBase` makes the fresh addresses (funder = freshBase, members =
 * freshBase + 1..n); `label` names the launch. Returns the launch token (lowercase), the funder
 * and the members.
 */
export async function scriptCohort(
  dev: TestDevnet,
  o: { from: string; label: string; freshBase: number; members: number },
): Promise<{ token: string; funder: string; members: string[] }> {
  const rpcUrl = dev.rpcUrl;
  const pad = dev.deployment.launchpad.address;
  const rc = await sendAndWait(rpcUrl, {
    from: o.from,
    to: pad,
    data: encodeFunctionData({
      abi: PAD_ABI,
      functionName: 'createLaunch',
      args: [
        o.label,
        o.label.slice(0, 4).toUpperCase(),
        `ipfs://ipfs/bafy${o.freshBase}`,
        `https://gw.example/ipfs/bafyimg${o.freshBase}`,
      ],
    }),
    gas: '0x800000',
  });
  const token = launchedToken(rc.logs);
  const fresh = (i: number) => `0x${(o.freshBase + i).toString(16).padStart(40, '0')}`;
  const wei = (milli: bigint) => `0x${(milli * 10n ** 15n).toString(16)}`;
  const funder = fresh(0);
  await sendAndWait(rpcUrl, { from: o.from, to: funder, value: wei(10_000n) });
  await jsonRpc(rpcUrl, 'anvil_impersonateAccount', [funder]);
  const members: string[] = [];
  for (let i = 1; i <= o.members; i++) {
    const m = fresh(i);
    members.push(m);
    await sendAndWait(rpcUrl, { from: funder, to: m, value: wei(1_000n) });
    await jsonRpc(rpcUrl, 'anvil_impersonateAccount', [m]);
    await sendAndWait(rpcUrl, {
      from: m,
      to: pad,
      value: wei(100n),
      data: encodeFunctionData({ abi: PAD_ABI, functionName: 'buy', args: [token as `0x${string}`, 0n] }),
      gas: '0x200000',
    });
  }
  return { token, funder, members };
}
