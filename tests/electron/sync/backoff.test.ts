// When a replica tries again (issue #25, D255): exponential backoff with full jitter up to a cap,
// the remote's Retry-After honoured (a date read on the remote's clock), reset by a success, and a
// sync on demand at once. The engine runs its real schedule on a virtual clock: no timing asserts.

import { afterEach, describe, expect, it } from 'vitest';
import { backoffDelay, nextDelay, retryAfterMs } from '../../../electron/sync/backoff.ts';
import { SyncEngine } from '../../../electron/sync/engine.ts';
import { SqliteStore } from '../../../electron/store/sqlite.ts';
import { password, startProxy, startRemote } from '../../support/sync-helpers.ts';
import { VirtualClock } from '../../support/virtual-clock.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => { for (const c of closers.splice(0).reverse()) await c(); });

/** A replica's engine on a virtual clock, connected as ada through a fault proxy to a fresh SQLite remote. */
async function connected(intervalSec: number, random: () => number) {
  const remote = await startRemote({ engine: 'sqlite' });
  closers.push(() => remote.close());
  const proxy = await startProxy(remote.url);
  closers.push(() => proxy.close());
  const clock = new VirtualClock();
  const store = new SqliteStore(':memory:');
  const engine = new SyncEngine({ store, dataDir: null, intervalSec, timeoutMs: 5000, timers: clock, random });
  closers.push(async () => { engine.stop(); await engine.idle(); await store.close(); });
  await engine.connect(proxy.url, { user: 'ada', password: password('ada') });
  return { proxy, clock, engine };
}

describe('backoff delays (pure)', () => {
  it('doubles from 1-2 s up to a cap of 5 minutes, with full jitter above a floor of 1 s', () => {
    const mid = Array.from({ length: 12 }, (_, k) => backoffDelay(k + 1, () => 0.5));
    expect(mid).toEqual([1500, 2500, 4500, 8500, 16500, 32500, 64500, 128500, 150500, 150500, 150500, 150500]);
    expect(backoffDelay(1, () => 0)).toBe(1000);
    expect(backoffDelay(3, () => 0.999999)).toBe(8000);
    expect(backoffDelay(50, () => 0.999999)).toBe(300_000);
    expect(backoffDelay(1e6, () => 1)).toBe(300_000);
  });

  it('Retry-After: seconds, or an HTTP date on the remote\'s clock; capped at an hour; never before it', () => {
    const now = Date.parse('2026-11-28T10:00:00Z');
    expect(retryAfterMs('120', null, now)).toBe(120_000);
    // The remote's clock is an hour ahead: its date 2 minutes after its own Date header means 2 minutes.
    expect(retryAfterMs('Sat, 28 Nov 2026 11:02:00 GMT', now + 3_600_000, now)).toBe(120_000);
    expect(retryAfterMs('Sat, 28 Nov 2026 10:02:00 GMT', null, now)).toBe(120_000);
    expect(retryAfterMs('99999999', null, now)).toBe(3_600_000);
    expect(retryAfterMs('Sat, 28 Nov 2026 09:00:00 GMT', null, now)).toBe(0);
    expect(retryAfterMs('soon', null, now)).toBeNull();
    expect(retryAfterMs(null, null, now)).toBeNull();
    expect(nextDelay(1, 120_000, () => 0.5)).toBe(120_000);
    expect(nextDelay(9, 10_000, () => 0.5)).toBe(150_500);
  });
});

describe('the engine\'s schedule against a remote that is down, busy, then back', () => {
  it('backs off, honours Retry-After on the remote\'s clock, resets on success, and runs at once on demand', async () => {
    const { proxy, clock, engine } = await connected(0, () => 0.5);
    expect(clock.pending()).toEqual([]); // synced; no interval (0): nothing armed

    // Down: each attempt is one request, and the waits grow to the cap.
    proxy.faults.down = true;
    await engine.run().catch(() => undefined);
    expect(engine.failureCount).toBe(1);
    expect((await engine.status()).state).toBe('offline');
    expect((await engine.status()).nextAttemptAt).not.toBeNull();
    const delays: number[] = [];
    for (let k = 0; k < 11; k++) {
      const sent = engine.requests;
      delays.push(clock.fire());
      await engine.idle();
      expect(engine.requests).toBe(sent + 1);
    }
    delays.push(clock.pending()[0]);
    expect(delays).toEqual([1500, 2500, 4500, 8500, 16500, 32500, 64500, 128500, 150500, 150500, 150500, 150500]);
    // A local write during the backoff does not bring the retry forward.
    engine.nudge();
    expect(clock.pending()).toEqual([150_500]);

    // "Sync now": at once, whatever the backoff says (the clock does not move).
    const t = clock.now();
    const sent = engine.requests;
    await engine.run().catch(() => undefined);
    expect(engine.requests).toBe(sent + 1);
    expect(clock.now()).toBe(t);

    // Back: the next sync succeeds and resets the backoff; nothing stays armed.
    proxy.faults.down = false;
    await engine.run();
    expect(engine.failureCount).toBe(0);
    expect(engine.retryInMs).toBe(0);
    expect(clock.pending()).toEqual([]);
    expect((await engine.status())).toMatchObject({ state: 'idle', error: null, nextAttemptAt: null });

    // Busy (503) with a Retry-After date 120 s ahead on a remote clock an hour ahead of ours: 120 s (± the
    // header's second), not the first backoff (1.5 s), and not an hour (our clock).
    proxy.faults.skewMs = 3_600_000;
    proxy.faults.busy = () => 120;
    await engine.run().catch(() => undefined);
    expect(engine.failureCount).toBe(1);
    const wait = clock.pending()[0];
    expect(wait).toBeGreaterThanOrEqual(119_000);
    expect(wait).toBeLessThanOrEqual(121_000);
    proxy.faults.busy = undefined;
    clock.fire();
    await engine.idle();
    expect(engine.failureCount).toBe(0);
    expect(clock.pending()).toEqual([]);

    // Down again after a success: the backoff starts over.
    proxy.faults.down = true;
    await engine.run().catch(() => undefined);
    expect(clock.pending()).toEqual([1500]);
  });

  it('a sync every interval while all is well; a failure replaces it with the backoff', async () => {
    const { proxy, clock, engine } = await connected(30, () => 0);
    expect(clock.pending()).toEqual([30_000]);
    engine.nudge();
    expect(clock.pending()).toEqual([250]); // a local write: soon
    clock.fire();
    await engine.idle();
    expect(clock.pending()).toEqual([30_000]);
    proxy.faults.down = true;
    clock.fire();
    await engine.idle();
    expect(clock.pending()).toEqual([1000]);
    engine.stop();
    expect(clock.pending()).toEqual([]);
    engine.start();
    expect(clock.pending()).toEqual([1000]);
  });
});
