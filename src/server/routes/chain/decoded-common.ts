/** Shared by the decoded chain views: the projection guard and row rendering. */
import { decodedLogKey } from '../../../chain/decoded-views.js';
import type { Rocks } from '../../../storage/index.js';

export const DECODED = 'decoded_views';

/** `{"log": <raw log as the node sent it>, "decoded": <DecodedLog>}` for the log at (n, i). */
export function decodedLogRow(rocks: Rocks, n: number, i: number, raw: Buffer): string {
  const d = rocks.get(decodedLogKey(n, i));
  return `{"log":${raw.toString()},"decoded":${d ? d.toString() : '{"status":"unknown","reason":"not_decoded","topic0":null}'}}`;
}
