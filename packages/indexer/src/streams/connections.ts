/**
 * Open multiplexed connections (/stream/subscribe) whose candle selection can be replaced while
 * they run. SSE is one-way, so a mutation arrives as a separate request naming the connection:
 * `GET /stream/subscribe?connection=<connectionId>&select=candles:…` with the same API key. The
 * id is announced in the stream's `connected` frame; it is 128 random bits (unguessable), bound to
 * the key that opened the connection, and forgotten when the connection closes.
 */
import { randomBytes } from 'node:crypto';
import type { CandleRun, CandleSelectionChange, Series } from './candles.js';

/** Connection ids: 32 lowercase hex digits. */
export const CONNECTION_ID = /^[0-9a-f]{32}$/;

export interface MutableConnection {
  readonly id: string;
  /** Name of the key that opened the connection (only it may mutate). */
  readonly owner: string;
  /** Mutations applied so far (the `revision` announced in band and in the answer). */
  revision: number;
  candles: CandleRun;
}

export interface ConnectionRegistry {
  /** A fresh connection id (announced in `connected` before the connection is registered). */
  newId(): string;
  /** Registers a running connection under `id`; returns the function that forgets it. */
  register(id: string, owner: string, candles: CandleRun): () => void;
  /** The open connection with this id, or null (unknown or closed). */
  get(id: string): MutableConnection | null;
  /**
   * Replaces the candle selection of `c` and bumps its revision; the stream receives
   * `selection_changed` (with `connectionId` and `revision`) then the added series' snapshots.
   */
  replaceCandles(c: MutableConnection, series: Series[]): CandleSelectionChange & { revision: number };
  size(): number;
}

export function createConnectionRegistry(): ConnectionRegistry {
  const open = new Map<string, MutableConnection>();
  return {
    newId() {
      let id = randomBytes(16).toString('hex');
      while (open.has(id)) id = randomBytes(16).toString('hex');
      return id;
    },
    register(id, owner, candles) {
      open.set(id, { id, owner, revision: 0, candles });
      return () => {
        open.delete(id);
      };
    },
    get: (id) => open.get(id) ?? null,
    replaceCandles(c, series) {
      const revision = c.revision + 1;
      c.revision = revision;
      const change = c.candles.replace(series, { connectionId: c.id, revision });
      return { ...change, revision };
    },
    size: () => open.size,
  };
}
