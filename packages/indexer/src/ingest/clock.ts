/**
 * Thread-time accounting of one batch's build, with pauses that give the thread back (to reads on
 * a serving thread, to the commit relay on the engine thread) once a slice is over the thread's
 * turn budget (storage/turns.ts).
 */
import { nextSlice, turnBudget } from '../storage/index.js';

/** A build's time by step, milliseconds, pauses and node awaits excluded. */
export class Clock {
  readonly stages: Record<string, number> = {};
  /** Thread time spent so far, ms. */
  busy = 0;
  private t = performance.now();
  private slice = this.t;
  private stage = 0;
  /** Starts (again) counting from now: time spent awaiting the node in `prepare` is not build time. */
  resume(): void {
    this.t = this.slice = performance.now();
  }
  /** Gives the thread back when the current slice is over budget; pauses are not stage time. */
  async pause(): Promise<void> {
    const now = performance.now();
    if (now - this.slice <= turnBudget()) return;
    this.stage += now - this.t;
    await nextSlice();
    this.t = this.slice = performance.now();
  }
  /** Closes step `name` (its time is added to {@link stages}) and pauses if the slice is over. */
  async lap(name: string): Promise<void> {
    const now = performance.now();
    this.stage += now - this.t;
    this.stages[name] = (this.stages[name] ?? 0) + Math.round(this.stage * 10) / 10;
    this.busy += this.stage;
    this.stage = 0;
    this.t = now;
    await this.pause();
  }
}
