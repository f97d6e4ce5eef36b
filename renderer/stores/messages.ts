// Message board state: categories, the newest posts (25 per page, `n` offset), the archive,
// the open message with its comments.

import { create } from 'zustand';
import type { Category, Comment, Post, PostInput, PostSummary } from '../../shared/client.ts';
import { api, ApiError } from '../api.ts';
import { fail, track, useUi } from './ui.ts';

export const PAGE = 25;
/** Search reads at most this many pages of full posts (1,000 messages); older ones match by title. */
export const SEARCH_PAGES = 40;

interface MessagesState {
  projectId: number | null;
  categories: Category[];
  /** null = every category. */
  categoryId: number | null;
  posts: Post[];
  hasMore: boolean;
  loading: boolean;
  loaded: boolean;
  mode: 'recent' | 'archive';
  archive: PostSummary[] | null;
  /** All post titles of the project (for search). */
  index: PostSummary[];
  current: Post | null;
  comments: Comment[];
  /** Every post of the project with its body, for search (loaded on demand, page by page). */
  bodies: Post[];
  bodiesFor: number | null;
  load(projectId: number): Promise<void>;
  /** Load the bodies of all posts of the project for search (up to SEARCH_PAGES pages). */
  loadBodies(projectId: number): Promise<void>;
  setCategory(id: number | null): Promise<void>;
  setMode(m: 'recent' | 'archive'): Promise<void>;
  loadMore(): Promise<void>;
  open(id: number | null): Promise<void>;
  createPost(input: PostInput): Promise<Post | null>;
  updatePost(id: number, input: PostInput): Promise<boolean>;
  deletePost(id: number): Promise<boolean>;
  addComment(body: string, priv: boolean): Promise<boolean>;
  updateComment(id: number, body: string): Promise<boolean>;
  deleteComment(id: number): Promise<void>;
  createCategory(name: string): Promise<boolean>;
  /** Fetch the project's post categories again (before a name is checked for duplicates); the last list when that fails. */
  reloadCategories(): Promise<Category[]>;
  renameCategory(id: number, name: string): Promise<boolean>;
  deleteCategory(id: number): Promise<void>;
}

let seq = 0;

