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
import type { Logger } from 'pino';
import { createClient, webSocket } from 'viem';

export interface HeadWatcher {
  /** Resolves at the next newHeads notification or after `ms`, whichever comes first. */
  wait(ms: number): Promise<void>;
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

/**
 * Watches `wsUrl` for newHeads (null: polling only, {@link HeadWatcher.wait} is a plain sleep).
 * Never throws; connection trouble is logged (info on the first failure of an outage, warn when a
 * live subscription drops) and retried with backoff.
 */
export function watchHeads(wsUrl: string | null, log: Logger): HeadWatcher {
  let wake: (() => void) | null = null;
  let live = false;
  let stopped = false;
  let attempt = 0;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | null = null;
  /** Tears down the current client (subscription and socket), if any. */
  let teardown: (() => void) | null = null;
  const safeUrl = wsUrl?.replace(/\/\/[^@/]*@/, '//***@');

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
    // A fresh key per attempt: viem caches socket clients by key, and a dropped one stays cached.
    const transport = webSocket(wsUrl, {
      key: `heads-${++attempt}`,
      retryCount: 0,
      timeout: 5_000,
      reconnect: false,
    });
    const client = createClient({ transport });
    let closeSocket: (() => void) | null = null;
    try {
      const rpcClient = await client.transport.getRpcClient();
      closeSocket = () => rpcClient.close();
      const sub = await client.transport.subscribe({
        params: ['newHeads'],
        onData: () => {
          const w = wake;
          wake = null;
          w?.();
        },
        onError: (err: Error) => {
          if (!live) return;
          live = false;
          log.warn(
            { err: err.message?.split('\n')[0] },
            'newHeads subscription lost; polling continues, resubscribing',
          );
          retry();
        },
      });
      teardown = () => {
        live = false;
        void sub.unsubscribe().catch(() => {});
        closeSocket?.();
      };
      if (stopped) {
        teardown();
        return;
      }
      live = true;
      failures = 0;
      log.info({ wsUrl: safeUrl }, 'following heads by newHeads subscription (polling kept as a safety net)');
    } catch (err) {
      try {
        closeSocket?.();
      } catch {}
      if (failures === 0)
        log.info(
          { err: (err as Error).message?.split('\n')[0] },
          'node offers no newHeads over WebSocket now; following by polling (retrying in the background)',
        );
      retry();
    }
  };

  void connect();

  return {
    wait(ms) {
      return new Promise((resolve) => {
        const t = setTimeout(() => {
          wake = null;
          resolve();
        }, ms);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    },
    subscribed: () => live,
    stop() {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = null;
      teardown?.();
      teardown = null;
      wake?.();
    },
  };
}
