// Session: who is signed in, the projects they see, the current project and view (kept in the
// URL hash so a reload lands on the same board).

import { create } from 'zustand';
import type { Company, Credentials, Person, Project } from '../../shared/client.ts';
import { api, ApiError } from '../api.ts';
import { fail, track } from './ui.ts';
import { askOtherTabs } from './handover.ts';
import { hashPath } from '../lib/url-filters.ts';

/**
 * The boards of a project, "My work" (mine: the items assigned to me across every project), and the Overview
 * (what happened lately across every project: the first page after sign-in, issue #27).
 */
export type View = 'todos' | 'messages' | 'milestones' | 'time' | 'report' | 'mine' | 'overview';
/** The tabs of a project, in the order of their number keys (1 – 6); the Overview is key 0. */
export const VIEWS: readonly View[] = ['todos', 'messages', 'milestones', 'time', 'report', 'mine'];
const KEY = 'bivouac.credentials';
/** Where this tab keeps its sign-in (sessionStorage): handed to a new tab on request (handover.ts, D95). */
export const SESSION_KEY = KEY;

/** Where the user is: project, board, open message, message category filter (all kept in the URL hash). */
export interface Route { projectId: number | null; view: View; postId: number | null; categoryId?: number | null }

export function parseHash(hash: string): Route {
  // No board named (a fresh start, `#/`) or `#/overview`: the Overview.
  if (/^#?\/?(overview\/?)?$/.test(hash.replace(/\?.*$/, ''))) return { projectId: null, view: 'overview', postId: null, categoryId: null };
  const m = /^#?\/projects\/(\d+)(?:\/(todos|messages|milestones|time|report|mine)(?:\/(\d+))?(?:\/cat\/(\d+))?)?/.exec(hash);
  if (!m) return { projectId: null, view: 'todos', postId: null, categoryId: null };
  const view = (m[2] as View) ?? 'todos';
  return { projectId: Number(m[1]), view, postId: m[3] ? Number(m[3]) : null, categoryId: view === 'messages' && m[4] ? Number(m[4]) : null };
}
export const formatHash = (r: Route): string => {
  if (r.view === 'overview') return '#/overview';
  if (!r.projectId) return '#/';
  const msg = r.view === 'messages' ? `${r.postId ? `/${r.postId}` : ''}${r.categoryId && !r.postId ? `/cat/${r.categoryId}` : ''}` : '';
  return `#/projects/${r.projectId}/${r.view}${msg}`;
};

interface SessionState {
  status: 'checking' | 'signedOut' | 'signedIn';
  /** 'electron': the desktop shell gave a token; no sign-in or sign-out. */
  mode: 'browser' | 'electron';
  signInError: string | null;
  me: Person | null;
  /** The caller belongs to the firm (sees and sets private flags). */
  firm: boolean;
  admin: boolean;
  projects: Project[];
  /** Everyone the caller sees, and the companies (for names and report filters). */
  people: Person[];
  companies: Company[];
  projectId: number | null;
  view: View;
  postId: number | null;
  /** The message board's category filter (null: every category). */
  categoryId: number | null;
  /** Members and companies of the current project (responsible parties). */
  members: Person[];
  projectCompanies: Company[];
  init(): Promise<void>;
  signIn(c: Credentials): Promise<boolean>;
  signOut(): void;
  applyRoute(r: Route): void;
  go(view: View, postId?: number | null, categoryId?: number | null): void;
  selectProject(id: number): void;
  refreshProjects(): Promise<void>;
}

const storage = (): Storage | null => { try { return window.sessionStorage; } catch { return null; } };

export const useSession = create<SessionState>((set, get) => ({
  status: 'checking',
  mode: 'browser',
  signInError: null,
  me: null, firm: false, admin: false,
  projects: [], people: [], companies: [],
  projectId: null, view: 'todos', postId: null, categoryId: null,
  members: [], projectCompanies: [],

  async init() {
    const shell = typeof window !== 'undefined' ? window.bivouac : undefined;
    if (shell?.token) {
      set({ mode: 'electron' });
      await get().signIn({ token: shell.token });
      return;
    }
    // A new tab: another signed-in tab of this browser session may hand its sign-in over (D95).
    if (!storage()?.getItem(KEY)) {
      const handed = await askOtherTabs();
      if (handed) storage()?.setItem(KEY, handed);
    }
    const saved = storage()?.getItem(KEY);
    if (saved) {
      let c: unknown = null;
      try { c = JSON.parse(saved); } catch { /* not ours: dropped below */ }
      // Only a token is ever kept; anything else (a password an older version stored) is dropped.
      if (c && typeof c === 'object' && typeof (c as { token?: unknown }).token === 'string') {
        if (await get().signIn({ token: (c as { token: string }).token })) return;
      } else storage()?.removeItem(KEY);
    }
    set({ status: 'signedOut' });
  },

  async signIn(c) {
    api.setCredentials(c);
    let me: Person;
    try {
      me = await track(api.me());
    } catch (e) {
      api.setCredentials(null);
      storage()?.removeItem(KEY);
      const msg = e instanceof ApiError && e.status === 401 ? 'Wrong user name, password or token.'
        : e instanceof ApiError && e.status === 0 ? 'The local service does not answer. Is Bivouac running?'
          : e instanceof ApiError ? e.messages.join(' ') : String(e);
      set({ status: 'signedOut', signInError: msg });
      return false;
    }
    // From here on the client signs with the API token: the password is neither kept nor sent again.
    // Only the token survives a reload (sessionStorage); without one, a reload asks again.
    if (me.token) api.setCredentials({ token: me.token });
    if (get().mode === 'browser') {
      if (me.token) storage()?.setItem(KEY, JSON.stringify({ token: me.token }));
      else storage()?.removeItem(KEY);
    }
    const who = { me, firm: me.client_id === 0, admin: me.administrator === true, signInError: null };
    const route = parseHash(typeof window !== 'undefined' ? window.location.hash : '');
    const directory = track(Promise.all([api.projects(), api.people(), api.companies()]));
    const pick = (projects: Project[]) => (route.projectId && projects.some((p) => p.id === route.projectId) ? route.projectId
      : projects.find((p) => p.status === 'active')?.id ?? projects[0]?.id ?? null);
    if (route.projectId) {
      // The URL names a project: open its board while the directory loads (one round trip less).
      set({ status: 'signedIn', ...who });
      get().applyRoute(route);
      try {
        const [projects, people, companies] = await directory;
        set({ projects, people, companies });
        if (pick(projects) !== route.projectId) get().applyRoute({ ...route, projectId: pick(projects), postId: null });
      } catch (e) { fail('Could not load your projects', e); }
      return true;
    }
    try {
      const [projects, people, companies] = await directory;
      set({ status: 'signedIn', ...who, projects, people, companies });
      get().applyRoute({ ...route, projectId: pick(projects) });
      return true;
    } catch (e) {
      api.setCredentials(null);
      set({ status: 'signedOut', signInError: e instanceof ApiError ? e.messages.join(' ') : String(e) });
      return false;
    }
  },

  signOut() {
    storage()?.removeItem(KEY);
    api.setCredentials(null);
    set({ status: 'signedOut', me: null, projects: [], projectId: null, members: [], projectCompanies: [], signInError: null });
    if (typeof window !== 'undefined') window.location.hash = '#/';
  },

  applyRoute(r) {
    const prev = get().projectId;
    set({ projectId: r.projectId, view: r.view, postId: r.postId, categoryId: r.categoryId ?? null });
    if (typeof window !== 'undefined') {
      const h = formatHash(r);
      // the same board keeps its filters (the hash's query, lib/url-filters.ts)
      if (hashPath(window.location.hash) !== h) window.history.replaceState(null, '', h);
    }
    if (r.projectId && r.projectId !== prev) {
      const pid = r.projectId;
      set({ members: [], projectCompanies: [] });
      track(Promise.all([api.projectPeople(pid), api.projectCompanies(pid)]))
        .then(([members, projectCompanies]) => { if (get().projectId === pid) set({ members, projectCompanies }); })
        .catch((e) => fail('Could not load the project’s people', e));
    }
  },

  go(view, postId = null, categoryId = null) {
    const s = get();
    const r = { projectId: s.projectId, view, postId, categoryId };
    const h = formatHash(r);
    if (typeof window !== 'undefined' && hashPath(window.location.hash) !== h) window.history.pushState(null, '', h);
    s.applyRoute(r);
  },

  selectProject(id) {
    const s = get();
    // From the Overview, a project is chosen to open it: its todo board.
    const view = s.view === 'overview' ? 'todos' : s.view;
    const h = formatHash({ projectId: id, view, postId: null });
    if (typeof window !== 'undefined' && window.location.hash !== h) window.history.pushState(null, '', h);
    s.applyRoute({ projectId: id, view, postId: null });
  },

  async refreshProjects() {
    try { set({ projects: await track(api.projects()) }); } catch (e) { fail('Could not load projects', e); }
  },
}));

/** Name of a responsible party value (`4` / `c12`). */
export function partyName(value: string, people: readonly Person[], companies: readonly Company[]): string {
  if (value.startsWith('c')) return companies.find((c) => c.id === Number(value.slice(1)))?.name ?? `Company ${value.slice(1)}`;
  const p = people.find((x) => x.id === Number(value));
  return p ? `${p.first_name} ${p.last_name}` : `Person ${value}`;
}

export const fullName = (p: Person): string => `${p.first_name} ${p.last_name}`;
