/**
 * Head notifications: `eth_subscribe("newHeads")` over WebSocket when the node offers it (viem's
 * webSocket transport), so live following wakes as soon as a block exists instead of on the next
 * poll. Polling stays on as the safety net; a node without WebSocket, or a subscription that
 * drops, falls back to polling alone.
 *
 * The reconnect loop is ours, not viem's: viem's own (`reconnect: {attempts}`) keeps retrying a
 * socket that never opened and prints every failure to stderr (`console.error`), every 2 s, for
 * ever, against any HTTP-only node. Here each attempt is a fresh client with viem's reconnect off;
 * a failure closes it and the next attempt waits 2 s, doubling to {@link MAX_RETRY_MS}, logged once
 * per outage.
 */
import { redact } from '@chain-indexer/platform/security';
import type { Logger } from 'pino';
import { createClient, webSocket } from 'viem';
import { createPauses } from './pause.js';

/** A head the node announced by newHeads: its number and hash, and when it arrived (performance.now). */
export interface NotifiedHead {
  number: number;
  hash: string;
  at: number;
}

export interface HeadWatcher {
  /**
   * Resolves at the next newHeads notification or after `ms`, whichever comes first; at once when
   * a notification not yet {@link take}n arrived while nobody waited (the follower was busy).
   */
  wait(ms: number): Promise<void>;
  /**
   * The newest head a newHeads notification carried that has not been taken yet (null: none since
   * the last take). The follower acts on it instead of asking the node for its head again.
   */
  take(): NotifiedHead | null;
  /** Whether a subscription is live. */
  subscribed(): boolean;
  stop(): void;
}

/** ws:// URL of an http(s):// JSON-RPC URL (same host and path). */
export const wsUrlOf = (httpUrl: string) => httpUrl.replace(/^http/, 'ws');

/** First wait before a new subscription attempt, milliseconds; doubles per failure. */
const FIRST_RETRY_MS = 2_000;
/** Longest wait between subscription attempts, milliseconds. */
const MAX_RETRY_MS = 60_000;
/** Time allowed for the socket to open and eth_subscribe to answer, milliseconds. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Watches `wsUrl` for newHeads (null: polling only, {@link HeadWatcher.wait} is a plain sleep).
 * Never throws; connection trouble is logged (info on the first failure of an outage, warn when a
 * live subscription drops) and retried with backoff.
 */
export function watchHeads(wsUrl: string | null, log: Logger): HeadWatcher {
  // The follower's wait between polls, cut short by a new head or a stop.
  const pauses = createPauses();
  let notified: NotifiedHead | null = null;
  let live = false;
  let stopped = false;
  let attempt = 0;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | null = null;
  /** Tears down the current client (subscription and socket), if any. */
  let teardown: (() => void) | null = null;
  const safeUrl = wsUrl ? redact(wsUrl) : null;

  const retry = () => {
    teardown?.();
    teardown = null;
    if (stopped || retryTimer) return;
    const ms = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(failures, 10));
    failures++;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void connect();
    }, ms);
    retryTimer.unref();
  };

  const connect = async (): Promise<void> => {
    if (stopped || !wsUrl) return;
    const mine = ++attempt;
    // viem caches socket clients per URL (the transport key is not part of it) and a dropped one
    // stays cached until closed: every path below closes its client before the next attempt.
    const transport = webSocket(wsUrl, { retryCount: 0, timeout: 5_000, reconnect: false });
    const client = createClient({ transport });
    let closeSocket: (() => void) | null = null;
    let timedOut = false;
    // Opening the socket and the eth_subscribe answer have no time limit of their own (viem's
    // timeout covers requests): a node that accepts and never answers must not stall the retries.
    const guard = setTimeout(() => {
      timedOut = true;
      if (failures === 0) log.info('newHeads subscription did not open in time; following by polling');
      retry();
    }, CONNECT_TIMEOUT_MS);
    guard.unref();
    try {
      const rpcClient = await client.transport.getRpcClient();
      closeSocket = () => rpcClient.close();
      if (stopped || timedOut || mine !== attempt) {
        closeSocket();
        return;
      }
      const sub = await client.transport.subscribe({
        params: ['newHeads'],
        onData: (data: { result?: { number?: string; hash?: string } }) => {
          // The payload is the new header: kept so the follower needs no eth_blockNumber for it.
          const h = data?.result;
          const n = h?.number ? Number.parseInt(h.number, 16) : Number.NaN;
          if (Number.isSafeInteger(n) && typeof h?.hash === 'string' && (!notified || n >= notified.number))
            notified = { number: n, hash: h.hash, at: performance.now() };
          pauses.wake();
        },
        onError: (err: Error) => {
          if (!live || mine !== attempt) return;
          live = false;
          log.warn(
            { err: String(err?.message ?? err).split('\n')[0] },
            'newHeads subscription lost; polling continues, resubscribing',
          );
          retry();
        },
      });
      clearTimeout(guard);
      const close = () => {
        void sub.unsubscribe().catch(() => {});
        closeSocket?.();
      };
      if (stopped || timedOut || mine !== attempt) {
        close();
        return;
      }
      teardown = () => {
        live = false;
        close();
      };
      live = true;
      failures = 0;
      log.info({ wsUrl: safeUrl }, 'following heads by newHeads subscription (polling kept as a safety net)');
    } catch (err) {
      clearTimeout(guard);
      try {
        closeSocket?.();
      } catch {}
      if (timedOut || mine !== attempt) return; // the guard already scheduled the next attempt
      const first = failures === 0;
      retry();
      if (first)
        log.info(
          { err: String((err as Error)?.message ?? err).split('\n')[0] },
          'node offers no newHeads over WebSocket now; following by polling (retrying in the background)',
        );
    }
  };

  void connect();

  return {
    wait(ms) {
      // A head announced while the follower was busy (not waiting) and not taken yet: no wait.
      if (notified) return Promise.resolve();
      return pauses.pause(ms);
    },
    take() {
      const h = notified;
      notified = null;
      return h;
    },
    subscribed: () => live,
    stop() {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = null;
      teardown?.();
      teardown = null;
      pauses.wake();
    },
  };
}
