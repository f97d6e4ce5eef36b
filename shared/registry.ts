// The resource registry: every resource's fields, wire names, types, write rules and
// visibility conditions, declared once. The XML/JSON codec, input validation, the store
// schema, the API client types and the UI all read this table (contract §8).
//
// No Node, no DOM: this file runs in the server, the renderer and the tests alike.

/** Wire types (contract §4.2). `untyped-boolean` is `<complete>` of todo lists. */
export type FieldType =
  | 'integer' | 'string' | 'boolean' | 'datetime' | 'date' | 'float'
  | 'untyped-boolean' | 'nested' | 'array';

/** How a writable field's input text is read (contract §2.6). */
export type InputKind =
  | 'string' | 'boolean' | 'integer' | 'reference' | 'party' | 'date' | 'datetime' | 'hours' | 'enum';

/**
 * When a field is shown. Viewer conditions depend on who asks; data conditions depend on the
 * record (the field is left out when its value is null).
 */
export type ShowWhen =
  | 'firm'          // the caller is a firm person (private flags)
  | 'admin'         // the caller is an administrator
  | 'adminOrSelf'   // the caller is an administrator or the record is the caller
  | 'me'            // only on /me.xml
  | 'announcement'  // admin, or the project's show-announcement is true
  | 'firmRecord'    // the record is the firm (companies' url-name)
  | 'set';          // only when the value is not null

export interface Field {
  /** Element name on the wire (dasherized). JSON uses it with `_`. */
  readonly name: string;
  /** What people call it (the Conflicts panel; D310). Fields people edit have one; see `fieldLabel`. */
  readonly label?: string;
  readonly type: FieldType;
  /** May be sent as nil="true". */
  readonly nil?: boolean;
  /** Stored in the resource's table (column = snake_case name); otherwise computed by queries. */
  readonly stored?: boolean;
  /** Writable: W on create and update, C on create only. Absent = read-only. */
  readonly write?: 'W' | 'C';
  /** Who may write it: others' values are ignored (private) or refused (admin, see service). */
  readonly writeBy?: 'firm' | 'admin';
  /** Input element name when it differs from `name` (responsible-party, notify). */
  readonly input?: string;
  readonly inputKind?: InputKind;
  readonly required?: boolean;
  /** Default on create (stored value form). */
  readonly default?: string | number | boolean | null;
  /** Maximum length in code points. */
  readonly max?: number;
  /** Allowed values (output form). */
  readonly values?: readonly string[];
  /**
   * What a reference may point at, checked against the store (electron/service/references.ts):
   * a post category / milestone / visible todo item of the same project, a person with access to
   * it, or a responsible party (such a person, or one of the project's companies).
   */
  readonly ref?: RefKind;
  /** Extra accepted input spellings, mapped to stored values. */
  readonly aliases?: Readonly<Record<string, string>>;
  readonly show?: ShowWhen;
  /** Nested record fields (`nested`) or the element name of array children (`array`). */
  readonly fields?: readonly Field[];
  readonly of?: string;
  /** SQL type override for stored columns. */
  readonly sql?: string;
  /**
   * A computed display name of the person, company or responsible party whose id is in row column
   * `id` (`type`: the column holding `Person`/`Company` for a party). Callers who cannot see that
   * person or company (§5.3) get '' instead; the id itself stays (D32).
   */
  readonly nameOf?: { readonly id: string; readonly kind: 'person' | 'company' | 'party'; readonly name?: string };
}

export type RefKind = 'postCategory' | 'milestone' | 'todoItem' | 'member' | 'party';

export interface TemplateField { readonly name: string; readonly type: FieldType; readonly firmOnly?: boolean }

export interface Resource {
  readonly key: ResourceKey;
  /** Record element name and its collection root. */
  readonly element: string;
  readonly collection: string;
  /** Element names that hold the record in request bodies (contract §2.5). */
  readonly recordNames: readonly string[];
  readonly table: string;
  readonly fields: readonly Field[];
  /** Stored columns that never go on the wire. */
  readonly internal?: readonly { readonly column: string; readonly sql: string }[];
  /** Fields of new.xml / edit.xml (§8.11). */
  readonly template?: readonly TemplateField[];
  /** Location header of a created record (§4.7). */
  readonly location?: (id: number) => string;
  /** Extra indexes, as `name: columns`. */
  readonly indexes?: Readonly<Record<string, string>>;
  /**
   * Every stored column that holds another record's id, with what becomes of this record when that
   * one is deleted (issue #30, D320). The first link with `parent` is where the record lives.
   */
  readonly links?: readonly Link[];
}

