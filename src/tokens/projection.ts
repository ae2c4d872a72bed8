/**
 * The tokens projection: token registry (creations, launches, first transfers; metadata probed
 * by eth_call at first sight), balances as the running signed sum of decoded transfers (R9:
 * ERC-20 `Transfer`, WETH `Deposit`/`Withdrawal`; never balanceOf), holder indices versioned by
 * block, per-token counters, transfers, authority events and launches.
 *
 * Sources: receipts' `contractAddress`; logs `Transfer(address,address,uint256)`,
 * `Deposit(address,uint256)`, `Withdrawal(address,uint256)`, `OwnershipTransferred(address,address)`,
 * and the launchpad's `LaunchCreated`, `GraduationStarted`, `Graduated`.
 */
import type { BlockDelta, EventDelta } from '../ingest/delta.js';
import type { Emit, Projection } from '../projections/index.js';
import type { BlockBatch } from '../storage/index.js';
import { KeyBuilder, readU64 } from '../storage/keys.js';
import type { LaunchpadDeployments } from './launchpads.js';
import { LAUNCHPADS, normaliseUri } from './launchpads.js';
import { probeTokenMetadataOrAbsent } from './metadata.js';
import {
  BURN_SINKS,
  type Coordinate,
  type LaunchRow,
  type TokenRow,
  type TokenStats,
  ZERO,
} from './model.js';
import { launchJson } from './render.js';
import {
  authorityKey,
  balanceHistKey,
  balanceKey,
  counterKey,
  creatorKey,
  invertedBalance,
  launchHistKey,
  padLaunchKey,
  searchKey,
  statsHistKey,
  statsKey,
  TokenTable,
  tokenCoordKey,
  tokenKey,
  transferKey,
  walletByIdKey,
  walletIdKey,
} from './tables.js';

const EMPTY = Buffer.alloc(0);
const json = (v: unknown) => Buffer.from(JSON.stringify(v));
const parse = <T>(b: Buffer | undefined): T | undefined => (b ? (JSON.parse(b.toString()) as T) : undefined);
const u64 = (n: number) => new KeyBuilder(8).u64(n).done();
/** Search terms are bounded so keys stay small; longer names are indexed by their prefix. */
const MAX_TERM_BYTES = 64;

/** Class of a (wallet, balance) for holder counting. */
function holderClass(wallet: string, bal: bigint): 'none' | 'holder' | 'sink' | 'negative' {
  if (bal === 0n) return 'none';
  if (BURN_SINKS.has(wallet)) return 'sink';
  return bal > 0n ? 'holder' : 'negative';
}

/** Versioned-row move: the current row (if any) becomes history valid until `block`. */
function retire(batch: BlockBatch, curKey: Buffer, histTable: number, block: number): void {
  const cur = batch.getRaw(curKey);
  if (!cur) return;
  const from = readU64(cur, 0);
  batch.delRaw(curKey);
  if (from < block) {
    const hk = Buffer.concat([Buffer.from([histTable]), curKey.subarray(1), u64(from)]);
    batch.putRaw(hk, Buffer.concat([u64(block), cur.subarray(8)]));
  }
}

export interface TokensProjectionDeps {
  launchpads: LaunchpadDeployments;
}

