// The change feed, written inside the Writer's transaction (D60). Both store implementations
// call these from their Writer with a line each, so the feed behaves the same on every engine:
//   - appendChange: takes the next commit sequence number from `feed_clock` (UPDATE … RETURNING:
//     the row stays locked until commit, so numbers become visible in commit order on a
//     multi-connection engine), drops the record's superseded entry (compaction: one entry per
//     record), and appends the new one with the project it belongs to.
//   - cascade: a record whose `private` flag changes changes the visibility of records inside it
//     (comments, a list's items and their time entries); they get a feed entry too, so a client
//     that could see them learns that they are gone (and back).
//   - addMember / removeMember: project membership goes through the transaction and the feed.
//   - rebuildFeed: one entry per live record (after a restore that wrote rows directly).
// Reading the feed is store/queries/sync.ts; what a caller sees is service/feed.ts.

import type { Queryable, Row, Writer } from './types.ts';
import { commentParent, RESOURCES } from '../../shared/registry.ts';

export type ChangeOp = 'insert' | 'update' | 'delete';
export const MEMBERS = 'project_members';

const PUBLIC = (alias: string): string => `COALESCE(${alias}.private, 0) = 0`;
const LIST_PUBLIC = (itemId: string): string =>
  `EXISTS (SELECT 1 FROM todo_items vi JOIN todo_lists vl ON vl.id = vi.todo_list_id WHERE vi.id = ${itemId} AND ${PUBLIC('vl')})`;

/**
 * Records a client (a person who cannot see private records, contract §5.2) may or may not see, with the
 * SQL that says whether the record `id` (an SQL expression) is visible to clients now: not private, and
 * not inside a record they cannot see. The feed keeps with each entry of these tables whether clients
 * ever could see the record (`changes.shown`, D245).
 */
export const CLIENT_VISIBLE: Readonly<Record<string, (id: string) => string>> = {
  posts: (id) => `EXISTS (SELECT 1 FROM posts v WHERE v.id = ${id} AND ${PUBLIC('v')})`,
  milestones: (id) => `EXISTS (SELECT 1 FROM milestones v WHERE v.id = ${id} AND ${PUBLIC('v')})`,
  todo_lists: (id) => `EXISTS (SELECT 1 FROM todo_lists v WHERE v.id = ${id} AND ${PUBLIC('v')})`,
  todo_items: (id) => LIST_PUBLIC(id),
  time_entries: (id) => `EXISTS (SELECT 1 FROM time_entries v WHERE v.id = ${id} AND ${PUBLIC('v')}
    AND (v.todo_item_id IS NULL OR ${LIST_PUBLIC('v.todo_item_id')}))`,
  comments: (id) => `EXISTS (SELECT 1 FROM comments v WHERE v.id = ${id} AND ${PUBLIC('v')} AND (
    (v.commentable_type = 'Post' AND EXISTS (SELECT 1 FROM posts vp WHERE vp.id = v.commentable_id AND ${PUBLIC('vp')}))
    OR (v.commentable_type = 'Milestone' AND EXISTS (SELECT 1 FROM milestones vm WHERE vm.id = v.commentable_id AND ${PUBLIC('vm')}))
    OR (v.commentable_type = 'TodoItem' AND ${LIST_PUBLIC('v.commentable_id')})))`,
};

/** Is the record visible to clients now (CLIENT_VISIBLE; a table without private records: null)? */
export async function clientVisible(q: Queryable, table: string, id: number): Promise<boolean | null> {
  const sql = CLIENT_VISIBLE[table];
  if (!sql) return null;
  const r = await q.get<{ v: unknown }>(`SELECT CASE WHEN ${sql('?')} THEN 1 ELSE 0 END AS v`, [id]);
  return Number(r?.v) === 1;
}

/**
 * After an update that may have made the record visible to clients (its privacy or its parent changed):
 * its entry, logged before the row changed, learns that clients now see it (SQLite's Writer; D245).
 */
