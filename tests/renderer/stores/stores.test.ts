import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Person, TimeEntry, TodoItem, TodoList } from '../../../shared/client.ts';
import type { BivouacBridge } from '../../../shared/ipc.ts';
import { api, ApiError } from '../../../renderer/api.ts';
import { useMessages } from '../../../renderer/stores/messages.ts';
import { parseHash, formatHash, useSession } from '../../../renderer/stores/session.ts';
import { useTime } from '../../../renderer/stores/time.ts';
import { itemVisible, useTodos } from '../../../renderer/stores/todos.ts';
import { useUi } from '../../../renderer/stores/ui.ts';

const item = (id: number, list: number, position: number, extra: Partial<TodoItem> = {}): TodoItem => ({
  id, todo_list_id: list, position, content: `Item ${id}`, completed: false, comments_count: 0, commented_at: null,
  created_at: '', created_on: '', creator_id: 1, creator_name: 'Ada Admin', updated_at: '', ...extra,
});
const list = (id: number, items: TodoItem[]): TodoList => ({
  id, name: `List ${id}`, description: '', milestone_id: null, position: id, project_id: 7, tracked: false,
  completed_count: items.filter((i) => i.completed).length, uncompleted_count: items.filter((i) => !i.completed).length,
  complete: false, completed: false, todo_items: items,
});

beforeEach(() => {
  useUi.setState({ toasts: [], busy: 0, connection: 'online' });
});
afterEach(() => { vi.restoreAllMocks(); });

async function loadBoard() {
  const lists = [list(1, [item(11, 1, 1), item(12, 1, 2), item(13, 1, 3)]), list(2, [item(21, 2, 1)])];
  vi.spyOn(api, 'todoBoard').mockImplementation(async () => structuredClone(lists));
  vi.spyOn(api, 'todoList').mockImplementation(async (id) => structuredClone(lists.find((l) => l.id === id)!));
  await useTodos.getState().load(7);
  return lists;
}
const ids = (listId: number) => useTodos.getState().lists.find((l) => l.id === listId)!.items.map((i) => i.id);

describe('todos store', () => {
  it('loads lists with their items in one request', async () => {
    await loadBoard();
    expect(api.todoBoard).toHaveBeenCalledTimes(1);
    expect(api.todoBoard).toHaveBeenCalledWith(7);
    expect(api.todoList).not.toHaveBeenCalled();
    expect(useTodos.getState().lists.map((l) => l.id)).toEqual([1, 2]);
    expect(ids(1)).toEqual([11, 12, 13]);
    expect(useTodos.getState().loaded).toBe(true);
  });

  it('moves an item to another list optimistically and sends the new order of the target list', async () => {
    const server = await loadBoard();
    let resolve!: (v: TodoItem[]) => void;
    const reorder = vi.spyOn(api, 'reorderTodoItems').mockImplementation(() => new Promise((r) => { resolve = r; }));
    const p = useTodos.getState().moveItem(12, 2, 0);
    expect(ids(1)).toEqual([11, 13]); // optimistic, before the server answers
    expect(ids(2)).toEqual([12, 21]);
    expect(reorder).toHaveBeenCalledWith(2, [12, 21]);
    server[0].todo_items = [item(11, 1, 1), item(13, 1, 2)];
    server[1].todo_items = [item(12, 2, 1), item(21, 2, 2)];
    resolve(server[1].todo_items);
    await p;
    expect(ids(2)).toEqual([12, 21]);
  });

  it('rolls back and shows the server messages when the server refuses', async () => {
    await loadBoard();
    vi.spyOn(api, 'reorderTodoItems').mockRejectedValue(new ApiError(422, ['Todo item 12 is not in this project']));
    await useTodos.getState().moveItem(12, 1, 0);
    expect(ids(1)).toEqual([11, 12, 13]);
    const t = useUi.getState().toasts;
    expect(t).toHaveLength(1);
    expect(t[0].kind).toBe('error');
    expect(t[0].lines).toEqual(['Todo item 12 is not in this project']);
  });

  it('completes with rollback on failure; counts follow', async () => {
    await loadBoard();
    vi.spyOn(api, 'completeTodoItem').mockRejectedValue(new ApiError(0, ['Cannot reach the local service']));
    const p = useTodos.getState().toggleItem(11);
    expect(useTodos.getState().lists[0].completed_count).toBe(1);
    await p;
    expect(useTodos.getState().lists[0].items[0].completed).toBe(false);
    expect(useTodos.getState().lists[0].completed_count).toBe(0);
    expect(useUi.getState().connection).toBe('offline');
  });

  it('reorders lists', async () => {
    const lists = await loadBoard();
    const r = vi.spyOn(api, 'reorderTodoLists').mockResolvedValue([lists[1], lists[0]].map(({ todo_items: _, ...l }) => l));
    await useTodos.getState().moveList(2, 0);
    expect(r).toHaveBeenCalledWith(7, [2, 1]);
    expect(useTodos.getState().lists.map((l) => l.id)).toEqual([2, 1]);
    expect(ids(2)).toEqual([21]); // items kept
  });

  it('adds an item at the bottom, replaced by the server record', async () => {
    const server = await loadBoard();
    vi.spyOn(api, 'createTodoItem').mockImplementation(async () => {
      const i = item(14, 1, 4, { content: 'New' });
      server[0].todo_items!.push(i);
      return i;
    });
    const ok = await useTodos.getState().createItem(1, { content: 'New' });
    expect(ok).toBe(true);
    expect(ids(1)).toEqual([11, 12, 13, 14]);
  });

  it('filters items by state and responsible party', () => {
    const a = item(1, 1, 1, { responsible_party_id: 4, responsible_party_type: 'Person' });
    const b = item(2, 1, 2, { completed: true, responsible_party_id: 4, responsible_party_type: 'Company' });
    const c = item(3, 1, 3);
    expect([a, b, c].filter((i) => itemVisible(i, 'pending', '')).map((i) => i.id)).toEqual([1, 3]);
    expect([a, b, c].filter((i) => itemVisible(i, 'finished', '')).map((i) => i.id)).toEqual([2]);
    expect([a, b, c].filter((i) => itemVisible(i, 'all', '4')).map((i) => i.id)).toEqual([1]);
    expect([a, b, c].filter((i) => itemVisible(i, 'all', 'c4')).map((i) => i.id)).toEqual([2]);
    expect([a, b, c].filter((i) => itemVisible(i, 'all', 'none')).map((i) => i.id)).toEqual([3]);
  });
});

