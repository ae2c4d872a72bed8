/**
 * Background work on the main thread — a block build, a history segment's encoding, the state
 * cache's retirement of a committed segment, the traces lane — runs in slices that share one
 * budget per event-loop iteration. Each slice yields through here instead of its own
 * `setImmediate`: with one immediate per job, every runnable job ran one slice back to back in
 * the same check phase (a build slice, a 4,096-op chunk, a retirement slice: 10–15 ms together)
 * before the loop reached its poll phase, where HTTP reads are served. Here the jobs queue, and
 * one pass per iteration runs them in order until {@link turnBudget} is spent, or until it
 * has resumed an awaiting job (whose slice then runs right after the pass, on the microtask queue,
 * and takes the rest of the turn).
 */

/**
 * Milliseconds of queued background slices per event-loop iteration. 2 ms where the thread also
 * serves reads (tools, tests, a replica); the ingest engine thread, which serves nothing, raises it
 * ({@link setTurnBudget}): its loop only has to answer its own messages (status, stop, metrics)
 * and the writer thread's acknowledgements, and every yield is overhead there.
 */
let budgetMs = 2;

/** Sets this thread's per-iteration budget, ms (see {@link turnBudget}). */
export function setTurnBudget(ms: number): void {
  budgetMs = ms;
}

/** This thread's per-iteration budget of background slices, ms (a block build yields after it too). */
export function turnBudget(): number {
  return budgetMs;
}

interface Job {
  run: () => void;
  /** A resumed `await`: its slice runs after the pass, so the pass ends with it. */
  resumes: boolean;
}

const queue: Job[] = [];
let scheduled = false;

function pass(): void {
  scheduled = false;
  const start = performance.now();
  // Only the jobs queued before this pass: a job that queues itself again waits for the next.
  for (let n = queue.length; n > 0; n--) {
    const job = queue.shift()!;
    job.run();
    if (job.resumes || performance.now() - start >= budgetMs) break;
  }
  if (queue.length) schedule();
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(pass);
}

/** Runs `fn` in a later event-loop iteration, within the shared per-iteration budget. */
export function laterSlice(fn: () => void): void {
  queue.push({ run: fn, resumes: false });
  schedule();
}

/**
 * Resolves in a later event-loop iteration, after the reads that arrived meanwhile: the `await`
 * of a sliced job (a block build, a segment's frame appends) between two slices.
 */
export function nextSlice(): Promise<void> {
  return new Promise((resolve) => {
    queue.push({ run: resolve, resumes: true });
    schedule();
  });
}
