/**
 * The catch-up / live hand-over of a stream (streams/service.ts): a consumer that connects after a
 * block's frames are in RocksDB but before the hub published them (the writer thread committed the
 * block, its callback has not run yet) gets each frame once. Found by the soak (issue U): the
 * catch-up sent the block's frames and the hub sent them again, so a consumer saw sequences go
 * back ("sequence 23 after 85").
 */
import { afterEach, describe, expect, it } from 'vitest';
import { tempStores } from '../storage/temp-stores.fixture.js';
import { createHub } from './hub.js';
import { createStreamLog, type Frame } from './log.js';
import { createStreams } from './service.js';
import type { StreamSink, StreamStart } from './sink.js';

const stores = tempStores();
afterEach(stores.closeAll);

/** A sink that records the durable sequences it was sent. */
function sink(): StreamSink & { seqs: number[] } {
  const seqs: number[] = [];
  return {
    seqs,
    closed: false,
    send(_event, id) {
      if (id) seqs.push(Number(id.split('.').pop()));
      return true;
    },
    close() {},
    onClose() {},
  };
}

describe('stream catch-up and live hand-over', () => {
  it('frames committed but not yet published are sent once, by the catch-up', async () => {
    const store = await stores.open('streams-', { unfinalisedWindow: 16 });
    const log = createStreamLog(store);
    const hub = createHub();
    const streams = createStreams(log, hub);
    const frames: Frame[][] = [];
    for (let n = 0; n < 3; n++) {
      const batch = store.newBatch();
      const fs = log.append(
        batch,
        n,
        [0, 1].map(() => ({ topic: 'transactions' as const, event: 'transaction', json: '{}', keys: {} })),
      );
      store.commitBatch({ number: n, hash: `0x${(n + 1).toString(16).padStart(64, '0')}` }, batch);
      frames.push(fs);
    }
    await store.settled();
    hub.publish(frames[0]);
    // Blocks 1 and 2 are in RocksDB; their frames are not published yet.
    const req = { principal: { name: 'k', maxStreams: 8 }, lastEventId: undefined };
    const fromStart = sink();
    (streams.openTopic(req, 'transactions', { all: true, dims: {} }, 0) as StreamStart)(fromStart);
    const resumed = sink();
    (streams.openTopic(req, 'transactions', { all: true, dims: {} }, 3) as StreamStart)(resumed);
    const live = sink();
    (streams.openTopic(req, 'transactions', { all: true, dims: {} }, undefined) as StreamStart)(live);
    hub.publish(frames[1]);
    hub.publish(frames[2]);
    expect(fromStart.seqs).toEqual([1, 2, 3, 4, 5, 6]);
    expect(resumed.seqs).toEqual([4, 5, 6]);
    expect(live.seqs).toEqual([3, 4, 5, 6]);
  });
});
