/**
 * Live candles: history from a REST candles route, then `/stream/candles` through `EventSource`
 * (the console's stream cookie authenticates it). Drawn with lightweight-charts. Prices are the
 * API's exact rationals (quote base units per base unit) shifted by the decimals difference and
 * turned into doubles only here, for plotting.
 */

import { type CandlestickData, CandlestickSeries, createChart, type UTCTimestamp } from 'lightweight-charts';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ratioToNumber } from './format.js';
import { liveStream } from './stream.js';

export const FRAMES = ['1s', '30s', '1m', '1h', '1d'] as const;
export type Frame = (typeof FRAMES)[number];
export const FRAME_SECONDS: Record<Frame, number> = { '1s': 1, '30s': 30, '1m': 60, '1h': 3600, '1d': 86400 };

type Rational = { priceNumerator: string; priceDenominator: string };
/** A candle row as REST and the stream send it (the fields plotted). */
export interface CandleRow {
  t: number;
  open: Rational;
  high: Rational;
  low: Rational;
  close: Rational;
}

const toBar = (c: CandleRow, shift: number): CandlestickData<UTCTimestamp> => {
  const n = (r: Rational) => ratioToNumber(r.priceNumerator, r.priceDenominator, shift);
  return { time: c.t as UTCTimestamp, open: n(c.open), high: n(c.high), low: n(c.low), close: n(c.close) };
};

/** What a candle chart plots before its stream starts. */
export interface CandleHistory {
  rows: CandleRow[];
  /** Anchor block of the REST answer; null when it refused. */
  anchor: number | null;
}

/** The chart's newest candle as the API sent it (exact rationals), for the page and its tests. */
interface Newest {
  bars: number;
  t: number | null;
  close: string | null;
}

/**
 * A live candle chart. Its root element carries the chart's data for tests and tools:
 * `data-bars` (candles held), `data-live-updates` (stream frames after the snapshot),
 * `data-history-anchor` (block of the REST history), `data-last-t` and `data-last-close` (the
 * newest bucket start and its close as the exact `numerator/denominator` the API sent, before
 * the decimal shift and the conversion to doubles for plotting), `data-state` (stream state).
 */
export function CandleChart(p: {
  chain: string;
  /** `/stream/candles` selector, e.g. `pool:0x…:1m` or `token:0x…:1s:0x<quote>`. */
  select: string;
  /** Decimal shift (base decimals − quote decimals) applied to prices. */
  shift: number;
  /**
   * Candles before the stream starts (oldest first) and the block the REST answer was read at
   * (null when the route refused).
   */
  history(): Promise<CandleHistory>;
  /** Renews the stream cookie (after the stream was refused). */
  renew(): Promise<unknown>;
}) {
  const el = useRef<HTMLDivElement>(null);
  const [state, setState] = useState('connecting');
  const [live, setLive] = useState(0);
  const [newest, setNewest] = useState<Newest>({ bars: 0, t: null, close: null });
  const [anchor, setAnchor] = useState<number | null>(null);
  useEffect(() => {
    const chart = createChart(el.current!, {
      height: 300,
      autoSize: true,
      layout: { background: { color: '#0f1419' }, textColor: '#c8d1db' },
      grid: { vertLines: { color: '#1e2730' }, horzLines: { color: '#1e2730' } },
      timeScale: { timeVisible: true, secondsVisible: true },
    });
    const series = chart.addSeries(CandlestickSeries, {
      priceFormat: { type: 'custom', minMove: 1e-12, formatter: (x: number) => x.toPrecision(6) },
    });
    const byTime = new Map<number, CandlestickData<UTCTimestamp>>();
    /** The rows as the API sent them, by bucket start (what `data-last-close` reports). */
    const rowsByTime = new Map<number, CandleRow>();
    let last = 0;
    const publish = () => {
      const row = last ? rowsByTime.get(last) : undefined;
      setNewest({
        bars: byTime.size,
        t: row ? row.t : null,
        close: row ? `${row.close.priceNumerator}/${row.close.priceDenominator}` : null,
      });
    };
    const redraw = () => {
      const all = [...byTime.values()].sort((a, b) => a.time - b.time);
      series.setData(all);
      last = all.length ? all[all.length - 1].time : 0;
      publish();
    };
    /** Keeps a row; false when its prices cannot be plotted (then it is not held at all). */
    const keep = (c: CandleRow): boolean => {
      const b = toBar(c, p.shift);
      if (!Number.isFinite(b.open)) return false;
      byTime.set(c.t, b);
      rowsByTime.set(c.t, c);
      return true;
    };
    const put = (c: CandleRow) => {
      if (!keep(c)) return;
      if (c.t >= last) {
        series.update(byTime.get(c.t)!);
        last = c.t;
        publish();
      } else redraw();
    };
    let stopped = false;
    p.history().then(
      (h) => {
        if (stopped) return;
        for (const r of h.rows) keep(r);
        setAnchor(h.anchor);
        redraw();
        chart.timeScale().fitContent();
      },
      () => undefined,
    );
    const on = (isLive: boolean) => (ev: MessageEvent) => {
      const d = JSON.parse(ev.data) as { candle: CandleRow | null };
      if (!d.candle) return;
      put(d.candle);
      // A live update: a traded bucket changed or closed after the snapshot.
      if (isLive) setLive((n) => n + 1);
    };
    const stop = liveStream(
      `/index/v1/${encodeURIComponent(p.chain)}/stream/candles?select=${encodeURIComponent(p.select)}`,
      {
        attach(es) {
          es.addEventListener('snapshot', on(false));
          es.addEventListener('update', on(true));
          es.addEventListener('close', on(true));
        },
        setState,
        renew: () => p.renew(),
      },
    );
    return () => {
      stopped = true;
      stop();
      chart.remove();
    };
  }, [p.chain, p.select, p.shift]);
  return (
    <div
      class="chart"
      data-testid="candles"
      data-live-updates={live}
      data-bars={newest.bars}
      data-state={state}
      data-history-anchor={anchor ?? undefined}
      data-last-t={newest.t ?? undefined}
      data-last-close={newest.close ?? undefined}
    >
      <div class="chart-status">
        <span class={`dot ${state === 'live' ? 'on' : ''}`} /> {p.select} — {state}, {live} live updates,{' '}
        {newest.bars} candles{anchor !== null && <> (history @ block {anchor})</>}
      </div>
      <div ref={el} class="chart-canvas" />
    </div>
  );
}

/** Frame buttons 1s … 1d. */
export function FramePicker({ frame, onChange }: { frame: Frame; onChange(f: Frame): void }) {
  return (
    <span class="frames" data-testid="frames">
      {FRAMES.map((f) => (
        <button type="button" class={f === frame ? 'on' : ''} onClick={() => onChange(f)} data-frame={f}>
          {f}
        </button>
      ))}
    </span>
  );
}

/** A window of `n` buckets of `frame` ending now: the REST `from`/`to` (unix seconds). */
export function historyWindow(frame: Frame, n = 300): { from: number; to: number } {
  const to = Math.floor(Date.now() / 1000);
  return { from: to - FRAME_SECONDS[frame] * n, to };
}