/**
 * What becomes of a record when the record one of its columns points at is deleted (D320):
 * `cascade` it is deleted too (with its own dependents), `setNull` the column is emptied,
 * `keep` nothing (people and companies are never deleted, only deactivated: D273).
 */
export type OnDelete = 'cascade' | 'setNull' | 'keep';

/** A column of a resource's rows that holds another record's id. */
export interface Link {
  readonly column: string;
  /**
   * The resource it points at. `commentable`: the resource named by `commentable_type`
   * (COMMENT_PARENTS); `party`: a person or a company, by `responsible_party_type` (PARTY_TYPES).
   */
  readonly to: ResourceKey | 'commentable' | 'party';
  readonly onDelete: OnDelete;
  /** The record this one lives under (the hierarchy: project → list → item, a comment's record). */
  readonly parent?: boolean;
}

export type ResourceKey =
  | 'company' | 'person' | 'project' | 'category' | 'post' | 'comment'
  | 'milestone' | 'todoList' | 'todoItem' | 'timeEntry';

// ---- field constructors -------------------------------------------------------------------
type Opts = Omit<Field, 'name' | 'type'>;
const f = (type: FieldType) => (name: string, o: Opts = {}): Field => ({ name, type, ...o });
const int = f('integer');
const str = f('string');
const bool = f('boolean');
const dt = f('datetime');
const date = f('date');
const float = f('float');
const S = { stored: true } as const;
const id = int('id', S);

const cascade = (column: string, to: Link['to'], parent = false): Link => ({ column, to, onDelete: 'cascade', ...(parent ? { parent } : {}) });
const setNull = (column: string, to: Link['to']): Link => ({ column, to, onDelete: 'setNull' });
const keep = (column: string, to: Link['to']): Link => ({ column, to, onDelete: 'keep' });
/** Lives in a project: deleted with it. */
const IN_PROJECT = cascade('project_id', 'project', true);
const MADE_BY = (col: string): Link => keep(col, 'person');
const COMPLETED_BY = keep('completer_id', 'person');
const RESPONSIBLE_PARTY = keep('responsible_party_id', 'party');

/** snake_case column name of a field. */
export const column = (name: string): string => name.replace(/-/g, '_');

// The polymorphic links' types (D320): what `commentable_type` and `responsible_party_type` name.
/** The resources a comment may belong to, by the `commentable_type` that names them. */
export const COMMENT_PARENTS = { Post: 'post', Milestone: 'milestone', TodoItem: 'todoItem' } as const satisfies Readonly<Record<string, ResourceKey>>;
export type CommentableType = keyof typeof COMMENT_PARENTS;
export const COMMENTABLE_TYPES = Object.keys(COMMENT_PARENTS) as readonly CommentableType[];

/** The resources a responsible party may be, by the `responsible_party_type` that names them. */
export const PARTY_TYPES = { Person: 'person', Company: 'company' } as const satisfies Readonly<Record<string, ResourceKey>>;

const RESPONSIBLE: Field[] = [
  int('responsible-party-id', { label: 'Responsible', ...S, write: 'W', input: 'responsible-party', inputKind: 'party', ref: 'party', show: 'set' }),
  str('responsible-party-type', { ...S, show: 'set', values: Object.keys(PARTY_TYPES) }),
  str('responsible-party-name', { show: 'set', nameOf: { id: 'responsible_party_id', kind: 'party' } }),
];
const COMPLETION: Field[] = [
  dt('completed-at', { ...S, show: 'set' }),
  dt('completed-on', { show: 'set' }),
  int('completer-id', { ...S, show: 'set' }),
  str('completer-name', { show: 'set', nameOf: { id: 'completer_id', kind: 'person' } }),
];
const privateField = bool('private', { label: 'Private', ...S, write: 'W', writeBy: 'firm', inputKind: 'boolean', default: false, show: 'firm' });

