// The sync panel: the rejected list shows the server's message; a conflict resolution the service
// refuses shows its message and leaves the conflict open.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { api, ApiError } from '../../../renderer/api.ts';
import { useSync } from '../../../renderer/stores/sync.ts';
import { SyncPanel } from '../../../renderer/components/SyncPanel.tsx';

afterEach(() => { cleanup(); vi.restoreAllMocks(); useSync.setState({ status: null, conflicts: [], rejected: [], tab: 'server', connectError: null }); });

const base = { at: '2026-11-23T00:10:00Z', resolved: false, keep: null, by: null, exists: true, format: 'text' as const };
// A comment written offline on a to-do that was deleted meanwhile: what the service answers (D310).
const orphan = { ...base, id: 2, resource: 'comment', recordId: 26, field: '*', kind: 'parent-deleted', mine: '{"body":"Bring the blue rope","commentable_type":"TodoItem"}',
  theirs: null, title: 'Bring the blue rope', place: ['Alpha Ascent', 'Gear', 'Rope'], label: 'Everything', mineText: 'Bring the blue rope', theirsText: null, exists: false, actions: ['theirs' as const] };
// The same to-do's text changed on both sides.
const field = { ...base, id: 3, resource: 'todoItem', recordId: 33, field: 'content', kind: 'field', mine: 'Rope (60 m)', theirs: 'Rope (50 m)',
  title: 'Rope (60 m)', place: ['Alpha Ascent', 'Gear'], label: 'To-do', mineText: 'Rope (60 m)', theirsText: 'Rope (50 m)', by: 'Fran Flores', actions: ['mine' as const, 'theirs' as const] };
