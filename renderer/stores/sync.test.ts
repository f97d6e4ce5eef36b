import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SyncStatus } from '../../shared/client.ts';
import { api, ApiError } from '../api.ts';
import { progressText, startSyncPolling, stopSyncPolling, syncLabel, useSync } from './sync.ts';

const st = (x: Partial<SyncStatus>): SyncStatus => ({
  state: 'idle', lastSuccessAt: null, pending: 0, rejected: 0, conflicts: 0, progress: null,
  remote: { url: 'http://team:1', user: 'ada', kind: 'team' }, error: null, ...x,
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
    expect(syncLabel(st({ state: 'offline', pending: 2 }), now, 'en').title).toContain('2 changes wait');
    expect(syncLabel(st({ state: 'error', error: 'HTTP 500' }), now, 'en').title).toContain('HTTP 500');
    expect(syncLabel(st({ lastSuccessAt: '2026-11-23T00:59:50Z' }), now, 'en').text).toBe('Synced now');
    expect(syncLabel(st({ lastSuccessAt: '2026-11-23T00:55:00Z' }), now, 'en').text).toBe('Synced 5 minutes ago');
    expect(syncLabel(st({ lastSuccessAt: '2026-11-22T22:00:00Z' }), now, 'en').text).toBe('Synced 3 hours ago');
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