// ---- resources ----------------------------------------------------------------------------
const company: Resource = {
  key: 'company', element: 'company', collection: 'companies', recordNames: ['company'], table: 'companies',
  fields: [
    str('address-one', { ...S, nil: true }), str('address-two', { ...S, nil: true }),
    bool('can-see-private'), str('city', { ...S, nil: true }), str('country', { ...S, nil: true }), id,
    str('name', S), str('phone-number-fax', { ...S, nil: true }), str('phone-number-office', { ...S, nil: true }),
    str('state', { ...S, nil: true }), str('time-zone-id', { ...S, nil: true }),
    str('url-name', { ...S, nil: true, show: 'firmRecord' }), str('web-address', { ...S, nil: true }),
    str('zip', { ...S, nil: true }),
  ],
  internal: [{ column: 'firm', sql: 'INTEGER NOT NULL DEFAULT 0' }],
};

const person: Resource = {
  key: 'person', element: 'person', collection: 'people', recordNames: ['person'], table: 'people',
  fields: [
    bool('administrator', { ...S, show: 'adminOrSelf' }), str('avatar-url', { ...S, nil: true }),
    int('client-id'), int('company-id', S), dt('created-at', S), str('email-address', S),
    str('first-name', S), id, str('im-handle', { ...S, nil: true }), str('im-service', { ...S, nil: true }),
    str('last-name', S), str('phone-number-fax', { ...S, nil: true }), str('phone-number-home', { ...S, nil: true }),
    str('phone-number-mobile', { ...S, nil: true }), str('phone-number-office', { ...S, nil: true }),
    str('phone-number-office-ext', { ...S, nil: true }), str('time-zone-name', S), str('title', S),
    str('token', { ...S, show: 'me' }), dt('updated-at', S), str('user-name', { ...S, show: 'adminOrSelf' }),
  ],
  // `active` 0: deactivated (D273): cannot sign in, kept as the author of what they wrote.
  internal: [{ column: 'password_hash', sql: 'TEXT' }, { column: 'active', sql: 'INTEGER NOT NULL DEFAULT 1' }],
  indexes: { people_company: 'company_id' },
  links: [keep('company_id', 'company')],
};

const project: Resource = {
  key: 'project', element: 'project', collection: 'projects', recordNames: ['project'], table: 'projects',
  location: (n) => `/projects/${n}.xml`,
  fields: [
    str('announcement', { label: 'Announcement', ...S, nil: true, write: 'W', inputKind: 'string', default: null, show: 'announcement' }),
    f('nested')('company', { fields: [int('id'), str('name')], nameOf: { id: 'company_id', kind: 'company', name: 'company_name' } }),
    date('created-on', S), id, dt('last-changed-on', S),
    str('name', { label: 'Name', ...S, write: 'W', inputKind: 'string', required: true, max: 255 }),
    bool('show-announcement', { label: 'Show the announcement', ...S, write: 'W', inputKind: 'boolean', default: false, show: 'admin' }),
    bool('show-writeboards', { label: 'Show writeboards', ...S, write: 'W', inputKind: 'boolean', default: false, show: 'admin' }),
    str('start-page', {
      label: 'Start page', ...S, write: 'W', inputKind: 'enum', default: 'log', show: 'admin',
      values: ['log', 'all', 'todos', 'milestones', 'posts'],
    }),
    str('status', {
      label: 'Status', ...S, write: 'W', inputKind: 'enum', default: 'active',
      values: ['active', 'on_hold', 'archived'], aliases: { 'on-hold': 'on_hold' },
    }),
  ],
  internal: [{ column: 'company_id', sql: 'INTEGER NOT NULL REFERENCES companies(id)' }],
  links: [keep('company_id', 'company')],
};

const category: Resource = {
  key: 'category', element: 'category', collection: 'categories', recordNames: ['category'], table: 'categories',
  location: (n) => `/categories/${n}.xml`,
  fields: [
    int('elements-count'), id,
    str('name', { label: 'Name', ...S, write: 'W', inputKind: 'string', required: true, max: 255 }),
    int('project-id', S),
    str('type', { label: 'Kind', ...S, write: 'C', inputKind: 'enum', required: true, values: ['post', 'attachment'] }),
  ],
  indexes: { categories_project: 'project_id, type' },
  links: [IN_PROJECT],
};

