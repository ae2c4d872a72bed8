/** The writer's side of the change log as the store exposes it (publishers read and prune it). */
import { prefixEnd } from '../schema/codec.js';
import { CHANGELOG } from '../schema/tables/chain.js';
import type { Rocks, WriteOp } from './binding.js';
import { decodeChange } from './changelog.js';
import type { Committer, StoreState } from './commit.js';
import type { ChangeLog } from './store-types.js';

/**
 * The change log of `rocks` (`enabled`: the store logs its writes): entries read in sequence order,
 * pruned through the committer's write path (a prune must not overtake the entries it deletes).
 */
export function openChangeLog(
  rocks: Rocks,
  enabled: boolean,
  committer: Committer,
  st: StoreState,
): ChangeLog {
  const log: ChangeLog = {
    enabled,
    last: committer.logCommitted,
    read(after, max) {
      return log.readRaw(after, max).map((r) => decodeChange(r.raw));
    },
    readRaw(after, max) {
      const out: Array<{ seq: number; raw: Buffer }> = [];
      rocks.each({ gt: CHANGELOG.key(after), lt: prefixEnd(CHANGELOG.prefix()), limit: max }, (k, v) => {
        out.push({ seq: CHANGELOG.decodeKey(k)[0], raw: Buffer.from(v) });
        return true;
      });
      return out;
    },
    prune(upTo) {
      const ops: WriteOp[] = [];
      rocks.each({ gte: CHANGELOG.prefix(), lte: CHANGELOG.key(upTo) }, (k) => {
        ops.push({ key: Buffer.from(k), value: null });
        return true;
      });
      // Through the write queue: it must not overtake the entries it prunes.
      if (ops.length) committer.write(ops, 'reset', st.head, undefined, false);
    },
    onAppend: committer.onAppend,
  };
  return log;
}
