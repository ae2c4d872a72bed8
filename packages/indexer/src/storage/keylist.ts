/** Lists of keys as transferable buffers (a decode worker names the rows ingest prefetches). */
import type { KeySink } from '../schema/stateless.js';
import type { Rocks } from './binding.js';
import type { StateCache } from './cache.js';

/** A list of keys as one transferable buffer: u32 count, then per key u16 length and the key. */
export function encodeKeyList(fill: (add: KeySink) => void): ArrayBuffer {
  const keys: Buffer[] = [];
  const seen = new Set<string>();
  fill((t, key) => {
    const k = (t.key as (...k: unknown[]) => Buffer)(...key);
    const id = k.toString('latin1');
    if (seen.has(id)) return;
    seen.add(id);
    keys.push(k);
  });
  let size = 4;
  for (const k of keys) size += 2 + k.length;
  const ab = new ArrayBuffer(size);
  const buf = Buffer.from(ab);
  let off = buf.writeUInt32LE(keys.length, 0);
  for (const k of keys) {
    off = buf.writeUInt16LE(k.length, off);
    off += k.copy(buf, off);
  }
  return ab;
}

/** Visits the keys of an {@link encodeKeyList} buffer (views into it). */
function eachKey(ab: ArrayBuffer, visit: (key: Buffer) => void): void {
  const buf = Buffer.from(ab);
  const n = buf.readUInt32LE(0);
  let off = 4;
  for (let i = 0; i < n; i++) {
    const len = buf.readUInt16LE(off);
    off += 2;
    visit(buf.subarray(off, off + len));
    off += len;
  }
}

/**
 * Reads the rows of the encoded key lists `lists` ({@link encodeKeyList}) that the state cache
 * does not hold into it, in one multi-get off the main thread (libuv's pool): reads go on
 * meanwhile. A batch committed while the read is out may have changed a key after RocksDB
 * answered: the cache's fence drops those.
 */
export async function prefetchEncoded(
  rocks: Rocks,
  cache: StateCache,
  lists: readonly ArrayBuffer[],
): Promise<void> {
  const want: Buffer[] = [];
  const ids: string[] = [];
  const asked = new Set<string>();
  for (const ab of lists)
    eachKey(ab, (key) => {
      const k = key.toString('latin1');
      if (asked.has(k) || cache.get(k) !== undefined) return;
      asked.add(k);
      want.push(key);
      ids.push(k);
    });
  if (!want.length) return;
  const fence = cache.fence();
  try {
    const got = await rocks.getManyAsync(want);
    for (let i = 0; i < ids.length; i++) cache.fill(ids[i], got[i] ?? null, fence);
  } finally {
    cache.unfence(fence);
  }
}