const post: Resource = {
  key: 'post', element: 'post', collection: 'posts', recordNames: ['post'], table: 'posts',
  location: (n) => `/posts/${n}.xml`,
  fields: [
    int('attachments-count'), int('author-id', S), str('author-name', { nameOf: { id: 'author_id', kind: 'person' } }),
    str('body', { label: 'Message', ...S, write: 'W', inputKind: 'string', default: '' }),
    int('category-id', { label: 'Category', ...S, nil: true, write: 'W', inputKind: 'reference', ref: 'postCategory', default: null }),
    dt('commented-at', { nil: true }), int('comments-count'),
    str('display-body'), str('display-extended-body', { nil: true }),
    str('extended-body', { label: 'More text', ...S, write: 'W', inputKind: 'string', default: '' }),
    id,
    // 0 when none, never nil (as real Basecamp sent); stored as NULL.
    int('milestone-id', { label: 'Milestone', ...S, write: 'W', inputKind: 'reference', ref: 'milestone', default: null }),
    dt('posted-on', S), privateField, int('project-id', S),
    str('title', { label: 'Title', ...S, write: 'W', inputKind: 'string', required: true, max: 255 }),
    bool('use-textile', { label: 'Textile formatting', ...S, write: 'W', inputKind: 'boolean', default: false }),
  ],
  template: [
    { name: 'title', type: 'string' }, { name: 'body', type: 'string' }, { name: 'extended-body', type: 'string' },
    { name: 'category-id', type: 'integer' }, { name: 'milestone-id', type: 'integer' },
    { name: 'use-textile', type: 'boolean' }, { name: 'private', type: 'boolean', firmOnly: true },
  ],
  // posts_project: a page's ids and versions in order, index-only for firm callers (D185). posts_category:
  // a category's elements-count, index-only for clients too (D199).
  // posts_posted: the Overview's posts, newest first across projects (D301).
  indexes: { posts_project: 'project_id, posted_on, id, version', posts_category: 'category_id, private', posts_milestone: 'milestone_id', posts_posted: 'posted_on' },
  // A category with posts cannot be deleted by the API (409); a remote may have deleted it anyway (sync).
  links: [IN_PROJECT, MADE_BY('author_id'), setNull('category_id', 'category'), setNull('milestone_id', 'milestone')],
};

/** The summary form of a post (archive routes, §8.5). */
export const postSummaryFields: readonly Field[] = [
  int('attachments-count'), str('author-name', { nameOf: { id: 'author_id', kind: 'person' } }),
  f('nested')('category', { show: 'set', fields: [int('id'), str('name'), str('type')] }),
  dt('commented-at', { nil: true }), id, dt('posted-on'), str('title'),
];

const comment: Resource = {
  key: 'comment', element: 'comment', collection: 'comments', recordNames: ['comment'], table: 'comments',
  location: (n) => `/comments/${n}.xml`,
  fields: [
    int('attachments-count'), int('author-id', S), str('author-name', { nameOf: { id: 'author_id', kind: 'person' } }),
    str('body', { label: 'Comment', ...S, write: 'W', inputKind: 'string', required: true }),
    int('commentable-id', S), str('commentable-type', { ...S, values: COMMENTABLE_TYPES }),
    dt('created-at', S), str('emailed-from', { nil: true }), id,
    int('post-id', { show: 'set' }), dt('posted-on'), privateField,
  ],
  template: [{ name: 'body', type: 'string' }, { name: 'private', type: 'boolean', firmOnly: true }],
  internal: [{ column: 'project_id', sql: 'INTEGER NOT NULL REFERENCES projects(id)' }],
  // comments_created: the Overview's comments, newest first across projects (D301).
  // comments_project_created: a member's few projects, one by one (D301).
  indexes: { comments_parent: 'commentable_type, commentable_id, private, created_at', comments_created: 'created_at', comments_project_created: 'project_id, created_at' },
  links: [cascade('commentable_id', 'commentable', true), IN_PROJECT, MADE_BY('author_id')],
};

