// Todo board state: the current project's lists with their items, filters, the open item and
// its comments. Mutations are optimistic: the board changes at once, the server is asked, and
// on refusal the board rolls back and the server's messages are shown.

import { create } from 'zustand';
import type { Comment, TodoItem, TodoItemInput, TodoList, TodoListInput } from '../../shared/client.ts';
import { api } from '../api.ts';
import { keyboardTarget, moveCol, moveItem } from '../lib/reorder.ts';
import { fail, track } from './ui.ts';
import { offerUndo } from './undo.ts';

export interface BoardList extends TodoList { items: TodoItem[] }
export type ItemFilter = 'all' | 'pending' | 'finished';

interface TodosState {
  projectId: number | null;
  lists: BoardList[];
  loading: boolean;
  loaded: boolean;
  filter: ItemFilter;
  /** '' = anyone; 'none' = unassigned; '4' a person; 'c12' a company. */
  party: string;
  openItemId: number | null;
  comments: Record<number, Comment[]>;
  load(projectId: number, quiet?: boolean): Promise<void>;
  setFilter(f: ItemFilter): void;
  setParty(p: string): void;
  openItem(id: number | null): void;
  /** Create a list (shown at once, saved in the background): its id once saved, null when it was not. */
  createList(input: TodoListInput): Promise<number | null>;
  updateList(id: number, input: TodoListInput): Promise<boolean>;
  deleteList(id: number): Promise<void>;
  moveList(id: number, toIndex: number): Promise<void>;
  createItem(listId: number, input: TodoItemInput): Promise<boolean>;
  updateItem(id: number, input: TodoItemInput): Promise<boolean>;
  deleteItem(id: number): Promise<void>;
  toggleItem(id: number): Promise<void>;
  moveItem(id: number, toList: number, toIndex: number): Promise<void>;
  moveItemByKey(id: number, key: 'up' | 'down' | 'left' | 'right'): Promise<void>;
  loadComments(itemId: number): Promise<void>;
  addComment(itemId: number, body: string, priv: boolean): Promise<boolean>;
}

let tempId = -1;
let loadSeq = 0;

const toBoard = (l: TodoList): BoardList => ({ ...l, items: l.todo_items ?? [] });
const findItem = (lists: readonly BoardList[], id: number): TodoItem | undefined => {
  for (const l of lists) { const i = l.items.find((x) => x.id === id); if (i) return i; }
  return undefined;
};
/** Recount a list's derived fields after a local change. */
const recount = (l: BoardList): BoardList => {
  const done = l.items.filter((i) => i.completed).length;
  const open = l.items.length - done;
  return { ...l, completed_count: done, uncompleted_count: open, complete: open === 0, completed: open === 0 };
};

/** Does an item pass the board's filters? */
export function itemVisible(i: TodoItem, filter: ItemFilter, party: string): boolean {
  if (filter === 'pending' && i.completed) return false;
  if (filter === 'finished' && !i.completed) return false;
  if (party === 'none') return i.responsible_party_id === undefined;
  if (party) {
    const want = party.startsWith('c') ? { t: 'Company', id: Number(party.slice(1)) } : { t: 'Person', id: Number(party) };
    return i.responsible_party_type === want.t && i.responsible_party_id === want.id;
  }
  return true;
}

