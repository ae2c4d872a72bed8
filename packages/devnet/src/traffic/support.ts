/**
 * Small helpers shared by the traffic generator's modules: telling a node that does not answer
 * from one that answers with an error, a short error text for logs and /health, bounded parallel
 * map, sleep. No traffic of its own.
 */

/**
 * Whether an error means the node did not answer (refused connection, reset, timeout) rather than
 * answering with an error: those are retried with backoff until the node is back.
 */
export function isNodeDown(e: unknown): boolean {
  const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return true;
  const text = `${err?.message ?? ''} ${err?.cause?.code ?? ''} ${err?.cause?.message ?? ''}`;
  return /fetch failed|ECONNREFUSED|ECONNRESET|EPIPE|socket hang up|other side closed|UND_ERR|timed? ?out/i.test(
    text,
  );
}

/** Whether an error says a call found no contract (empty return data): the set-up may be gone. */
export const isMissingCode = (e: unknown) =>
  /zero data|returned no data|\(0x\)/i.test((e as Error)?.message ?? '');

/** One line (300 characters at most) naming an error: its name unless plain `Error`, message, cause code. */
export const errText = (e: unknown) => {
  const err = e as Error & { cause?: { code?: string } };
  const cause = err?.cause?.code ? ` (${err.cause.code})` : '';
  return `${err?.name && err.name !== 'Error' ? `${err.name}: ` : ''}${err?.message ?? String(e)}${cause}`.slice(
    0,
    300,
  );
};

/** Maps f over xs with at most `width` calls in flight. */
export async function pmap<T, R>(xs: readonly T[], f: (x: T) => Promise<R>, width = 32): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < xs.length; i += width) out.push(...(await Promise.all(xs.slice(i, i + width).map(f))));
  return out;
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}
