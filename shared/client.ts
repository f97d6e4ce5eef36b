// The typed API client: the renderer (and any local tool) talks to a Bivouac server only through
// this module, over the public JSON representation of the contract (§8.14, `.json` routes).
//
// No Node, no DOM: the caller passes a `fetch`-like function and a base64 encoder.
// Record interfaces mirror the registry (shared/registry.ts): their keys are the registry's
// element names with `-` replaced by `_`. `RECORD_KEYS` lists them at runtime and a unit test
// (tests/shared/client.test.ts) checks them against the registry, so the two cannot drift.

import type { CommentableType, ResourceKey, WireRecord } from './registry.ts';
import { ROUTES as R } from './routes.ts';

// ---- record types (keys = registry field names with `_`) -----------------------------------

export interface NamedRef { id: number; name: string }

export interface Company {
  address_one: string | null; address_two: string | null; can_see_private: boolean; city: string | null;
  country: string | null; id: number; name: string; phone_number_fax: string | null; phone_number_office: string | null;
  state: string | null; time_zone_id: string | null; url_name?: string | null; web_address: string | null; zip: string | null;
}

export interface Person {
  administrator?: boolean; avatar_url: string | null; client_id: number; company_id: number; created_at: string;
  email_address: string; first_name: string; id: number; im_handle: string | null; im_service: string | null;
  last_name: string; phone_number_fax: string | null; phone_number_home: string | null; phone_number_mobile: string | null;
  phone_number_office: string | null; phone_number_office_ext: string | null; time_zone_name: string; title: string;
  token?: string; updated_at: string; user_name?: string;
}

export type ProjectStatus = 'active' | 'on_hold' | 'archived';
export interface Project {
  announcement?: string | null; company: NamedRef; created_on: string; id: number; last_changed_on: string; name: string;
  show_announcement?: boolean; show_writeboards?: boolean; start_page?: string; status: ProjectStatus;
}

export interface Category { elements_count: number; id: number; name: string; project_id: number; type: 'post' | 'attachment' }

export interface Post {
  attachments_count: number; author_id: number; author_name: string; body: string; category_id: number | null;
  commented_at: string | null; comments_count: number; display_body: string; display_extended_body: string | null;
  extended_body: string; id: number; milestone_id: number; posted_on: string; private?: boolean; project_id: number;
  title: string; use_textile: boolean;
}

/** The summary form of a post (archive routes). */
export interface PostSummary {
  attachments_count: number; author_name: string; category?: { id: number; name: string; type: string };
  commented_at: string | null; id: number; posted_on: string; title: string;
}

export type CommentableKind = 'posts' | 'milestones' | 'todo_items';
export interface Comment {
  attachments_count: number; author_id: number; author_name: string; body: string; commentable_id: number;
  commentable_type: CommentableType; created_at: string; emailed_from: string | null; id: number;
  post_id?: number; posted_on: string; private?: boolean;
}

/** One event of the Overview (`GET /overview.json`, docs/api-extensions.md E7). */
export interface OverviewEvent {
  kind: 'post' | 'comment' | 'todo-item' | 'todo-item-completed' | 'milestone' | 'milestone-completed' | 'time-entry';
  at: string;
  project_id: number;
  project_name: string;
  resource: 'post' | 'comment' | 'todo-item' | 'milestone' | 'time-entry';
  record_id: number;
  title: string | null;
  excerpt: string | null;
  parent_type: string | null;
  parent_id: number | null;
  person_id: number | null;
  person_name: string | null;
  hours: number | null;
}
export interface OverviewPage { events: OverviewEvent[]; next_before: string | null }

export interface Milestone {
  commented_at: string | null; comments_count: number; completed: boolean; completed_at?: string; completed_on?: string;
  completer_id?: number; completer_name?: string; created_on: string; creator_id: number; creator_name: string;
  deadline: string; id: number; private?: boolean; project_id: number; responsible_party_id?: number;
  responsible_party_type?: 'Person' | 'Company'; responsible_party_name?: string; title: string; wants_notification: boolean;
}

