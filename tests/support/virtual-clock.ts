// A virtual clock for the sync engine's schedule (EngineOptions.timers, D255): time moves only when the
// test fires the next armed timer, so a minute-long outage runs at once and nothing asserts on timing.

import type { Timers } from '../../electron/sync/backoff.ts';

export class VirtualClock implements Timers {
  t = 1_000_000;
  private q: { at: number; fn: () => void }[] = [];
  now(): number { return this.t; }
  set(fn: () => void, ms: number): unknown { const h = { at: this.t + ms, fn }; this.q.push(h); return h; }
  clear(h: unknown): void { this.q = this.q.filter((x) => x !== h); }
  /** Due times from now of the armed timers. */
  pending(): number[] { return this.q.map((x) => x.at - this.t).sort((a, b) => a - b); }
  /** Move to the next timer and run it (the engine's attempt); its delay from now. */
  fire(): number {
    const next = [...this.q].sort((a, b) => a.at - b.at)[0];
    if (!next) throw new Error('no timer armed');
    this.q = this.q.filter((x) => x !== next);
    const d = next.at - this.t;
    this.t = next.at;
    next.fn();
    return d;
  }
}
