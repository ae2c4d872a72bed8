/**
 * Hostile HTTP clients over raw TCP, for the bounds of the HTTP core (issue 38): a large body
 * written as fast as the server's socket takes it, without waiting for an answer; and headers or
 * a body trickled a few bytes at a time. Each measures what the server did (answer, close, time).
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';

export const MiB = 1024 * 1024;

/** Resident set size of a process, bytes (Linux /proc; this process when pid is omitted). */
export function rssOf(pid?: number): number {
  if (pid === undefined) return process.memoryUsage().rss;
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) * 1024;
}

/** What {@link flood} saw. */
export interface FloodResult {
  /** Body bytes the server's socket took. */
  written: number;
  /** The response's status line (`HTTP/1.1 404 Not Found`), or '' when none came. */
  statusLine: string;
  /** The response's header block, lower-cased. */
  head: string;
  /** The server closed (or reset) the connection. */
  closed: boolean;
  /** Writing stopped because the server stopped reading (no `drain` within `stallMs`). */
  stalled: boolean;
  /** Largest growth of `rss()` over its value at the start, bytes, sampled every MiB written. */
  peakGrowth: number;
  /** The socket, still open unless `closed` (the caller ends it: held memory stays measurable). */
  socket: Socket;
}

/**
 * Sends `method path` with a chunked body of `total` bytes (1 MiB chunks) right after the head,
 * each chunk as soon as the socket takes it, never waiting for the answer. Resolves once the
 * server closed the connection; or stopped reading for `stallMs` (1.5 s) — without an answer at
 * once, after one as soon as the server closes (at most `closeWaitMs`, 5 s, later); or took the
 * whole body (then `settleMs`, 0.5 s, later); or as soon as `rss()` grew past `stopGrowth` (a
 * run that holds the body stops early instead of exhausting the machine).
 */
export function flood(o: {
  port: number;
  method: string;
  path: string;
  headers?: Record<string, string>;
  total: number;
  rss: () => number;
  stopGrowth: number;
  stallMs?: number;
  settleMs?: number;
  closeWaitMs?: number;
}): Promise<FloodResult> {
  const stallMs = o.stallMs ?? 1_500;
  const rss0 = o.rss();
  const chunk = Buffer.alloc(MiB, 0x61);
  const frameHead = Buffer.from(`${MiB.toString(16)}\r\n`);
  const crlf = Buffer.from('\r\n');
  return new Promise((resolve) => {
    const s = connect(o.port, '127.0.0.1');
    let answer = '';
    let written = 0;
    let peakGrowth = 0;
    let closed = false;
    let done = false;
    let stallTimer: NodeJS.Timeout | null = null;
    const finish = (stalled: boolean) => {
      if (done) return;
      done = true;
      if (stallTimer) clearTimeout(stallTimer);
      const headEnd = answer.indexOf('\r\n\r\n');
      const head = (headEnd < 0 ? answer : answer.slice(0, headEnd)).toLowerCase();
      resolve({
        written,
        statusLine: answer.split('\r\n')[0] ?? '',
        head,
        closed,
        stalled,
        peakGrowth,
        socket: s,
      });
    };
    s.on('data', (d: Buffer) => {
      if (answer.length < 4096) answer += d.toString('latin1');
    });
    s.on('error', () => undefined);
    s.on('close', () => {
      closed = true;
      setTimeout(() => finish(false), 20); // let a last answer byte land first
    });
    const headers = { host: 'localhost', 'transfer-encoding': 'chunked', ...o.headers };
    s.write(
      `${o.method} ${o.path} HTTP/1.1\r\n${Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('')}\r\n`,
    );
    /** The server stopped reading: once it has answered, wait (at most `closeWaitMs`) for its close. */
    const stalled = () => {
      if (!answer.includes('\r\n\r\n')) return finish(true);
      setTimeout(() => finish(true), o.closeWaitMs ?? 5_000);
    };
    const pump = () => {
      if (stallTimer) clearTimeout(stallTimer);
      stallTimer = null;
      while (!done && !closed && written < o.total) {
        s.write(frameHead);
        s.write(chunk);
        const more = s.write(crlf);
        written += MiB;
        const growth = o.rss() - rss0;
        if (growth > peakGrowth) peakGrowth = growth;
        if (growth > o.stopGrowth) return finish(false);
        if (!more) {
          s.once('drain', pump);
          stallTimer = setTimeout(stalled, stallMs);
          return;
        }
      }
      if (!done && !closed && written >= o.total) {
        s.write('0\r\n\r\n');
        setTimeout(() => {
          const growth = o.rss() - rss0;
          if (growth > peakGrowth) peakGrowth = growth;
          finish(false);
        }, o.settleMs ?? 500);
      }
    };
    pump();
  });
}

/** What {@link trickle} saw: when the server answered or closed, and what it answered. */
export interface TrickleResult {
  /** Milliseconds from the first byte sent to the server's close. */
  closedAfterMs: number;
  statusLine: string;
}

/**
 * Sends `first`, then `drip` every `everyMs`, until the server closes the connection or
 * `giveUpMs` passed (then the close time is `Infinity`).
 */
export function trickle(o: {
  port: number;
  first: string;
  drip: string;
  everyMs: number;
  giveUpMs: number;
}): Promise<TrickleResult> {
  return new Promise((resolve) => {
    const s = connect(o.port, '127.0.0.1');
    const t0 = Date.now();
    let answer = '';
    let over = false;
    const iv = setInterval(() => s.write(o.drip), o.everyMs);
    const done = (closedAfterMs: number) => {
      if (over) return;
      over = true;
      clearInterval(iv);
      clearTimeout(giveUp);
      s.destroy();
      resolve({ closedAfterMs, statusLine: answer.split('\r\n')[0] ?? '' });
    };
    const giveUp = setTimeout(() => done(Number.POSITIVE_INFINITY), o.giveUpMs);
    s.on('data', (d: Buffer) => {
      answer += d.toString('latin1');
    });
    s.on('error', () => undefined);
    s.on('close', () => done(Date.now() - t0));
    s.write(o.first);
  });
}