export interface TodoItem {
  comments_count: number; commented_at: string | null; completed: boolean; completed_at?: string; completed_on?: string;
  completer_id?: number; completer_name?: string; content: string; created_at: string; created_on: string;
  creator_id: number; creator_name: string; due_at?: string; id: number; position: number;
  responsible_party_id?: number; responsible_party_type?: 'Person' | 'Company'; responsible_party_name?: string;
  todo_list_id: number; updated_at: string;
}

export interface TodoList {
  completed_count: number; description: string; id: number; milestone_id: number | null; name: string; position: number;
  private?: boolean; project_id: number; tracked: boolean; uncompleted_count: number; complete: boolean; completed: boolean;
  todo_items?: TodoItem[];
}

export interface TimeEntry {
  date: string; description: string; hours: number; id: number; person_id: number; person_name: string;
  private?: boolean; project_id: number; todo_item_id: number | null;
}

/** Record interface per registry resource. */
export interface Records {
  company: Company; person: Person; project: Project; category: Category; post: Post; comment: Comment;
  milestone: Milestone; todoList: TodoList; todoItem: TodoItem; timeEntry: TimeEntry;
}

// Runtime key lists; `Exhaustive` makes the compiler refuse a list that misses an interface key.
type Exhaustive<T, K extends readonly (keyof T)[]> = Exclude<keyof T, K[number]> extends never ? K : never;
const keys = <T>() => <const K extends readonly (keyof T)[]>(k: Exhaustive<T, K>): readonly string[] => k as readonly string[];

export const RECORD_KEYS: { readonly [R in ResourceKey]: readonly string[] } = {
  company: keys<Company>()(['address_one', 'address_two', 'can_see_private', 'city', 'country', 'id', 'name', 'phone_number_fax',
    'phone_number_office', 'state', 'time_zone_id', 'url_name', 'web_address', 'zip']),
  person: keys<Person>()(['administrator', 'avatar_url', 'client_id', 'company_id', 'created_at', 'email_address', 'first_name', 'id',
    'im_handle', 'im_service', 'last_name', 'phone_number_fax', 'phone_number_home', 'phone_number_mobile', 'phone_number_office',
    'phone_number_office_ext', 'time_zone_name', 'title', 'token', 'updated_at', 'user_name']),
  project: keys<Project>()(['announcement', 'company', 'created_on', 'id', 'last_changed_on', 'name', 'show_announcement',
    'show_writeboards', 'start_page', 'status']),
  category: keys<Category>()(['elements_count', 'id', 'name', 'project_id', 'type']),
  post: keys<Post>()(['attachments_count', 'author_id', 'author_name', 'body', 'category_id', 'commented_at', 'comments_count',
    'display_body', 'display_extended_body', 'extended_body', 'id', 'milestone_id', 'posted_on', 'private', 'project_id', 'title',
    'use_textile']),
  comment: keys<Comment>()(['attachments_count', 'author_id', 'author_name', 'body', 'commentable_id', 'commentable_type',
    'created_at', 'emailed_from', 'id', 'post_id', 'posted_on', 'private']),
  milestone: keys<Milestone>()(['commented_at', 'comments_count', 'completed', 'completed_at', 'completed_on', 'completer_id',
    'completer_name', 'created_on', 'creator_id', 'creator_name', 'deadline', 'id', 'private', 'project_id',
    'responsible_party_id', 'responsible_party_type', 'responsible_party_name', 'title', 'wants_notification']),
  todoList: keys<TodoList>()(['completed_count', 'description', 'id', 'milestone_id', 'name', 'position', 'private', 'project_id',
    'tracked', 'uncompleted_count', 'complete', 'completed', 'todo_items']),
  todoItem: keys<TodoItem>()(['comments_count', 'commented_at', 'completed', 'completed_at', 'completed_on', 'completer_id',
    'completer_name', 'content', 'created_at', 'created_on', 'creator_id', 'creator_name', 'due_at', 'id', 'position',
    'responsible_party_id', 'responsible_party_type', 'responsible_party_name', 'todo_list_id', 'updated_at']),
  timeEntry: keys<TimeEntry>()(['date', 'description', 'hours', 'id', 'person_id', 'person_name', 'private', 'project_id',
    'todo_item_id']),
};