export async function reshow(q: Queryable, table: string, id: number): Promise<void> {
  if (await clientVisible(q, table, id)) {
    await q.run('UPDATE changes SET shown = 1 WHERE tbl = ? AND record_id = ? AND person_id IS NULL', [table, id]);
  }
}

/**
 * Records a client sees by company (contract §5.3: the firm's and their own company's): the SQL of the company
 * the record `id` (an SQL expression) belongs to, a company itself or a person's company. The feed keeps it with
 * each entry of these tables (`changes.company_id`, D268), so that a client gets no entry (not even a delete) of
 * another client company or its people.
 */
export const COMPANY_OF: Readonly<Record<string, (id: string) => string>> = {
  companies: (id) => `CAST(${id} AS BIGINT)`,
  people: (id) => `(SELECT v.company_id FROM people v WHERE v.id = ${id})`,
};

/** The company a company or person record belongs to now (COMPANY_OF; another table, or no such row: null). */
export async function companyOf(q: Queryable, table: string, id: number): Promise<number | null> {
  const sql = COMPANY_OF[table];
  if (!sql) return null;
  const r = await q.get<{ c: unknown }>(`SELECT ${sql('?')} AS c`, [id]);
  return r?.c === null || r?.c === undefined ? null : Number(r.c);
}

/**
 * After an update (SQLite's Writer, which logs the entry before the row changes): the entry learns what the
 * change made of the record: clients now see it (`shown`, D245), or a person's new company (D268).
 */
export async function afterUpdate(q: Queryable, table: string, id: number, values: Row): Promise<void> {
  if (placesRows(table, values)) await reshow(q, table, id);
  if (table === 'people' && 'company_id' in values) {
    await q.run('UPDATE changes SET company_id = ? WHERE tbl = ? AND record_id = ? AND person_id IS NULL', [await companyOf(q, table, id), table, id]);
  }
}

/** Project of a record being logged: a project's own id, else what the Writer was given. */
export const scope = (table: string, id: number, projectId?: number | null): number | null =>
  table === 'projects' ? id : projectId ?? null;

export async function nextSeq(q: Queryable): Promise<number> {
  const r = await q.get<{ seq: number }>('UPDATE feed_clock SET seq = seq + 1 WHERE id = 1 RETURNING seq');
  return Number(r!.seq);
}


/** The columns of a row that name the records whose computed fields follow it (see parentsFrom). */
export const PARENT_COLUMNS: Readonly<Record<string, string>> = {
  comments: 'commentable_type, commentable_id', todo_items: 'todo_list_id', posts: 'category_id',
};

const PARENT_LISTS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.entries(PARENT_COLUMNS).map(([t, cols]) => [t, cols.split(', ')]));

/**
 * Whether an update of `table` gives the record another parent (PARENT_COLUMNS): the new parent may be
 * another project's (sync applies a remote move with the record's current project), so memos of one
 * project's rows cannot be told apart (D222).
 */
export function movesParent(table: string, values: Row): boolean {
  const cols = PARENT_LISTS[table];
  return cols !== undefined && cols.some((c) => c in values);
}

/**
 * Whether an update of `table` may add a row to, or take one from, what some caller counts or lists of
 * the table: it changes the row's project, its parent (movesParent), its privacy, or a time entry's todo
 * item (whose list may be private). The Writer then counts a commit of `<table>:rows` (rowsName) besides
 * the table: a count kept under that name (D228) survives edits of a record's content.
 */
export function placesRows(table: string, values: Row): boolean {
  return 'project_id' in values || 'private' in values || movesParent(table, values) || (table === 'time_entries' && 'todo_item_id' in values)
    || (table === 'comments' && 'created_at' in values); // a parent's commented-at (D230)
}

/** The name counted for commits that insert, delete or place (placesRows) rows of `table` (D228). */
export const rowsName = (table: string): string => `${table}:rows`;

/**
 * Besides rowsName: the name counted for commits that add, remove or place comments on records of `type`
 * (`Post`, `Milestone`, `TodoItem`), or of any type (`null`, counted as `?`: an update or delete, whose parent the
 * Writer does not read). A parent's comment figures are kept under their type's name and `?` (D230): a comment
 * on a post leaves the figures of the project's todo items kept. Every such name is `<table>:rows…`, which
 * PostgreSQL reads as the table itself.
 */
