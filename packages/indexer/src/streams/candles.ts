/**
 * Live candles: on connect a snapshot of the previous and the forming bucket of each selected
 * series; then `update` frames (at most one per 250 ms per series, trailing update guaranteed);
 * and a `close` frame with `final: true` when the head leaves the bucket. The candle payload is
 * the compact candle row of the REST routes. No resume cursor (a reconnect gets a new snapshot).
 *
 * Grammar: `token:0x<token>:<frame>[:0x<quote>]` (default venue of the quote rule) or
 * `pool:<id>:<frame>` with id a pool address or V4 `0x<manager>:0x<poolId>`.
 */

import { DomainError } from '../errors/index.js';
import {
  chooseVenue,
  orientCandle,
  orientedCandleJson,
  poolAt,
  poolCandleJson,
  resolveQuote,
  tokenPools,
} from '../markets/index.js';
import { type CandleRow, FRAME_IDS, FRAMES, type Frame, type PoolRow } from '../schema/rows/markets.js';
import { CANDLE, poolKeyOf } from '../schema/tables/markets.js';
import { blockTimestamp } from '../storage/headers.js';
import { inView, type Store, type View } from '../storage/index.js';
import type { StreamSink } from './sink.js';

/** Minimum spacing of update frames per series, milliseconds (Limits). */
export const CANDLE_UPDATE_MIN_MS = 250;
/** Series one connection may carry. */
export const MAX_SERIES = 64;

export interface Series {
  selector: string;
  pool: PoolRow;
  frame: Frame;
  /** Token for token-grain series (oriented quote per token); null at pool grain. */
  token: string | null;
}

const ADDR = /^0x[0-9a-fA-F]{40}$/;
const ID = /^0x[0-9a-fA-F]{64}$/;

/**
 * Parses `select` at the view's head (token series resolve their venue by the quote rule there).
 * @throws DomainError bad_request, not_found, quote_not_admitted, not_ready.
 */
export function parseCandleSelect(view: View, select: string): Series[] {
  const head = view.head;
  if (!head) throw new DomainError('not_ready', 'nothing indexed yet');
  const out: Series[] = [];
  for (const raw of select.split(',')) {
    const s = raw.trim();
    if (!s) continue;
    const parts = s.split(':');
    let pool: PoolRow | null = null;
    let frame: string;
    let token: string | null = null;
    if (parts[0] === 'pool' && (parts.length === 3 || parts.length === 4)) {
      frame = parts[parts.length - 1];
      if (parts.length === 4) {
        if (!ADDR.test(parts[1]) || !ID.test(parts[2]))
          throw new DomainError('bad_request', `bad V4 pool id in "${s}"`);
        pool = poolAt(view, poolKeyOf('v4', parts[1], parts[2]), head.number);
      } else {
        if (!ADDR.test(parts[1])) throw new DomainError('bad_request', `bad pool address in "${s}"`);
        pool = poolAt(view, poolKeyOf('v2', parts[1]), head.number);
      }
      if (!pool) throw new DomainError('not_found', `no pool for "${s}"`);
    } else if (parts[0] === 'token' && (parts.length === 3 || parts.length === 4)) {
      if (!ADDR.test(parts[1]) || (parts[3] !== undefined && !ADDR.test(parts[3])))
        throw new DomainError('bad_request', `bad address in "${s}"`);
      token = parts[1].toLowerCase();
      frame = parts[2];
      const tp = tokenPools(view, token, head.number);
      const q = resolveQuote(tp.pools, token, parts[3]);
      if (!q.ok) {
        if (q.kind === 'not_admitted')
          throw new DomainError('quote_not_admitted', `${parts[3]} is not a quote of ${token}`, {
            candidates: q.candidates,
          });
        if (q.kind === 'ambiguous')
          throw new DomainError('bad_request', `several quotes for ${token}: name one in "${s}"`, {
            candidates: q.candidates,
          });
        throw new DomainError('not_found', `token ${token} has no registered pool`);
      }
      const ts = blockTimestamp(view, head.number) ?? 0;
      pool = chooseVenue(view, tp.pools, token, q.quote, { block: head.number, ts })!.pool;
    } else {
      throw new DomainError(
        'bad_request',
        `"${s}" is not token:0x<token>:<frame>[:0x<quote>] or pool:<id>:<frame>`,
      );
    }
    if (!(frame in FRAMES))
      throw new DomainError('bad_request', `unknown frame "${frame}" (1s, 30s, 1m, 1h, 1d)`);
    out.push({ selector: s, pool, frame: frame as Frame, token });
    if (out.length > MAX_SERIES)
      throw new DomainError('bad_request', `at most ${MAX_SERIES} series per connection`);
  }
  if (!out.length) throw new DomainError('bad_request', 'select names no series');
  return out;
}

/** The series' candle row, exactly as REST serves it (pool grain, or oriented for the token). */
const rowJson = (s: Series, c: CandleRow): string =>
  s.token ? orientedCandleJson(orientCandle(s.pool, s.token, c)) : poolCandleJson(c);

/** Identity of a series within one connection: its selector text, case-insensitive. */
export const seriesId = (s: Series): string => s.selector.toLowerCase();

/** What a candle-selection replacement changed (selectors as the consumer wrote them). */
export interface CandleSelectionChange {
  /** Series newly selected: each gets its snapshot (previous and forming bucket) next. */
  added: string[];
  /** Series dropped: no frame of theirs follows the `selection_changed` frame. */
  removed: string[];
  /** Series selected before and after: their frames continue uninterrupted (no new snapshot). */
  unchanged: string[];
  /** The whole selection after the change, in selection order. */
  selection: string[];
}

