// The schedule (D255, D317): one timer at a time (a sync soon after a write, the interval's, or a retry
// after a failure) and the backoff of failures in a row. The state is a plain object the engine holds
// and passes in; the clock, the jitter and the policy are given (a virtual clock in tests and the bench).
// Input: events (success, failure, a write, start); output: the timer armed, the next attempt's time.

import { RemoteError } from './remote.ts';
import { SyncError } from '../service/sync.ts';
import { BACKOFF, nextDelay, retryAfterMs, type BackoffPolicy, type Timers } from './backoff.ts';
import { Backoff } from './phase.ts';

export type AttemptKind = 'soon' | 'interval' | 'retry';

export interface ScheduleState {
  /** The one scheduled attempt. */
  next: { handle: unknown; at: number; kind: AttemptKind } | null;
  /** Failed attempts in a row (syncs, or background connects): the backoff's exponent. */
  failures: number;
  /** When the retry after the last failure is due (the timers' clock), 0: none. */
  retryAt: number;
  /** Stopped: nothing is armed until started again. */
  stopped: boolean;
}

export interface ScheduleEnv {
  readonly timers: Timers;
  /** The jitter's random source in [0, 1). */
  readonly random: () => number;
  readonly backoff?: BackoffPolicy;
  /** What an armed timer does when it fires (the engine: a sync, or the background connect). */
  readonly fire: () => void;
}

export const newSchedule = (): ScheduleState => ({ next: null, failures: 0, retryAt: 0, stopped: false });

/**
 * Arm the one timer `ms` from now. A retry replaces whatever was armed; a sync soon or the interval's
 * keeps an earlier timer (a write during a backoff waits for the retry: the remote is not hammered).
 */
export function arm(s: ScheduleState, env: ScheduleEnv, ms: number, kind: AttemptKind): void {
  if (s.stopped) return;
  const wait = Math.max(0, ms);
  const at = env.timers.now() + wait;
  if (s.next) {
    if (kind !== 'retry' && s.next.at <= at) return;
    env.timers.clear(s.next.handle);
  }
  const handle = env.timers.set(() => {
    s.next = null;
    env.fire();
  }, wait);
  s.next = { handle, at, kind };
}

export function disarm(s: ScheduleState, env: Pick<ScheduleEnv, 'timers'>): void {
  if (s.next) env.timers.clear(s.next.handle);
  s.next = null;
}

/** The remote's own word on when to come back, from a failure (a Backoff, a 429/503, a refused connect), or null. */
export function retryAfterOf(e: unknown, backoff?: BackoffPolicy): number | null {
  return e instanceof Backoff ? e.retryAfterMs
    : e instanceof RemoteError && (e.status === 429 || e.status === 503) ? retryAfterMs(e.retryAfter, e.remoteNow, Date.now(), backoff)
      : e instanceof SyncError ? e.retryAfterMs : null;
}

/** A success: the backoff resets, a pending retry goes, and the interval (`intervalMs`, 0: none) is armed. */
export function succeeded(s: ScheduleState, env: ScheduleEnv, intervalMs: number): void {
  s.failures = 0;
  s.retryAt = 0;
  if (s.next?.kind === 'retry') disarm(s, env);
  if (intervalMs > 0) arm(s, env, intervalMs, 'interval');
}

/** A failure: one more in a row, and the retry armed after the backoff (never before the remote's Retry-After). Returns the delay. */
export function failed(s: ScheduleState, env: ScheduleEnv, e: unknown): number {
  const now = env.timers.now();
  s.failures++;
  const delay = nextDelay(s.failures, retryAfterOf(e, env.backoff), env.random, env.backoff ?? BACKOFF);
  s.retryAt = now + delay;
  arm(s, env, delay, 'retry');
  return delay;
}

/** How long until the retry after a failure is due (0: none waiting). */
export const retryIn = (s: ScheduleState, env: Pick<ScheduleEnv, 'timers'>): number => Math.max(0, s.retryAt - env.timers.now());

/** A local write (or a change there): a sync `debounceMs` from now, never before a retry is due. */
export function soon(s: ScheduleState, env: ScheduleEnv, debounceMs: number): void {
  arm(s, env, Math.max(debounceMs, s.retryAt - env.timers.now()), 'soon');
}

/** A fresh start of attempts (a connect): no failure counted, no retry due. */
export function reset(s: ScheduleState): void {
  s.failures = 0;
  s.retryAt = 0;
}