export const useMessages = create<MessagesState>((set, get) => {
  const refreshList = async () => {
    const { projectId: pid, categoryId, mode } = get();
    if (!pid) return;
    const s = ++seq;
    const [posts, index, categories] = await track(Promise.all([
      api.posts(pid, { categoryId }), api.postsArchive(pid), api.categories(pid, 'post'),
    ]));
    const archive = mode === 'archive' ? await track(api.postsArchive(pid, categoryId)) : null;
    // The search corpus is read again on the next search: posts may have changed.
    if (s === seq && get().projectId === pid) set({ posts, index, categories, archive, hasMore: posts.length === PAGE, loaded: true, bodies: [], bodiesFor: null });
  };
  const guard = async (title: string, f: () => Promise<void>): Promise<boolean> => {
    try { await f(); return true; } catch (e) { fail(title, e); return false; }
  };

  return {
    projectId: null, categories: [], categoryId: null, posts: [], hasMore: false, loading: false, loaded: false,
    mode: 'recent', archive: null, index: [], current: null, comments: [], bodies: [], bodiesFor: null,

    async loadBodies(projectId) {
      if (get().bodiesFor === projectId) return;
      set({ bodiesFor: projectId, bodies: [] });
      await guard('Could not load the messages for search', async () => {
        const all: Post[] = [];
        for (let page = 0; page < SEARCH_PAGES; page++) {
          const batch = await track(api.posts(projectId, { n: page * PAGE }));
          if (get().bodiesFor !== projectId) return; // the project changed meanwhile
          all.push(...batch.filter((p) => !all.some((x) => x.id === p.id)));
          set({ bodies: [...all] });
          if (batch.length < PAGE) break;
        }
      });
    },

    async load(projectId) {
      if (get().projectId !== projectId) set({ projectId, posts: [], categories: [], categoryId: null, archive: null, index: [], loaded: false, current: null, comments: [], bodies: [], bodiesFor: null });
      set({ loading: true });
      await guard('Could not load the messages', refreshList);
      set({ loading: false });
    },

    async setCategory(categoryId) {
      set({ categoryId, posts: [], archive: null, loading: true });
      await guard('Could not load the messages', refreshList);
      set({ loading: false });
    },

    async setMode(mode) {
      set({ mode });
      if (mode === 'archive') {
        const { projectId: pid, categoryId } = get();
        if (!pid) return;
        await guard('Could not load the archive', async () => set({ archive: await track(api.postsArchive(pid, categoryId)) }));
      }
    },

    async loadMore() {
      const { projectId: pid, categoryId, posts } = get();
      if (!pid) return;
      await guard('Could not load older messages', async () => {
        const more = await track(api.posts(pid, { categoryId, n: posts.length }));
        set({ posts: [...posts, ...more.filter((p) => !posts.some((x) => x.id === p.id))], hasMore: more.length === PAGE });
      });
    },

    async open(id) {
      if (id === null) { set({ current: null, comments: [] }); return; }
      const cached = get().posts.find((p) => p.id === id) ?? null;
      set({ current: cached?.id === id ? cached : get().current?.id === id ? get().current : null, comments: get().current?.id === id ? get().comments : [] });
      await guard('Could not open the message', async () => {
        const [post, comments] = await track(Promise.all([api.post(id), api.allComments('posts', id)]));
        set({ current: post, comments });
      });
    },

    async createPost(input) {
      const pid = get().projectId;
      if (!pid) return null;
      try {
        const post = await track(api.createPost(pid, input));
        set((s) => ({ posts: [post, ...s.posts] }));
        void guard('Could not refresh the messages', refreshList);
        return post;
      } catch (e) { fail('Could not post the message', e); return null; }
    },

    async updatePost(id, input) {
      const before = get().current;
      if (before?.id === id) set({ current: { ...before, ...input, category_id: input.category_id ?? before.category_id } as Post });
      return guard('Could not save the message', async () => {
        try {
          const post = await track(api.updatePost(id, input));
          set((s) => ({ current: s.current?.id === id ? post : s.current, posts: s.posts.map((p) => (p.id === id ? post : p)) }));
        } catch (e) { if (before) set({ current: before }); throw e; }
        await refreshList();
      });
    },

    async deletePost(id) {
      const before = { posts: get().posts, current: get().current };
      set((s) => ({ posts: s.posts.filter((p) => p.id !== id), current: s.current?.id === id ? null : s.current }));
      return guard('Could not delete the message', async () => {
        try { await track(api.deletePost(id)); } catch (e) { set(before); throw e; }
        await refreshList();
      });
    },

    async addComment(body, priv) {
      const post = get().current;
      if (!post) return false;
      return guard('Could not post the comment', async () => {
        const c = await track(api.createComment('posts', post.id, { body, ...(priv ? { private: true } : {}) }));
        set((s) => ({ comments: [...s.comments, c], current: s.current ? { ...s.current, comments_count: s.current.comments_count + 1 } : null }));
        set((s) => ({ posts: s.posts.map((p) => (p.id === post.id ? { ...p, comments_count: p.comments_count + 1 } : p)) }));
      });
    },

    async updateComment(id, body) {
      const before = get().comments;
      set({ comments: before.map((c) => (c.id === id ? { ...c, body } : c)) });
      return guard('Could not save the comment', async () => {
        try {
          const c = await track(api.updateComment(id, { body }));
          set((s) => ({ comments: s.comments.map((x) => (x.id === id ? c : x)) }));
        } catch (e) { set({ comments: before }); throw e; }
      });
    },

    async deleteComment(id) {
      const before = get().comments;
      const post = get().current;
      set({ comments: before.filter((c) => c.id !== id) });
      await guard('Could not delete the comment', async () => {
        try { await track(api.deleteComment(id)); } catch (e) { set({ comments: before }); throw e; }
        // The message list shows comment counts: they follow (a deleted comment was once left counted).
        if (post) {
          const dec = (n: number) => Math.max(0, n - 1);
          set((s) => ({
            current: s.current && s.current.id === post.id ? { ...s.current, comments_count: dec(s.current.comments_count) } : s.current,
            posts: s.posts.map((p) => (p.id === post.id ? { ...p, comments_count: dec(p.comments_count) } : p)),
          }));
        }
      });
    },

    async createCategory(name) {
      const pid = get().projectId;
      if (!pid) return false;
      return guard('Could not create the category', async () => {
        const c = await track(api.createCategory(pid, { name, type: 'post' }));
        set((s) => ({ categories: [...s.categories, c].sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' })) }));
      });
    },

    async reloadCategories() {
      const pid = get().projectId;
      if (!pid) return get().categories;
      try {
        const categories = await track(api.categories(pid, 'post'));
        if (get().projectId === pid) set({ categories });
        return categories;
      } catch { return get().categories; }
    },

    async renameCategory(id, name) {
      const before = get().categories;
      set({ categories: before.map((c) => (c.id === id ? { ...c, name } : c)) });
      return guard('Could not rename the category', async () => {
        try { await track(api.updateCategory(id, { name })); } catch (e) { set({ categories: before }); throw e; }
      });
    },

    async deleteCategory(id) {
      const before = get().categories;
      set({ categories: before.filter((c) => c.id !== id) });
      try {
        await track(api.deleteCategory(id));
        if (get().categoryId === id) await get().setCategory(null);
      } catch (e) {
        set({ categories: before });
        if (e instanceof ApiError && e.status === 409) {
          const c = before.find((x) => x.id === id);
          useUi.getState().notify('error', `“${c?.name ?? 'This category'}” still has messages`,
            ['Move its messages to another category (or delete them) before deleting it.', ...e.messages]);
        } else fail('Could not delete the category', e);
      }
    },
  };
});
