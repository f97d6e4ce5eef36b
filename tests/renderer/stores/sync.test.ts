import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SyncStatus } from '../../../shared/client.ts';
import { LOCAL_ONLY } from '../../../shared/sync-status.ts';
import { api, ApiError } from '../../../renderer/api.ts';
import { progressText, startSyncPolling, stopSyncPolling, syncLabel, useSync } from '../../../renderer/stores/sync.ts';

const st = (x: Partial<SyncStatus>): SyncStatus => ({
  ...LOCAL_ONLY, state: 'idle', remote: { url: 'http://team:1', user: 'ada', kind: 'team' }, ...x,
});
const now = Date.parse('2026-11-23T01:00:00Z');
afterEach(() => { vi.restoreAllMocks(); useSync.setState({ status: null, conflicts: [], rejected: [], connectError: null, connecting: false }); });

describe('sync label', () => {
  it('local only without a remote', () => {
    expect(syncLabel(null, now).text).toBe('Local only');
    expect(syncLabel(st({ state: 'local', remote: null }), now).tone).toBe('local');
  });
  it('syncing n of m, offline, error, synced with a relative time', () => {
    expect(syncLabel(st({ state: 'syncing', progress: { done: 3, total: 40 } }), now, 'en').text).toBe('Syncing 3 of 40');
    expect(syncLabel(st({ state: 'syncing', progress: { done: 0, total: 0 } }), now, 'en').text).toBe('Syncing…');
    expect(progressText({ done: 2, total: 5 })).toBe('2 of 5');
    expect(progressText({ done: 7, total: 5 })).toBe('5 of 5'); // a total that grew late never shows more done than total
    expect(progressText({ done: 3, total: 0 })).toBeNull();
    expect(progressText(null)).toBeNull();
    expect(syncLabel(st({ state: 'offline', pending: 2 }), now, 'en')).toMatchObject({ text: 'Offline', tone: 'offline' });
    // Since when (issue #26): "Offline since 10:42", a time on the local clock; another day names the day.
    const today = new Date(now);
    const at = (h: number, m: number, day = today.getDate()) => new Date(today.getFullYear(), today.getMonth(), day, h, m).toISOString();
    expect(syncLabel(st({ state: 'offline', offlineSince: at(0, 0) }), Date.parse(at(23, 59)), 'en').text).toBe('Offline since 00:00');
    expect(syncLabel(st({ state: 'offline', offlineSince: at(10, 42) }), Date.parse(at(11, 5)), 'en').text).toBe('Offline since 10:42');
    const days = syncLabel(st({ state: 'offline', offlineSince: at(18, 5, 1) }), Date.parse(at(9, 0, 3)), 'en').text;
    expect(days).toMatch(/^Offline since .+, 18:05$/);
    expect(days).not.toBe('Offline since 18:05');
    expect(syncLabel(st({ state: 'offline', pending: 2 }), now, 'en').title).toContain('2 changes wait');
    expect(syncLabel(st({ state: 'error', error: 'HTTP 500' }), now, 'en').title).toContain('HTTP 500');
    // Idle: "Synced" only when nothing waits (the time of the last sync in the title), else what waits.
    expect(syncLabel(st({ lastSuccessAt: '2026-11-23T00:59:50Z' }), now, 'en').text).toBe('Synced');
    expect(syncLabel(st({ lastSuccessAt: '2026-11-23T00:55:00Z' }), now, 'en').title).toContain('last sync 5 minutes ago');
    expect(syncLabel(st({ lastSuccessAt: '2026-11-22T22:00:00Z' }), now, 'en').title).toContain('last sync 3 hours ago');
    expect(syncLabel(st({ lastSuccessAt: '2026-11-23T00:59:50Z', pending: 3 }), now, 'en')).toMatchObject({ text: '3 changes waiting', tone: 'busy' });
    expect(syncLabel(st({ lastSuccessAt: '2026-11-23T00:59:50Z', pending: 1 }), now, 'en').text).toBe('1 change waiting');
    expect(syncLabel(st({ state: 'syncing', progress: null }), now, 'en').text).toBe('Syncing…');
    expect(syncLabel(st({ lastSuccessAt: '2026-11-23T00:59:50Z', live: true }), now, 'en').title).toContain('arrive as they are made');
  });
});

describe('sync store', () => {
  it('a refused connect keeps the status and shows the route\'s message', async () => {
    useSync.setState({ status: st({ state: 'local', remote: null }) });
    vi.spyOn(api, 'connectRemote').mockRejectedValue(new ApiError(422, ['The remote refused these credentials']));
    expect(await useSync.getState().connect({ url: 'http://t', user: 'a', password: 'b' })).toBe(false);
    expect(useSync.getState().connectError).toEqual(['The remote refused these credentials']);
    expect(useSync.getState().status?.state).toBe('local');
  });
  it('resolving a conflict replaces it and refreshes the status', async () => {
    const c = { id: 4, resource: 'todoList', recordId: 2, field: 'name', kind: 'field', mine: 'A', theirs: 'B', at: '', resolved: false, keep: null,
      title: 'A', place: ['Alpha'], label: 'Name', mineText: 'A', theirsText: 'B', format: 'text' as const, by: null, exists: true, actions: ['mine' as const, 'theirs' as const] };
    useSync.setState({ conflicts: [c] });
    vi.spyOn(api, 'resolveConflict').mockResolvedValue({ ...c, resolved: true, keep: 'theirs' });
    vi.spyOn(api, 'syncStatus').mockResolvedValue(st({ conflicts: 0 }));
    await useSync.getState().resolve(4, 'theirs');
    expect(api.resolveConflict).toHaveBeenCalledWith(4, 'theirs');
    expect(useSync.getState().conflicts[0]).toMatchObject({ resolved: true, keep: 'theirs' });
    expect(useSync.getState().status?.conflicts).toBe(0);
  });
});

describe('the network comes back (issue #25)', () => {
  afterEach(() => stopSyncPolling());

  it('a replica that is offline syncs at once on the browser\'s online event; a standalone one does not', async () => {
    const status = vi.spyOn(api, 'syncStatus').mockResolvedValue(st({ state: 'offline', error: 'unreachable' }));
    const run = vi.spyOn(api, 'syncRun').mockResolvedValue(st({ state: 'syncing' }));
    startSyncPolling();
    await vi.waitFor(() => expect(useSync.getState().status?.state).toBe('offline'));
    window.dispatchEvent(new Event('online'));
    expect(run).toHaveBeenCalledTimes(1);
    status.mockResolvedValue(st({ state: 'local', remote: null }));
    useSync.setState({ status: st({ state: 'local', remote: null }) });
    window.dispatchEvent(new Event('online'));
    expect(run).toHaveBeenCalledTimes(1);
    stopSyncPolling();
    useSync.setState({ status: st({ state: 'error' }) });
    window.dispatchEvent(new Event('online'));
    expect(run).toHaveBeenCalledTimes(1); // no longer listening once polling stopped
  });

  it('a connect going on in the background is labelled', () => {
    expect(syncLabel(st({ state: 'connecting', error: 'http://team:1 is unreachable: ECONNREFUSED' }), now, 'en'))
      .toMatchObject({ text: 'Connecting…', tone: 'busy' });
  });
});
