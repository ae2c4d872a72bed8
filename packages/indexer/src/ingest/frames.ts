/**
 * Frames of the raw chain topics (blocks, heads, transactions, logs, top-level creations) of one
 * block: the same records the chain routes serve, already serialised.
 */

import type { BlockDelta } from '../schema/delta.js';
import type { PendingFrame } from '../schema/rows/streams.js';

/** Emits the raw chain topics' frames of block `d`, in block order. */
export function chainFrames(d: BlockDelta, emit: (f: PendingFrame) => void): void {
  emit({ topic: 'blocks', event: 'block', json: d.header, keys: {} });
  emit({
    topic: 'heads',
    event: 'head',
    json: JSON.stringify({
      number: d.number,
      hash: d.hash,
      parentHash: d.parentHash,
      timestamp: d.timestamp,
    }),
    keys: {},
  });
  for (let i = 0; i < d.txs.length; i++) {
    const tx = d.txs[i];
    emit({
      topic: 'transactions',
      event: 'transaction',
      json: tx.json,
      keys: { addresses: tx.to ? [tx.from, tx.to] : [tx.from] },
    });
    if (tx.contractAddress && tx.status === 1) {
      emit({
        topic: 'creations',
        event: 'creation',
        json: JSON.stringify({
          address: tx.contractAddress,
          creator: tx.from,
          via: 'transaction',
          block: d.number,
          txIndex: i,
          logIndex: null,
          txHash: tx.hash,
        }),
        keys: { contracts: [tx.contractAddress], wallets: [tx.from] },
      });
    }
  }
  for (const l of d.logs)
    emit({
      topic: 'logs',
      event: 'log',
      json: l.json,
      keys: { addresses: [l.address], topics: l.topics.length ? [l.topics[0]] : [] },
    });
}
