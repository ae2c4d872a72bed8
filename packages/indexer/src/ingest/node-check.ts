/**
 * A node that contradicts itself is a fault, not a fork (issue U). anvil was seen returning `null`
 * for blocks it had served (by number and by hash, their transactions too) while its later blocks
 * still named them as parents, and its state lacking their effects: an index that kept following
 * built on blocks the node no longer had, and nothing but a reconciler verdict noticed.
 *
 * The check re-reads, from the node, the blocks of the unfinalised window the store holds
 * (`eth_getBlockByNumber`, header only; batched by the RPC client), periodically and on request
 * (a standard token's reconciliation turning to diverging). Two findings are node faults:
 *  - `block_missing`: a stored block the node cannot return, by number (at or below its own head)
 *    nor by hash;
 *  - `parent_missing`: a block of the node whose parent the node does not have (by number the
 *    parent height answers another block or nothing, and by hash nothing).
 * A node that is behind (its head below a stored block), or whose block at a height differs from
 * ours (a reorg: the follower rolls back), is not a fault. A finding is confirmed by asking again
 * after {@link CONFIRM_MS} (a load balancer's or a proxy's one-off null is not a fault).
 *
 * While a fault stands, ingest builds nothing on that node ({@link NodeCheck.hold}: `/health`
 * `ingest.state` is `paused` with `haltReason: node_inconsistent` and `nodeFault`); it is re-checked
 * every {@link RECHECK_MS} and ingest resumes by itself once the node agrees with itself again.
 * When the chain names other nodes (`rpcUrls` in the chains file), ingest moves to the next one
 * at once, and resumes there if that one is consistent.
 */
import type { Logger } from 'pino';
import type { Rpc } from '../rpc/client.js';
import type { Store } from '../storage/index.js';

/** What the node contradicted. */
export type NodeFaultKind = 'block_missing' | 'parent_missing';

/** A node fault as `/health` shows it (`ingest.nodeFault`). */
export interface NodeFault {
  kind: NodeFaultKind;
  /** The stored block the node lost (block_missing), or the node's block whose parent it lost. */
  block: number;
  /** That block's hash (ours for block_missing; the node's for parent_missing). */
  hash: string;
  /** The parent hash the node cannot return (parent_missing); null for block_missing. */
  missingParent: string | null;
  /** One sentence: what the node answered. */
  detail: string;
  /** The node it was found on: its position in the chain's node list (0 = the primary). */
  node: number;
  /** When it was first found (ISO time). */
  since: string;
}

/** The chain's nodes (the chains file's `rpcUrls`, first = primary); calls go to the current one. */
export interface NodeSet extends Rpc {
  /** URL of the current node. */
  url(): string;
  /** Position of the current node in the list. */
  index(): number;
  size(): number;
  /** Moves to the next node of the list (round robin); returns its position. */
  next(): number;
}

/**
 * The nodes `urls` (at least one), each reached through `make(url)` (an RPC client with the
 * chain's retries and metrics); calls go to the current node.
 */
export function createNodeSet(urls: readonly string[], make: (url: string) => Rpc): NodeSet {
  if (!urls.length) throw new Error('a chain needs at least one node URL');
  const clients = urls.map((u) => make(u));
  let i = 0;
  return {
    call: (method, params) => clients[i].call(method, params),
    url: () => urls[i],
    index: () => i,
    size: () => urls.length,
    next() {
      i = (i + 1) % urls.length;
      return i;
    },
  };
}

/** Fields of the follower's status this check owns (see IngestStatus). */
export interface PausableStatus {
  state: string;
  haltReason: string | null;
  nodeFault: NodeFault | null;
  node: { index: number; count: number };
  /** The node's head as the last check read it (kept current while paused). */
  nodeHead: number | null;
}

export interface NodeCheck {
  /** URL of the node ingest reads now (decode tasks, the traces lane). */
  url(): string;
  /** The standing fault (null: none). */
  fault(): NodeFault | null;
  /** Whether a fault stands (ingest builds nothing while it does). */
  faulted(): boolean;
  /**
   * Checks the node now (concurrent callers share one check); returns the standing fault.
   * @throws RpcError when the node cannot be reached (no verdict: the fault state is unchanged).
   */
  checkNow(): Promise<NodeFault | null>;
  /**
   * Called by the follower's loop before each step: while a fault stands, shows it in `status`,
   * waits {@link RECHECK_MS}, checks again and returns true (the loop skips the step); returns
   * false once the node is consistent (the loop goes on). Moves to the next node of the list
   * first when there is one.
   */
  hold(status: PausableStatus): Promise<boolean>;
  /** Starts the periodic check. */
  start(): void;
  stop(): void;
}

/** Delay before a finding is asked again and confirmed, ms. */
const CONFIRM_MS = 500;
/** Re-check period while a fault stands, ms. */
const RECHECK_MS = 1_000;

