/**
 * Launchpad traffic (the project's bonding-curve launchpad): new launches (`createLaunch`,
 * `LaunchCreated`, with metadata URIs in the odd forms real launches use), curve buys and sells
 * (`buy`/`sell`, `CurveTrade`; sells approve the launchpad first), which push launches over the
 * graduation target (`Graduated`: a Uniswap V2 pair), and V2 buys of graduated tokens through the
 * router. Also keeps the generator's list of open and graduated launches current.
 */
import { type Address, decodeEventLog, type Hex, keccak256, toHex } from 'viem';
import { erc20Abi, launchpadAbi, v2RouterAbi } from '../abis.js';
import { FAR_DEADLINE } from '../math.js';
import type { TrafficGenerator } from './generator.js';

/**
 * Sorts the open launches into still open and graduated (`curves(token).graduated`); `initial`:
 * first reads the last 30 launches from the launchpad.
 */
export async function refreshLaunches(g: TrafficGenerator, initial = false) {
  const lp = g.d.launchpad.address;
  if (initial) {
    const n = Number(await g.read<bigint>(lp, launchpadAbi, 'launchesLength', []));
    for (let i = Math.max(0, n - 30); i < n; i++) {
      const t = await g.read<Address>(lp, launchpadAbi, 'launches', [BigInt(i)]);
      g.openLaunches.push(t);
    }
  }
  const still: Address[] = [];
  for (const t of g.openLaunches) {
    const c = await g.read<[bigint, bigint, boolean, Address]>(lp, launchpadAbi, 'curves', [t]);
    if (c[2]) g.graduated.push({ token: t });
    else still.push(t);
  }
  g.openLaunches = still;
}

/** A new launch with a random name and metadata URIs, half of them with a first buy. */
export async function launch(g: TrafficGenerator) {
  const x = g.wallet();
  const n = ++g.launchCounter;
  const words = ['Moon', 'Frog', 'Cat', 'Doge', 'Rocket', 'Based', 'Turbo', 'Giga', 'Pixel', 'Laser'];
  const name = `${g.r(words)} ${g.r(words)} ${n}`;
  const symbol = `${name
    .split(' ')
    .map((s) => s[0])
    .join('')}${n}`
    .toUpperCase()
    .slice(0, 10);
  const cid = keccak256(toHex(`${g.input.seed}:${n}`)).slice(2, 48);
  const forms = [
    `ipfs://Qm${cid}`,
    `ipfs://bafy${cid}`,
    `https://ipfs.io/ipfs/Qm${cid}`,
    `https://cdn.launch.example/${cid}.json`,
    `ar://${cid}`,
    `ipfs://ipfs/Qm${cid}`,
    `  https://gateway.pinata.cloud/ipfs/bafy${cid}  `,
  ];
  const value = g.rnd() < 0.5 ? BigInt(Math.floor(g.range(0.01, 0.5) * 1e6)) * 10n ** 12n : 0n;
  const lp = g.d.launchpad.address;
  return g.call(
    'launch-create',
    x.w,
    lp,
    launchpadAbi,
    'createLaunch',
    [name, symbol, g.r(forms), g.r(forms)],
    3_000_000n,
    value,
    (r) => {
      if (r.status !== '0x1') return;
      for (const l of r.logs) {
        if (l.address.toLowerCase() !== lp.toLowerCase()) continue;
        try {
          const ev = decodeEventLog({
            abi: launchpadAbi,
            data: l.data,
            topics: l.topics as [Hex, ...Hex[]],
          });
          if (ev.eventName === 'LaunchCreated') {
            g.openLaunches.push(ev.args.token);
            if (value > 0n) x.launchHoldings.add(ev.args.token);
          }
        } catch {
          /* other events */
        }
      }
    },
  );
}

/** A curve buy of one of the newest open launches (a launch when there is none). */
export async function curveBuy(g: TrafficGenerator) {
  if (g.openLaunches.length === 0) return launch(g);
  const x = g.wallet();
  // Favour the newest launches so some reach graduation quickly.
  const i = Math.max(0, g.openLaunches.length - 1 - Math.floor(g.rnd() * Math.min(3, g.openLaunches.length)));
  const token = g.openLaunches[i];
  x.launchHoldings.add(token);
  const value = BigInt(Math.floor(g.range(0.05, 0.8) * 1e6)) * 10n ** 12n;
  return g.call('curve-buy', x.w, g.d.launchpad.address, launchpadAbi, 'buy', [token, 0n], 4_000_000n, value);
}

/** A curve sell of 20–90 % of a holder's open-launch tokens (a buy when nobody holds any). */
export async function curveSell(g: TrafficGenerator) {
  const holders = g.wallets.filter((w) => [...w.launchHoldings].some((t) => g.openLaunches.includes(t)));
  if (holders.length === 0) return curveBuy(g);
  const x = g.r(holders);
  const token = g.r([...x.launchHoldings].filter((t) => g.openLaunches.includes(t)));
  const bal = await g.read<bigint>(token, erc20Abi, 'balanceOf', [x.w.address]);
  if (bal === 0n) return curveBuy(g);
  await g.ensureApproval(x, token, g.d.launchpad.address);
  return g.call(
    'curve-sell',
    x.w,
    g.d.launchpad.address,
    launchpadAbi,
    'sell',
    [token, (bal * BigInt(Math.floor(g.range(20, 90)))) / 100n, 0n],
    200_000n,
  );
}

/** An ETH → token V2 buy of a graduated launch (a curve buy when none graduated yet). */
export async function graduatedSwap(g: TrafficGenerator) {
  if (g.graduated.length === 0) return curveBuy(g);
  const gr = g.r(g.graduated);
  const x = g.wallet();
  const weth = g.tok.get('WETH')!;
  return g.call(
    'graduated-v2-buy',
    x.w,
    g.d.contracts.uniswapV2Router02,
    v2RouterAbi,
    'swapExactETHForTokensSupportingFeeOnTransferTokens',
    [0n, [weth.address, gr.token], x.w.address, FAR_DEADLINE],
    300_000n,
    BigInt(Math.floor(g.range(0.01, 0.3) * 1e6)) * 10n ** 12n,
  );
}
