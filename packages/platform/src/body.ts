/**
 * Reading a request body on uWS (the part the indexer's and the scanner's listeners share; each
 * parses the bytes and names its own refusals).
 */
import type { HttpResponse, ResponseState } from './uws.js';

/**
 * Reads a request body up to `max` bytes. Registers `onAborted` first (required before async
 * work: the response outlives this call).
 * @param tooLarge builds the refusal of a body past `max` from its message
 *   (`request body exceeds <max> bytes`).
 * @throws what `tooLarge` returns; Error('aborted') when the client went away.
 */
export function readBody(
  res: HttpResponse,
  state: ResponseState,
  max: number,
  tooLarge: (message: string) => Error,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    state.hasAbortHandler = true;
    res.onAborted(() => {
      state.aborted = true;
      reject(new Error('aborted'));
    });
    res.onData((ab, last) => {
      if (size < 0) return;
      size += ab.byteLength;
      if (size > max) {
        size = -1;
        reject(tooLarge(`request body exceeds ${max} bytes`));
        return;
      }
      chunks.push(Buffer.from(new Uint8Array(ab.slice(0))));
      if (last) resolve(Buffer.concat(chunks));
    });
  });
}
