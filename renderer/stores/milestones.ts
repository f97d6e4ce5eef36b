// Milestones board state (issue #27): the current project's milestones, the todo lists and messages
// that name them (`milestone_id`), and the comments of the milestones opened. Mutations are
// optimistic like the todo board's: the board changes at once, the server is asked, and on refusal
// the board rolls back and the server's messages are shown. Completing, reopening and deleting
// offer an undo (D93); a deleted milestone comes back with its lists and messages linked again (D297).

import { create } from 'zustand';
import type { Comment, Milestone, MilestoneInput, Post, TodoList } from '../../shared/client.ts';
import { api } from '../api.ts';
import { daysBetween, laterOpen, partyValue, shiftDay } from '../lib/milestones.ts';
import { PAGE, SEARCH_PAGES } from './messages.ts';
import { fail, track } from './ui.ts';
import { offerUndo } from './undo.ts';

/** What the board shows of a message linked to a milestone. */
export type LinkedPost = Pick<Post, 'id' | 'title' | 'milestone_id'>;
export type LinkedList = Pick<TodoList, 'id' | 'name' | 'milestone_id'>;

interface MilestonesState {
  projectId: number | null;
  milestones: Milestone[];
  lists: LinkedList[];
  posts: LinkedPost[];
  loading: boolean;
  loaded: boolean;
  /** The milestones whose comments are shown. */
  open: number[];
  comments: Record<number, Comment[]>;
  /** The board: milestones, lists and messages. */
  load(projectId: number, quiet?: boolean): Promise<void>;
  /** Only the milestones (the milestone select of the list and message editors). */
  loadMilestones(projectId: number): Promise<void>;
  /** Create one (shown at once, saved in the background): its id once saved, null when it was not. */
  create(input: MilestoneInput): Promise<number | null>;
  /** `move`: the later open milestones move with the due date (§8.7, D333), on the board at once. */
  update(id: number, input: MilestoneInput, move?: { upcoming: boolean; offWeekends?: boolean }): Promise<boolean>;
  toggle(id: number): Promise<void>;
  remove(id: number): Promise<boolean>;
  toggleComments(id: number): void;
  loadComments(id: number): Promise<void>;
  addComment(id: number, body: string, priv: boolean): Promise<boolean>;
}

let tempId = -1;
let loadSeq = 0;

/** Every message of the project, 25 a page, up to SEARCH_PAGES pages (as search reads them). */
async function allPosts(projectId: number): Promise<LinkedPost[]> {
  const out: LinkedPost[] = [];
  for (let page = 0; page < SEARCH_PAGES; page++) {
    const ps = await api.posts(projectId, { n: page * PAGE });
    out.push(...ps.map((p) => ({ id: p.id, title: p.title, milestone_id: p.milestone_id })));
    if (ps.length < PAGE) break;
  }
  return out;
}