export function createTokensProjection(deps: TokensProjectionDeps): Projection {
  // Emitter address → launchpad index, for launch events.
  const padByFactory = new Map<string, number>();
  for (const [name, d] of deps.launchpads) {
    const idx = LAUNCHPADS.find((l) => l.name === name)!.index;
    for (const f of d.factories) padByFactory.set(f, idx);
  }

  const internWallet = (batch: BlockBatch, w: string): number => {
    const k = walletIdKey(w);
    const have = batch.getRaw(k);
    if (have) return readU64(have, 0);
    const ck = counterKey('wallet');
    const next = batch.getRaw(ck);
    const id = next ? readU64(next, 0) : 0;
    batch.putRaw(ck, u64(id + 1));
    batch.putRaw(k, u64(id));
    batch.putRaw(walletByIdKey(id), Buffer.from(w.slice(2), 'hex'));
    return id;
  };

  const coord = (d: BlockDelta, txIndex: number, logIndex: number | null): Coordinate => ({
    block: d.number,
    txIndex,
    logIndex,
    txHash: d.txs[txIndex].hash,
  });

  /** Registers a token the first time it is seen. */
  const register = (
    batch: BlockBatch,
    d: BlockDelta,
    address: string,
    at: Coordinate,
    evidence: TokenRow['firstSeen']['evidence'],
    creation: TokenRow['creation'],
  ): TokenRow | null => {
    const k = tokenKey(address);
    const have = parse<TokenRow>(batch.getRaw(k));
    if (have) return have;
    const meta = d.probes[address] ?? null;
    // A creation that answers none of symbol/decimals/totalSupply does not look like a token.
    if (
      evidence === 'top_level_creation' &&
      (!meta ||
        (meta.symbol.value === null && meta.decimals.value === null && meta.totalSupply.value === null))
    ) {
      return null;
    }
    const row: TokenRow = {
      address,
      firstSeen: { ...at, evidence },
      creation,
      creationReason: creation ? null : 'creation_not_observed',
      confirmedAt: null,
      metadata: meta,
      metadataReason: meta ? null : 'not_probed',
      metadataBlock: meta ? d.number : null,
    };
    batch.putRaw(k, json(row));
    batch.putRaw(tokenCoordKey(at.block, at.txIndex, at.logIndex ?? 0xffffffff, address), EMPTY);
    if (creation)
      batch.putRaw(creatorKey(creation.deployer, creation.block, creation.txIndex, address), EMPTY);
    const terms: Array<[1 | 2, string | null | undefined]> = [
      [1, meta?.symbol.value],
      [2, meta?.name.value],
    ];
    for (const [kind, term] of terms) {
      if (!term) continue;
      const t = Buffer.from(term.toLowerCase()).subarray(0, MAX_TERM_BYTES).toString();
      batch.putRaw(searchKey(kind, t, address), EMPTY);
    }
    return row;
  };

  const apply = (batch: BlockBatch, d: BlockDelta, emit?: Emit) => {
    // Tokens launched in this block: their constructor mints (Transfer from 0x0) precede the
    // LaunchCreated log, so creation provenance must be known when the first transfer registers them.
    const launchedHere = new Map<string, EventDelta>();
    for (const e of d.events) {
      if (e.standard === 'launchpad' && e.event === 'LaunchCreated' && padByFactory.has(e.address))
        launchedHere.set(String(e.args.token), e);
    }
    const launchCreation = (token: string): TokenRow['creation'] => {
      const e = launchedHere.get(token);
      return e
        ? {
            ...coord(d, e.txIndex, null),
            deployer: String(e.args.creator),
            via: 'launchpad',
            factory: e.address,
          }
        : null;
    };
    // 1. Top-level creations that look like tokens (metadata probed by the decode worker).
    for (let i = 0; i < d.txs.length; i++) {
      const tx = d.txs[i];
      if (!tx.contractAddress || tx.status !== 1) continue;
      const at = coord(d, i, null);
      register(batch, d, tx.contractAddress, at, 'top_level_creation', {
        ...at,
        deployer: tx.from,
        via: 'transaction',
        factory: null,
      });
    }

    // 2. Events in log order: launches, authority events, transfers (netted per wallet below).
    const deltas = new Map<string, Map<string, bigint>>(); // token → wallet → net change this block
    const touched = new Map<string, { transfers: number; minted: bigint; burned: bigint }>();
    // The zero address is the mint source and burn sink of the Transfer convention, never a
    // holder: its running sum would be minus the supply. Other sinks (0x…dead) are real recipients.
    // The one exception is a mint *to* the zero address (Transfer(0x0, 0x0, v), see below), which
    // credits it like any recipient; it stays a burn sink, excluded from holder rankings.
    const add = (token: string, wallet: string, v: bigint) => {
      let m = deltas.get(token);
      if (!m) deltas.set(token, (m = new Map()));
      m.set(wallet, (m.get(wallet) ?? 0n) + v);
    };
    const touch = (token: string) => {
      let t = touched.get(token);
      if (!t) touched.set(token, (t = { transfers: 0, minted: 0n, burned: 0n }));
      return t;
    };
    const launches = new Map<string, LaunchRow>();
    const launchOf = (token: string): LaunchRow | undefined => {
      if (launches.has(token)) return launches.get(token);
      let found: LaunchRow | undefined;
      // Latest snapshot ≤ this block (rows of this block are written after the event loop).
      const rows = batch.rocks.scan({
        gte: launchHistKey(token, 0),
        lt: launchHistKey(token, d.number + 1),
        reverse: true,
        limit: 1,
      });
      if (rows.length) found = JSON.parse(rows[0][1].toString()) as LaunchRow;
      if (found) launches.set(token, found);
      return found;
    };

    for (const e of d.events) {
      const at = coord(d, e.txIndex, e.logIndex);
      if (e.standard === 'launchpad') {
        const pad = padByFactory.get(e.address);
        if (pad === undefined) continue; // not a registered launchpad deployment
        const token = String(e.args.token);
        if (e.event === 'LaunchCreated') {
          const meta = normaliseUri(String(e.args.metadataUri ?? ''));
          const img = normaliseUri(String(e.args.imageUri ?? ''));
          const row: LaunchRow = {
            launchpad: LAUNCHPADS[pad].name,
            token,
            creator: String(e.args.creator),
            launchSequence: String(e.args.launchSequence),
            state: 'new',
            name: String(e.args.name ?? ''),
            symbol: String(e.args.symbol ?? ''),
            metadataUri: meta.uri,
            metadataUriReason: meta.reason,
            imageUri: img.uri,
            imageUriReason: img.reason,
            imageProvenance: {
              source: 'launch_event',
              scheme: img.scheme,
              raw: String(e.args.imageUri ?? ''),
            },
            created: at,
            graduationStarted: null,
            graduated: null,
          };
          launches.set(token, row);
          batch.putRaw(padLaunchKey(pad, d.number, e.logIndex), Buffer.from(token.slice(2), 'hex'));
          register(batch, d, token, at, 'launch_event', {
            ...at,
            logIndex: null,
            deployer: row.creator,
            via: 'launchpad',
            factory: e.address,
          });
        } else if (e.event === 'GraduationStarted' || e.event === 'Graduated') {
          const l = launchOf(token);
          if (!l) continue;
          if (e.event === 'GraduationStarted') {
            l.state = 'graduating';
            l.graduationStarted = at;
          } else {
            l.state = 'graduated';
            l.graduated = { ...at, pool: String(e.args.pool) };
          }
        }
        continue;
      }
      if (e.standard === 'ownable' && e.event === 'OwnershipTransferred') {
        if (!batch.getRaw(tokenKey(e.address))) continue;
        batch.putRaw(
          authorityKey(e.address, d.number, e.logIndex),
          json({
            kind: 'ownership_transferred',
            ...at,
            previousOwner: e.args.previousOwner,
            newOwner: e.args.newOwner,
          }),
        );
        continue;
      }
      let from: string;
      let to: string;
      let value: bigint;
      if (e.standard === 'erc20' && e.event === 'Transfer') {
        from = String(e.args.from);
        to = String(e.args.to);
        value = BigInt(String(e.args.value));
      } else if (e.standard === 'weth' && (e.event === 'Deposit' || e.event === 'Withdrawal')) {
        const who = String(e.event === 'Deposit' ? e.args.dst : e.args.src);
        value = BigInt(String(e.args.wad));
        [from, to] = e.event === 'Deposit' ? [ZERO, who] : [who, ZERO];
      } else continue;
      const token = e.address;
      let row = parse<TokenRow>(batch.getRaw(tokenKey(token)));
      row ??= register(
        batch,
        d,
        token,
        at,
        e.standard === 'weth' ? 'weth_deposit' : 'transfer_log',
        launchCreation(token),
      )!;
      if (!row.confirmedAt) {
        row.confirmedAt = at;
        batch.putRaw(tokenKey(token), json(row));
      }
      if (
        from === ZERO &&
        row.creation &&
        !(row.creation.block === d.number && row.creation.txIndex === e.txIndex)
      ) {
        batch.putRaw(
          authorityKey(token, d.number, e.logIndex),
          json({ kind: 'post_creation_mint', ...at, to, value: value.toString() }),
        );
      }
      const transferRow = {
        block: d.number,
        txIndex: e.txIndex,
        logIndex: e.logIndex,
        txHash: at.txHash,
        from,
        to,
        value: value.toString(),
        kind: e.event === 'Transfer' ? 'transfer' : e.event === 'Deposit' ? 'mint' : 'burn',
      };
      batch.putRaw(transferKey(token, d.number, e.logIndex), json(transferRow));
      emit?.({
        topic: 'transfers',
        event: 'transfer',
        json: JSON.stringify({ token, ...transferRow }),
        keys: { tokens: [token], wallets: [from, to] },
      });
      const t = touch(token);
      t.transfers++;
      if (from === ZERO && to === ZERO) {
        // A mint to the zero address: Uniswap V2's first mint locks MINIMUM_LIQUIDITY this way
        // (UniswapV2Pair.sol `_mint(address(0), MINIMUM_LIQUIDITY)`, whose ERC-20 `_mint` adds to
        // totalSupply and balanceOf[address(0)] and emits Transfer(address(0), address(0), value)).
        // Supply goes up and so does the zero address's balance; it is never a burn.
        t.minted += value;
        add(token, ZERO, value);
      } else {
        if (from === ZERO) t.minted += value;
        if (to === ZERO) t.burned += value;
        if (from !== to) {
          if (from !== ZERO) add(token, from, -value);
          if (to !== ZERO) add(token, to, value);
        }
      }
    }

    for (const [token, l] of launches) {
      batch.putRaw(launchHistKey(token, d.number), json(l));
      emit?.({
        topic: 'launches',
        event: `launch_${l.state}`,
        json: JSON.stringify(launchJson(l)),
        keys: { tokens: [token], launchpads: [l.launchpad] },
      });
      if (l.state === 'new' && l.created.block === d.number) {
        emit?.({
          topic: 'creations',
          event: 'creation',
          json: JSON.stringify({
            address: token,
            creator: l.creator,
            via: 'launchpad',
            factory: l.launchpad,
            ...l.created,
          }),
          keys: { contracts: [token], wallets: [l.creator] },
        });
      }
    }

    // 3. Balances, holder indices and counters, once per (token, wallet) per block.
    for (const [token, t] of touched) {
      const sk = statsKey(token);
      const stats: TokenStats = parse<TokenStats>(batch.getRaw(sk)) ?? {
        holders: 0,
        burnSinkHolders: 0,
        negativeBalances: 0,
        transfers: 0,
        supplyFromTransfers: '0',
        lastChangeBlock: d.number,
      };
      stats.transfers += t.transfers;
      stats.supplyFromTransfers = (BigInt(stats.supplyFromTransfers) + t.minted - t.burned).toString();
      stats.lastChangeBlock = d.number;
      const count = { holder: 0, sink: 0, negative: 0, none: 0 };
      for (const [wallet, dv] of deltas.get(token) ?? []) {
        if (dv === 0n) continue;
        const bk = balanceKey(token, wallet);
        const before = BigInt(batch.getRaw(bk)?.toString() ?? '0');
        const after = before + dv;
        count[holderClass(wallet, before)]--;
        count[holderClass(wallet, after)]++;
        if (after === 0n) batch.delRaw(bk);
        else batch.putRaw(bk, Buffer.from(after.toString()));
        batch.putRaw(balanceHistKey(token, wallet, d.number), Buffer.from(after.toString()));
        const wid = internWallet(batch, wallet);
        const widBuf = u64(wid);
        const tokenBuf = Buffer.from(token.slice(2), 'hex');
        const walletBuf = Buffer.from(wallet.slice(2), 'hex');
        // Balance-ranked index: positive, non-sink balances only.
        if (before > 0n && !BURN_SINKS.has(wallet)) {
          retire(
            batch,
            Buffer.concat([
              Buffer.from([TokenTable.HOLDER_CUR]),
              tokenBuf,
              invertedBalance(before),
              walletBuf,
            ]),
            TokenTable.HOLDER_HIST,
            d.number,
          );
        }
        if (after > 0n && !BURN_SINKS.has(wallet)) {
          batch.putRaw(
            Buffer.concat([
              Buffer.from([TokenTable.HOLDER_CUR]),
              tokenBuf,
              invertedBalance(after),
              walletBuf,
            ]),
            u64(d.number),
          );
        }
        // Wallet-id index: every non-zero balance, negatives and sinks included.
        const idKey = Buffer.concat([Buffer.from([TokenTable.HOLDER_ID_CUR]), tokenBuf, widBuf]);
        retire(batch, idKey, TokenTable.HOLDER_ID_HIST, d.number);
        if (after !== 0n) batch.putRaw(idKey, Buffer.concat([u64(d.number), Buffer.from(after.toString())]));
      }
      stats.holders += count.holder;
      stats.burnSinkHolders += count.sink;
      stats.negativeBalances += count.negative;
      batch.putRaw(sk, json(stats));
      batch.putRaw(statsHistKey(token, d.number), json(stats));
    }
  };

  /** Probes metadata (eth_call at this block) of tokens first seen through a Transfer/Deposit log. */
  const prepare: Projection['prepare'] = async (d, ctx) => {
    const wanted = new Set<string>();
    for (const e of d.events) {
      const isTransfer =
        (e.standard === 'erc20' && e.event === 'Transfer') ||
        (e.standard === 'weth' && e.event === 'Deposit');
      if (isTransfer && !d.probes[e.address] && !ctx.store.rocks.get(tokenKey(e.address)))
        wanted.add(e.address);
    }
    if (!wanted.size) return;
    const tag = `0x${d.number.toString(16)}`;
    await Promise.all(
      [...wanted].map(async (a) => (d.probes[a] = await probeTokenMetadataOrAbsent(ctx.rpc, a, tag))),
    );
  };

  return {
    name: 'tokens',
    prepare,
    // 2: the zero address is never a holder (mint source / burn sink).
    // 3: Transfer(0x0, 0x0, v) is a mint to the zero address (supply and its balance go up).
    version: 3,
    backs: ['Tokens (registry, balances, holders, transfers, authority events, launches)'],
    apply,
  };
}

export type { EventDelta };
