// Comment queries (contract §8.6). A comment is visible when its project is, and, for clients,
// when neither the comment nor its parent is private (a todo item's privacy is its list's).
// The count/newest fragments are shared with the parents' queries (posts, milestones, todo items).

import type { Caller, Param, Queryable } from '../types.ts';
import type { CommentRow } from '../../../shared/rows.ts';
import { notPrivate, perCaller, projectVisible } from './access.ts';
import type { CommentableType } from './fragments.ts';

export type { CommentableType };

/** The parent of comment alias `a` is private (todo items: their list). Also the Overview's (overview.ts). */
export const parentPrivate = (a: string): string => `CASE ${a}.commentable_type
  WHEN 'Post' THEN (SELECT COALESCE(x.private, 0) FROM posts x WHERE x.id = ${a}.commentable_id)
  WHEN 'Milestone' THEN (SELECT COALESCE(x.private, 0) FROM milestones x WHERE x.id = ${a}.commentable_id)
  WHEN 'TodoItem' THEN (SELECT COALESCE(l.private, 0) FROM todo_items i JOIN todo_lists l ON l.id = i.todo_list_id WHERE i.id = ${a}.commentable_id)
  ELSE 1 END`;

const SELECT = `SELECT c.id, c.body, c.private, c.author_id, pe.first_name || ' ' || pe.last_name AS author_name,
  c.commentable_id, c.commentable_type, c.created_at, c.created_at AS posted_on, NULL AS emailed_from,
  CASE WHEN c.commentable_type = 'Post' THEN c.commentable_id END AS post_id, 0 AS attachments_count, c.project_id
  FROM comments c JOIN people pe ON pe.id = c.author_id`;

const ONE = perCaller((c) => `${SELECT} WHERE c.id = ? AND ${projectVisible('c.project_id', c, [])}${
  c.firm ? '' : ` AND COALESCE(c.private, 0) = 0 AND ${parentPrivate('c')} = 0`}`);

/** A comment the caller sees, whatever its parent (the statement built once per kind of caller, D195). */
export function getComment(db: Queryable, c: Caller, id: number): Promise<CommentRow | undefined> {
  const p: Param[] = [id];
  projectVisible('c.project_id', c, p); // its parameters
  return db.get(ONE(c), p);
}

/** The parent record, when the caller sees it: its id and project. */
export function getParent(db: Queryable, c: Caller, type: CommentableType, id: number): Promise<{ id: number; project_id: number } | undefined> {
  const p: Param[] = [id];
  switch (type) {
    case 'Post':
      return db.get(`SELECT x.id, x.project_id FROM posts x WHERE x.id = ? AND ${projectVisible('x.project_id', c, p)} AND ${notPrivate('x.private', c)}`, p);
    case 'Milestone':
      return db.get(`SELECT x.id, x.project_id FROM milestones x WHERE x.id = ? AND ${projectVisible('x.project_id', c, p)} AND ${notPrivate('x.private', c)}`, p);
    case 'TodoItem':
      return db.get(`SELECT i.id, l.project_id FROM todo_items i JOIN todo_lists l ON l.id = i.todo_list_id
        WHERE i.id = ? AND ${projectVisible('l.project_id', c, p)} AND ${notPrivate('l.private', c)}`, p);
  }
}

const ofParent = (c: Caller) => `c.commentable_type = ? AND c.commentable_id = ? AND ${notPrivate('c.private', c)}`;

/**
 * Visible comments of a (visible) parent, oldest first. With `limit`: the `limit` most recent
 * ones, older than comment `before` when given.
 */
export async function listComments(
  db: Queryable, c: Caller, type: CommentableType, parentId: number, opts: { limit?: number; before?: number } = {},
): Promise<CommentRow[]> {
  const p: Param[] = [type, parentId];
  let where = ofParent(c);
  if (opts.before !== undefined) { where += ' AND c.id < ?'; p.push(opts.before); }
  if (opts.limit === undefined) return db.all<CommentRow>(`${SELECT} WHERE ${where} ORDER BY c.id`, p);
  p.push(opts.limit);
  const rows = await db.all<CommentRow>(`${SELECT} WHERE ${where} ORDER BY c.id DESC LIMIT ?`, p);
  return rows.reverse();
}

export async function countComments(db: Queryable, c: Caller, type: CommentableType, parentId: number, before?: number): Promise<number> {
  const p: Param[] = [type, parentId];
  let where = ofParent(c);
  if (before !== undefined) { where += ' AND c.id < ?'; p.push(before); }
  const r = await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM comments c WHERE ${where}`, p);
  return Number(r?.n ?? 0);
}

/** Is `id` a visible comment of this parent? */
export async function isCommentOf(db: Queryable, c: Caller, type: CommentableType, parentId: number, id: number): Promise<boolean> {
  const r = await db.get(`SELECT c.id FROM comments c WHERE c.id = ? AND ${ofParent(c)}`, [id, type, parentId]);
  return r !== undefined;
}