export const POST_SUMMARY_KEYS: readonly string[] =
  keys<PostSummary>()(['attachments_count', 'author_name', 'category', 'commented_at', 'id', 'posted_on', 'title']);

// ---- inputs (keys = the registry's writable input names with `_`) ----------------------------

export interface ProjectInput { name?: string; status?: ProjectStatus; announcement?: string | null; start_page?: string; show_writeboards?: boolean; show_announcement?: boolean }
/** Administration (docs/api-extensions.md E2–E6). `password` is only ever sent, never answered. */
export interface PersonInput {
  first_name?: string; last_name?: string; user_name?: string; email_address?: string; company_id?: number;
  administrator?: boolean; title?: string; password?: string;
}
export interface CompanyInput { name?: string; can_see_private?: boolean }
/** A one-time invitation (E6): the token is shown in this answer only. */
export interface Invitation { person_id: number; token: string; expires_at: string }
export interface CategoryInput { name?: string; type?: 'post' | 'attachment' }
export interface PostInput { title?: string; body?: string; extended_body?: string; category_id?: number | null; milestone_id?: number | null; use_textile?: boolean; private?: boolean }
export interface CommentInput { body?: string; private?: boolean }
export interface TodoListInput { name?: string; description?: string; milestone_id?: number | null; private?: boolean; tracked?: boolean }
/** `responsible_party`: a person id (`"4"`), `c` + company id (`"c12"`), or `""` for nobody. `due_at`: date or datetime, `""` clears. */
export interface TodoItemInput { content?: string; due_at?: string; responsible_party?: string }
/** `responsible_party` as for todo items; `deadline` a date (`YYYY-MM-DD`); `notify` is stored as `wants_notification`. */
export interface MilestoneInput { title?: string; deadline?: string; responsible_party?: string; notify?: boolean; private?: boolean }
export interface TimeEntryInput { date?: string; hours?: number | string; description?: string; person_id?: number; todo_item_id?: number | null; private?: boolean }

/** A new project (`company_id`: the firm's when absent). */
export interface NewProjectInput extends ProjectInput { company_id?: number }
/** A milestone update; `move_upcoming_milestones`: later open milestones shift by as many days (off weekends: to Monday). */
export interface MilestoneUpdateInput extends MilestoneInput { move_upcoming_milestones?: boolean; move_upcoming_milestones_off_weekends?: boolean }
/** `POST /time/save_entry` (§8.10): the project is a field of the entry. */
export interface TimeEntrySaveInput extends TimeEntryInput { project_id?: number }

export const INPUT_KEYS: { readonly [R in Exclude<ResourceKey, 'company' | 'person'>]: readonly string[] } = {
  project: keys<ProjectInput>()(['name', 'status', 'announcement', 'start_page', 'show_writeboards', 'show_announcement']),
  category: keys<CategoryInput>()(['name', 'type']),
  post: keys<PostInput>()(['title', 'body', 'extended_body', 'category_id', 'milestone_id', 'use_textile', 'private']),
  comment: keys<CommentInput>()(['body', 'private']),
  todoList: keys<TodoListInput>()(['name', 'description', 'milestone_id', 'private', 'tracked']),
  todoItem: keys<TodoItemInput>()(['content', 'due_at', 'responsible_party']),
  milestone: keys<MilestoneInput>()(['title', 'deadline', 'responsible_party', 'notify', 'private']),
  timeEntry: keys<TimeEntryInput>()(['date', 'hours', 'description', 'person_id', 'todo_item_id', 'private']),
};

// ---- sync (local extension, docs/sync-client.md §4) -------------------------------------------

// The one sync status (D308).
export type { SyncState, SyncStatus } from './sync-status.ts';
import type { SyncStatus } from './sync-status.ts';
/** A conflict as people read it (D310): title and place of the record, the field's label, readable values. */
export interface SyncConflict {
  id: number; resource: string; recordId: number; field: string; kind: string;
  mine: string | null; theirs: string | null; at: string; resolved: boolean; keep: 'mine' | 'theirs' | 'restore' | null;
  title: string; place: string[]; label: string; mineText: string | null; theirsText: string | null;
  format: 'text' | 'date' | 'datetime'; by: string | null; exists: boolean; actions: ('mine' | 'theirs' | 'restore')[];
  /** Recorded from the other side's notice: this side lost (D329); `outcome`: what they did with their work since. */
  told?: boolean; outcome?: 'restored' | 'dropped' | null;
}
export interface SyncRejected {
  id: number; seq: number; resource: string; recordId: number; method: string; path: string; status: number; message: string; at: string;
}
export type RemoteCredentials = { url: string; user: string; password: string } | { url: string; token: string };