export const useMilestones = create<MilestonesState>((set, get) => {
  const replace = (m: Milestone) => set((s) => ({ milestones: s.milestones.map((x) => (x.id === m.id ? m : x)) }));
  /** Run a mutation optimistically; roll back on failure. */
  const optimistic = async (title: string, change: (ms: Milestone[]) => Milestone[], call: () => Promise<unknown>): Promise<boolean> => {
    const before = get().milestones;
    const pid = get().projectId;
    set({ milestones: change(before) });
    try {
      await track(call());
      return true;
    } catch (e) {
      if (get().projectId === pid) set({ milestones: before });
      fail(title, e);
      return false;
    }
  };
  /** Create a deleted milestone again, completed if it was, and link its lists and messages to it again. Its comments cannot come back. */
  const restore = async (pid: number, m: Milestone, lists: LinkedList[], posts: LinkedPost[]): Promise<void> => {
    try {
      const input: MilestoneInput = { title: m.title, deadline: m.deadline, responsible_party: partyValue(m), notify: m.wants_notification };
      if (m.private) input.private = true;
      const c = await track(api.createMilestone(pid, input));
      if (m.completed) await track(api.completeMilestone(c.id));
      const relink: (() => Promise<unknown>)[] = [...lists.map((l) => () => api.updateTodoList(l.id, { milestone_id: c.id })), ...posts.map((p) => () => api.updatePost(p.id, { milestone_id: c.id }))];
      const refused: string[] = [];
      for (const r of relink) { try { await track<unknown>(r()); } catch (e) { refused.push((e as Error).message); } }
      if (refused.length) fail('The milestone is back, but not every list or message could be linked to it again', new Error(refused[0]));
    } catch (e) { fail('Could not undo the deletion', e); }
    if (get().projectId === pid) await get().load(pid, true);
  };

  return {
    projectId: null, milestones: [], lists: [], posts: [], loading: false, loaded: false, open: [], comments: {},

    async load(projectId, quiet = false) {
      const seq = ++loadSeq;
      if (get().projectId !== projectId) set({ projectId, milestones: [], lists: [], posts: [], loaded: false, open: [], comments: {} });
      if (!quiet) set({ loading: true });
      try {
        const [milestones, lists, posts] = await track(Promise.all([api.milestones(projectId), api.todoLists(projectId), allPosts(projectId)]));
        if (seq === loadSeq) {
          set({ milestones, lists: lists.map((l) => ({ id: l.id, name: l.name, milestone_id: l.milestone_id })), posts, loaded: true });
        }
      } catch (e) {
        if (seq === loadSeq) fail('Could not load the milestones', e);
      } finally {
        if (seq === loadSeq) set({ loading: false });
      }
    },

    async loadMilestones(projectId) {
      try {
        const milestones = await track(api.milestones(projectId));
        if (get().projectId !== projectId) set({ projectId, lists: [], posts: [], loaded: false, open: [], comments: {} });
        set({ milestones });
      } catch (e) { fail('Could not load the milestones', e); }
    },

    async create(input) {
      const pid = get().projectId;
      if (!pid) return null;
      const tmp: Milestone = {
        id: tempId--, title: input.title ?? '', deadline: input.deadline ?? '', completed: false, comments_count: 0, commented_at: null,
        created_on: '', creator_id: 0, creator_name: '', project_id: pid, wants_notification: false, ...(input.private ? { private: true } : {}),
      };
      let created: Milestone | null = null;
      const ok = await optimistic('Could not create the milestone', (ms) => [...ms, tmp], async () => { created = await api.createMilestone(pid, input); });
      if (!ok || !created) return null;
      const c: Milestone = created;
      set((s) => ({ milestones: s.milestones.map((x) => (x.id === tmp.id ? c : x)) }));
      return c.id;
    },

    async update(id, input, move) {
      const cur = get().milestones.find((m) => m.id === id);
      const days = cur && input.deadline ? daysBetween(cur.deadline.slice(0, 10), input.deadline) : 0;
      const moving = move?.upcoming && cur && days !== 0 ? new Set(laterOpen(get().milestones, id, cur.deadline).map((m) => m.id)) : null;
      const pid = get().projectId;
      const ok = await optimistic('Could not save the milestone',
        (ms) => ms.map((m) => (m.id === id ? { ...m, ...(input.title !== undefined ? { title: input.title } : {}), ...(input.deadline ? { deadline: input.deadline } : {}) }
          : moving?.has(m.id) ? { ...m, deadline: shiftDay(m.deadline, days, move?.offWeekends === true) } : m)),
        async () => replace(await api.updateMilestone(id, input, moving ? move : undefined)));
      // The server moved the others: its dates are the truth (another user may have changed one meanwhile).
      if (ok && moving && pid && get().projectId === pid) await get().load(pid, true);
      return ok;
    },

    async toggle(id) {
      const m = get().milestones.find((x) => x.id === id);
      if (!m || id < 0) return;
      const done = !m.completed;
      const ok = await optimistic(done ? 'Could not complete the milestone' : 'Could not reopen the milestone',
        (ms) => ms.map((x) => (x.id === id ? { ...x, completed: done, ...(done ? { completed_at: new Date().toISOString().slice(0, 19) + 'Z' } : {}) } : x)),
        async () => replace(await (done ? api.completeMilestone(id) : api.uncompleteMilestone(id))));
      if (ok) offerUndo(`${done ? 'Completed' : 'Reopened'} “${m.title}”`, () => get().toggle(id));
    },

    async remove(id) {
      const pid = get().projectId;
      const m = get().milestones.find((x) => x.id === id);
      if (!m || !pid || id < 0) return false;
      const lists = get().lists.filter((l) => l.milestone_id === id);
      const posts = get().posts.filter((p) => p.milestone_id === id);
      const ok = await optimistic('Could not delete the milestone', (ms) => ms.filter((x) => x.id !== id), () => api.deleteMilestone(id));
      if (ok) {
        set((s) => ({
          open: s.open.filter((x) => x !== id),
          lists: s.lists.map((l) => (l.milestone_id === id ? { ...l, milestone_id: null } : l)),
          posts: s.posts.map((p) => (p.milestone_id === id ? { ...p, milestone_id: 0 } : p)),
        }));
        offerUndo(`Milestone “${m.title}” deleted`, () => restore(pid, m, lists, posts));
      }
      return ok;
    },

    toggleComments(id) {
      const open = get().open.includes(id);
      set((s) => ({ open: open ? s.open.filter((x) => x !== id) : [...s.open, id] }));
      if (!open && id > 0) void get().loadComments(id);
    },

    async loadComments(id) {
      try {
        const cs = await track(api.allComments('milestones', id));
        set((s) => ({ comments: { ...s.comments, [id]: cs } }));
      } catch (e) { fail('Could not load the comments', e); }
    },

    async addComment(id, body, priv) {
      try {
        const c = await track(api.createComment('milestones', id, { body, ...(priv ? { private: true } : {}) }));
        set((s) => ({
          comments: { ...s.comments, [id]: [...(s.comments[id] ?? []), c] },
          milestones: s.milestones.map((m) => (m.id === id ? { ...m, comments_count: m.comments_count + 1 } : m)),
        }));
        return true;
      } catch (e) { fail('Could not post the comment', e); return false; }
    },
  };
});
