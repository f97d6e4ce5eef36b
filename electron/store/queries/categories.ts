// Category queries (contract §8.4). elements-count counts the posts of a post category that the
// caller sees (§5.2); attachment categories always count 0.

import type { Caller, Param, Queryable } from '../types.ts';
import type { CategoryRow } from '../../../shared/rows.ts';
import { notPrivate, perCaller, projectVisible } from './access.ts';

const select = (c: Caller): string => `SELECT c.id, c.name, c.project_id, c.type,
  CASE WHEN c.type = 'post' THEN (SELECT COUNT(*) FROM posts p WHERE p.category_id = c.id AND ${notPrivate('p.private', c)})
  ELSE 0 END AS elements_count
  FROM categories c`;

/** Categories of a project (visibility of the project checked by the caller), by name, case-insensitively. */
export function listCategories(db: Queryable, c: Caller, projectId: number, type?: 'post' | 'attachment'): Promise<CategoryRow[]> {
  const p: Param[] = [projectId];
  let where = 'c.project_id = ?';
  if (type) { where += ' AND c.type = ?'; p.push(type); }
  return db.all(`${select(c)} WHERE ${where} ORDER BY lower(c.name), c.id`, p);
}

const ONE = perCaller((c) => `${select(c)} WHERE c.id = ? AND ${projectVisible('c.project_id', c, [])}`);

/** A category in a project the caller sees (the statement built once per kind of caller, D195). */
export function getCategory(db: Queryable, c: Caller, id: number): Promise<CategoryRow | undefined> {
  const p: Param[] = [id];
  projectVisible('c.project_id', c, p); // its parameters
  return db.get(ONE(c), p);
}

/** Posts in a category, private ones included (a category with posts cannot be deleted). */
export async function postsInCategory(db: Queryable, id: number): Promise<number> {
  const r = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM posts WHERE category_id = ?', [id]);
  return Number(r?.n ?? 0);
}
