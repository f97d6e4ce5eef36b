import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Milestone, Post, TodoList } from '../../../shared/client.ts';
import { api, ApiError } from '../../../renderer/api.ts';
import { useMilestones } from '../../../renderer/stores/milestones.ts';
import { undoLast } from '../../../renderer/stores/undo.ts';
import { useUi } from '../../../renderer/stores/ui.ts';

const ms = (id: number, extra: Partial<Milestone> = {}): Milestone => ({
  id, title: `M${id}`, deadline: '2099-01-01', completed: false, comments_count: 0, commented_at: null, created_on: '', creator_id: 1,
  creator_name: 'Ada Admin', project_id: 7, wants_notification: false, ...extra,
});
const list = (id: number, milestone_id: number | null) => ({ id, name: `List ${id}`, milestone_id }) as TodoList;
const post = (id: number, milestone_id: number) => ({ id, title: `Post ${id}`, milestone_id }) as Post;

beforeEach(() => { useUi.setState({ toasts: [], busy: 0, connection: 'online' }); useMilestones.setState({ projectId: null }); });
afterEach(() => { vi.restoreAllMocks(); });

async function loadBoard(milestones: Milestone[], lists: TodoList[] = [], posts: Post[] = []) {
  vi.spyOn(api, 'milestones').mockImplementation(async () => structuredClone(milestones));
  vi.spyOn(api, 'todoLists').mockImplementation(async () => structuredClone(lists));
  vi.spyOn(api, 'posts').mockImplementation(async () => structuredClone(posts));
  await useMilestones.getState().load(7);
}

describe('milestones store', () => {
  it('loads milestones, lists and every page of messages (25 a page)', async () => {
    const page = Array.from({ length: 25 }, (_, i) => post(100 + i, 1));
    vi.spyOn(api, 'milestones').mockResolvedValue([ms(1)]);
    vi.spyOn(api, 'todoLists').mockResolvedValue([list(5, 1)]);
    const posts = vi.spyOn(api, 'posts').mockImplementation(async (_p, o) => (o?.n ? [post(200, 1)] : page));
    await useMilestones.getState().load(7);
    expect(posts.mock.calls.map((c) => c[1]?.n)).toEqual([0, 25]);
    expect(useMilestones.getState().posts).toHaveLength(26);
    expect(useMilestones.getState().lists).toEqual([{ id: 5, name: 'List 5', milestone_id: 1 }]);
  });

  it('a refused create rolls back and says why', async () => {
    await loadBoard([ms(1)]);
    vi.spyOn(api, 'createMilestone').mockRejectedValue(new ApiError(422, ['Deadline is not a date']));
    expect(await useMilestones.getState().create({ title: 'X', deadline: 'soon' })).toBeNull();
    expect(useMilestones.getState().milestones.map((m) => m.id)).toEqual([1]);
    expect(useUi.getState().toasts.map((t) => [t.title, ...t.lines])).toContainEqual(['Could not create the milestone', 'Deadline is not a date']);
  });

  it('completing is optimistic, and Undo reopens it', async () => {
    await loadBoard([ms(1)]);
    let resolve!: (m: Milestone) => void;
    vi.spyOn(api, 'completeMilestone').mockImplementation(() => new Promise((r) => { resolve = r; }));
    const un = vi.spyOn(api, 'uncompleteMilestone').mockResolvedValue(ms(1));
    const p = useMilestones.getState().toggle(1);
    expect(useMilestones.getState().milestones[0].completed).toBe(true); // before the server answers
    resolve(ms(1, { completed: true, completed_at: '2026-01-01T00:00:00Z' }));
    await p;
    expect(await undoLast()).toBe(true);
    expect(un).toHaveBeenCalledWith(1);
    expect(useMilestones.getState().milestones[0].completed).toBe(false);
  });

  it('Undo of a deletion creates the milestone again (completed, same party) and links its lists and messages to it', async () => {
    const gone = ms(1, { title: 'Permit', deadline: '2020-01-15', completed: true, responsible_party_id: 12, responsible_party_type: 'Company', private: true });
    await loadBoard([gone, ms(2)], [list(5, 1), list(6, 2)], [post(9, 1), post(10, 0)]);
    vi.spyOn(api, 'deleteMilestone').mockResolvedValue(gone);
    const create = vi.spyOn(api, 'createMilestone').mockResolvedValue(ms(30, { title: 'Permit' }));
    const complete = vi.spyOn(api, 'completeMilestone').mockResolvedValue(ms(30, { completed: true }));
    const upList = vi.spyOn(api, 'updateTodoList').mockResolvedValue(list(5, 30));
    const upPost = vi.spyOn(api, 'updatePost').mockRejectedValue(new ApiError(403, ['Only the author may edit this message']));
    expect(await useMilestones.getState().remove(1)).toBe(true);
    expect(useMilestones.getState().milestones.map((m) => m.id)).toEqual([2]);
    expect(useMilestones.getState().lists.find((l) => l.id === 5)!.milestone_id).toBeNull();
    await undoLast();
    expect(create).toHaveBeenCalledWith(7, { title: 'Permit', deadline: '2020-01-15', responsible_party: 'c12', notify: false, private: true });
    expect(complete).toHaveBeenCalledWith(30);
    expect(upList).toHaveBeenCalledWith(5, { milestone_id: 30 });
    expect(upList).toHaveBeenCalledTimes(1);
    expect(upPost).toHaveBeenCalledWith(9, { milestone_id: 30 });
    // the message it could not link again is said, not lost silently
    expect(useUi.getState().toasts.some((t) => t.kind === 'error' && t.title.includes('not every list or message'))).toBe(true);
  });
});
