// Todo item queries (contract §8.9). Items are visible when their project is visible and, for
// clients, their list is not private (§5.2).

import type { Caller, Param, Queryable, Row } from '../types.ts';
import type { TodoItemRow } from '../../../shared/rows.ts';
import { notPrivate, perCaller, projectVisible } from './access.ts';
import { withCommentStats } from './fragments.ts';
import { withPartyNames } from './names.ts';
import { listRows, rowSource } from './rows.ts';

// Names come from the store's name maps (withPartyNames); lists get their comment columns from one
// grouped query (withCommentStats), a single item from correlated subqueries (D43).
const COLS = `i.id, i.content, i.todo_list_id, i.position, i.completed, i.completed_at,
    i.completer_id, i.due_at, i.responsible_party_id, i.responsible_party_type,
    i.created_at, i.updated_at, i.creator_id, i.project_id`;
const FROM = 'FROM todo_items i JOIN todo_lists l ON l.id = i.todo_list_id';
/** Items of given lists (no visibility filter: the caller checked the lists). */
const SELECT_OF_LISTS = `SELECT ${COLS} FROM todo_items i`;
const SELECT_MANY = `SELECT ${COLS} ${FROM}`;
/** One item, its comment columns from one aggregate over its visible comments (D195): the id twice. */
const selectOne = (c: Caller): string => `SELECT ${COLS}, s.comments_count, s.commented_at ${FROM},
  (SELECT COUNT(*) AS comments_count, MAX(cm.created_at) AS commented_at FROM comments cm
   WHERE cm.commentable_type = 'TodoItem' AND cm.commentable_id = ? AND ${notPrivate('cm.private', c)}) s`;
/** completed-on and created-on repeat completed-at and created-at (§8.9). */
function aliases<T extends Row>(rows: T[]): T[] {
  for (const r of rows as Row[]) { r.completed_on = r.completed_at; r.created_on = r.created_at; }
  return rows;
}
const finishMany = async (db: Queryable, c: Caller, rows: TodoItemRow[]): Promise<TodoItemRow[]> =>
  withPartyNames(db, await withCommentStats(db, c, 'TodoItem', aliases(rows)));

function visible(c: Caller, p: Param[]): string {
  return `${projectVisible('i.project_id', c, p)} AND ${notPrivate('l.private', c)}`;
}

/**
 * The statements of the two hottest reads, built once per kind of caller: the same string object each
 * time, so the store's statement cache finds it without building and hashing ~600 characters (D122).
 */
const ONE_SQL = perCaller((c) => `${selectOne(c)} WHERE i.id = ? AND ${visible(c, [])}`);
/** A list's items as ids and versions; the rows come from the store's row cache (D185). */
const LIST_REFS_SQL = 'SELECT i.id, i.version FROM todo_items i WHERE i.todo_list_id = ? ORDER BY i.position, i.id';
const ITEM_ROWS = rowSource('todo_items', `SELECT ${COLS}, i.version FROM todo_items i`, 'i');

export async function getItem(db: Queryable, c: Caller, id: number): Promise<TodoItemRow | undefined> {
  const p: Param[] = [id, id];
  visible(c, p); // its parameters (the statement is ONE_SQL's)
  const row = await db.get<TodoItemRow>(ONE_SQL(c), p);
  return row && (await withPartyNames(db, aliases([row])))[0];
}

/**
 * All items of one list of project `projectId`, by position (the list's visibility is checked by the
 * caller). Its ids and versions are kept until a commit writes that project's items (D222).
 */
export async function itemsOfList(db: Queryable, c: Caller, listId: number, projectId: number): Promise<TodoItemRow[]> {
  return finishMany(db, c, await listRows<TodoItemRow>(db, ITEM_ROWS, LIST_REFS_SQL, [listId], [`todo_items@${projectId}`]));
}

