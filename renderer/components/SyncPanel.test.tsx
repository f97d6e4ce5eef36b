// The sync panel: the rejected list shows the server's message; a conflict resolution the service
// refuses shows its message and leaves the conflict open.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { api, ApiError } from '../api.ts';
import { useSync } from '../stores/sync.ts';
import { SyncPanel } from './SyncPanel.tsx';

afterEach(() => { cleanup(); vi.restoreAllMocks(); useSync.setState({ status: null, conflicts: [], rejected: [], tab: 'server', connectError: null }); });

const conflict = { id: 2, resource: 'post', recordId: 4, field: '*', kind: 'parent-deleted', mine: '{"body":"x"}', theirs: null, at: '2026-11-23T00:10:00Z', resolved: false, keep: null };
const rejected = { id: 1, seq: 7, resource: 'post', recordId: 4, method: 'PUT', path: '/posts/31.xml', status: 403, message: 'You may not change this post', at: '2026-11-23T00:10:00Z' };

describe('sync panel', () => {
  it('rejected: the change and what the server said', async () => {
    vi.spyOn(api, 'syncConflicts').mockResolvedValue([]);
    vi.spyOn(api, 'syncRejected').mockResolvedValue([rejected]);
    useSync.setState({ tab: 'rejected' });
    render(<SyncPanel />);
    expect(await screen.findByText('403 · You may not change this post')).toBeTruthy();
    expect(screen.getByText('PUT /posts/31.xml')).toBeTruthy();
  });

  it('connecting a directory with local work: the push of that work shows its progress, a refusal its message as is', async () => {
    vi.spyOn(api, 'syncConflicts').mockResolvedValue([]);
    vi.spyOn(api, 'syncRejected').mockResolvedValue([]);
    const base = { lastSuccessAt: null, pending: 10, rejected: 0, conflicts: 0, error: null, lastSyncedAt: null, message: null, nextAttemptAt: null, offlineSince: null, live: false };
    vi.spyOn(api, 'syncStatus').mockResolvedValue({ ...base, state: 'syncing', progress: { done: 3, total: 10, phase: 'push' },
      remote: { url: 'http://team.example', user: 'ada', kind: 'team' } });
    let finish: (v: never) => void = () => undefined;
    vi.spyOn(api, 'connectRemote').mockReturnValueOnce(new Promise((_ok, no) => { finish = no; }));
    render(<SyncPanel />);
    fireEvent.change(screen.getByLabelText('Server URL'), { target: { value: 'http://team.example' } });
    fireEvent.change(screen.getByLabelText('User name'), { target: { value: 'ada' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'pw' } });
    fireEvent.click(screen.getByRole('button', { name: 'Connect' }));
    const bar = await screen.findByRole('progressbar', { name: 'Sync progress' }, { timeout: 3000 });
    expect(bar.getAttribute('value')).toBe('3');
    expect(bar.getAttribute('max')).toBe('10');
    expect(screen.getByText(/Syncing 3 of 10/)).toBeTruthy();
    const msg = 'This data directory holds local work that cannot be pushed to http://team.example, so nothing was changed: project "X": not on the remote';
    vi.spyOn(api, 'syncStatus').mockResolvedValue({ ...base, pending: 0, state: 'local', progress: null, remote: null });
    finish(new ApiError(409, [msg]) as never);
    await useSync.getState().refresh();
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe(msg));
  });

  it('a refused resolution shows the message and the conflict stays open', async () => {
    vi.spyOn(api, 'syncConflicts').mockResolvedValue([conflict]);
    vi.spyOn(api, 'syncRejected').mockResolvedValue([]);
    vi.spyOn(api, 'resolveConflict').mockRejectedValue(new ApiError(422, ['Only theirs can be kept']));
    useSync.setState({ tab: 'conflicts' });
    render(<SyncPanel />);
    fireEvent.click(await screen.findByRole('button', { name: 'Keep mine' }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('Only theirs can be kept'));
    expect(screen.getByRole('button', { name: 'Keep theirs' })).toBeTruthy();
    expect(screen.getByText('everything')).toBeTruthy();
  });
});
