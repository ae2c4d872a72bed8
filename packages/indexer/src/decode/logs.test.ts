/**
 * decodeLog on real recorded mainnet receipts (test/fixtures, see its README.md), plus
 * synthetic launchpad logs. Expected values are computed independently: raw data words read
 * with BigInt, and every decoded log re-decoded with viem's decodeEventLog.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  type AbiEvent,
  decodeEventLog,
  encodeAbiParameters,
  encodeEventTopics,
  parseAbi,
  parseAbiItem,
} from 'viem';
import { describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../../../../test/fixtures/index.js';
import {
  builtinEvents,
  createLogDecoder,
  type DecodedLog,
  decodeLog,
  type LogDecoded,
  type RawLog,
  TOPIC0,
} from './logs.js';
import { EVENT_TABLES } from './tables.js';
import { compileVerifiedAbis } from './verified-abis.js';

const FIXTURES = FIXTURES_DIR;
const POOL_MANAGER = '0x000000000004444c5dc75cb358380d2e3de08a90';

interface Receipt {
  logs: (RawLog & { logIndex: string })[];
}

function receipts(path: string): Receipt[] {
  return JSON.parse(readFileSync(join(FIXTURES, path), 'utf8')) as Receipt[];
}
function logsOf(path: string): RawLog[] {
  return receipts(path).flatMap((r) => r.logs);
}
/** Every receipt in the fixtures: block receipt arrays and single-receipt files, all chains. */
function allFixtureLogs(): { file: string; logs: RawLog[] }[] {
  const out: { file: string; logs: RawLog[] }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name === 'receipts.json')
        out.push({
          file: p,
          logs: (JSON.parse(readFileSync(p, 'utf8')) as Receipt[]).flatMap((r) => r.logs),
        });
      else if (dir.endsWith('/receipts') && name.endsWith('.json'))
        out.push({ file: p, logs: (JSON.parse(readFileSync(p, 'utf8')) as Receipt).logs });
    }
  };
  walk(FIXTURES);
  return out;
}
const words = (data: string) => (data.slice(2).match(/.{64}/g) ?? []).map((w) => BigInt(`0x${w}`));
const signed = (w: bigint) => BigInt.asIntN(256, w);
function decoded(d: DecodedLog): LogDecoded {
  if (d.status !== 'decoded') throw new Error(`not decoded: ${JSON.stringify(d)}`);
  return d;
}
/** viem's value → our JSON convention, for the independent cross-check. */
function norm(v: unknown): unknown {
  if (typeof v === 'bigint' || typeof v === 'number') return v.toString();
  if (typeof v === 'string') return v.toLowerCase();
  if (Array.isArray(v)) return v.map(norm);
  return v;
}