describe('time store', () => {
  const entry = (id: number, date: string, hours: number): TimeEntry => ({ id, date, hours, description: '', person_id: 3, person_name: 'Fran Firm', project_id: 7, todo_item_id: null });

  it('creates an entry for an empty cell, then keeps the server record', async () => {
    useTime.setState({ personId: 3, entries: [] });
    const create = vi.spyOn(api, 'createTimeEntry').mockResolvedValue(entry(50, '2024-03-04', 2));
    const ok = await useTime.getState().setCell({ projectId: 7, itemId: null }, { date: '2024-03-04', hours: 0, entries: [] }, 2);
    expect(ok).toBe(true);
    expect(create).toHaveBeenCalledWith(7, { date: '2024-03-04', hours: 2, person_id: 3, todo_item_id: null });
    expect(useTime.getState().entries.map((e) => e.id)).toEqual([50]);
  });

  it('rolls back an update the server refuses', async () => {
    const e = entry(51, '2024-03-04', 1);
    useTime.setState({ personId: 3, entries: [e] });
    vi.spyOn(api, 'updateTimeEntry').mockRejectedValue(new ApiError(422, ['Hours is not a number']));
    const ok = await useTime.getState().setCell({ projectId: 7, itemId: null }, { date: '2024-03-04', hours: 1, entries: [e] }, 3);
    expect(ok).toBe(false);
    expect(useTime.getState().entries[0].hours).toBe(1);
    expect(useUi.getState().toasts[0].lines).toEqual(['Hours is not a number']);
  });

  it('runs the report with the filters', async () => {
    const rep = vi.spyOn(api, 'timeReport').mockResolvedValue([entry(1, '2024-03-04', 1)]);
    useTime.getState().setReportFilters({ from: '2024-03-01', to: '2024-03-31', filter_company_id: 2 });
    await useTime.getState().runReport();
    expect(rep).toHaveBeenCalledWith({ from: '2024-03-01', to: '2024-03-31', filter_company_id: 2 });
    expect(useTime.getState().report).toHaveLength(1);
    expect(useTime.getState().reportRan).toBe(true);
  });
});

