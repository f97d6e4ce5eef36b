// The schedule alone (electron/sync/schedule.ts, D255, D317) on a virtual clock: the backoff of failures
// in a row, the remote's Retry-After, a write during a backoff that waits for the retry, the interval
// after a success, and nothing armed once stopped. No timing asserts: time moves only when a timer fires.

import { describe, expect, it } from 'vitest';
import { arm, failed, newSchedule, retryIn, soon, succeeded, type ScheduleEnv } from '../../../electron/sync/schedule.ts';
import { Backoff } from '../../../electron/sync/phase.ts';
import { RemoteError, RemoteUnreachable } from '../../../electron/sync/remote.ts';
import { VirtualClock } from '../../support/virtual-clock.ts';

const POLICY = { baseMs: 1000, capMs: 60_000, maxRetryAfterMs: 600_000 };

function setup(random = 1) {
  const clock = new VirtualClock();
  let fired = 0;
  const env: ScheduleEnv = { timers: clock, random: () => random, backoff: POLICY, fire: () => { fired++; } };
  return { clock, env, s: newSchedule(), fired: () => fired };
}

describe('schedule phase', () => {
  it('backs off exponentially (full jitter, capped) on failures in a row, and resets on a success', async () => {
    const { clock, env, s, fired } = setup(1);
    const delays: number[] = [];
    for (let k = 0; k < 8; k++) {
      delays.push(failed(s, env, new RemoteUnreachable('down')));
      expect(clock.pending()).toEqual([delays[k]]); // one timer at a time: the retry replaced the last
      expect(clock.fire()).toBe(delays[k]);
    }
    expect(delays).toEqual([2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000]);
    expect(fired()).toBe(8);
    expect(s.failures).toBe(8);
    succeeded(s, env, 30_000);
    expect(s.failures).toBe(0);
    expect(retryIn(s, env)).toBe(0);
    expect(clock.pending()).toEqual([30_000]);
    expect(failed(s, env, new RemoteUnreachable('down'))).toBe(2000); // the exponent starts again
  });

  it('never retries before the remote\'s Retry-After, a Backoff\'s or a 503\'s', () => {
    const { env, s } = setup(0);
    expect(failed(s, env, new Backoff('busy', false, 45_000))).toBe(45_000);
    expect(failed(s, env, new RemoteError(503, 'busy', '120', null))).toBe(120_000);
    // A 400 is no reason to wait longer: the backoff alone (random 0: the floor).
    expect(failed(s, env, new RemoteError(400, 'bad'))).toBe(1000);
  });

  it('a write during a backoff waits for the retry; without one it syncs after the debounce', () => {
    const { clock, env, s } = setup(0);
    failed(s, env, new RemoteUnreachable('down'));
    clock.t += 200;
    soon(s, env, 250);
    expect(clock.pending()).toEqual([800]); // the retry, not earlier
    clock.fire();
    succeeded(s, env, 0);
    expect(clock.pending()).toEqual([]); // interval 0: on demand only
    soon(s, env, 250);
    expect(clock.pending()).toEqual([250]);
    // The interval's timer never delays an earlier one.
    arm(s, env, 30_000, 'interval');
    expect(clock.pending()).toEqual([250]);
  });

  it('arms nothing once stopped', () => {
    const { clock, env, s } = setup(0);
    s.stopped = true;
    failed(s, env, new RemoteUnreachable('down'));
    soon(s, env, 250);
    succeeded(s, env, 30_000);
    expect(clock.pending()).toEqual([]);
  });
});