const milestone: Resource = {
  key: 'milestone', element: 'milestone', collection: 'milestones', recordNames: ['milestone'], table: 'milestones',
  location: (n) => `/milestones/${n}`,
  fields: [
    dt('commented-at', { nil: true }), int('comments-count'),
    bool('completed', { label: 'Done', ...S, default: false }), ...COMPLETION,
    dt('created-on', S), int('creator-id', S), str('creator-name', { nameOf: { id: 'creator_id', kind: 'person' } }),
    date('deadline', { label: 'Due date', ...S, write: 'W', inputKind: 'date', required: true }),
    id, privateField, int('project-id', S),
    ...RESPONSIBLE,
    str('title', { label: 'Title', ...S, write: 'W', inputKind: 'string', required: true, max: 255 }),
    bool('wants-notification', { label: 'Notify the responsible party', ...S, write: 'W', input: 'notify', inputKind: 'boolean', default: false }),
  ],
  indexes: { milestones_project: 'project_id, deadline' },
  links: [IN_PROJECT, MADE_BY('creator_id'), COMPLETED_BY, RESPONSIBLE_PARTY],
};

const todoItem: Resource = {
  key: 'todoItem', element: 'todo-item', collection: 'todo-items', recordNames: ['todo-item', 'item'], table: 'todo_items',
  location: (n) => `/todo_items/${n}`,
  fields: [
    int('comments-count'), dt('commented-at', { nil: true }),
    bool('completed', { label: 'Done', ...S, default: false }), ...COMPLETION,
    str('content', { label: 'To-do', ...S, write: 'W', inputKind: 'string', required: true }),
    dt('created-at', S), dt('created-on'), int('creator-id', S), str('creator-name', { nameOf: { id: 'creator_id', kind: 'person' } }),
    dt('due-at', { label: 'Due', ...S, write: 'W', inputKind: 'datetime', default: null, show: 'set' }),
    id, int('position', S), ...RESPONSIBLE,
    int('todo-list-id', S), dt('updated-at', S),
  ],
  template: [
    { name: 'content', type: 'string' }, { name: 'due-at', type: 'datetime' }, { name: 'responsible-party', type: 'string' },
  ],
  internal: [{ column: 'project_id', sql: 'INTEGER NOT NULL REFERENCES projects(id)' }],
  indexes: {
    // A list's ids and versions in order, index-only (the rows come from the row cache, D185).
    todo_items_list: 'todo_list_id, position, id, version',
    // A list's completed/uncompleted counts are index-only seeks (D44).
    todo_items_list_done: 'todo_list_id, completed',
    todo_items_party: 'responsible_party_type, responsible_party_id, completed',
    // A project's items; with created_at, the Overview's items of one project, newest first (D301).
    todo_items_project: 'project_id, created_at',
    // The Overview's items added and completed, newest first across projects, and completed in one project (D301).
    todo_items_created: 'created_at',
    todo_items_completed: 'completed_at',
    todo_items_project_completed: 'project_id, completed_at',
  },
  links: [cascade('todo_list_id', 'todoList', true), IN_PROJECT, MADE_BY('creator_id'), COMPLETED_BY, RESPONSIBLE_PARTY],
};

const todoList: Resource = {
  key: 'todoList', element: 'todo-list', collection: 'todo-lists', recordNames: ['todo-list', 'list'], table: 'todo_lists',
  location: (n) => `/todo_lists/${n}`,
  fields: [
    int('completed-count'),
    str('description', { label: 'Description', ...S, write: 'W', inputKind: 'string', default: '' }),
    id,
    int('milestone-id', { label: 'Milestone', ...S, nil: true, write: 'W', inputKind: 'reference', ref: 'milestone', default: null }),
    str('name', { label: 'Name', ...S, write: 'W', inputKind: 'string', required: true, max: 255 }),
    int('position', S), privateField, int('project-id', S),
    bool('tracked', { label: 'Time tracking', ...S, write: 'W', inputKind: 'boolean', default: false }),
    int('uncompleted-count'),
    f('untyped-boolean')('complete'), bool('completed'),
    f('array')('todo-items', { of: 'todo-item', show: 'set' }),
  ],
  template: [
    { name: 'name', type: 'string' }, { name: 'description', type: 'string' }, { name: 'milestone-id', type: 'integer' },
    { name: 'tracked', type: 'boolean' }, { name: 'private', type: 'boolean', firmOnly: true },
  ],
  indexes: { todo_lists_project: 'project_id, position' },
  links: [IN_PROJECT, setNull('milestone_id', 'milestone')],
};

