// The Overview (docs/api-extensions.md E7, D300–D302): what happened lately in the projects the caller
// sees, newest first, read from the records' own times (not the change feed, D300). One statement per kind
// of event, each with the visibility of the resource's own routes (the fragments of access.ts,
// comments.ts, time-entries.ts: never a looser copy) and a keyset condition, `ORDER BY time DESC, id DESC
// LIMIT n`, read off an index of the time column (D301); the service merges them.

import { isStore, type Caller, type Param, type Queryable } from '../types.ts';
import { notPrivate, projectVisible } from './access.ts';
import { parentPrivate } from './comments.ts';
import { entryVisible } from './time-entries.ts';

/** The kinds of event, by rank: at the same second a higher rank comes first (then the higher id). */
export const EVENT_KINDS = [
  'time-entry', 'post', 'todo-item', 'milestone', 'comment', 'todo-item-completed', 'milestone-completed',
] as const;
export type EventKind = typeof EVENT_KINDS[number];

/** Where a page starts: the key of the last event of the previous page (exclusive). */
export interface Cursor { readonly at: string; readonly rank: number; readonly id: number }

export interface EventRow {
  readonly kind: EventKind;
  /** `YYYY-MM-DDTHH:MM:SSZ` (a time entry: its day at 00:00:00Z). */
  readonly at: string;
  readonly id: number;
  readonly project_id: number;
  readonly person_id: number | null;
  readonly title: string | null;
  readonly excerpt: string | null;
  readonly parent_type: string | null;
  readonly parent_id: number | null;
  readonly hours: number | null;
}

interface Branch {
  readonly kind: EventKind;
  /** The time column, a datetime, or a date (time entries). */
  readonly at: string;
  readonly date?: boolean;
  readonly id: string;
  /** The project column. */
  readonly project: string;
  /** Columns id, project_id, person_id, title, excerpt, parent_type, parent_id, hours, and FROM. */
  readonly select: string;
  /** Visibility (its parameters pushed to p in order) and the kind's own condition. */
  readonly where: (c: Caller, p: Param[]) => string;
}

const SEL = (at: string): string => `${at} AS at`;

const BRANCHES: readonly Branch[] = [
  {
    kind: 'post', at: 'p.posted_on', id: 'p.id', project: 'p.project_id',
    select: `p.id, p.project_id, p.author_id AS person_id, p.title, NULL AS excerpt, NULL AS parent_type, NULL AS parent_id, NULL AS hours
      FROM posts p`,
    where: (c, p) => `${projectVisible('p.project_id', c, p)} AND ${notPrivate('p.private', c)}`,
  },
  {
    kind: 'comment', at: 'c.created_at', id: 'c.id', project: 'c.project_id',
    select: `c.id, c.project_id, c.author_id AS person_id, CASE c.commentable_type
        WHEN 'Post' THEN (SELECT x.title FROM posts x WHERE x.id = c.commentable_id)
        WHEN 'Milestone' THEN (SELECT x.title FROM milestones x WHERE x.id = c.commentable_id)
        WHEN 'TodoItem' THEN (SELECT x.content FROM todo_items x WHERE x.id = c.commentable_id) END AS title,
      substr(c.body, 1, 200) AS excerpt, c.commentable_type AS parent_type, c.commentable_id AS parent_id, NULL AS hours
      FROM comments c`,
    // As getComment: the project, and for clients neither the comment nor its parent private.
    where: (c, p) => `${projectVisible('c.project_id', c, p)}${c.firm ? '' : ` AND COALESCE(c.private, 0) = 0 AND ${parentPrivate('c')} = 0`}`,
  },
  ...(['todo-item', 'todo-item-completed'] as const).map((kind): Branch => ({
    kind, at: kind === 'todo-item' ? 'i.created_at' : 'i.completed_at', id: 'i.id', project: 'i.project_id',
    select: `i.id, i.project_id, ${kind === 'todo-item' ? 'i.creator_id' : 'i.completer_id'} AS person_id, i.content AS title,
      l.name AS excerpt, 'TodoList' AS parent_type, i.todo_list_id AS parent_id, NULL AS hours
      FROM todo_items i JOIN todo_lists l ON l.id = i.todo_list_id`,
    // As the todo item routes: the project, and for clients the list not private.
    where: (c, p) => `${projectVisible('i.project_id', c, p)} AND ${notPrivate('l.private', c)}${kind === 'todo-item' ? '' : ' AND i.completed = 1'}`,
  })),
  ...(['milestone', 'milestone-completed'] as const).map((kind): Branch => ({
    kind, at: kind === 'milestone' ? 'm.created_on' : 'm.completed_at', id: 'm.id', project: 'm.project_id',
    select: `m.id, m.project_id, ${kind === 'milestone' ? 'm.creator_id' : 'm.completer_id'} AS person_id, m.title,
      m.deadline AS excerpt, NULL AS parent_type, NULL AS parent_id, NULL AS hours
      FROM milestones m`,
    where: (c, p) => `${projectVisible('m.project_id', c, p)} AND ${notPrivate('m.private', c)}${kind === 'milestone' ? '' : ' AND m.completed = 1'}`,
  })),
  {
    kind: 'time-entry', at: 'te.date', date: true, id: 'te.id', project: 'te.project_id',
    select: `te.id, te.project_id, te.person_id, te.description AS title, NULL AS excerpt,
      CASE WHEN te.todo_item_id IS NULL THEN NULL ELSE 'TodoItem' END AS parent_type, te.todo_item_id AS parent_id, te.hours
      FROM time_entries te`,
    where: (c, p) => entryVisible(c, p),
  },
];