export const commentRowsName = (type: string | null): string => `comments:rows:${type ?? '?'}`;

/**
 * Records whose computed fields follow this one: a comment's parent (comments-count, commented-at),
 * an item's list (counts, embedded items), a post's category (elements-count), and the project
 * (last-changed-on), from the row's PARENT_COLUMNS (undefined: the row does not exist).
 */
export function parentsFrom(table: string, row: Row | undefined, projectId: number | null): { tbl: string; id: number }[] {
  const out: { tbl: string; id: number }[] = [];
  if (row && table === 'comments') {
    const res = commentParent(row.commentable_type);
    const t = res ? RESOURCES[res].table : undefined;
    if (t && row.commentable_id !== null && row.commentable_id !== undefined) out.push({ tbl: t, id: Number(row.commentable_id) });
  } else if (row && table === 'todo_items') {
    if (row.todo_list_id !== null && row.todo_list_id !== undefined) out.push({ tbl: 'todo_lists', id: Number(row.todo_list_id) });
  } else if (row && table === 'posts') {
    if (row.category_id) out.push({ tbl: 'categories', id: Number(row.category_id) });
  }
  if (projectId && table !== 'projects') out.push({ tbl: 'projects', id: projectId });
  return out;
}

/** parentsFrom, reading the row as it is when the change is logged (the Writer logs a delete before deleting the row). */
async function parentsOf(q: Queryable, table: string, id: number, projectId: number | null): Promise<{ tbl: string; id: number }[]> {
  const cols = PARENT_COLUMNS[table];
  const row = cols ? await q.get(`SELECT ${cols} FROM ${table} WHERE id = ?`, [id]) : undefined;
  return parentsFrom(table, row, projectId);
}

/** A record whose computed fields a change changed (parentsFrom), with the feed scope of its entry. */
export interface Touched { tbl: string; id: number; pid: number | null }

/**
 * Append one entry (replacing the record's previous one) and an entry for each record whose
 * computed fields it changes; returns the record's sequence number. `touchParents` a function: those
 * records are handed to it instead, for the caller to log once, after the transaction's other entries
 * (`touchAll`: the SQLite Writer, D349).
 */
