// When the sync engine tries again after a failure (issue #25, D255): exponential backoff with full
// jitter, capped, honouring the remote's Retry-After, reset by a success. Pure: the engine passes its
// clock and random source (tests and bench:sync run the real schedule on an injected clock).

/** The engine's clock and timers (real ones by default; tests and the bench inject a virtual clock). */
export interface Timers {
  now(): number;
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const REAL_TIMERS: Timers = {
  now: () => Date.now(),
  set: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface BackoffPolicy {
  /** The first retry comes after 1–2 × this. */
  readonly baseMs: number;
  /** No retry waits longer than this (unless the remote's Retry-After asks for more). */
  readonly capMs: number;
  /** A Retry-After longer than this is read as this (a remote cannot stop a replica for days). */
  readonly maxRetryAfterMs: number;
}

export const BACKOFF: BackoffPolicy = { baseMs: 1000, capMs: 300_000, maxRetryAfterMs: 3_600_000 };

/**
 * The wait after `failures` failures in a row (1 = the first): uniform in [base, min(cap, base·2^failures)]
 * ("full jitter" above a floor of `base`, so that no retry is immediate).
 */
export function backoffDelay(failures: number, random: () => number, p: BackoffPolicy = BACKOFF): number {
  const ceiling = Math.min(p.capMs, p.baseMs * 2 ** Math.min(Math.max(1, failures), 40));
  const r = Math.min(1, Math.max(0, random()));
  return Math.round(p.baseMs + r * Math.max(0, ceiling - p.baseMs));
}

/**
 * A Retry-After header in ms from now: seconds, or an HTTP date read against the remote's own clock
 * (its Date header, `remoteNow`) when it sent one, else ours; null when absent or unreadable.
 */
export function retryAfterMs(value: string | null | undefined, remoteNow: number | null, localNow: number, p: BackoffPolicy = BACKOFF): number | null {
  const v = (value ?? '').trim();
  if (!v) return null;
  let ms: number;
  if (/^\d+$/.test(v)) ms = Number(v) * 1000;
  else {
    const t = Date.parse(v);
    if (Number.isNaN(t)) return null;
    ms = t - (remoteNow ?? localNow);
  }
  return Math.min(p.maxRetryAfterMs, Math.max(0, ms));
}

/** The wait before the next attempt: the backoff, but never before the remote's Retry-After. */
export function nextDelay(failures: number, retryAfter: number | null, random: () => number, p: BackoffPolicy = BACKOFF): number {
  return Math.max(backoffDelay(failures, random, p), retryAfter ?? 0);
}
