// Time entry queries (contract §8.10, §5.2, §6.1, §6.3). Order everywhere: date descending,
// later-created first (id descending). Every read filters by visibility in SQL so that lists,
// counts (X-Records) and the report see exactly what the caller may see.
//
// Indexes used: time_entries_project (project_id, date) for the project list and its count,
// time_entries_person (person_id, date) for a person's report, time_entries_item (todo_item_id)
// for an item's entries, time_entries_date (date) for a report bounded by dates only. SQLite keeps
// the rowid in every index, so `ORDER BY date DESC, id DESC` is read off the index, no sort.

import type { Caller, Param, Queryable, Store } from '../types.ts';
import type { TimeEntryRow } from '../../../shared/rows.ts';
import { perCaller, projectVisible } from './access.ts';
import { withPersonLabels } from './names.ts';
import { listRows, rowSource } from './rows.ts';

// person_name comes from the store's name maps (withPersonLabels), not a join per row (D123).
const SELECT = `SELECT te.id, te.project_id, te.person_id, te.date, te.hours, te.description, te.todo_item_id, te.private
  FROM time_entries te`;

const ORDER = 'ORDER BY te.date DESC, te.id DESC';

/**
 * The entry `te` is visible: its project is visible, and for clients it is not private and
 * does not belong to a todo item of a private list (§5.2).
 */
export function entryVisible(c: Caller, p: Param[]): string {
  return `${projectVisible('te.project_id', c, p)} AND ${clientFilter(c)}`;
}

/** The tables entryVisible's statement reads besides `time_entries` of one project (D222). */
function entryTables(c: Caller, projectId: number): readonly string[] {
  const t = [`time_entries@${projectId}`];
  if (!c.admin) t.push('project_members');
  if (!c.firm) t.push('todo_items', 'todo_lists');
  return t;
}

/** For clients: not private, and not of a todo item in a private list (§5.2). */
function clientFilter(c: Caller): string {
  if (c.firm) return '1 = 1';
  return `COALESCE(te.private, 0) = 0 AND (te.todo_item_id IS NULL OR NOT EXISTS (
    SELECT 1 FROM todo_items ti JOIN todo_lists tl ON tl.id = ti.todo_list_id
    WHERE ti.id = te.todo_item_id AND COALESCE(tl.private, 0) = 1))`;
}

const ONE = perCaller((c) => `${SELECT} WHERE te.id = ? AND ${entryVisible(c, [])}`);

/** A time entry the caller sees (the statement built once per kind of caller, D195). */
export async function getEntry(db: Queryable, c: Caller, id: number): Promise<TimeEntryRow | undefined> {
  const p: Param[] = [id];
  entryVisible(c, p); // its parameters
  const row = await db.get<TimeEntryRow>(ONE(c), p);
  return row && (await withPersonLabels(db, [row]))[0];
}

/**
 * Visible entries of a project (X-Records). The caller must see the project (checked by the
 * service): what is counted then depends only on firm/client. Counting a big project scans its
 * index (~0.3–0.6 ms for 20k entries), so the count is kept by the store until a write touches the
 * tables it depends on (D42, D44): for the time entries, only that project's (D134), and only writes that
 * add, remove, move or hide one (`time_entries:rows`, D228): editing an entry's hours leaves it kept.
 */
export function countProjectEntries(store: Store, c: Caller, projectId: number): Promise<number> {
  return store.memo(`time_entries.count:${projectId}:${c.firm ? 'firm' : 'client'}`, async () => {
    const r = await store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM time_entries te WHERE te.project_id = ? AND ${clientFilter(c)}`, [projectId]);
    return Number(r?.n ?? 0);
  }, c.firm ? [`time_entries:rows@${projectId}`] : [`time_entries:rows@${projectId}`, 'todo_items', 'todo_lists']);
}

const ENTRY_ROWS = rowSource('time_entries', `${SELECT.replace(' FROM time_entries te', ', te.version FROM time_entries te')}`, 'te');

/** A page of a project's entries: ids and versions in order, the rows from the store's row cache (D185). */
export async function listProjectEntries(db: Queryable, c: Caller, projectId: number, limit: number, offset: number): Promise<TimeEntryRow[]> {
  const p: Param[] = [projectId];
  const vis = entryVisible(c, p);
  p.push(limit, offset);
  return withPersonLabels(db, await listRows<TimeEntryRow>(db, ENTRY_ROWS, `SELECT te.id, te.version FROM time_entries te WHERE te.project_id = ? AND ${vis} ${ORDER} LIMIT ? OFFSET ?`, p,
    entryTables(c, projectId)));
}

export async function listItemEntries(db: Queryable, c: Caller, itemId: number): Promise<TimeEntryRow[]> {
  const p: Param[] = [itemId];
  return withPersonLabels(db, await db.all(`${SELECT} WHERE te.todo_item_id = ? AND ${entryVisible(c, p)} ${ORDER}`, p));
}

/** Report filters (§8.10): every given one must match. Dates are `YYYY-MM-DD`, inclusive. */
export interface ReportFilter {
  readonly from?: string;
  readonly to?: string;
  readonly personId?: number;
  readonly todoItemId?: number;
  readonly projectId?: number;
  readonly companyId?: number;
}

export async function reportEntries(db: Queryable, c: Caller, f: ReportFilter): Promise<TimeEntryRow[]> {
  const where: string[] = [];
  const p: Param[] = [];
  if (f.personId !== undefined) { where.push('te.person_id = ?'); p.push(f.personId); }
  if (f.todoItemId !== undefined) { where.push('te.todo_item_id = ?'); p.push(f.todoItemId); }
  if (f.projectId !== undefined) { where.push('te.project_id = ?'); p.push(f.projectId); }
  if (f.companyId !== undefined) {
    where.push('te.project_id IN (SELECT pc.id FROM projects pc WHERE pc.company_id = ?)');
    p.push(f.companyId);
  }
  if (f.from !== undefined) { where.push('te.date >= ?'); p.push(f.from); }
  if (f.to !== undefined) { where.push('te.date <= ?'); p.push(f.to); }
  where.push(entryVisible(c, p));
  return withPersonLabels(db, await db.all(`${SELECT} WHERE ${where.join(' AND ')} ${ORDER}`, p));
}

