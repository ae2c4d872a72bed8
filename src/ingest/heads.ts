/**
 * Head notifications: `eth_subscribe("newHeads")` over WebSocket when the node offers it (viem's
 * webSocket transport), so live following wakes as soon as a block exists instead of on the next
 * poll. Polling stays on as the safety net; a failing subscription falls back to polling alone.
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

export function watchHeads(wsUrl: string | null, log: Logger): HeadWatcher {
  let wake: (() => void) | null = null;
  let live = false;
  let unsubscribe: (() => Promise<unknown>) | null = null;
  let stopped = false;
  if (wsUrl) {
    (async () => {
      try {
        const client = createClient({
          transport: webSocket(wsUrl, {
            retryCount: 0,
            timeout: 5_000,
            reconnect: { attempts: 1_000_000, delay: 2_000 },
          }),
        });
        const sub = await client.transport.subscribe({
          params: ['newHeads'],
          onData: () => {
            live = true;
            const w = wake;
            wake = null;
            w?.();
          },
          onError: (err: Error) => {
            live = false;
            log.warn({ err: err.message }, 'newHeads subscription error; polling continues');
          },
        });
        if (stopped) await sub.unsubscribe();
        else {
          unsubscribe = sub.unsubscribe;
          live = true;
          log.info(
            { wsUrl: wsUrl.replace(/\/\/[^@/]*@/, '//***@') },
            'following heads by newHeads subscription (polling kept as a safety net)',
          );
        }
      } catch (err) {
        log.info(
          { err: (err as Error).message?.split('\n')[0] },
          'node offers no newHeads over WebSocket; following by polling',
        );
      }
    })();
  }
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
      void unsubscribe?.().catch(() => {});
      wake?.();
    },
  };
}