describe('decodeLog on recorded mainnet receipts', () => {
  const sets = allFixtureLogs();

  it('decodes or types as unknown every log in every fixture, never throwing', () => {
    let total = 0;
    for (const { logs } of sets) {
      for (const log of logs) {
        const d = decodeLog(log);
        total++;
        expect(['decoded', 'unknown']).toContain(d.status);
        if (d.status === 'unknown') expect(d.topic0).toBe(log.topics[0]?.toLowerCase() ?? null);
      }
    }
    expect(total).toBeGreaterThan(2000);
  });

  it('agrees with viem decodeEventLog on every decoded log (all fixtures)', () => {
    const abiByTopic = new Map<string, AbiEvent[]>();
    for (const t of EVENT_TABLES)
      for (const s of t.events) {
        const item = parseAbiItem(s) as AbiEvent;
        const key = encodeEventTopics({ abi: [item] } as never)[0] as string;
        abiByTopic.set(key, [...(abiByTopic.get(key) ?? []), item]);
      }
    let checked = 0;
    for (const { logs } of sets) {
      for (const log of logs) {
        const d = decodeLog(log);
        if (d.status !== 'decoded') continue;
        const item = abiByTopic
          .get(log.topics[0])!
          .find((e) => e.inputs.filter((i) => i.indexed).length + 1 === log.topics.length)!;
        const ref = decodeEventLog({
          abi: [item],
          topics: log.topics as never,
          data: log.data as `0x${string}`,
          strict: true,
        });
        expect(ref.eventName).toBe(d.event);
        for (const [k, v] of Object.entries(ref.args as Record<string, unknown>))
          expect(d.args[k]).toEqual(norm(v));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(1500);
  });

  it('block 18000000: Transfer split by topic count matches an independent count (141 ERC-20, 2 ERC-721)', () => {
    const logs = logsOf('ethereum/18000000/receipts.json');
    expect(logs).toHaveLength(291);
    const raw20 = logs.filter((l) => l.topics[0] === TOPIC0.Transfer && l.topics.length === 3).length;
    const raw721 = logs.filter((l) => l.topics[0] === TOPIC0.Transfer && l.topics.length === 4).length;
    const ds = logs.map(decodeLog);
    const count = (std: string, ev: string) =>
      ds.filter((d) => d.status === 'decoded' && d.standard === std && d.event === ev).length;
    expect([raw20, raw721]).toEqual([141, 2]);
    expect(count('erc20', 'Transfer')).toBe(raw20);
    expect(count('erc721', 'Transfer')).toBe(raw721);
    expect(count('uniswap_v2_pair', 'Swap')).toBe(27);
    expect(count('uniswap_v2_pair', 'Sync')).toBe(27);
    expect(count('uniswap_v3_pool', 'Swap')).toBe(2);
    expect(count('weth', 'Deposit')).toBe(14);
    expect(count('weth', 'Withdrawal')).toBe(10);
    // 27 Approval = ERC-20 (3 topics) + ERC-721 (4 topics)
    expect(ds.filter((d) => d.status === 'decoded' && d.event === 'Approval').length).toBe(27);
    // the README's "other 41": unknown topic0 plus the decoded extras (OwnershipTransferred, ApprovalForAll)
    const unknown = ds.filter((d) => d.status === 'unknown');
    expect(unknown.every((d) => d.status === 'unknown' && d.reason === 'no_decoder_for_topic0')).toBe(true);
    expect(
      unknown.length + count('ownable', 'OwnershipTransferred') + count('erc721', 'ApprovalForAll'),
    ).toBe(41);
  });

  it('ERC-721 Transfer carries tokenId from topic 3 as a decimal string', () => {
    const log = logsOf('ethereum/18000000/receipts.json').find(
      (l) => l.topics[0] === TOPIC0.Transfer && l.topics.length === 4,
    )!;
    const d = decoded(decodeLog(log));
    expect(d).toMatchObject({
      standard: 'erc721',
      event: 'Transfer',
      signature: 'Transfer(address,address,uint256)',
    });
    expect(d.args).toEqual({
      from: `0x${log.topics[1].slice(26)}`,
      to: `0x${log.topics[2].slice(26)}`,
      tokenId: BigInt(log.topics[3]).toString(),
    });
  });

  it('a V2 Swap decodes with amounts equal to BigInt of the raw data words', () => {
    const log = logsOf('ethereum/18000000/receipts.json').find((l) => l.topics[0] === TOPIC0.V2Swap)!;
    const d = decoded(decodeLog(log));
    const w = words(log.data);
    expect(d.standard).toBe('uniswap_v2_pair');
    expect(d.args).toEqual({
      sender: `0x${log.topics[1].slice(26)}`,
      amount0In: w[0].toString(),
      amount1In: w[1].toString(),
      amount0Out: w[2].toString(),
      amount1Out: w[3].toString(),
      to: `0x${log.topics[2].slice(26)}`,
    });
    for (const k of ['amount0In', 'amount1In', 'amount0Out', 'amount1Out'])
      expect(typeof d.args[k]).toBe('string');
  });

  it('every V3 Swap in block 18500000 (22) decodes with signed amounts from the raw words', () => {
    const logs = logsOf('ethereum/18500000/receipts.json').filter((l) => l.topics[0] === TOPIC0.V3Swap);
    expect(logs).toHaveLength(22);
    for (const log of logs) {
      const d = decoded(decodeLog(log));
      const w = words(log.data);
      expect(d.standard).toBe('uniswap_v3_pool');
      expect(d.args.amount0).toBe(signed(w[0]).toString());
      expect(d.args.amount1).toBe(signed(w[1]).toString());
      expect(d.args.sqrtPriceX96).toBe(w[2].toString());
      expect(d.args.liquidity).toBe(w[3].toString());
      expect(d.args.tick).toBe(signed(w[4]).toString());
      // a swap moves one token in and the other out
      expect(BigInt(d.args.amount0 as string) * BigInt(d.args.amount1 as string) < 0n).toBe(true);
    }
  });

  it('V3 Mint/Burn/Collect in block 18500000 decode with indexed int24 ticks', () => {
    const logs = logsOf('ethereum/18500000/receipts.json');
    for (const [topic, ev] of [
      [TOPIC0.V3Mint, 'Mint'],
      [TOPIC0.V3Burn, 'Burn'],
      [TOPIC0.V3Collect, 'Collect'],
    ] as const) {
      const found = logs.filter((l) => l.topics[0] === topic);
      expect(found).toHaveLength(1);
      const d = decoded(decodeLog(found[0]));
      expect(d).toMatchObject({ standard: 'uniswap_v3_pool', event: ev });
      expect(d.args.tickLower).toBe(signed(BigInt(found[0].topics[2])).toString());
      expect(d.args.tickUpper).toBe(signed(BigInt(found[0].topics[3])).toString());
    }
  });

  it('block 21925176: both PoolManager V4 Swaps decode (int128 amounts, bytes32 pool id)', () => {
    const logs = logsOf('ethereum/21925176/receipts.json').filter(
      (l) => l.address === POOL_MANAGER && l.topics[0] === TOPIC0.V4Swap,
    );
    expect(logs).toHaveLength(2);
    for (const log of logs) {
      const d = decoded(decodeLog(log));
      const w = words(log.data);
      expect(d).toMatchObject({
        standard: 'uniswap_v4_pool_manager',
        event: 'Swap',
        signature: 'Swap(bytes32,address,int128,int128,uint160,uint128,int24,uint24)',
      });
      expect(d.args.id).toBe(log.topics[1]);
      expect(d.args.sender).toBe(`0x${log.topics[2].slice(26)}`);
      expect(d.args.amount0).toBe(signed(w[0]).toString());
      expect(d.args.amount1).toBe(signed(w[1]).toString());
      expect(d.args.sqrtPriceX96).toBe(w[2].toString());
      expect(d.args.liquidity).toBe(w[3].toString());
      expect(d.args.tick).toBe(signed(w[4]).toString());
      expect(d.args.fee).toBe(w[5].toString());
    }
  });

  it('V4 ModifyLiquidity (OP Mainnet and Arbitrum receipts) decodes', () => {
    for (const f of [
      'optimism/receipts/0xe65d2fe847aa7e8143f01f67567f2659efa750eaa254421aeb27ba090df5ea2e.json',
      'arbitrum/receipts/0xa604ae170e78c203330605619e82c82337daf8d1af52b78cdf82db82c3f9deb4.json',
    ]) {
      const logs = (JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')) as Receipt).logs.filter(
        (l) => l.topics[0] === TOPIC0.V4ModifyLiquidity,
      );
      expect(logs).toHaveLength(1);
      const d = decoded(decodeLog(logs[0]));
      expect(d.standard).toBe('uniswap_v4_pool_manager');
      expect(d.args.liquidityDelta).toBe(signed(words(logs[0].data)[2]).toString());
      expect(d.args.salt).toMatch(/^0x[0-9a-f]{64}$/);
    }
  });
});

describe('decodeLog: launchpad and edge cases', () => {
  const launchpad = parseAbi(EVENT_TABLES.find((t) => t.standard === 'launchpad')!.events as string[]);
  const token = '0x00000000000000000000000000000000000000aa';
  const trader = '0x00000000000000000000000000000000000000bb';
  const enc = (
    name: string,
    args: Record<string, unknown>,
    data: [readonly { type: string }[], unknown[]],
  ): RawLog => ({
    address: '0x0000000000000000000000000000000000000001',
    topics: encodeEventTopics({ abi: launchpad, eventName: name as never, args: args as never }) as string[],
    data: encodeAbiParameters(data[0] as never, data[1] as never),
  });

  it('LaunchCreated with strings in data and uint256 launchSequence indexed', () => {
    const log = enc('LaunchCreated', { token, creator: trader, launchSequence: 7n }, [
      [{ type: 'string' }, { type: 'string' }, { type: 'string' }, { type: 'string' }],
      ['Pepe 0xAB', 'PEPE', 'ipfs://meta', 'ipfs://img'],
    ]);
    expect(log.topics[0]).toBe(TOPIC0.LaunchCreated);
    expect(decodeLog(log)).toEqual({
      status: 'decoded',
      event: 'LaunchCreated',
      standard: 'launchpad',
      signature: 'LaunchCreated(address,address,uint256,string,string,string,string)',
      args: {
        token,
        creator: trader,
        launchSequence: '7',
        name: 'Pepe 0xAB',
        symbol: 'PEPE',
        metadataUri: 'ipfs://meta',
        imageUri: 'ipfs://img',
      },
    });
  });

  it('CurveTrade, GraduationStarted and Graduated', () => {
    const big = 10n ** 30n + 1n;
    const u = { type: 'uint256' };
    expect(
      decoded(
        decodeLog(
          enc('CurveTrade', { token, trader }, [
            [{ type: 'bool' }, u, u, u, u],
            [true, 1n, big, 3n, 4n],
          ]),
        ),
      ).args,
    ).toEqual({
      token,
      trader,
      isBuy: true,
      ethAmount: '1',
      tokenAmount: big.toString(),
      ethReserve: '3',
      tokenReserve: '4',
    });
    expect(decoded(decodeLog(enc('GraduationStarted', { token }, [[u], [5n]]))).args).toEqual({
      token,
      ethReserve: '5',
    });
    expect(
      decoded(
        decodeLog(
          enc('Graduated', { token, pool: trader }, [
            [u, u],
            [6n, 7n],
          ]),
        ),
      ).args,
    ).toEqual({
      token,
      pool: trader,
      ethAmount: '6',
      tokenAmount: '7',
    });
  });

  const transfer = logsOf('ethereum/18000000/receipts.json').find(
    (l) => l.topics[0] === TOPIC0.Transfer && l.topics.length === 3,
  )!;

  it('types malformed logs as unknown with a reason', () => {
    expect(decodeLog({ ...transfer, topics: [] })).toEqual({
      status: 'unknown',
      reason: 'anonymous_or_no_topics',
      topic0: null,
    });
    const other = `0x${'ab'.repeat(32)}`;
    expect(decodeLog({ ...transfer, topics: [other] })).toEqual({
      status: 'unknown',
      reason: 'no_decoder_for_topic0',
      topic0: other,
    });
    const bad = (log: RawLog) =>
      expect(decodeLog(log)).toEqual({
        status: 'unknown',
        reason: 'data_does_not_match_abi',
        topic0: TOPIC0.Transfer,
      });
    bad({ ...transfer, data: transfer.data.slice(0, -2) }); // short data
    bad({ ...transfer, data: `${transfer.data}${'00'.repeat(32)}` }); // extra word
    bad({ ...transfer, topics: transfer.topics.slice(0, 2) }); // 2 topics: neither ERC-20 nor ERC-721
    bad({ ...transfer, topics: [transfer.topics[0], `0x${'ff'.repeat(32)}`, transfer.topics[2]] }); // dirty address padding
    bad({ ...transfer, data: `0x${'zz'.repeat(32)}` });
    // uint112 out of range in a V2 Sync: typed unknown rather than a wrong reserve
    const sync = {
      address: transfer.address,
      topics: [TOPIC0.V2Sync],
      data: `0x${'f'.repeat(64)}${'0'.repeat(64)}`,
    };
    expect(decodeLog(sync)).toEqual({
      status: 'unknown',
      reason: 'data_does_not_match_abi',
      topic0: TOPIC0.V2Sync,
    });
    expect(
      decodeLog({ ...sync, data: `0x${'0'.repeat(36)}${'f'.repeat(28)}${'0'.repeat(64)}` }),
    ).toMatchObject({
      status: 'decoded',
      args: { reserve0: ((1n << 112n) - 1n).toString(), reserve1: '0' },
    });
  });

  it('typed results are JSON round-trippable', () => {
    for (const log of logsOf('ethereum/18500000/receipts.json')) {
      const d = decodeLog(log);
      expect(JSON.parse(JSON.stringify(d))).toEqual(d);
    }
  });

  it('verified ABIs are a fallback after the built-ins', () => {
    const verifiedAbis = compileVerifiedAbis([
      {
        file: 'x.json',
        json: { name: 'Custom', abi: [parseAbiItem('event Ping(uint8 indexed kind, bytes payload)')] },
      },
      {
        file: 'y.json',
        json: {
          name: 'Shadow',
          abi: [parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')],
        },
      },
    ]);
    const decode = createLogDecoder({ verifiedAbis });
    const ping = {
      address: transfer.address,
      topics: [
        encodeEventTopics({
          abi: [parseAbiItem('event Ping(uint8 indexed kind, bytes payload)')],
          args: { kind: 3 },
        })[0],
        `0x${'0'.repeat(63)}3`,
      ],
      data: encodeAbiParameters([{ type: 'bytes' }], ['0xDEADbeef']),
    };
    expect(decode(ping)).toMatchObject({
      status: 'decoded',
      standard: 'verified_abi:Custom',
      args: { kind: '3', payload: '0xdeadbeef' },
    });
    expect(decodeLog(ping)).toMatchObject({ status: 'unknown', reason: 'no_decoder_for_topic0' });
    expect(decode(transfer)).toMatchObject({ standard: 'erc20' });
  });

  it('TOPIC0 constants equal the compiled built-in topics', () => {
    const topics = new Set(builtinEvents().map((e) => e.topic0));
    for (const [k, v] of Object.entries(TOPIC0)) expect(topics.has(v), k).toBe(true);
  });
});