// Completion: a boolean in words; the due date localised.
const due = { ...field, id: 4, recordId: 34, title: 'Harness', field: 'due_at', label: 'Due', mine: '2026-12-24T00:00:00Z', theirs: null, mineText: '2026-12-24T00:00:00Z', theirsText: null, format: 'datetime' as const, by: null };
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

  it('a conflict for people: title, place, the field\'s label, readable values, who; never an id, a column or JSON', async () => {
    vi.spyOn(api, 'syncConflicts').mockResolvedValue([field, orphan, due]);
    vi.spyOn(api, 'syncRejected').mockResolvedValue([]);
    useSync.setState({ tab: 'conflicts' });
    render(<SyncPanel />);
    const card = (await screen.findByRole('listitem', { name: 'Rope (60 m)' }));
    expect(card.textContent).toContain('To-do in Alpha Ascent › Gear');
    expect(card.textContent).toContain('To-do was changed here and by Fran Flores');
    expect(card.textContent).toContain("Fran Flores's");
    expect(card.textContent).toContain('Rope (50 m)');
    const lost = screen.getByRole('listitem', { name: 'Bring the blue rope' });
    expect(lost.textContent).toContain('Comment in Alpha Ascent › Gear › Rope');
    expect(lost.textContent).toContain('What you added');
    const all = document.body.textContent ?? '';
    for (const dev of ['#', '{', 'content', 'due_at', 'updated', 'everything', 'TodoItem', 'commentable']) expect(all).not.toContain(dev);
    expect(screen.queryByText('2026-12-24T00:00:00Z')).toBeNull();
    expect(screen.getByRole('listitem', { name: 'Harness' }).textContent).toContain('Due was changed here');
    // Only the actions that can succeed: the dropped comment cannot be "kept mine".
    expect(lost.querySelectorAll('button')).toHaveLength(1);
    expect(lost.querySelector('button')!.textContent).toBe('Leave it out');
    expect([...card.querySelectorAll('button')].map((b) => b.textContent)).toEqual(['Keep mine', 'Keep theirs']);
  });

  it('the side that lost is told in its own words: who replaced its value, who was working on what it deleted, and what became of it (D329)', async () => {
    const overwritten = { ...field, id: 5, told: true, title: 'Rope (50 m)' };
    const deleted = { ...base, id: 6, resource: 'comment', recordId: 0, field: '*', kind: 'delete-vs-edit', mine: null, theirs: 'Bring the blue rope', title: 'Bring the blue rope',
      place: ['Alpha Ascent', 'Gear', 'Rope'], label: 'Everything', mineText: null, theirsText: 'Bring the blue rope', by: 'Fran Flores', exists: false, told: true, outcome: 'restored' as const, actions: ['mine' as const] };
    vi.spyOn(api, 'syncConflicts').mockResolvedValue([overwritten, deleted]);
    vi.spyOn(api, 'syncRejected').mockResolvedValue([]);
    useSync.setState({ tab: 'conflicts' });
    render(<SyncPanel />);
    const card = await screen.findByRole('listitem', { name: 'Rope (50 m)' });
    expect(card.textContent).toContain('Fran Flores changed “To-do” after you, without seeing your change: theirs replaced yours.');
    expect([...card.querySelectorAll('button')].map((b) => b.textContent)).toEqual(['Keep mine', 'Keep theirs']);
    const gone = screen.getByRole('listitem', { name: 'Bring the blue rope' });
    expect(gone.textContent).toContain('You deleted it, but Fran Flores was working on it: they added this under it. Fran Flores restored it with their work.');
    expect(gone.textContent).toContain('Bring the blue rope');
  });

  it('keyboard: a resolution leaves the focus on its conflict, which says what was kept', async () => {
    vi.spyOn(api, 'syncConflicts').mockResolvedValueOnce([field]).mockResolvedValue([{ ...field, resolved: true, keep: 'mine', actions: [] }]);
    vi.spyOn(api, 'syncRejected').mockResolvedValue([]);
    vi.spyOn(api, 'syncStatus').mockResolvedValue({ state: 'idle', lastSuccessAt: null, pending: 0, rejected: 0, conflicts: 0, progress: null, remote: null, error: null, nextAttemptAt: null, offlineSince: null, live: false, lastSyncedAt: null, message: null });
    vi.spyOn(api, 'resolveConflict').mockResolvedValue({ ...field, resolved: true, keep: 'mine', actions: [] });
    useSync.setState({ tab: 'conflicts' });
    render(<SyncPanel />);
    const keep = await screen.findByRole('button', { name: 'Keep mine' });
    keep.focus();
    fireEvent.click(keep);
    const card = screen.getByRole('listitem', { name: 'Rope (60 m)' });
    await waitFor(() => expect(document.activeElement).toBe(card));
    expect(card.textContent).toContain('Kept mine');
    expect(screen.queryByRole('button', { name: 'Keep mine' })).toBeNull();
  });

  it('edit vs delete: "Restore with my changes" is offered and sent; the whole removal shows as restored', async () => {
    const item = { ...field, id: 5, kind: 'edit-vs-delete', field: 'completed', label: 'Done', title: 'Rope', mine: '1', theirs: null, mineText: 'Done', theirsText: null,
      by: null, exists: false, actions: ['restore' as const, 'theirs' as const] };
    const comment = { ...orphan, actions: ['restore' as const, 'theirs' as const] };
    vi.spyOn(api, 'syncConflicts').mockResolvedValueOnce([item, comment])
      .mockResolvedValue([{ ...item, resolved: true, keep: 'restore', actions: [] }, { ...comment, resolved: true, keep: 'restore', actions: [] }]);
    vi.spyOn(api, 'syncRejected').mockResolvedValue([]);
    vi.spyOn(api, 'syncStatus').mockResolvedValue({ state: 'idle', lastSuccessAt: null, pending: 2, rejected: 0, conflicts: 0, progress: null, remote: null, error: null, nextAttemptAt: null, offlineSince: null, live: false, lastSyncedAt: null, message: null });
    const resolve = vi.spyOn(api, 'resolveConflict').mockResolvedValue({ ...item, resolved: true, keep: 'restore', actions: [] });
    useSync.setState({ tab: 'conflicts' });
    render(<SyncPanel />);
    const card = await screen.findByRole('listitem', { name: 'Rope' });
    expect(card.textContent).toContain('You changed “Done” here, but someone on the team server deleted it.');
    expect([...card.querySelectorAll('button')].map((b) => b.textContent)).toEqual(['Restore with my changes', 'Leave it deleted']);
    fireEvent.click(screen.getAllByRole('button', { name: 'Restore with my changes' })[0]);
    await waitFor(() => expect(screen.getAllByText(/^Restored with your changes/)).toHaveLength(2));
    expect(resolve).toHaveBeenCalledWith(5, 'restore');
    expect(screen.queryByRole('button', { name: 'Leave it out' })).toBeNull();
  });

  it('a refused resolution shows the message and the conflict stays open', async () => {
    vi.spyOn(api, 'syncConflicts').mockResolvedValue([field]);
    vi.spyOn(api, 'syncRejected').mockResolvedValue([]);
    vi.spyOn(api, 'resolveConflict').mockRejectedValue(new ApiError(422, ['The record no longer exists']));
    useSync.setState({ tab: 'conflicts' });
    render(<SyncPanel />);
    fireEvent.click(await screen.findByRole('button', { name: 'Keep mine' }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('The record no longer exists'));
    expect(screen.getByRole('button', { name: 'Keep theirs' })).toBeTruthy();
  });
});