describe('messages store', () => {
  it('a category that still has posts (409) stays, with a readable message', async () => {
    useMessages.setState({ projectId: 7, categories: [{ id: 5, name: 'Status', elements_count: 2, project_id: 7, type: 'post' }] });
    vi.spyOn(api, 'deleteCategory').mockRejectedValue(new ApiError(409, ['Category still has posts']));
    await useMessages.getState().deleteCategory(5);
    expect(useMessages.getState().categories.map((c) => c.id)).toEqual([5]);
    const t = useUi.getState().toasts[0];
    expect(t.title).toBe('“Status” still has messages');
    expect(t.lines).toContain('Category still has posts');
  });

  it('loads 25 newest, then older ones with the n offset', async () => {
    const post = (id: number) => ({ id, title: `P${id}` }) as never;
    const posts = vi.spyOn(api, 'posts').mockImplementation(async (_p, o) => (o?.n ? [post(100)] : Array.from({ length: 25 }, (_, i) => post(i + 1))));
    vi.spyOn(api, 'postsArchive').mockResolvedValue([]);
    vi.spyOn(api, 'categories').mockResolvedValue([]);
    await useMessages.getState().load(8);
    expect(useMessages.getState().hasMore).toBe(true);
    await useMessages.getState().loadMore();
    expect(posts).toHaveBeenLastCalledWith(8, { categoryId: null, n: 25 });
    expect(useMessages.getState().posts).toHaveLength(26);
    expect(useMessages.getState().hasMore).toBe(false);
  });

  it('reads every page of posts for search, once, and again after the list is refreshed', async () => {
    const post = (id: number) => ({ id, title: `P${id}`, body: `body ${id}` }) as never;
    const pages = [Array.from({ length: 25 }, (_, i) => post(i + 1)), Array.from({ length: 25 }, (_, i) => post(i + 26)), [post(51)]];
    const posts = vi.spyOn(api, 'posts').mockImplementation(async (_p, o) => pages[(o?.n ?? 0) / 25] ?? []);
    vi.spyOn(api, 'postsArchive').mockResolvedValue([]);
    vi.spyOn(api, 'categories').mockResolvedValue([]);
    await useMessages.getState().load(9);
    posts.mockClear();
    await useMessages.getState().loadBodies(9);
    expect(posts.mock.calls.map((c) => c[1]?.n)).toEqual([0, 25, 50]);
    expect(useMessages.getState().bodies.map((p) => p.id)).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
    await useMessages.getState().loadBodies(9);
    expect(posts).toHaveBeenCalledTimes(3);
    await useMessages.getState().load(9);
    expect(useMessages.getState().bodiesFor).toBeNull();
  });
});

