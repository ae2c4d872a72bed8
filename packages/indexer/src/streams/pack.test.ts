/**
 * Frames packed for the engine → serving hand-over (streams/log.ts packFrames, StreamLog.unpack):
 * the serving thread's log gets exactly the frames the engine's log appended (ids, blocks, events,
 * keys, JSON with non-ASCII text), only those of the topics listened to, and its sequences move
 * with every topic of the commit even when nothing is decoded.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { tempStores } from '../storage/temp-stores.fixture.js';
import { createStreamLog, packFrames } from './log.js';

const stores = tempStores();
afterEach(stores.closeAll);

describe('packed frames', () => {
  it('unpack gives the appended frames of the listened topics; every topic moves', async () => {
    const store = await stores.open('pack-', { unfinalisedWindow: 16 });
    const engineLog = createStreamLog(store);
    const servingLog = createStreamLog(store);
    const batch = store.newBatch();
    const appended = engineLog.append(batch, 7, [
      { topic: 'transfers', event: 'transfer', json: '{"memo":"ünï €"}', keys: { tokens: ['0xaa'] } },
      { topic: 'blocks', event: 'block', json: '{"number":7}', keys: {} },
      { topic: 'transfers', event: 'transfer', json: '{"v":"1"}', keys: { wallets: ['0xbb', '0xcc'] } },
    ]);
    store.commitBatch({ number: 7, hash: `0x${'07'.padStart(64, '0')}` }, batch);
    const packed = packFrames(appended);
    expect(packed.count).toBe(3);
    const got = servingLog.unpack(packed, new Set(['transfers']));
    expect(got).toEqual(appended.filter((f) => f.topic === 'transfers'));
    expect(servingLog.last('blocks')).toBe(1);
    expect(servingLog.last('transfers')).toBe(2);
    // Nobody listening: nothing decoded, sequences still move.
    const quiet = createStreamLog(store);
    const more = engineLog.append(store.newBatch(), 8, [
      { topic: 'blocks', event: 'block', json: '{}', keys: {} },
    ]);
    expect(quiet.unpack(packFrames([...appended, ...more]), new Set())).toEqual([]);
    expect(quiet.last('blocks')).toBe(2);
  });
});
