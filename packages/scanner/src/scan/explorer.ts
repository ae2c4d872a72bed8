/**
 * The explorer lookup: resolves a query to a summary — a 0x + 64-hex string to a transaction (or,
 * failing that, a block by hash), a 0x + 40-hex string to an address (kind, labels, first seen, and
 * the token row when it is one), a decimal number to a block, anything else to a token search by
 * symbol, name or address prefix (the tokens reader's ranking). Read at one anchor.
 */

import { tokenListRow } from '@chain-indexer/indexer/port';
import type { AddressSummary, TokenListRow } from '@chain-indexer/indexer/types';
import type { ReadCtx } from '../index-port.js';

/** A block summary from its stored header. */
export interface BlockSummary {
  number: number;
  hash: string;
  parentHash: string;
  timestamp: number;
  transactions: number;
  gasUsed: string;
  miner: string | null;
}

export interface TransactionSummary {
  hash: string;
  block: number;
  txIndex: number;
  from: string | null;
  to: string | null;
  /** Wei, decimal string. */
  value: string;
  status: 'success' | 'reverted' | null;
  contractAddress: string | null;
  logs: number;
}

export interface ExplorerResult {
  query: string;
  kind: 'transaction' | 'block' | 'address' | 'tokens';
  transaction: TransactionSummary | null;
  block: BlockSummary | null;
  address: (AddressSummary & { token: TokenListRow | null }) | null;
  tokens: { matches: Array<TokenListRow & { matchClass: number }>; truncated: boolean } | null;
}

/** Token matches listed by a search. */
const SEARCH_LIMIT = 20;

const blockOf = (raw: string): BlockSummary => {
  const h = JSON.parse(raw) as Record<string, unknown>;
  return {
    number: Number(h.number),
    hash: String(h.hash).toLowerCase(),
    parentHash: String(h.parentHash).toLowerCase(),
    timestamp: Number(h.timestamp),
    transactions: Array.isArray(h.transactions) ? h.transactions.length : 0,
    gasUsed: BigInt(String(h.gasUsed ?? '0x0')).toString(),
    miner: typeof h.miner === 'string' ? h.miner.toLowerCase() : null,
  };
};

const isNotFound = (err: unknown) => (err as { code?: string }).code === 'not_found';

const empty = (query: string, kind: ExplorerResult['kind']): ExplorerResult => ({
  query,
  kind,
  transaction: null,
  block: null,
  address: null,
  tokens: null,
});

/**
 * Resolves `q` at the anchor (see the module rule). The address case reads the node when the
 * address was seen only as a recipient (its kind), so the result may be a promise.
 * @throws DomainError not_found when a hash names neither a transaction nor a block, or a block
 *   number is above the anchor.
 */
export function explore(rc: ReadCtx, q: string): ExplorerResult | Promise<ExplorerResult> {
  const { chain, tokens, addresses } = rc.readers;
  const at = rc.anchor.block;
  const query = q.trim();
  if (/^0x[0-9a-fA-F]{64}$/.test(query)) {
    try {
      const t = chain.transaction(rc.view, at, query);
      const hash = query.toLowerCase();
      const rcpt = JSON.parse(chain.receipt(rc.view, at, hash).raw) as {
        status?: string;
        contractAddress?: string | null;
        logs?: unknown[];
      };
      return {
        ...empty(query, 'transaction'),
        transaction: {
          hash,
          block: t.blockNumber,
          txIndex: t.transactionIndex,
          from: t.from?.toLowerCase() ?? null,
          to: t.to?.toLowerCase() ?? null,
          value: t.value,
          status: rcpt.status === '0x1' ? 'success' : rcpt.status === '0x0' ? 'reverted' : null,
          contractAddress: rcpt.contractAddress?.toLowerCase() ?? null,
          logs: rcpt.logs?.length ?? 0,
        },
      };
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    return { ...empty(query, 'block'), block: blockOf(chain.headerByHash(rc.view, at, query)) };
  }
  if (/^0x[0-9a-fA-F]{40}$/.test(query)) {
    const t = tokens.find(rc.view, query, at);
    const token = t ? tokenListRow(t) : null;
    return addresses
      .summary(rc.view, query, at)
      .then((s) => ({ ...empty(query, 'address'), address: { ...s, token } }));
  }
  if (/^[0-9]{1,15}$/.test(query))
    return { ...empty(query, 'block'), block: blockOf(chain.header(rc.view, at, Number(query))) };
  const r = tokens.search(rc.view, query, at, SEARCH_LIMIT);
  return { ...empty(query, 'tokens'), tokens: { matches: r.rows, truncated: r.truncated } };
}
