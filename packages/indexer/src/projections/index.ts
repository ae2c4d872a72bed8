/**
 * The projections registry (R5: fail closed). Each projection declares its name, version, the
 * tables it owns and the route groups it backs, and an `apply` that writes a block's rows into the
 * block's batch. Its inverse is automatic: every write goes through the batch, which records the
 * prior value in the block's undo record, so a reorg unwinds projections with the chain records.
 *
 * Lifecycle: a projection whose stored version differs from the code's is wiped and rebuilt from
 * the raw blocks, receipts and probes already in RocksDB (never re-fetched from the node). While
 * its checkpoint is behind the head it is `building` (with progress) and its routes answer 503.
 */
import type { BlockDelta } from '../schema/delta.js';
import type { PendingFrame } from '../schema/rows/streams.js';
import { tablesOf } from '../schema/tables/index.js';
import type { BlockBatch, Store } from '../storage/index.js';

/** Emits a stream frame from a live commit (absent during rebuilds: frames were emitted once). */
export type Emit = (frame: PendingFrame) => void;

export type ProjectionStatus = 'building' | 'ready' | 'stale' | 'disabled';

/** A projection of the chain into read-optimised tables. */
export interface Projection {
  name: string;
  /** Bump when the stored layout or semantics change: the projection is rebuilt from raw data. */
  version: number;
  /** Route groups (or ids) this projection backs, for /health. */
  backs: string[];
  /**
   * Writes block `d`'s rows. Must read only through `batch.get` / the store (state as of the
   * previous block plus this batch) and write only through `batch`.
   */
  apply(batch: BlockBatch, d: BlockDelta, emit?: Emit): void;
  /**
   * Optional: the same writes as `apply`, cut into slices. Each `yield` marks a point where the
   * live commit may give the thread back to the event loop (HTTP reads run) before it resumes;
   * draining the iterator without pausing must write exactly what `apply` writes. Between slices
   * nothing of the block is visible to readers: every write stays in `batch` until the block's one
   * atomic commit, and reads keep seeing the previous block. Live ingest uses it when present.
   */
  steps?(batch: BlockBatch, d: BlockDelta, emit?: Emit): Iterable<void>;
  /**
   * Optional, with `steps`: writes what `steps` kept since the last seal (a fold over those
   * blocks: each key's changes walked once, in block order), sliced like `steps`. Called by the
   * driver after a history segment's last block, and after every live block (a live batch that
   * catches up holds several blocks: the next block's `steps` may then follow on the same batch,
   * each block's seal belonging to its own undo record). `apply` is `steps` then `seal`; a
   * projection that keeps nothing across blocks has no `seal`. Reads of rows a fold keeps are not
   * valid before the seal (no other projection reads them).
   */
  seal?(batch: BlockBatch): Iterable<void>;
  /**
   * Optional, live ingest only, before `apply`: gathers what `apply` needs from the node (added to
   * the delta, e.g. `d.probes`, which is stored with the block so rebuilds never re-fetch).
   * `ctx.store.view()` reads what ingest sees while it builds the block: point reads include the
   * writes of earlier blocks of the same history segment and writes still in flight; walks see
   * committed rows only.
   */
  prepare?(
    d: BlockDelta,
    ctx: { store: Pick<Store, 'view'>; rpc: import('../rpc/client.js').Rpc },
  ): Promise<void>;
}

/** A projection's identity (schema/projections.ts) as the fields a {@link Projection} carries. */
export function projectionIdentity(
  i: import('../schema/projections.js').ProjectionIdentity,
): Pick<Projection, 'name' | 'version' | 'backs'> {
  return { name: i.name, version: i.version, backs: [...i.backs] };
}

/**
 * Runs a sliced projection build to completion without pausing (rebuilds, and `apply` of a
 * projection that defines `steps`).
 */
export function drain(steps: Iterable<void>): void {
  for (const _ of steps);
}

/** Persistent state of one projection (META `projection:<name>`). */
export interface ProjectionState {
  version: number;
  /** Last block applied; null before the first. */
  checkpoint: number | null;
}

/** What a registry needs of a projection: the build side passes {@link Projection}s, the serving side identities. */
export type Registered = Pick<Projection, 'name' | 'version' | 'backs'>;

export interface Registry<P extends Registered = Projection> {
  readonly projections: P[];
  state(name: string): ProjectionState;
  /** Projections caught up with `parent` (so they take block parent+1 live). */
  live(parent: number | null): P[];
  /** Projections behind the head, to rebuild. */
  lagging(head: number | null): P[];
  metaKeyOf(name: string): string;
  /** Updates the in-memory checkpoint after a committed batch. */
  setCheckpoint(name: string, n: number | null): void;
  /**
   * Re-reads every projection's state from META (a replica after applying the writer's entry, the
   * serving thread after an engine commit): through `meta` when given (one view for all), else the
   * store's getMeta.
   */
  reload(meta?: (name: string) => unknown): void;
}

const key = (name: string) => `projection:${name}`;

/**
 * Loads each projection's state; wipes and resets projections whose version changed (they then
 * rebuild from raw data).
 */
export function createRegistry<P extends Registered = Projection>(
  store: Pick<Store, 'getMeta' | 'wipeTables' | 'putMeta'>,
  projections: P[],
  log: (msg: string) => void,
  /**
   * A read-only registry (the serving thread, a replica): reads the states the engine or the
   * writer recorded, never resets or rebuilds.
   */
  opts: { readOnly?: boolean } = {},
): Registry<P> {
  const states = new Map<string, ProjectionState>();
  const first = store.getMeta<{ firstBlock: number }>('identity')?.firstBlock ?? 0;
  for (const p of projections) {
    const s = store.getMeta<ProjectionState>(key(p.name));
    if (opts.readOnly) {
      states.set(p.name, s ?? { version: p.version, checkpoint: null });
      continue;
    }
    if (s && s.version === p.version) {
      states.set(p.name, s);
      continue;
    }
    if (s) log(`projection ${p.name}: version ${s.version} → ${p.version}; rebuilding from stored blocks`);
    // Its tables are those of the registry it owns (src/schema/tables: owner = projection name).
    store.wipeTables(tablesOf(p.name));
    const fresh: ProjectionState = { version: p.version, checkpoint: first - 1 >= 0 ? first - 1 : null };
    store.putMeta(key(p.name), fresh);
    states.set(p.name, fresh);
  }
  return {
    projections,
    // Read-only: the state RocksDB holds now (another thread commits it), never a copy that lags.
    state: opts.readOnly
      ? (name) => store.getMeta<ProjectionState>(key(name)) ?? states.get(name)!
      : (name) => states.get(name)!,
    live(parent) {
      return projections.filter((p) => states.get(p.name)!.checkpoint === parent);
    },
    lagging(head) {
      return projections.filter((p) => {
        const c = states.get(p.name)!.checkpoint;
        return head !== null && (c === null || c < head);
      });
    },
    metaKeyOf: key,
    setCheckpoint(name, n) {
      const s = states.get(name)!;
      s.checkpoint = n;
    },
    reload(meta) {
      for (const p of projections) {
        const s = (meta ? meta(key(p.name)) : store.getMeta<ProjectionState>(key(p.name))) as
          | ProjectionState
          | undefined;
        if (s) states.set(p.name, s);
      }
    },
  };
}
