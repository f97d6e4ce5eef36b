// Todo list queries (contract §8.8). Counts come from indexed subqueries on todo_items
// (todo_items_list); `complete`/`completed` are derived from them by the service.

import type { Caller, Param, Queryable } from '../types.ts';
import type { TodoListRow } from '../../../shared/rows.ts';
import { notPrivate, perCaller, projectVisible } from './access.ts';

/**
 * The position a caller sees (§6.2 with §5.2): 1..k over the lists the caller can see. Firm people see
 * every list, so theirs is the stored position; a client's is the rank among the project's non-private
 * lists, so that private lists leave no gap (D31).
 */
function position(c: Caller): string {
  return c.firm ? 'l.position' : `(SELECT COUNT(*) FROM todo_lists v WHERE v.project_id = l.project_id AND ${notPrivate('v.private', c)}
    AND (v.position < l.position OR (v.position = l.position AND v.id <= l.id)))`;
}

const select = (c: Caller) => `SELECT l.id, l.name, l.description, l.milestone_id, l.private, l.tracked, ${position(c)} AS position, l.project_id,
  (SELECT COUNT(*) FROM todo_items ci WHERE ci.todo_list_id = l.id AND ci.completed = 1) AS completed_count,
  (SELECT COUNT(*) FROM todo_items ui WHERE ui.todo_list_id = l.id AND ui.completed = 0) AS uncompleted_count
  FROM todo_lists l`;

function visible(c: Caller, p: Param[]): string {
  return `${projectVisible('l.project_id', c, p)} AND ${notPrivate('l.private', c)}`;
}

/** The visible lists of a project, by position. */
export function listsOfProject(db: Queryable, c: Caller, projectId: number): Promise<TodoListRow[]> {
  const p: Param[] = [projectId];
  return db.all(`${select(c)} WHERE l.project_id = ? AND ${visible(c, p)} ORDER BY l.position, l.id`, p);
}

/** A visible list's id and project, without its counts (a check before reading its items). */
export function visibleList(db: Queryable, c: Caller, id: number): Promise<{ id: number; project_id: number } | undefined> {
  const p: Param[] = [id];
  return db.get(`SELECT l.id, l.project_id FROM todo_lists l WHERE l.id = ? AND ${visible(c, p)}`, p);
}

const ONE = perCaller((c) => `${select(c)} WHERE l.id = ? AND ${visible(c, [])}`);

/** A list the caller sees, with its counts (the statement built once per kind of caller, D195). */
export function getList(db: Queryable, c: Caller, id: number): Promise<TodoListRow | undefined> {
  const p: Param[] = [id];
  visible(c, p); // its parameters
  return db.get(ONE(c), p);
}

/** Visible lists with these ids, by project id then position (the responsible-party view). */
export async function listsByIds(db: Queryable, c: Caller, ids: readonly number[]): Promise<TodoListRow[]> {
  const out: TodoListRow[] = [];
  for (let k = 0; k < ids.length; k += 500) {
    const chunk = ids.slice(k, k + 500);
    const p: Param[] = [...chunk];
    out.push(...await db.all<TodoListRow>(`${select(c)} WHERE l.id IN (${chunk.map(() => '?').join(', ')}) AND ${visible(c, p)}`, p));
  }
  return out.sort((a, b) => a.project_id - b.project_id || a.position - b.position || a.id - b.id);
}

/** Ids of the lists of a project the caller sees, by position (moves and reorders work in these terms). */
export async function visibleListIds(db: Queryable, c: Caller, projectId: number): Promise<number[]> {
  const p: Param[] = [projectId];
  return (await db.all<{ id: number }>(`SELECT l.id FROM todo_lists l WHERE l.project_id = ? AND ${visible(c, p)} ORDER BY l.position, l.id`, p)).map((r) => Number(r.id));
}

/** Id and position of every list of a project (private ones included), by position. */
export function positionsOfProject(db: Queryable, projectId: number): Promise<{ id: number; position: number }[]> {
  return db.all('SELECT id, position FROM todo_lists WHERE project_id = ? ORDER BY position, id', [projectId]);
}

export async function nextListPosition(db: Queryable, projectId: number): Promise<number> {
  const r = await db.get<{ n: number }>('SELECT COALESCE(MAX(position), 0) AS n FROM todo_lists WHERE project_id = ?', [projectId]);
  return Number(r?.n ?? 0) + 1;
}