describe('session store', () => {
  const me = { id: 3, first_name: 'Fran', last_name: 'Firm', client_id: 0, company_id: 1 } as Person;

  it('signs in, keeps the API token (never the password) in sessionStorage, opens the Overview with the first active project chosen', async () => {
    vi.spyOn(api, 'me').mockResolvedValue({ ...me, token: 'fran-token' });
    const set = vi.spyOn(api, 'setCredentials');
    vi.spyOn(api, 'projects').mockResolvedValue([{ id: 9, name: 'X', status: 'on_hold' }, { id: 4, name: 'Y', status: 'active' }] as never);
    vi.spyOn(api, 'people').mockResolvedValue([me]);
    vi.spyOn(api, 'companies').mockResolvedValue([]);
    vi.spyOn(api, 'projectPeople').mockResolvedValue([me]);
    vi.spyOn(api, 'projectCompanies').mockResolvedValue([]);
    expect(await useSession.getState().signIn({ user: 'fran', password: 'fran-pass-2' })).toBe(true);
    const s = useSession.getState();
    expect(s.status).toBe('signedIn');
    expect(s.firm).toBe(true);
    expect(s.projectId).toBe(4);
    expect(JSON.parse(sessionStorage.getItem('bivouac.credentials')!)).toEqual({ token: 'fran-token' });
    for (let i = 0; i < sessionStorage.length; i++) expect(sessionStorage.getItem(sessionStorage.key(i)!)).not.toContain('fran-pass-2');
    // After the check, the client signs its requests with the token, not the password.
    expect(set).toHaveBeenLastCalledWith({ token: 'fran-token' });
    // The first page after sign-in is the Overview (issue #27); the boards' tabs open project 4.
    expect(s.view).toBe('overview');
    expect(window.location.hash).toBe('#/overview');
    s.signOut();
    expect(sessionStorage.getItem('bivouac.credentials')).toBeNull();
  });

  it('keeps nothing in sessionStorage when the server does not give a token', async () => {
    vi.spyOn(api, 'me').mockResolvedValue(me);
    vi.spyOn(api, 'projects').mockResolvedValue([]);
    vi.spyOn(api, 'people').mockResolvedValue([me]);
    vi.spyOn(api, 'companies').mockResolvedValue([]);
    expect(await useSession.getState().signIn({ user: 'fran', password: 'fran-pass-2' })).toBe(true);
    expect(sessionStorage.getItem('bivouac.credentials')).toBeNull();
    useSession.getState().signOut();
  });

  it('a stored password from an older version is dropped, not re-used', async () => {
    sessionStorage.setItem('bivouac.credentials', JSON.stringify({ user: 'fran', password: 'fran-pass-2' }));
    const meCall = vi.spyOn(api, 'me').mockResolvedValue({ ...me, token: 'fran-token' });
    await useSession.getState().init();
    expect(meCall).not.toHaveBeenCalled();
    expect(sessionStorage.getItem('bivouac.credentials')).toBeNull();
    expect(useSession.getState().status).toBe('signedOut');
  });

  it('a wrong password says so and stores nothing', async () => {
    vi.spyOn(api, 'me').mockRejectedValue(new ApiError(401, ['Authentication required']));
    expect(await useSession.getState().signIn({ user: 'fran', password: 'nope' })).toBe(false);
    expect(useSession.getState().signInError).toMatch(/Wrong user name/);
    expect(sessionStorage.getItem('bivouac.credentials')).toBeNull();
    expect(api.signedIn).toBe(false);
  });

  it('uses the Electron token when the preload gives one', async () => {
    window.bivouac = { token: 'tok', apiBase: '', version: '1', platform: 'linux', invoke: vi.fn(), on: () => () => undefined } as unknown as BivouacBridge;
    const me2 = vi.spyOn(api, 'me').mockResolvedValue({ ...me, client_id: 2 });
    vi.spyOn(api, 'projects').mockResolvedValue([]);
    vi.spyOn(api, 'people').mockResolvedValue([]);
    vi.spyOn(api, 'companies').mockResolvedValue([]);
    const set = vi.spyOn(api, 'setCredentials');
    await useSession.getState().init();
    expect(set).toHaveBeenCalledWith({ token: 'tok' });
    expect(me2).toHaveBeenCalled();
    expect(useSession.getState().mode).toBe('electron');
    expect(useSession.getState().firm).toBe(false);
    delete window.bivouac;
  });

  it('routes round-trip through the hash', () => {
    expect(parseHash('#/projects/7/messages/12')).toEqual({ projectId: 7, view: 'messages', postId: 12, categoryId: null });
    expect(parseHash('#/projects/7')).toEqual({ projectId: 7, view: 'todos', postId: null, categoryId: null });
    expect(parseHash('#/nonsense')).toEqual({ projectId: null, view: 'todos', postId: null, categoryId: null });
    // No board named, or #/overview: the Overview (issue #27), whichever project is chosen.
    for (const h of ['', '#', '#/', '#/overview']) expect(parseHash(h), h).toEqual({ projectId: null, view: 'overview', postId: null, categoryId: null });
    expect(formatHash({ projectId: 7, view: 'overview', postId: null })).toBe('#/overview');
    expect(formatHash({ projectId: 7, view: 'report', postId: null })).toBe('#/projects/7/report');
    // the message board's category filter
    expect(parseHash('#/projects/7/messages/cat/5')).toEqual({ projectId: 7, view: 'messages', postId: null, categoryId: 5 });
    expect(formatHash({ projectId: 7, view: 'messages', postId: null, categoryId: 5 })).toBe('#/projects/7/messages/cat/5');
    expect(formatHash({ projectId: 7, view: 'messages', postId: 9, categoryId: 5 })).toBe('#/projects/7/messages/9');
    expect(formatHash({ projectId: 7, view: 'todos', postId: null, categoryId: 5 })).toBe('#/projects/7/todos');
  });
});