/** A running set of candle series on one connection. */
export interface CandleRun {
  /** Must be called after every committed block (the hub does it). */
  onCommit(): void;
  stop(): void;
  /** Selectors currently streamed, in selection order. */
  selection(): string[];
  /**
   * Replaces the selection. Sends, in order: the control frame `selection_changed`
   * (`{topic: "candles", added, removed, unchanged, selection, ...announce}`), then the snapshot
   * frames (previous and forming bucket) of each added series. Removed series stop at once
   * (pending throttled updates are dropped). Series are matched by {@link seriesId}.
   */
  replace(next: Series[], announce: Record<string, unknown>): CandleSelectionChange;
}

/**
 * Runs the candle series on `conn` (duplicates by {@link seriesId} collapse to the first):
 * snapshot frames at once, then update/close frames on commits.
 */
export function runCandles(store: Store, conn: StreamSink, series: Series[]): CandleRun {
  // Each read is one short view: candles are read between two commits, never across one.
  const read = (s: Series, t: number): CandleRow | null => {
    return inView(store, (v) => v.get(CANDLE, s.pool.key as `0x${string}`, FRAME_IDS[s.frame], t) ?? null);
  };
  const tsOf = (n: number): number => blockTimestamp(store, n) ?? 0;
  interface St {
    s: Series;
    cur: number;
    sent: string;
    lastAt: number;
    timer: NodeJS.Timeout | null;
  }
  const state = new Map<string, St>();
  const frameData = (st: St, t: number, c: CandleRow | null, extra: Record<string, unknown>) =>
    `{"series":${JSON.stringify(st.s.selector)},"pool":"${st.s.pool.key}","frame":"${st.s.frame}","bucket":${t},${Object.entries(
      extra,
    )
      .map(([k, v]) => `"${k}":${JSON.stringify(v)}`)
      .join(',')}${Object.keys(extra).length ? ',' : ''}"candle":${c ? rowJson(st.s, c) : 'null'}}`;
  /** Starts one series: snapshot of the previous and the forming bucket at the current head. */
  const start = (s: Series) => {
    const head = store.committedHead();
    const nowTs = head ? tsOf(head.number) : 0;
    const st: St = { s, cur: 0, sent: '', lastAt: 0, timer: null };
    state.set(seriesId(s), st);
    const w = FRAMES[s.frame];
    st.cur = Math.floor(nowTs / w) * w;
    const prev = read(s, st.cur - w);
    const cur = read(s, st.cur);
    conn.send('snapshot', null, frameData(st, st.cur - w, prev, { position: 'previous', final: true }));
    conn.send('snapshot', null, frameData(st, st.cur, cur, { position: 'forming', final: false }));
    st.sent = cur ? JSON.stringify(cur) : '';
  };
  for (const s of series) if (!state.has(seriesId(s))) start(s);
  const sendUpdate = (st: St) => {
    st.timer = null;
    if (state.get(seriesId(st.s)) !== st) return; // removed meanwhile
    const c = read(st.s, st.cur);
    const j = c ? JSON.stringify(c) : '';
    if (!c || j === st.sent) return;
    st.sent = j;
    st.lastAt = Date.now();
    conn.send('update', null, frameData(st, st.cur, c, { final: false }));
  };
  const selectors = () => [...state.values()].map((st) => st.s.selector);
  return {
    onCommit() {
      const h = store.committedHead();
      if (!h || conn.closed) return;
      const ts = tsOf(h.number);
      for (const st of state.values()) {
        const w = FRAMES[st.s.frame];
        const bucket = Math.floor(ts / w) * w;
        if (bucket > st.cur) {
          // The head left the bucket: its candle is final.
          if (st.timer) clearTimeout(st.timer);
          st.timer = null;
          const fin = read(st.s, st.cur);
          conn.send('close', null, frameData(st, st.cur, fin, { final: true }));
          st.cur = bucket;
          st.sent = '';
        }
        const wait = st.lastAt + CANDLE_UPDATE_MIN_MS - Date.now();
        if (wait <= 0) sendUpdate(st);
        else st.timer ??= setTimeout(() => sendUpdate(st), wait);
      }
    },
    stop() {
      for (const st of state.values()) if (st.timer) clearTimeout(st.timer);
    },
    selection: selectors,
    replace(next, announce) {
      const wanted = new Map<string, Series>();
      for (const s of next) if (!wanted.has(seriesId(s))) wanted.set(seriesId(s), s);
      const removed: string[] = [];
      const unchanged: string[] = [];
      for (const [id, st] of state) {
        if (wanted.has(id)) {
          unchanged.push(st.s.selector);
          continue;
        }
        if (st.timer) clearTimeout(st.timer);
        state.delete(id);
        removed.push(st.s.selector);
      }
      const added = [...wanted].filter(([id]) => !state.has(id)).map(([, s]) => s);
      const change: CandleSelectionChange = {
        added: added.map((s) => s.selector),
        removed,
        unchanged,
        selection: [...unchanged, ...added.map((s) => s.selector)],
      };
      conn.send('selection_changed', null, JSON.stringify({ topic: 'candles', ...announce, ...change }));
      for (const s of added) start(s);
      return change;
    },
  };
}
