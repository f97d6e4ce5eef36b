// Post queries (contract §8.5): full and summary forms, newest first (§6.1), visibility (§5.2).

import type { Caller, Param, Queryable, Row } from '../types.ts';
import type { PostRow } from '../../../shared/rows.ts';
import { notPrivate, perCaller, projectVisible } from './access.ts';
import { withCommentStats } from './fragments.ts';
import { withAuthorNames } from './names.ts';
import { listRows, rowSource } from './rows.ts';

const COLS = `p.id, p.title, p.body, p.extended_body, p.category_id, p.milestone_id,
  p.use_textile, p.private, p.posted_on, p.project_id, p.author_id,
  pe.first_name || ' ' || pe.last_name AS author_name, 0 AS attachments_count`;
/**
 * One post with its comment columns from one aggregate over its visible comments (one index range
 * instead of a COUNT and a MAX subquery: D195), built once per kind of caller. Parameters: the id for
 * the comments, the id of the post, then the caller's own (projectVisible).
 */
const ONE = perCaller((c) => `SELECT ${COLS}, s.comments_count, s.commented_at
  FROM posts p JOIN people pe ON pe.id = p.author_id,
  (SELECT COUNT(*) AS comments_count, MAX(cm.created_at) AS commented_at FROM comments cm
   WHERE cm.commentable_type = 'Post' AND cm.commentable_id = ? AND ${notPrivate('cm.private', c)}) s
  WHERE p.id = ? AND ${projectVisible('p.project_id', c, [])} AND ${notPrivate('p.private', c)}`);

const SUMMARY = `SELECT p.id, p.title, p.posted_on, p.author_id, 0 AS attachments_count,
  pe.first_name || ' ' || pe.last_name AS author_name,
  cat.id AS category_id, cat.name AS category_name, CASE WHEN cat.id IS NULL THEN NULL ELSE 'PostCategory' END AS category_type
  FROM posts p JOIN people pe ON pe.id = p.author_id LEFT JOIN categories cat ON cat.id = p.category_id`;

const ORDER = 'ORDER BY p.posted_on DESC, p.id DESC';
/** Full posts of a list: ids and versions from posts_project, rows from the row cache, author names from the name maps (D185). */
const POST_ROWS = rowSource('posts', `SELECT p.id, p.title, p.body, p.extended_body, p.category_id, p.milestone_id,
  p.use_textile, p.private, p.posted_on, p.project_id, p.author_id, 0 AS attachments_count, p.version FROM posts p`, 'p');

export interface PostFilter {
  readonly categoryId?: number;
  /** Full posts only: page of `limit` after skipping `offset`. */
  readonly limit?: number;
  readonly offset?: number;
  readonly summary?: boolean;
}

/** Visible posts of a project (the project itself checked by the caller). */
export async function listPosts(db: Queryable, c: Caller, projectId: number, f: PostFilter = {}): Promise<Row[]> {
  const p: Param[] = [projectId];
  let where = `p.project_id = ? AND ${notPrivate('p.private', c)}`;
  if (f.categoryId !== undefined) { where += ' AND p.category_id = ?'; p.push(f.categoryId); }
  let page = '';
  if (f.limit !== undefined) { page = ' LIMIT ? OFFSET ?'; p.push(f.limit, f.offset ?? 0); }
  const rows = f.summary ? await db.all(`${SUMMARY} WHERE ${where} ${ORDER}${page}`, p)
    : await withAuthorNames(db, await listRows(db, POST_ROWS, `SELECT p.id, p.version FROM posts p WHERE ${where} ${ORDER}${page}`, p, [`posts@${projectId}`]));
  await withCommentStats(db, c, 'Post', rows);
  if (f.summary) for (const r of rows) delete r.comments_count; // the abbreviated form has commented-at only
  return rows;
}

/** A post the caller sees. */
export function getPost(db: Queryable, c: Caller, id: number): Promise<PostRow | undefined> {
  const p: Param[] = [id, id];
  projectVisible('p.project_id', c, p); // its parameters (the statement is ONE's)
  return db.get(ONE(c), p);
}