const timeEntry: Resource = {
  key: 'timeEntry', element: 'time-entry', collection: 'time-entries', recordNames: ['time-entry', 'entry'], table: 'time_entries',
  location: (n) => `/time_entries/${n}`,
  fields: [
    date('date', { label: 'Date', ...S, write: 'W', inputKind: 'date', required: true }),
    str('description', { label: 'Description', ...S, write: 'W', inputKind: 'string', default: '' }),
    float('hours', { label: 'Hours', ...S, write: 'W', inputKind: 'hours', required: true }),
    id,
    int('person-id', { label: 'Person', ...S, write: 'W', inputKind: 'reference', ref: 'member' }),
    str('person-name', { nameOf: { id: 'person_id', kind: 'person' } }), privateField, int('project-id', S),
    int('todo-item-id', { label: 'To-do', ...S, nil: true, write: 'W', inputKind: 'reference', ref: 'todoItem', default: null }),
  ],
  template: [
    { name: 'date', type: 'date' }, { name: 'hours', type: 'float' }, { name: 'description', type: 'string' },
    { name: 'person-id', type: 'integer' }, { name: 'todo-item-id', type: 'integer' },
    { name: 'private', type: 'boolean', firmOnly: true },
  ],
  indexes: {
    // A page's ids and versions in order, index-only for firm callers (D185).
    time_entries_project: 'project_id, date, id, version',
    time_entries_person: 'person_id, date',
    time_entries_item: 'todo_item_id',
    time_entries_date: 'date',
    // Covers the client visibility test (§5.2) so X-Records of a project is an index-only count.
    time_entries_visible: 'project_id, private, todo_item_id',
  },
  // An item's time entries stay in the project, unlinked (§8.13).
  links: [IN_PROJECT, keep('person_id', 'person'), setNull('todo_item_id', 'todoItem')],
};

export const RESOURCES = {
  company, person, project, category, post, comment, milestone, todoList, todoItem, timeEntry,
} as const satisfies Record<ResourceKey, Resource>;

/** Tables in creation order (parents first). */
export const TABLE_ORDER: readonly ResourceKey[] = [
  'company', 'person', 'project', 'category', 'milestone', 'post', 'todoList', 'todoItem', 'comment', 'timeEntry',
];

export function field(r: Resource, name: string): Field {
  const x = r.fields.find((fl) => fl.name === name);
  if (!x) throw new Error(`${r.key} has no field ${name}`);
  return x;
}

/** Fields a request may write (create or update). */
export function writableFields(r: Resource, mode: 'create' | 'update'): readonly Field[] {
  return r.fields.filter((fl) => fl.write === 'W' || (fl.write === 'C' && mode === 'create'));
}

/** The value types of a record as the JSON representation and the API client see them. */
export type WireValue = string | number | boolean | null | WireRecord | WireRecord[];
export interface WireRecord { [key: string]: WireValue | undefined }

/** What people call a record of each resource (the Conflicts panel, D310). */
export const RESOURCE_NAMES: Readonly<Record<ResourceKey, string>> = {
  company: 'Company', person: 'Person', project: 'Project', category: 'Category', post: 'Message', comment: 'Comment',
  milestone: 'Milestone', todoList: 'To-do list', todoItem: 'To-do', timeEntry: 'Time entry',
};

/**
 * A field's label by its column name (`due_at`), or null for a column people do not edit (bookkeeping:
 * updated_at, position, version…), which is never shown as a conflict of its own (D310).
 */
export function fieldLabel(res: ResourceKey, col: string): string | null {
  const r = RESOURCES[res] as Resource | undefined;
  return r?.fields.find((fl) => column(fl.name) === col)?.label ?? null;
}

