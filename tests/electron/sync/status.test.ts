// The status alone (electron/sync/status.ts, D308, D317): the engine's fields and the stored state as the
// one SyncStatus: local, connecting in the background, offline since, the later of the two success times.

import { describe, expect, it } from 'vitest';
import { syncStatus, type EngineView } from '../../../electron/sync/status.ts';
import type { SyncState } from '../../../electron/store/queries/replica.ts';

const counts = { pending: 2, rejected: 0, conflicts: 1 };
const view = (o: Partial<EngineView> = {}): EngineView => ({
  linked: true, state: 'idle', error: null, progress: null, kind: 'team', pending: null, idleSuccessAt: null,
  offlineSince: null, live: false, retryInMs: 0, ...o,
});
const stored = (o: Record<string, string>): SyncState => new Map(Object.entries(o)) as SyncState;

describe('status phase', () => {
  it('a directory never linked is local; a refused background connect says error with its reason', () => {
    expect(syncStatus(stored({}), counts, view({ linked: false, kind: null })).state).toBe('local');
    const s = syncStatus(stored({}), counts, view({ linked: false, state: 'error', error: 'The remote refused these credentials (401)' }));
    expect([s.state, s.message, s.remote]).toEqual(['error', 'The remote refused these credentials (401)', null]);
  });

  it('a connect in the background shows its remote and person before the link', () => {
    const s = syncStatus(stored({}), counts, view({ linked: false, state: 'idle', pending: { url: 'http://team.test/', auth: { user: 'ada', password: 'x' } } }));
    expect(s.state).toBe('connecting');
    expect(s.remote).toEqual({ url: 'http://team.test', user: 'ada', kind: null });
  });

  it('offline since the first failure, the next attempt in time, and the later of the stored and the idle success', () => {
    const st = stored({ url: 'http://team.test', user: 'ada', last_success_at: '2026-01-01T10:00:00Z' });
    const s = syncStatus(st, counts, view({ state: 'offline', offlineSince: '2026-01-01T10:05:00Z', idleSuccessAt: '2026-01-01T10:04:00Z', retryInMs: 4000 }), Date.parse('2026-01-01T10:06:00Z'));
    expect(s).toMatchObject({
      state: 'offline', offlineSince: '2026-01-01T10:05:00Z', lastSuccessAt: '2026-01-01T10:04:00Z', lastSyncedAt: '2026-01-01T10:04:00Z',
      nextAttemptAt: '2026-01-01T10:06:04.000Z', pending: 2, conflicts: 1, remote: { url: 'http://team.test', user: 'ada', kind: 'team' },
    });
    // Not offline: no "offline since"; an older idle success does not hide the stored one.
    const t = syncStatus(st, counts, view({ offlineSince: '2026-01-01T10:05:00Z', idleSuccessAt: '2025-12-31T00:00:00Z' }));
    expect([t.offlineSince, t.lastSuccessAt, t.nextAttemptAt]).toEqual([null, '2026-01-01T10:00:00Z', null]);
  });

  it('a clone (a resync round) not finished by its run is still syncing between runs, never "synced" (D346)', () => {
    const st = stored({ url: 'http://team.test', user: 'ada', last_success_at: '2026-01-01T10:00:00Z', resync: '1767261600000' });
    expect(syncStatus(st, counts, view({ state: 'idle' })).state).toBe('syncing');
    // Offline or failed in the middle says so; once the round's last page is applied it is idle.
    expect(syncStatus(st, counts, view({ state: 'offline', offlineSince: '2026-01-01T10:05:00Z' })).state).toBe('offline');
    const done = stored({ url: 'http://team.test', user: 'ada', last_success_at: '2026-01-01T10:00:00Z' });
    expect(syncStatus(done, counts, view({ state: 'idle' })).state).toBe('idle');
  });
});