type Block = { hash: string; parentHash: string; number: string } | null;
const hex = (n: number) => `0x${n.toString(16)}`;

/**
 * The node-consistency check of one chain: `store` (its head, canonical hashes and window) against
 * the current node of `nodes`, every `intervalMs` (0: only on request and while paused).
 * `onFault` is told of every new fault (metrics).
 */
export function createNodeCheck(o: {
  chain: string;
  store: Store;
  nodes: NodeSet;
  log: Logger;
  intervalMs: number;
  onFault?: (f: NodeFault) => void;
}): NodeCheck {
  const { store, nodes, log } = o;
  let standing: NodeFault | null = null;
  let running: Promise<NodeFault | null> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let lastNodeHead: number | null = null;

  const byHash = (h: string) => nodes.call<Block>('eth_getBlockByHash', [h, false]);

  /** One pass over the window: the first contradiction found (unconfirmed), or null. */
  const inspect = async (): Promise<Omit<NodeFault, 'node' | 'since'> | null> => {
    const head = store.head();
    if (!head) return null;
    const nodeHead = Number.parseInt(await nodes.call<string>('eth_blockNumber'), 16);
    lastNodeHead = nodeHead;
    const from = Math.max(0, head.number - store.unfinalisedWindow + 1);
    // One height past ours: the node's next block must link to a block it has.
    const to = Math.min(nodeHead, head.number + 1);
    if (to < from) return null; // the node is behind the whole window
    const heights = Array.from({ length: to - from + 1 }, (_, k) => from + k);
    const got = await Promise.all(
      heights.map((n) => nodes.call<Block>('eth_getBlockByNumber', [hex(n), false])),
    );
    const at = (n: number): Block => got[n - from] ?? null;
    for (const n of heights) {
      const ours = n <= head.number ? store.canonicalHash(n) : null;
      const b = at(n);
      if (b === null && ours && (await byHash(ours)) === null)
        return {
          kind: 'block_missing',
          block: n,
          hash: ours,
          missingParent: null,
          detail: `the node (head ${nodeHead}) returns no block ${n}, by number nor by hash ${ours}, which it served before`,
        };
      if (b === null || n === 0) continue;
      const parent = at(n - 1);
      if (n - 1 >= from && parent?.hash === b.parentHash) continue;
      if (n - 1 < from && store.canonicalHash(n - 1) === b.parentHash) continue;
      if ((await byHash(b.parentHash)) === null)
        return {
          kind: 'parent_missing',
          block: n,
          hash: b.hash,
          missingParent: b.parentHash,
          detail: `the node's block ${n} (${b.hash}) names parent ${b.parentHash}, which the node does not return`,
        };
    }
    return null;
  };

  const check = async (): Promise<NodeFault | null> => {
    const first = await inspect();
    if (first) await new Promise((r) => setTimeout(r, CONFIRM_MS));
    const found = first ? await inspect() : null;
    if (!found) {
      if (standing)
        log.warn({ chain: o.chain, fault: standing }, 'node agrees with itself again: ingest resumes');
      standing = null;
      return null;
    }
    if (!standing || standing.kind !== found.kind || standing.block !== found.block) {
      standing = { ...found, node: nodes.index(), since: new Date().toISOString() };
      log.error(
        { chain: o.chain, fault: standing, node: nodes.url() },
        'node fault: the node contradicts itself; ingest paused',
      );
      o.onFault?.(standing);
    }
    return standing;
  };

  const checkNow = (): Promise<NodeFault | null> => {
    running ??= check().finally(() => {
      running = null;
    });
    return running;
  };

  const tick = () => {
    if (stopped || o.intervalMs <= 0) return;
    checkNow()
      .catch((err) =>
        log.warn({ chain: o.chain, err: (err as Error).message }, 'node check failed; retrying'),
      )
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, o.intervalMs);
      });
  };

  return {
    url: () => nodes.url(),
    fault: () => standing,
    faulted: () => standing !== null,
    checkNow,
    async hold(status) {
      const clear = () => {
        if (status.state === 'paused') status.state = 'starting';
        if (status.haltReason === 'node_inconsistent') status.haltReason = null;
        status.nodeFault = null;
        return false;
      };
      status.node = { index: nodes.index(), count: nodes.size() };
      if (!standing) return clear();
      status.state = 'paused';
      status.haltReason = 'node_inconsistent';
      status.nodeFault = standing;
      status.nodeHead = lastNodeHead ?? status.nodeHead;
      if (nodes.size() > 1 && standing.node === nodes.index()) {
        const to = nodes.next();
        log.warn(
          { chain: o.chain, from: standing.node, to, url: nodes.url() },
          'node fault: ingest moves to the next node',
        );
        status.node.index = to;
      } else await new Promise((r) => setTimeout(r, RECHECK_MS));
      await checkNow().catch(() => undefined);
      return standing !== null || clear();
    },
    start() {
      if (!timer && o.intervalMs > 0) timer = setTimeout(tick, o.intervalMs);
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