/** Items of several lists in one query, grouped by list id, each group by position. */
export async function itemsOfLists(db: Queryable, c: Caller, listIds: readonly number[]): Promise<Map<number, TodoItemRow[]>> {
  const out = new Map<number, TodoItemRow[]>();
  for (const id of listIds) out.set(id, []);
  for (let k = 0; k < listIds.length; k += 500) {
    const chunk = listIds.slice(k, k + 500);
    const rows = await finishMany(db, c, await db.all<TodoItemRow>(`${SELECT_OF_LISTS} WHERE i.todo_list_id IN (${chunk.map(() => '?').join(', ')}) ORDER BY i.todo_list_id, i.position, i.id`, chunk));
    for (const r of rows) out.get(r.todo_list_id)!.push(r);
  }
  return out;
}

export type PartyFilter = { type: 'Person' | 'Company'; id: number } | null;

/**
 * Uncompleted items assigned to a party (null = unassigned) in lists the caller sees, across
 * visible projects (the responsible-party view, §8.8). Uses todo_items_party.
 */
export async function openItemsOf(db: Queryable, c: Caller, party: PartyFilter): Promise<TodoItemRow[]> {
  const p: Param[] = [];
  let where: string;
  if (party) { where = 'i.responsible_party_type = ? AND i.responsible_party_id = ?'; p.push(party.type, party.id); }
  else where = 'i.responsible_party_type IS NULL';
  where += ` AND i.completed = 0 AND ${visible(c, p)}`;
  return finishMany(db, c, await db.all<TodoItemRow>(`${SELECT_MANY} WHERE ${where} ORDER BY i.todo_list_id, i.position, i.id`, p));
}

/** Id, list and position of the items of a list, by position (for renumbering). */
export function positionsOfList(db: Queryable, listId: number): Promise<{ id: number; position: number }[]> {
  return db.all('SELECT id, position FROM todo_items WHERE todo_list_id = ? ORDER BY position, id', [listId]);
}

/** The items with these ids that the caller sees in a project: id, list, position. */
export async function itemsInProject(db: Queryable, c: Caller, projectId: number, ids: readonly number[]): Promise<{ id: number; todo_list_id: number; position: number }[]> {
  const out: { id: number; todo_list_id: number; position: number }[] = [];
  for (let k = 0; k < ids.length; k += 500) {
    const chunk = ids.slice(k, k + 500);
    const p: Param[] = [projectId, ...chunk];
    out.push(...await db.all<{ id: number; todo_list_id: number; position: number }>(
      `SELECT i.id, i.todo_list_id, i.position FROM todo_items i JOIN todo_lists l ON l.id = i.todo_list_id
       WHERE i.project_id = ? AND i.id IN (${chunk.map(() => '?').join(', ')}) AND ${notPrivate('l.private', c)}`, p));
  }
  return out;
}

export async function nextItemPosition(db: Queryable, listId: number): Promise<number> {
  const r = await db.get<{ n: number }>('SELECT COALESCE(MAX(position), 0) AS n FROM todo_items WHERE todo_list_id = ?', [listId]);
  return Number(r?.n ?? 0) + 1;
}

/** Time entries of all items of a list. */
export function entriesOfList(db: Queryable, listId: number): Promise<{ id: number; project_id: number }[]> {
  return db.all('SELECT id, project_id FROM time_entries WHERE todo_item_id IN (SELECT id FROM todo_items WHERE todo_list_id = ?)', [listId]);
}

/** Comments of all items of a list. */
export function itemCommentsOfList(db: Queryable, listId: number): Promise<{ id: number }[]> {
  return db.all(`SELECT id FROM comments WHERE commentable_type = 'TodoItem'
    AND commentable_id IN (SELECT id FROM todo_items WHERE todo_list_id = ?)`, [listId]);
}

/** An item's list and completion as stored, whatever the caller (inside a write, after the visibility check). */
export function itemState(db: Queryable, id: number): Promise<{ todo_list_id: number; completed: number } | undefined> {
  return db.get('SELECT todo_list_id, completed FROM todo_items WHERE id = ?', [id]);
}
