/**
 * The tokens reader's page walks as of the page anchor (R2): holders by balance and by wallet id
 * over the versioned holder indices, a token's transfers and authority events, a deployer's tokens,
 * the catalogue and a launchpad's launches. Resume keys come from the declared cursors
 * (src/schema/cursors.ts). Sources: the tokens projection's tables (ERC-20 `Transfer`,
 * `OwnershipTransferred`, launchpad `LaunchCreated` logs).
 */
import { DomainError } from '../errors/index.js';
import { lowerHex } from '../schema/codec.js';
import type { TableCursor } from '../schema/cursor.js';
import {
  TOKEN_AUTHORITY_EVENTS,
  TOKEN_CATALOGUE,
  TOKEN_CREATOR_TOKENS,
  TOKEN_HOLDERS_BY_BALANCE,
  TOKEN_HOLDERS_BY_WALLET_ID,
  TOKEN_PAD_LAUNCHES,
  TOKEN_TRANSFERS,
} from '../schema/cursors.js';
import {
  CREATOR_TOKEN,
  HOLDER_CUR,
  HOLDER_HIST,
  HOLDER_ID_CUR,
  HOLDER_ID_HIST,
  PAD_LAUNCH,
  STATS,
  TOKEN_BY_COORD,
  WALLET_BY_ID,
} from '../schema/tables/tokens.js';
import type { View } from '../storage/index.js';
import type { PageQuery } from '../storage/page.js';
import { walkVersioned } from '../storage/versioned.js';
import { LAUNCHPADS } from './launchpads.js';
import type { HolderIdRow, HolderRow, TokensPrimitives } from './primitives.js';
import { launchAt, tokenAt } from './read.js';
import { tokenListRow } from './render.js';

const K = lowerHex;

/** The walks of the reader (one per PAGE route of the tokens domain). */
export type TokenWalks = Pick<
  TokensPrimitives,
  | 'holdersByBalance'
  | 'holdersByWalletId'
  | 'transfers'
  | 'authorityEvents'
  | 'creatorTokens'
  | 'catalogue'
  | 'padLaunches'
>;

const lastChange = (view: View, token: string) => view.get(STATS, K(token))?.lastChangeBlock ?? 0;
/**
 * Walks the table of cursor `c` keyed (prefix…, block u64, …) in chain order, skipping rows
 * after the anchor; the resume key is the cursor's tail.
 */
const chainOrder = <V>(
  view: View,
  // biome-ignore lint/suspicious/noExplicitAny: tables of different key tuples share the walk
  c: TableCursor<any, V>,
  prefix: unknown[],
  blockAt: (k: unknown[]) => number,
  page: PageQuery,
  visit: (v: V, resume: Buffer) => boolean,
) => {
  view.each(
    c.table,
    {
      prefix: prefix as never,
      reverse: page.order === 'desc',
      resume: { under: prefix as never, suffix: page.after },
    },
    (v, k, raw) => {
      if (blockAt(k) > page.at) return true;
      return visit(v, c.tail(raw));
    },
  );
};

/** Walks a token's rows of the cursor's table (keyed token address, block u64, …) in chain order. */
const byToken = <V>(
  view: View,
  // biome-ignore lint/suspicious/noExplicitAny: tables of different key tuples share the walk
  c: TableCursor<any, V>,
  token: string,
  page: PageQuery,
  sink: (v: V, resume: Buffer) => boolean,
) => chainOrder(view, c, [K(token)], (k) => k[1] as number, page, sink);

/** The walks (stateless). */
export const TOKEN_WALKS: TokenWalks = {
  holdersByBalance(view, token, page, sink) {
    // Cursor key: the index's sort key (inverted balance, wallet) then the rank, shared with /top-holders.
    const C = TOKEN_HOLDERS_BY_BALANCE;
    const after = page.after ? C.head(page.after, 2) : null;
    let rank = page.after ? C.decode(page.after)[2] : 0;
    const rows = walkVersioned(view, {
      cur: HOLDER_CUR,
      hist: HOLDER_HIST,
      prefix: [K(token)],
      sortKeyLen: 52,
      fromOf: (v) => v,
      toOf: (v) => v,
      anchor: page.at,
      after,
      reverse: false,
      want: page.limit + 1,
      lastChangeBlock: lastChange(view, token),
    });
    for (const r of rows) {
      rank++;
      const [balance, wallet] = C.decodeHead(r.sortKey, 2) as [bigint, `0x${string}`];
      const row: HolderRow = { rank, wallet, balance };
      if (!sink(row, C.encode(balance, wallet, rank))) return;
    }
  },
  holdersByWalletId(view, token, page, sink) {
    const rows = walkVersioned(view, {
      cur: HOLDER_ID_CUR,
      hist: HOLDER_ID_HIST,
      prefix: [K(token)],
      sortKeyLen: 8,
      fromOf: (v) => v.block,
      toOf: (v) => v.block,
      anchor: page.at,
      after: page.after,
      reverse: page.order === 'desc',
      want: page.limit + 1,
      lastChangeBlock: lastChange(view, token),
    });
    for (const r of rows) {
      const [walletId] = TOKEN_HOLDERS_BY_WALLET_ID.decode(r.sortKey);
      const row: HolderIdRow = {
        walletId,
        wallet: view.get(WALLET_BY_ID, walletId) ?? '0x',
        balance: r.value.balance,
      };
      if (!sink(row, TOKEN_HOLDERS_BY_WALLET_ID.encode(walletId))) return;
    }
  },
  transfers(view, token, page, sink) {
    byToken(view, TOKEN_TRANSFERS, token, page, sink);
  },
  authorityEvents(view, token, page, sink) {
    byToken(view, TOKEN_AUTHORITY_EVENTS, token, page, sink);
  },
  creatorTokens(view, deployer, page, sink) {
    view.each(
      CREATOR_TOKEN,
      {
        prefix: [K(deployer)],
        reverse: page.order === 'desc',
        resume: { under: [K(deployer)], suffix: page.after },
      },
      (_v, [, block, , token], raw) => {
        if (block > page.at) return true;
        const t = tokenAt(view, token, page.at);
        return t ? sink(tokenListRow(t), TOKEN_CREATOR_TOKENS.tail(raw)) : true;
      },
    );
  },
  catalogue(view, page, sink) {
    view.each(
      TOKEN_BY_COORD,
      {
        reverse: page.order === 'desc',
        resume: { under: [], suffix: page.after },
      },
      (_v, [block, , , token], raw) => {
        if (block > page.at) return true;
        const t = tokenAt(view, token, page.at);
        return t ? sink(tokenListRow(t), TOKEN_CATALOGUE.tail(raw)) : true;
      },
    );
  },
  padLaunches(view, name, page, sink) {
    const pad = LAUNCHPADS.find((l) => l.name === name);
    if (!pad) throw new DomainError('not_found', `no registered launchpad "${name}"; see /launchpads`);
    view.each(
      PAD_LAUNCH,
      {
        prefix: [pad.index],
        reverse: page.order === 'desc',
        resume: { under: [pad.index], suffix: page.after },
      },
      (token, [, block], raw) => {
        if (block > page.at) return true;
        const l = launchAt(view, token, page.at);
        return l ? sink(l, TOKEN_PAD_LAUNCHES.tail(raw)) : true;
      },
    );
  },
};