export const useTodos = create<TodosState>((set, get) => {
  /** Replace lists (by id) with the server's version, keeping board order. */
  const refreshLists = async (ids: readonly number[]) => {
    const fresh = await track(Promise.all([...new Set(ids)].filter((id) => id > 0).map((id) => api.todoList(id))));
    set((s) => ({ lists: s.lists.map((l) => { const f = fresh.find((x) => x.id === l.id); return f ? toBoard(f) : l; }) }));
  };
  /** Run a mutation optimistically; roll back on failure. */
  const optimistic = async (title: string, change: (lists: BoardList[]) => BoardList[], call: () => Promise<unknown>, after?: () => Promise<void>): Promise<boolean> => {
    const before = get().lists;
    const pid = get().projectId;
    set({ lists: change(before) });
    try {
      await track(call());
    } catch (e) {
      if (get().projectId === pid) set({ lists: before });
      fail(title, e);
      return false;
    }
    try { if (after && get().projectId === pid) await after(); } catch (e) { fail('Could not refresh the board', e); }
    return true;
  };

  const partyOf = (i: TodoItem): string => (i.responsible_party_id === undefined ? '' : `${i.responsible_party_type === 'Company' ? 'c' : ''}${i.responsible_party_id}`);
  /** Create a deleted item again (same text, party, due date, state, place). Its comments cannot come back. */
  const recreate = async (listId: number, i: TodoItem): Promise<TodoItem> => {
    const input: TodoItemInput = { content: i.content };
    const party = partyOf(i);
    if (party) input.responsible_party = party;
    if (i.due_at) input.due_at = i.due_at.slice(0, 10);
    const c = await api.createTodoItem(listId, input);
    return i.completed ? api.completeTodoItem(c.id) : c;
  };
  const restoreItem = async (item: TodoItem, index: number): Promise<void> => {
    try {
      const c = await track(recreate(item.todo_list_id, item));
      const list = get().lists.find((l) => l.id === item.todo_list_id);
      if (list) {
        const ids = list.items.map((i) => i.id).filter((x) => x > 0 && x !== c.id);
        ids.splice(Math.min(index, ids.length), 0, c.id);
        await track(api.reorderTodoItems(item.todo_list_id, ids));
      }
      await refreshLists([item.todo_list_id]);
    } catch (e) { fail('Could not undo the deletion', e); }
  };
  const restoreList = async (pid: number, list: BoardList, index: number): Promise<void> => {
    try {
      const l = await track(api.createTodoList(pid, { name: list.name, description: list.description, ...(list.private ? { private: true } : {}) }));
      for (const i of list.items) await track(recreate(l.id, i));
      const order = get().lists.map((x) => x.id).filter((x) => x > 0 && x !== l.id);
      order.splice(Math.min(index, order.length), 0, l.id);
      await track(api.reorderTodoLists(pid, order));
      if (get().projectId === pid) await get().load(pid, true);
    } catch (e) { fail('Could not undo the deletion', e); }
  };

  return {
    projectId: null, lists: [], loading: false, loaded: false, filter: 'all', party: '', openItemId: null, comments: {},

    async load(projectId, quiet = false) {
      const seq = ++loadSeq;
      if (get().projectId !== projectId) set({ projectId, lists: [], loaded: false, openItemId: null, comments: {} });
      if (!quiet) set({ loading: true });
      try {
        // One request for the whole board (lists with their items), not one per list.
        const full = await track(api.todoBoard(projectId));
        if (seq === loadSeq) set({ lists: full.map(toBoard), loaded: true });
      } catch (e) {
        if (seq === loadSeq) fail('Could not load the todo lists', e);
      } finally {
        if (seq === loadSeq) set({ loading: false });
      }
    },

    setFilter(filter) { set({ filter }); },
    setParty(party) { set({ party }); },
    openItem(id) {
      set({ openItemId: id });
      if (id !== null && id > 0) void get().loadComments(id);
    },

    async createList(input) {
      const pid = get().projectId;
      if (!pid) return null;
      const tmp: BoardList = {
        id: tempId--, name: input.name ?? '', description: input.description ?? '', milestone_id: null, position: get().lists.length + 1,
        project_id: pid, tracked: false, uncompleted_count: 0, completed_count: 0, complete: true, completed: true, items: [],
        ...(input.private ? { private: true } : {}),
      };
      let created: TodoList | null = null;
      const ok = await optimistic('Could not create the list', (ls) => [...ls, tmp],
        async () => { created = await api.createTodoList(pid, input); });
      if (ok && created) set((s) => ({ lists: s.lists.map((l) => (l.id === tmp.id ? toBoard(created!) : l)) }));
      return ok && created ? (created as TodoList).id : null;
    },

    updateList(id, input) {
      return optimistic('Could not save the list', (ls) => ls.map((l) => (l.id === id ? { ...l, ...input, milestone_id: l.milestone_id } as BoardList : l)),
        () => api.updateTodoList(id, input), () => refreshLists([id]));
    },

    async deleteList(id) {
      const pid = get().projectId;
      const index = get().lists.findIndex((l) => l.id === id);
      const gone = get().lists[index];
      const ok = await optimistic('Could not delete the list', (ls) => ls.filter((l) => l.id !== id), () => api.deleteTodoList(id));
      if (ok && gone && pid) offerUndo(`List “${gone.name}” deleted`, () => restoreList(pid, gone, index));
    },

    async moveList(id, toIndex) {
      const pid = get().projectId;
      if (!pid) return;
      const from = get().lists.findIndex((l) => l.id === id);
      const next = moveCol(get().lists, id, toIndex);
      if (next.every((l, i) => l.id === get().lists[i].id)) return;
      const name = get().lists[from]?.name ?? '';
      const ok = await optimistic('Could not reorder the lists', () => next.map((l, i) => ({ ...l, position: i + 1 })),
        async () => {
          const fresh = await api.reorderTodoLists(pid, next.map((l) => l.id));
          set((s) => ({ lists: fresh.map((f) => ({ ...f, items: s.lists.find((l) => l.id === f.id)?.items ?? [] })) }));
        });
      if (ok) offerUndo(`List “${name}” moved`, () => get().moveList(id, from));
    },

    async createItem(listId, input) {
      const tmp: TodoItem = {
        id: tempId--, content: input.content ?? '', completed: false, comments_count: 0, commented_at: null, created_at: '', created_on: '',
        creator_id: 0, creator_name: '', position: 0, todo_list_id: listId, updated_at: '',
      };
      let created: TodoItem | null = null;
      const ok = await optimistic('Could not add the item',
        (ls) => ls.map((l) => (l.id === listId ? recount({ ...l, items: [...l.items, { ...tmp, position: l.items.length + 1 }] }) : l)),
        async () => { created = await api.createTodoItem(listId, input); },
        () => refreshLists([listId]));
      if (ok && created) {
        const c: TodoItem = created;
        set((s) => ({ lists: s.lists.map((l) => (l.id === listId && l.items.some((i) => i.id === tmp.id) ? { ...l, items: l.items.map((i) => (i.id === tmp.id ? c : i)) } : l)) }));
      }
      return ok;
    },

    updateItem(id, input) {
      const item = findItem(get().lists, id);
      if (!item) return Promise.resolve(false);
      const patch: Partial<TodoItem> = {};
      if (input.content !== undefined) patch.content = input.content;
      return optimistic('Could not save the item',
        (ls) => ls.map((l) => (l.id === item.todo_list_id ? { ...l, items: l.items.map((i) => (i.id === id ? { ...i, ...patch } : i)) } : l)),
        async () => {
          const fresh = await api.updateTodoItem(id, input);
          set((s) => ({ lists: s.lists.map((l) => ({ ...l, items: l.items.map((i) => (i.id === id ? fresh : i)) })) }));
        });
    },

    async deleteItem(id) {
      const item = findItem(get().lists, id);
      if (!item) return;
      const index = get().lists.find((l) => l.id === item.todo_list_id)?.items.findIndex((i) => i.id === id) ?? 0;
      if (get().openItemId === id) set({ openItemId: null });
      const ok = await optimistic('Could not delete the item',
        (ls) => ls.map((l) => (l.id === item.todo_list_id ? recount({ ...l, items: l.items.filter((i) => i.id !== id).map((i, n) => ({ ...i, position: n + 1 })) }) : l)),
        () => api.deleteTodoItem(id), () => refreshLists([item.todo_list_id]));
      if (ok) offerUndo(`Item “${item.content}” deleted`, () => restoreItem(item, index));
    },

    async toggleItem(id) {
      const item = findItem(get().lists, id);
      if (!item || id < 0) return;
      const done = !item.completed;
      const ok = await optimistic(done ? 'Could not complete the item' : 'Could not reopen the item',
        (ls) => ls.map((l) => (l.id === item.todo_list_id ? recount({ ...l, items: l.items.map((i) => (i.id === id ? { ...i, completed: done } : i)) }) : l)),
        async () => {
          const fresh = await (done ? api.completeTodoItem(id) : api.uncompleteTodoItem(id));
          set((s) => ({ lists: s.lists.map((l) => recount({ ...l, items: l.items.map((i) => (i.id === id ? fresh : i)) })) }));
        });
      if (ok) offerUndo(`${done ? 'Completed' : 'Reopened'} “${item.content}”`, () => get().toggleItem(id));
    },

    async moveItem(id, toList, toIndex) {
      const before = get().lists;
      const item = findItem(before, id);
      if (!item || id < 0) return;
      const next = moveItem(before, id, toList, toIndex);
      if (!next) return;
      const target = next.find((l) => l.id === toList)!;
      const same = item.todo_list_id === toList;
      if (same && target.items.every((i, n) => i.id === before.find((l) => l.id === toList)!.items[n]?.id)) return;
      const fromIndex = before.find((l) => l.id === item.todo_list_id)!.items.findIndex((i) => i.id === id);
      const ok = await optimistic('Could not move the item',
        () => next.map((l) => (l.id === toList ? recount({ ...l, items: l.items.map((i) => ({ ...i, todo_list_id: toList })) }) : recount(l))),
        async () => {
          const fresh = await api.reorderTodoItems(toList, target.items.map((i) => i.id));
          set((s) => ({ lists: s.lists.map((l) => (l.id === toList ? recount({ ...l, items: fresh }) : l)) }));
        },
        () => refreshLists(same ? [toList] : [toList, item.todo_list_id]));
      if (ok) offerUndo(`Moved “${item.content}”`, () => get().moveItem(id, item.todo_list_id, fromIndex));
    },

    async moveItemByKey(id, key) {
      const t = keyboardTarget(get().lists, id, key);
      if (t) await get().moveItem(id, t.col, t.index);
    },

    async loadComments(itemId) {
      try {
        const cs = await track(api.allComments('todo_items', itemId));
        set((s) => ({ comments: { ...s.comments, [itemId]: cs } }));
      } catch (e) { fail('Could not load the comments', e); }
    },

    async addComment(itemId, body, priv) {
      try {
        const c = await track(api.createComment('todo_items', itemId, { body, ...(priv ? { private: true } : {}) }));
        set((s) => ({
          comments: { ...s.comments, [itemId]: [...(s.comments[itemId] ?? []), c] },
          lists: s.lists.map((l) => ({ ...l, items: l.items.map((i) => (i.id === itemId ? { ...i, comments_count: i.comments_count + 1 } : i)) })),
        }));
        return true;
      } catch (e) { fail('Could not post the comment', e); return false; }
    },
  };
});