export async function appendChange(
  q: Queryable, table: string, id: number, op: ChangeOp, at: string, projectId?: number | null, personId: number | null = null,
  touchParents: boolean | ((t: Touched) => void) = personId === null,
): Promise<number> {
  const seq = await nextSeq(q);
  const pid = scope(table, id, projectId);
  let shown: number | null = null, company: number | null = null;
  if (personId === null && (CLIENT_VISIBLE[table] || COMPANY_OF[table])) {
    const prev = await q.all<{ shown: number | null; company_id: number | null }>(
      'DELETE FROM changes WHERE tbl = ? AND record_id = ? AND person_id IS NULL RETURNING shown, company_id', [table, id]);
    // Whether clients ever could see the record (D245): once, or now (a delete is logged before the row goes).
    if (CLIENT_VISIBLE[table]) shown = prev.some((r) => Number(r.shown) === 1) || await clientVisible(q, table, id) ? 1 : 0;
    // The company the record belongs to (D268): now, else as its replaced entry said.
    if (COMPANY_OF[table]) {
      const before = prev.find((r) => r.company_id !== null && r.company_id !== undefined)?.company_id;
      company = await companyOf(q, table, id) ?? (before === undefined ? null : Number(before));
    }
  } else {
    await q.run('DELETE FROM changes WHERE tbl = ? AND record_id = ? AND COALESCE(person_id, 0) = ?', [table, id, personId ?? 0]);
  }
  await q.run('INSERT INTO changes (seq, tbl, record_id, op, at, project_id, person_id, shown, company_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [seq, table, id, op, at, pid, personId, shown, company]);
  if (typeof touchParents === 'function') {
    for (const p of await parentsOf(q, table, id, pid)) touchParents({ tbl: p.tbl, id: p.id, pid });
  } else if (touchParents) {
    for (const p of await parentsOf(q, table, id, pid)) await appendChange(q, p.tbl, p.id, 'update', at, pid, null, false);
  }
  return seq;
}

/**
 * Log the records a transaction's changes touched (appendChange's `touchParents` sink), each once, after every
 * other entry of the transaction, as its entry would have been after the last of them: 1,000 to-dos added to
 * a list in one transaction give the list and the project one entry each, not a thousand (D349). A record
 * deleted meanwhile keeps its delete.
 */
export async function touchAll(q: Queryable, touched: ReadonlyMap<string, Touched>, at: string): Promise<void> {
  for (const t of touched.values()) {
    if (!await q.get(`SELECT 1 AS x FROM ${t.tbl} WHERE id = ?`, [t.id])) continue;
    await appendChange(q, t.tbl, t.id, 'update', at, t.pid, null, false);
  }
}

/** Records whose visibility follows the `private` flag of a post, milestone or todo list. */
async function dependents(q: Queryable, table: string, id: number): Promise<{ tbl: string; id: number }[]> {
  const out: { tbl: string; id: number }[] = [];
  const add = (tbl: string, rows: Row[]) => { for (const r of rows) out.push({ tbl, id: Number(r.id) }); };
  if (table === 'posts') add('comments', await q.all("SELECT id FROM comments WHERE commentable_type = 'Post' AND commentable_id = ?", [id]));
  else if (table === 'milestones') add('comments', await q.all("SELECT id FROM comments WHERE commentable_type = 'Milestone' AND commentable_id = ?", [id]));
  else if (table === 'todo_lists') {
    const items = await q.all('SELECT id FROM todo_items WHERE todo_list_id = ?', [id]);
    add('todo_items', items);
    if (items.length) {
      const inItems = 'SELECT id FROM todo_items WHERE todo_list_id = ?';
      add('comments', await q.all(`SELECT id FROM comments WHERE commentable_type = 'TodoItem' AND commentable_id IN (${inItems})`, [id]));
      add('time_entries', await q.all(`SELECT id FROM time_entries WHERE todo_item_id IN (${inItems})`, [id]));
    }
  }
  return out;
}

/** What is inside a todo item: its comments and time entries (their visibility follows its list). */
async function insideItem(q: Queryable, id: number): Promise<{ tbl: string; id: number }[]> {
  const c = await q.all("SELECT id FROM comments WHERE commentable_type = 'TodoItem' AND commentable_id = ?", [id]);
  const t = await q.all('SELECT id FROM time_entries WHERE todo_item_id = ?', [id]);
  return [...c.map((r) => ({ tbl: 'comments', id: Number(r.id) })), ...t.map((r) => ({ tbl: 'time_entries', id: Number(r.id) }))];
}

/**
 * After an update: when `private` changed, or a todo item moved to another list (which may be private),
 * log the records inside too (their visibility changed with it).
 */
export async function cascade(w: Queryable & Pick<Writer, 'logChange'>, table: string, id: number, values: Row, projectId?: number | null): Promise<void> {
  const inside = 'private' in values ? await dependents(w, table, id)
    : table === 'todo_items' && 'todo_list_id' in values ? await insideItem(w, id) : [];
  for (const d of inside) await w.logChange(d.tbl, d.id, 'update', projectId);
  // The new parent of a moved item or re-categorised post (the old one was logged with the change).
  if (table === 'todo_items' && values.todo_list_id) await w.logChange('todo_lists', Number(values.todo_list_id), 'update', projectId);
  if (table === 'posts' && values.category_id) await w.logChange('categories', Number(values.category_id), 'update', projectId);
}

/** Make a person a member of a project, through the transaction and the feed. */
export async function addMember(w: Writer, projectId: number, personId: number): Promise<void> {
  if (await w.get('SELECT 1 AS x FROM project_members WHERE project_id = ? AND person_id = ?', [projectId, personId])) return;
  await w.run('INSERT INTO project_members (project_id, person_id) VALUES (?, ?)', [projectId, personId]);
  await w.logChange(MEMBERS, projectId, 'insert', projectId, personId);
  w.touch(projectId);
}

export async function removeMember(w: Writer, projectId: number, personId: number): Promise<void> {
  const r = await w.run('DELETE FROM project_members WHERE project_id = ? AND person_id = ?', [projectId, personId]);
  if (!r.changes) return;
  await w.logChange(MEMBERS, projectId, 'delete', projectId, personId);
  w.touch(projectId);
}

/** Tables of the feed in dependency order, with the column that gives a record's project. */
const FEED_TABLES: readonly (readonly [string, string | null])[] = [
  ['companies', null], ['people', null], ['projects', 'id'], ['categories', 'project_id'], ['milestones', 'project_id'],
  ['posts', 'project_id'], ['todo_lists', 'project_id'], ['todo_items', 'project_id'], ['comments', 'project_id'],
  ['time_entries', 'project_id'],
];

/**
 * Rebuild the feed from the rows (a restored backup writes rows directly): one entry per live
 * record and membership. Every cursor handed out before is expired (410): the horizon moves to now.
 */
export async function rebuildFeed(w: Writer): Promise<void> {
  await w.run('DELETE FROM changes');
  // The restored store's numbers start beyond any cursor the old store can have handed out, so that
  // every old cursor is expired: the counter jumps to (the restore's time in ms) × 1000 (below 2^53
  // until the year 2255), never backwards.
  const now = await w.get<{ seq: number }>('SELECT seq FROM feed_clock WHERE id = 1');
  const start = Math.max(Number(now?.seq ?? 0), Date.parse(w.now) * 1000);
  await w.run('UPDATE feed_clock SET seq = ? WHERE id = 1', [start]);
  for (const [t, pcol] of FEED_TABLES) {
    for (const r of await w.all(`SELECT id${pcol ? `, ${pcol} AS pid` : ''} FROM ${t} ORDER BY id`)) {
      await appendChange(w, t, Number(r.id), 'insert', w.now, pcol ? Number(r.pid) : null, null, false);
    }
  }
  for (const m of await w.all('SELECT project_id, person_id FROM project_members ORDER BY project_id, person_id')) {
    await appendChange(w, MEMBERS, Number(m.project_id), 'insert', w.now, Number(m.project_id), Number(m.person_id));
  }
  const clock = await w.get<{ seq: number }>('SELECT seq FROM feed_clock WHERE id = 1');
  await setHorizon(w, Number(clock!.seq));
}

export async function setHorizon(q: Queryable, seq: number): Promise<void> {
  const r = await q.run("UPDATE meta SET value = ? WHERE key = 'feed_horizon'", [String(seq)]);
  if (!r.changes) await q.run("INSERT INTO meta (key, value) VALUES ('feed_horizon', ?)", [String(seq)]);
}

/**
 * Retention: tombstones (deletions, membership removals) older than `before` (ISO UTC) are
 * dropped; the horizon becomes the newest sequence number dropped, and a cursor below it is
 * expired (410). Superseded entries never exist (appendChange replaces them), so live records
 * keep exactly one entry each. Returns the number of entries dropped.
 */
export async function purgeTombstones(w: Writer, before: string): Promise<number> {
  // `+seq`: SQLite would otherwise answer MAX(seq) by walking the whole feed backwards by seq (its min/max
  // shortcut) instead of reading the index of tombstones changes_deletes (D204); unary plus is a no-op on both.
  const r = await w.get<{ s: number | null }>("SELECT MAX(+seq) AS s FROM changes WHERE op = 'delete' AND at < ?", [before]);
  if (r?.s === null || r?.s === undefined) return 0;
  const gone = await w.run("DELETE FROM changes WHERE op = 'delete' AND at < ?", [before]);
  const h = await w.get<{ value: string }>("SELECT value FROM meta WHERE key = 'feed_horizon'");
  if (Number(r.s) > Number(h?.value ?? 0)) await setHorizon(w, Number(r.s));
  return gone.changes;
}