// ---- relations (issue #30, D320) ----------------------------------------------------------
// Everything about how records hang together is derived from the resources' `links`: a record's
// parent, what a delete takes with it (electron/store/delete-record.ts), what a column of a row
// refers to (sync's id rewriting), and the comment parents.

const own = <T extends object>(o: T, k: unknown): k is keyof T => typeof k === 'string' && Object.hasOwn(o, k);

/** The resource a `commentable_type` names, or null (an unknown type). */
export function commentParent(type: unknown): ResourceKey | null {
  return own(COMMENT_PARENTS, type) ? COMMENT_PARENTS[type] : null;
}

/** The `commentable_type` of a resource's records, or null when it has no comments. */
export function commentableType(res: ResourceKey): CommentableType | null {
  return COMMENTABLE_TYPES.find((t) => COMMENT_PARENTS[t] === res) ?? null;
}

/** The column that names a polymorphic link's resource. */
export const TYPE_COLUMN: Readonly<Record<'commentable' | 'party', string>> = { commentable: 'commentable_type', party: 'responsible_party_type' };

/** The resource a link of `row` points at (a polymorphic one by the row's type column), or null. */
export function linkTarget(link: Link, row: Readonly<Record<string, unknown>>): ResourceKey | null {
  if (link.to === 'commentable') return commentParent(row[TYPE_COLUMN.commentable]);
  if (link.to === 'party') { const t = row[TYPE_COLUMN.party]; return own(PARTY_TYPES, t) ? PARTY_TYPES[t] : null; }
  return link.to;
}

/** Every reference column of any resource -> what it points at (a column means the same in every table: tested). */
export const REFERENCE_COLUMNS: Readonly<Record<string, Link['to']>> = Object.fromEntries(
  Object.values(RESOURCES).flatMap((r: Resource) => (r.links ?? []).map((l) => [l.column, l.to])));

/** The resource a column of a row points at (null when it is not a reference). */
export function refResource(col: string, row: Readonly<Record<string, unknown>>): ResourceKey | null {
  const to = own(REFERENCE_COLUMNS, col) ? REFERENCE_COLUMNS[col] : undefined;
  return to === undefined ? null : linkTarget({ column: col, to, onDelete: 'keep' }, row);
}

/** The link to the record a resource's records live under (none for projects, people, companies). */
export function parentLink(res: ResourceKey): Link | null {
  return (RESOURCES[res] as Resource).links?.find((l) => l.parent) ?? null;
}

/** The record a row lives under: a to-do's list, a comment's record, else its project (null: none or unknown). */
export function parentOf(res: ResourceKey, row: Readonly<Record<string, unknown>>): { res: ResourceKey; id: number } | null {
  const l = parentLink(res);
  const to = l ? linkTarget(l, row) : null;
  return l && to ? { res: to, id: Number(row[l.column]) } : null;
}

/** A resource whose records point at another one, and how (one entry per link and, for comments, per type). */
export interface Dependent {
  readonly res: ResourceKey;
  readonly link: Link;
  /** The type column's value that names the deleted resource (comments: `commentable_type`). */
  readonly type?: string;
}

/**
 * What a delete of a record of `res` does to others: `cascade`, the dependents deleted with it, deepest
 * tables first (a project's time entries, comments, items, lists… so none is emptied before it goes);
 * `setNull`, the references emptied, in table order.
 */
export function dependentsOf(res: ResourceKey): { cascade: readonly Dependent[]; setNull: readonly Dependent[] } {
  const all: Dependent[] = [];
  for (const k of TABLE_ORDER) {
    for (const link of (RESOURCES[k] as Resource).links ?? []) {
      if (link.to === res) all.push({ res: k, link });
      else if (link.to === 'commentable') { const type = commentableType(res); if (type) all.push({ res: k, link, type }); }
      else if (link.to === 'party') { const type = Object.entries(PARTY_TYPES).find(([, r]) => r === res)?.[0]; if (type) all.push({ res: k, link, type }); }
    }
  }
  return {
    cascade: all.filter((d) => d.link.onDelete === 'cascade').reverse(),
    setNull: all.filter((d) => d.link.onDelete === 'setNull'),
  };
}