export const rankOf = (k: EventKind): number => EVENT_KINDS.indexOf(k);

/**
 * The branch's events that come after the cursor (their key (at, rank, id) below it), parameters pushed in
 * order. Written as a range of the time column (`at <= ?`, then the tie), which the index reads as one
 * range: the same condition as `at < ? OR (at = ? AND …)`, which SQLite read as a scan (D301).
 */
function after(b: Branch, cur: Cursor, p: Param[]): string {
  const rank = rankOf(b.kind);
  let at = cur.at;
  if (b.date) {
    // A time entry's time is its day at 00:00:00Z: compared through its date column (and its index).
    at = cur.at.slice(0, 10);
    if (cur.at.slice(10) !== 'T00:00:00Z') { p.push(at); return `${b.at} <= ?`; }
  }
  if (rank > cur.rank) { p.push(at); return `${b.at} < ?`; }
  if (rank < cur.rank) { p.push(at); return `${b.at} <= ?`; }
  p.push(at, at, cur.id);
  return `${b.at} <= ? AND (${b.at} < ? OR ${b.id} < ?)`;
}

/**
 * The caller's `limit` newest events of one kind before `cursor` (none: the newest), newest first; with
 * `projectId`, of that project only (read off the project's own time index, D301).
 * `today` (`YYYY-MM-DD`): time entries dated later are not shown yet.
 */
export async function kindEvents(db: Queryable, c: Caller, kind: EventKind, limit: number, today: string, cursor?: Cursor, projectId?: number): Promise<EventRow[]> {
  const b = BRANCHES.find((x) => x.kind === kind)!;
  const p: Param[] = [];
  const where: string[] = [];
  if (projectId !== undefined) { where.push(`${b.project} = ?`); p.push(projectId); }
  where.push(b.where(c, p), `${b.at} IS NOT NULL`);
  if (b.date) { where.push(`${b.at} <= ?`); p.push(today); }
  if (cursor) where.push(after(b, cursor, p));
  p.push(limit);
  const rows = await db.all(`SELECT ${SEL(b.at)}, ${b.select} WHERE ${where.join(' AND ')} ORDER BY ${b.at} DESC, ${b.id} DESC LIMIT ?`, p);
  return rows.map((r) => ({
    kind,
    at: b.date ? `${String(r.at)}T00:00:00Z` : String(r.at),
    id: Number(r.id),
    project_id: Number(r.project_id),
    person_id: r.person_id === null || r.person_id === undefined ? null : Number(r.person_id),
    title: r.title === null || r.title === undefined ? null : String(r.title),
    excerpt: r.excerpt === null || r.excerpt === undefined ? null : String(r.excerpt),
    parent_type: r.parent_type === null || r.parent_type === undefined ? null : String(r.parent_type),
    parent_id: r.parent_id === null || r.parent_id === undefined ? null : Number(r.parent_id),
    hours: r.hours === null || r.hours === undefined ? null : Number(r.hours),
  }));
}

/** How many projects the account holds (kept by the store until a project is added or removed). */
export async function projectCount(db: Queryable): Promise<number> {
  const read = async (): Promise<number> => Number((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM projects'))?.n ?? 0);
  return isStore(db) ? db.memo('overview.projects', read, ['projects']) : read();
}
