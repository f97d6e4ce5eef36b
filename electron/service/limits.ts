// Brute-force protection and the per-person request rate of the team server (D62, D63).
// Counters live in the database (store/queries/sync.ts), so several processes behind one
// balancer count together; nothing is kept at module level. Each counter is a GCRA bucket:
// one timestamp per subject, moved by one atomic statement.
//
// Authentication failures count against the client address and against the user name:
//   - an address over `addrSlow` failures is slowed down (a growing delay before the answer),
//     over `addrBlock` it gets 429 with Retry-After, whatever the credentials;
//   - a user name over `userBlock` failures gets 429 from every address where that person has
//     not signed in successfully in the last `knownDays` days. The person keeps working from
//     their usual machines while someone guesses their password from elsewhere, and a new machine
//     waits at most one `userStepMs` after the guessing stops.
// Buckets drain by themselves (one failure per step), so nobody is locked out for long.

import type { Queryable } from '../store/types.ts';
import { admitRequest, bumpTat, knownAddress, rateTat, readTat, rememberAddress } from '../store/queries/sync.ts';
import { ApiError } from './context.ts';
import type { AuthGuard } from './auth.ts';

export interface GuardOptions {
  readonly addrStepMs?: number;
  readonly addrSlow?: number;
  readonly addrBlock?: number;
  readonly userStepMs?: number;
  readonly userBlock?: number;
  readonly knownDays?: number;
  readonly maxDelayMs?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

const DAY = 86_400_000;
const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const retryAfter = (ms: number): string => String(Math.max(1, Math.ceil(ms / 1000)));

export const tooManyFailures = (ms: number): ApiError =>
  new ApiError(429, ['Too many failed sign-in attempts: try again later'], { 'Retry-After': retryAfter(ms) });

export class AuthLimiter implements AuthGuard {
  private readonly db: Queryable;
  private readonly o: Required<GuardOptions>;
  constructor(db: Queryable, o: GuardOptions = {}) {
    this.db = db;
    this.o = {
      addrStepMs: 6_000, addrSlow: 5, addrBlock: 20, userStepMs: 30_000, userBlock: 10, knownDays: 30, maxDelayMs: 2_000,
      now: Date.now, sleep: wait, ...o,
    };
  }

  async before(user: string, addr: string): Promise<void> {
    const o = this.o, now = o.now();
    const addrAhead = (await readTat(this.db, 'addr', addr)) - now;
    if (addrAhead >= o.addrBlock * o.addrStepMs) throw tooManyFailures(addrAhead - o.addrBlock * o.addrStepMs + 1);
    const userAhead = (await readTat(this.db, 'user', user)) - now;
    if (userAhead >= o.userBlock * o.userStepMs && !(await knownAddress(this.db, user, addr, now - o.knownDays * DAY))) {
      throw tooManyFailures(userAhead - o.userBlock * o.userStepMs + 1);
    }
    const level = Math.floor(addrAhead / o.addrStepMs);
    if (level >= o.addrSlow) await o.sleep(Math.min(o.maxDelayMs, 250 * 2 ** (level - o.addrSlow)));
  }

  async failed(user: string, addr: string): Promise<void> {
    const now = this.o.now();
    await bumpTat(this.db, 'addr', addr, now, this.o.addrStepMs);
    await bumpTat(this.db, 'user', user, now, this.o.userStepMs);
  }

  async succeeded(user: string, addr: string): Promise<void> {
    await rememberAddress(this.db, user, addr, this.o.now());
  }
}

export interface RateOptions {
  /** Requests per minute per person (sustained). */
  readonly perMinute: number;
  /** Requests a person may make at once before the rate applies (default: one minute's worth). */
  readonly burst?: number;
  readonly now?: () => number;
}

/** The per-person request rate (off unless configured: the local service has none, contract §7). */
export class RateLimiter {
  private readonly db: Queryable;
  private readonly step: number;
  private readonly burst: number;
  private readonly now: () => number;
  constructor(db: Queryable, o: RateOptions) {
    this.db = db;
    this.step = 60_000 / o.perMinute;
    this.burst = Math.max(1, o.burst ?? o.perMinute);
    this.now = o.now ?? Date.now;
  }

  async admit(personId: number): Promise<void> {
    const now = this.now();
    if (await admitRequest(this.db, personId, now, this.step, this.burst)) return;
    const tat = await rateTat(this.db, personId);
    throw new ApiError(429, ['Too many requests: slow down'], { 'Retry-After': retryAfter(tat + this.step - now - this.burst * this.step) });
  }
}
