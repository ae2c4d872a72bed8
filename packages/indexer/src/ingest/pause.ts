/**
 * A loop's pauses that a stop can cut short: `pause(ms)` resolves after `ms` milliseconds, or at
 * once when `wake()` is called meanwhile (a shutdown must not wait out a retry backoff).
 */
export interface Pauses {
  /** Resolves after `ms` milliseconds, or earlier on {@link wake}. */
  pause(ms: number): Promise<void>;
  /** Ends the pause in progress now (no effect when none is). */
  wake(): void;
}

/** Pauses for one loop (one pause at a time). */
export function createPauses(): Pauses {
  let end: (() => void) | null = null;
  return {
    pause: (ms) =>
      new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          end = null;
          resolve();
        }, ms);
        end = () => {
          clearTimeout(t);
          end = null;
          resolve();
        };
      }),
    wake: () => end?.(),
  };
}
