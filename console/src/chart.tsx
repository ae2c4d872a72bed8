/**
 * Live candles: history from a REST candles route, then `/stream/candles` through `EventSource`
 * (the console's stream cookie authenticates it). Drawn with lightweight-charts. Prices are the
 * API's exact rationals (quote base units per base unit) shifted by the decimals difference and
 * turned into doubles only here, for plotting.
 */
import { type CandlestickData, CandlestickSeries, createChart, type UTCTimestamp } from 'lightweight-charts';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ratioToNumber } from './format.js';

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

export function CandleChart(p: {
  chain: string;
  /** `/stream/candles` selector, e.g. `pool:0x…:1m` or `token:0x…:1s:0x<quote>`. */
  select: string;
  /** Decimal shift (base decimals − quote decimals) applied to prices. */
  shift: number;
  /** Candles before the stream starts (oldest first). */
  history(): Promise<CandleRow[]>;
  /** Renews the stream cookie (after the stream was refused). */
  renew(): Promise<unknown>;
}) {
  const el = useRef<HTMLDivElement>(null);
  const [state, setState] = useState('connecting');
  const [live, setLive] = useState(0);
  const [bars, setBars] = useState(0);
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
    let last = 0;
    const redraw = () => {
      const all = [...byTime.values()].sort((a, b) => a.time - b.time);
      series.setData(all);
      last = all.length ? all[all.length - 1].time : 0;
      setBars(all.length);
    };
    const put = (c: CandleRow) => {
      const b = toBar(c, p.shift);
      if (!Number.isFinite(b.open)) return;
      byTime.set(c.t, b);
      if (c.t >= last) {
        series.update(b);
        last = c.t;
        setBars(byTime.size);
      } else redraw();
    };
    let stopped = false;
    p.history().then(
      (rows) => {
        if (stopped) return;
        for (const r of rows) byTime.set(r.t, toBar(r, p.shift));
        redraw();
        chart.timeScale().fitContent();
      },
      () => undefined,
    );
    let es: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let backoff = 2000;
    const connect = () => {
      es = new EventSource(
        `/index/v1/${encodeURIComponent(p.chain)}/stream/candles?select=${encodeURIComponent(p.select)}`,
      );
      es.onopen = () => {
        backoff = 2000;
        setState('live');
      };
      const on = (isLive: boolean) => (ev: MessageEvent) => {
        const d = JSON.parse(ev.data) as { candle: CandleRow | null };
        if (!d.candle) return;
        put(d.candle);
        // A live update: a traded bucket changed or closed after the snapshot.
        if (isLive) setLive((n) => n + 1);
      };
      es.addEventListener('snapshot', on(false));
      es.addEventListener('update', on(true));
      es.addEventListener('close', on(true));
      es.onerror = () => {
        if (es?.readyState !== EventSource.CLOSED) return setState('reconnecting');
        // Refused (session expired, or no stream scope): renew, then reconnect with backoff.
        setState('stream refused; renewing session');
        retry = setTimeout(() => {
          if (stopped) return;
          p.renew().then(
            () => !stopped && connect(),
            (e: Error) => setState(`no live stream: ${e.message}`),
          );
        }, backoff);
        backoff = Math.min(backoff * 2, 30_000);
      };
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      es?.close();
      chart.remove();
    };
  }, [p.chain, p.select, p.shift]);
  return (
    <div class="chart" data-testid="candles" data-live-updates={live} data-bars={bars} data-state={state}>
      <div class="chart-status">
        <span class={`dot ${state === 'live' ? 'on' : ''}`} /> {p.select} — {state}, {live} live updates,{' '}
        {bars} candles
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