// ---- transport ------------------------------------------------------------------------------

/** The part of a fetch Response the client uses. */
export interface HttpResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}
export interface HttpInit { method: string; headers: Record<string, string>; body?: string }
export type HttpFetch = (url: string, init: HttpInit) => Promise<HttpResponse>;

export type Credentials = { readonly user: string; readonly password: string } | { readonly token: string };

export interface ClientOptions {
  /** Server root, e.g. `http://127.0.0.1:4817`; `''` for the page's own origin. */
  readonly baseUrl?: string;
  readonly fetch: HttpFetch;
  /** base64 of the UTF-8 bytes of a string (for HTTP Basic). */
  readonly base64: (text: string) => string;
  readonly credentials?: Credentials | null;
}

/** A non-2xx answer (or status 0 when the server could not be reached). */
export class ApiError extends Error {
  readonly status: number;
  readonly messages: readonly string[];
  constructor(status: number, messages: readonly string[]) {
    super(messages.length ? messages.join('; ') : `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.messages = messages;
  }
}

export interface Page<T> { readonly items: T[]; readonly headers: { get(name: string): string | null } }
export interface CommentPage { readonly comments: Comment[]; readonly count: number; readonly continuedAt: string | null }
export interface TimePage { readonly entries: TimeEntry[]; readonly records: number; readonly pages: number; readonly page: number }

export interface ReportFilters {
  /** `YYYY-MM-DD` or `YYYYMMDD`; inclusive. */
  from?: string; to?: string;
  subject_id?: number; todo_item_id?: number; filter_project_id?: number; filter_company_id?: number;
}

export type TodoListFilter = 'all' | 'pending' | 'finished';

type Query = Record<string, string | number | undefined | null>;
/** Record routes answer JSON with this extension (shared/routes.ts, D322). */
const J = '.json';

const qs = (q: Query): string => {
  const parts = Object.entries(q).filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
};
const compactDate = (d: string | undefined): string | undefined => (d ? d.replace(/-/g, '') : undefined);

/** Wrap an input in its record element name (§8.14): `{"todo_item": {...}}`; undefined fields dropped. */
function wrap(element: string, input: object): string {
  const rec: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) if (v !== undefined) rec[k] = v;
  return JSON.stringify({ [element]: rec });
}

export class BivouacClient {
  private readonly base: string;
  private readonly doFetch: HttpFetch;
  private readonly b64: (s: string) => string;
  private auth: string | null = null;

  constructor(opts: ClientOptions) {
    this.base = (opts.baseUrl ?? '').replace(/\/+$/, '');
    this.doFetch = opts.fetch;
    this.b64 = opts.base64;
    this.setCredentials(opts.credentials ?? null);
  }

  setCredentials(c: Credentials | null): void {
    if (!c) { this.auth = null; return; }
    const pair = 'token' in c ? `${c.token}:X` : `${c.user}:${c.password}`;
    this.auth = `Basic ${this.b64(pair)}`;
  }

  get signedIn(): boolean { return this.auth !== null; }

  /** The full URL of a path and the headers that authenticate a request (for a streaming fetch, D94). */
  streamTarget(path: string): { url: string; headers: Record<string, string> } {
    return { url: this.base + path, headers: { Accept: 'text/event-stream', ...(this.auth ? { Authorization: this.auth } : {}) } };
  }

  /** One request; JSON in and out. Returns the parsed body (null for an empty one) and headers. */
  async request<T>(method: string, path: string, body?: unknown): Promise<{ data: T; headers: HttpResponse['headers'] }> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.auth) headers.Authorization = this.auth;
    const init: HttpInit = { method, headers };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json; charset=utf-8';
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
    }
    let res: HttpResponse;
    try {
      res = await this.doFetch(this.base + path, init);
    } catch (e) {
      throw new ApiError(0, [`Cannot reach the local service (${(e as Error).message ?? 'network error'})`]);
    }
    const text = await res.text();
    let data: unknown = null;
    if (text.trim() !== '') {
      try { data = JSON.parse(text); } catch { data = null; }
    }
    if (res.status < 200 || res.status > 299) {
      const errs = data && typeof data === 'object' && Array.isArray((data as { errors?: unknown }).errors)
        ? ((data as { errors: unknown[] }).errors).map(String)
        : [text.trim() && !text.trimStart().startsWith('<') ? text.trim() : `The server answered ${res.status}`];
      throw new ApiError(res.status, errs);
    }
    return { data: data as T, headers: res.headers };
  }

  private async get<T>(path: string): Promise<T> { return (await this.request<T>('GET', path)).data; }
  private async send<T>(method: string, path: string, body?: unknown): Promise<T> { return (await this.request<T>(method, path, body)).data; }
  /** A record route of shared/routes.ts (its method and path). */
  private write<T>(r: { method: string; path: string }, body?: unknown): Promise<T> { return this.send(r.method, r.path, body); }

  // -- people, companies, projects
  me(): Promise<Person> { return this.get('/me.json'); }
  people(): Promise<Person[]> { return this.get('/people.json'); }
  person(id: number): Promise<Person> { return this.get(`/people/${id}.json`); }
  companies(): Promise<Company[]> { return this.get('/companies.json'); }
  company(id: number): Promise<Company> { return this.get(`/companies/${id}.json`); }
  projects(): Promise<Project[]> { return this.get('/projects.json'); }
  project(id: number): Promise<Project> { return this.get(R.project.show(id, J)); }
  projectPeople(projectId: number): Promise<Person[]> { return this.get(`/projects/${projectId}/people.json`); }
  projectCompanies(projectId: number): Promise<Company[]> { return this.get(`/projects/${projectId}/companies.json`); }
  createProject(input: ProjectInput): Promise<Project> { return this.send('POST', R.project.create(0, J), wrap('project', input)); }
  updateProject(id: number, input: ProjectInput): Promise<Project> { return this.write(R.project.update(id, J), wrap('project', input)); }
  /** A new project of a company (`company_id`: the firm's when absent). */
  createProjectFor(input: NewProjectInput): Promise<Project> { return this.send('POST', R.project.create(0, J), wrap('project', input)); }

  // -- administration (extensions E2–E6; administrators, except a person's own password)
  createPerson(input: PersonInput): Promise<Person> { return this.send('POST', '/people.json', wrap('person', input)); }
  updatePerson(id: number, input: PersonInput): Promise<Person> { return this.send('PUT', `/people/${id}.json`, wrap('person', input)); }
  /** Deactivates: the person can no longer sign in; what they wrote keeps its author. */
  async deactivatePerson(id: number): Promise<void> { await this.send('DELETE', `/people/${id}.json`); }
  createCompany(input: CompanyInput): Promise<Company> { return this.send('POST', '/companies.json', wrap('company', input)); }
  /** The deactivated people (administrators; D291): the person record does not say it. */
  deactivatedPeople(): Promise<Person[]> { return this.get('/people/deactivated.json'); }
  /**
   * The ids of the deactivated people the caller sees (anyone signed in; D331). `complete` false: a replica, whose
   * copy of a person does not say it; the list is then not to be relied on. Anything but whole ids is dropped.
   */
  async deactivatedIds(): Promise<{ complete: boolean; ids: number[] }> {
    const r: unknown = await this.get('/people/deactivated-ids.json');
    const o = r && typeof r === 'object' ? r as { complete?: unknown; ids?: unknown } : {};
    const ids = Array.isArray(o.ids) ? o.ids.filter((x): x is number => Number.isSafeInteger(x) && (x as number) > 0) : [];
    return { complete: o.complete === true, ids };
  }
  updateCompany(id: number, input: CompanyInput): Promise<Company> { return this.send('PUT', `/companies/${id}.json`, wrap('company', input)); }
  addMember(projectId: number, personId: number): Promise<Person> {
    return this.send('POST', `/projects/${projectId}/people.json`, { person: { id: personId } });
  }
  async removeMember(projectId: number, personId: number): Promise<void> { await this.send('DELETE', `/projects/${projectId}/people/${personId}.json`); }
  /** A one-time invitation for a person (replaces their open ones). */
  async invite(personId: number): Promise<Invitation> {
    const d = await this.send<Invitation | { invitation: Invitation }>('POST', `/people/${personId}/invitation.json`);
    return 'invitation' in d ? d.invitation : d;
  }
  /** Public: the invited person sets their password (404 for any token that is not valid). */
  async acceptInvitation(token: string, userName: string, password: string): Promise<void> {
    await this.send('POST', '/invitations/accept.json', { invitation: { token, user_name: userName, password } });
  }

  // -- categories
  categories(projectId: number, type?: 'post' | 'attachment'): Promise<Category[]> {
    return this.get(`/projects/${projectId}/categories.json${qs({ type })}`);
  }
  createCategory(projectId: number, input: CategoryInput): Promise<Category> {
    return this.send('POST', R.category.create(projectId, J), wrap('category', { type: 'post', ...input }));
  }
  updateCategory(id: number, input: CategoryInput): Promise<Category> { return this.write(R.category.update(id, J), wrap('category', input)); }
  async deleteCategory(id: number): Promise<void> { await this.write(R.category.remove(id, J)); }

  // -- posts
  /** 25 newest posts from offset `n`, optionally of one category. */
  posts(projectId: number, opts: { n?: number; categoryId?: number | null } = {}): Promise<Post[]> {
    const base = opts.categoryId ? `/projects/${projectId}/cat/${opts.categoryId}/posts.json` : `/projects/${projectId}/posts.json`;
    return this.get(base + qs({ n: opts.n || undefined }));
  }
  postsArchive(projectId: number, categoryId?: number | null): Promise<PostSummary[]> {
    return this.get(categoryId ? `/projects/${projectId}/cat/${categoryId}/posts/archive.json` : `/projects/${projectId}/posts/archive.json`);
  }
  post(id: number): Promise<Post> { return this.get(R.post.show(id, J)); }
  createPost(projectId: number, input: PostInput): Promise<Post> { return this.send('POST', R.post.create(projectId, J), wrap('post', input)); }
  updatePost(id: number, input: PostInput): Promise<Post> { return this.write(R.post.update(id, J), wrap('post', input)); }
  async deletePost(id: number): Promise<void> { await this.write(R.post.remove(id, J)); }

  // -- comments
  async comments(kind: CommentableKind, id: number, threshold?: number): Promise<CommentPage> {
    const r = await this.request<Comment[]>('GET', `/${kind}/${id}/comments.json${qs({ threshold })}`);
    return { comments: r.data, count: Number(r.headers.get('X-Count') ?? r.data.length), continuedAt: r.headers.get('X-Continued-At') };
  }
  /** Every visible comment, following `continued-at` pages. */
  async allComments(kind: CommentableKind, id: number): Promise<Comment[]> {
    let page = await this.comments(kind, id);
    const out = [...page.comments];
    while (page.continuedAt) {
      const t = /threshold=(\d+)/.exec(page.continuedAt);
      if (!t) break;
      page = await this.comments(kind, id, Number(t[1]));
      out.unshift(...page.comments);
    }
    return out;
  }
  comment(id: number): Promise<Comment> { return this.get(R.comment.show(id, J)); }
  createComment(kind: CommentableKind, id: number, input: CommentInput): Promise<Comment> {
    return this.send('POST', `/${kind}/${id}/comments.json`, wrap('comment', input));
  }
  updateComment(id: number, input: CommentInput): Promise<Comment> { return this.write(R.comment.update(id, J), wrap('comment', input)); }
  async deleteComment(id: number): Promise<void> { await this.write(R.comment.remove(id, J)); }

  // -- the Overview (extension E7): the latest events across the caller's projects, a page at a time
  overview(opts: { before?: string; limit?: number } = {}): Promise<OverviewPage> {
    return this.get(`/overview.json${qs({ before: opts.before, limit: opts.limit })}`);
  }

  // -- milestones (legacy action routes; the `.json` twin of the `list.xml` extension)
  milestones(projectId: number, find?: 'all' | 'late' | 'upcoming' | 'completed'): Promise<Milestone[]> {
    return this.get(`/projects/${projectId}/milestones/list.json${qs({ find })}`);
  }
  /** One milestone (the action route answers the created batch; one record in it). */
  async createMilestone(projectId: number, input: MilestoneInput): Promise<Milestone> {
    const created = await this.send<Milestone[]>('POST', R.milestone.create(projectId), wrap('milestone', input));
    return created[0];
  }
  /**
   * A partial update. `move.upcoming`: when the due date changes by D days, every other uncompleted milestone due
   * after the old date moves by D days too (`offWeekends`: one landing on a weekend moves on to Monday; §8.7).
   */
  updateMilestone(id: number, input: MilestoneUpdateInput, move?: { upcoming: boolean; offWeekends?: boolean }): Promise<Milestone> {
    if (!move?.upcoming) return this.write(R.milestone.update(id), wrap('milestone', input));
    const body = JSON.parse(wrap('milestone', input)) as Record<string, unknown>;
    return this.write(R.milestone.update(id), JSON.stringify({
      ...body, move_upcoming_milestones: true, ...(move.offWeekends ? { move_upcoming_milestones_off_weekends: true } : {}),
    }));
  }
  completeMilestone(id: number): Promise<Milestone> { return this.send('POST', `/milestones/complete/${id}`); }
  uncompleteMilestone(id: number): Promise<Milestone> { return this.send('POST', `/milestones/uncomplete/${id}`); }
  /** Answers the deleted milestone; its comments go with it, lists and posts that named it name none. */
  deleteMilestone(id: number): Promise<Milestone> { return this.write(R.milestone.remove(id)); }

  // -- todo lists
  todoLists(projectId: number, filter: TodoListFilter = 'all'): Promise<TodoList[]> {
    return this.get(`/projects/${projectId}/todo_lists.json${qs({ filter: filter === 'all' ? undefined : filter })}`);
  }
  /** Lists with uncompleted items assigned to a party across projects (`""` = unassigned; absent = the caller). */
  assignedTodoLists(responsibleParty?: string): Promise<TodoList[]> {
    return this.get(`/todo_lists.json${responsibleParty === undefined ? '' : `?responsible_party=${encodeURIComponent(responsibleParty)}`}`);
  }
  /** One list with all its items. */
  todoList(id: number): Promise<TodoList> { return this.get(R.todoList.show(id, J)); }
  /**
   * A project's lists, each with all its items (`todo_items`), in one request: what the todo board
   * paints (extension `include=items`, docs/api-extensions.md).
   */
  todoBoard(projectId: number, filter: TodoListFilter = 'all'): Promise<TodoList[]> {
    return this.get(`/projects/${projectId}/todo_lists.json${qs({ filter: filter === 'all' ? undefined : filter, include: 'items' })}`);
  }
  createTodoList(projectId: number, input: TodoListInput): Promise<TodoList> {
    return this.send('POST', R.todoList.create(projectId, J), wrap('todo_list', input));
  }
  updateTodoList(id: number, input: TodoListInput): Promise<TodoList> { return this.write(R.todoList.update(id, J), wrap('todo_list', input)); }
  async deleteTodoList(id: number): Promise<void> { await this.write(R.todoList.remove(id, J)); }
  /** The listed lists take positions 1..k; answers all lists in the new order. */
  reorderTodoLists(projectId: number, ids: readonly number[]): Promise<TodoList[]> {
    return this.send('POST', `/projects/${projectId}/todo_lists/reorder.json`, ids.map((id) => ({ id })));
  }

  // -- todo items
  todoItems(listId: number): Promise<TodoItem[]> { return this.get(R.todoItem.list(listId, J)); }
  todoItem(id: number): Promise<TodoItem> { return this.get(R.todoItem.show(id, J)); }
  createTodoItem(listId: number, input: TodoItemInput): Promise<TodoItem> {
    return this.send('POST', R.todoItem.create(listId, J), wrap('todo_item', input));
  }
  updateTodoItem(id: number, input: TodoItemInput): Promise<TodoItem> { return this.write(R.todoItem.update(id, J), wrap('todo_item', input)); }
  async deleteTodoItem(id: number): Promise<void> { await this.write(R.todoItem.remove(id, J)); }
  completeTodoItem(id: number): Promise<TodoItem> { return this.send('PUT', `/todo_items/${id}/complete.json`); }
  uncompleteTodoItem(id: number): Promise<TodoItem> { return this.send('PUT', `/todo_items/${id}/uncomplete.json`); }
  /** Items take positions 1..k in this order; an id from another list of the project moves that item here. */
  reorderTodoItems(listId: number, ids: readonly number[]): Promise<TodoItem[]> {
    return this.send('POST', `/todo_lists/${listId}/todo_items/reorder.json`, ids.map((id) => ({ id })));
  }

  // -- time entries
  async timeEntries(projectId: number, page = 1): Promise<TimePage> {
    const r = await this.request<TimeEntry[]>('GET', `/projects/${projectId}/time_entries.json${qs({ page: page > 1 ? page : undefined })}`);
    const h = (n: string, d: number) => Number(r.headers.get(n) ?? d);
    return { entries: r.data, records: h('X-Records', r.data.length), pages: h('X-Pages', 1), page: h('X-Page', page) };
  }
  todoItemTimeEntries(itemId: number): Promise<TimeEntry[]> { return this.get(`/todo_items/${itemId}/time_entries.json`); }
  timeEntry(id: number): Promise<TimeEntry> { return this.get(R.timeEntry.show(id, J)); }
  createTimeEntry(projectId: number, input: TimeEntryInput): Promise<TimeEntry> {
    return this.send('POST', R.timeEntry.create(projectId, J), wrap('time_entry', input));
  }
  updateTimeEntry(id: number, input: TimeEntryInput): Promise<TimeEntry> { return this.write(R.timeEntry.update(id, J), wrap('time_entry', input)); }
  async deleteTimeEntry(id: number): Promise<void> { await this.write(R.timeEntry.remove(id, J)); }
  /** All visible entries matching every given filter (dates inclusive). */
  timeReport(f: ReportFilters = {}): Promise<TimeEntry[]> {
    return this.get(`/time_entries/report.json${qs({
      from: compactDate(f.from), to: compactDate(f.to), subject_id: f.subject_id, todo_item_id: f.todo_item_id,
      filter_project_id: f.filter_project_id, filter_company_id: f.filter_company_id,
    })}`);
  }
  // -- sync (local extension, docs/sync-client.md §4; the local owner only)
  syncStatus(): Promise<SyncStatus> { return this.get('/sync/status'); }
  /** Starts a sync (202); `wait`: answers when it is over (502 when it failed). */
  syncRun(wait = false): Promise<SyncStatus> { return this.send('POST', `/sync/run${wait ? '?wait=true' : ''}`); }
  syncConflicts(): Promise<SyncConflict[]> { return this.get('/sync/conflicts'); }
  resolveConflict(id: number, keep: 'mine' | 'theirs' | 'restore'): Promise<SyncConflict> { return this.send('POST', `/sync/conflicts/${id}/resolve`, { keep }); }
  syncRejected(): Promise<SyncRejected[]> { return this.get('/sync/rejected'); }
  /** Connect this data directory to a remote (checked at once; 502 unreachable, 422 refused). */
  connectRemote(c: RemoteCredentials): Promise<SyncStatus> { return this.send('PUT', '/sync/remote', c); }
  disconnectRemote(): Promise<SyncStatus> { return this.send('DELETE', '/sync/remote'); }
  /** First run of an empty directory (docs/setup.md): connect it to a team server; answers when the clone is done. */
  setupConnect(remote: { url: string; user: string; password: string }): Promise<{ empty: boolean }> {
    return this.send('POST', '/setup.json', { remote });
  }
}

/** Narrow a loosely typed wire record (tests, tools) to a record interface. */
export const asRecord = <R extends ResourceKey>(_r: R, rec: WireRecord): Records[R] => rec as unknown as Records[R];
