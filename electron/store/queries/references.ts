// Queries behind the registry's `ref` rules: is a referenced record one the caller may point to
// from a record of this project (contract §2.6 "reference" and "responsible party")?

import type { Caller, Param, Queryable } from '../types.ts';
import { notPrivate, projectVisible } from './access.ts';
import { projectCompanyIds } from './projects.ts';

const found = async (db: Queryable, sql: string, p: Param[]): Promise<boolean> => (await db.get(sql, p)) !== undefined;

/** A post category of the project. */
export const postCategoryInProject = (db: Queryable, projectId: number, id: number): Promise<boolean> =>
  found(db, "SELECT id FROM categories WHERE id = ? AND project_id = ? AND type = 'post'", [id, projectId]);

/** A milestone of the project that the caller sees. */
export const milestoneInProject = (db: Queryable, c: Caller, projectId: number, id: number): Promise<boolean> =>
  found(db, `SELECT m.id FROM milestones m WHERE m.id = ? AND m.project_id = ? AND ${notPrivate('m.private', c)}`, [id, projectId]);

/** The project of a todo item the caller sees (its project is visible; for clients, its list is not private). */
export function visibleItem(db: Queryable, c: Caller, itemId: number): Promise<{ id: number; project_id: number } | undefined> {
  const p: Param[] = [itemId];
  const vis = projectVisible('ti.project_id', c, p);
  return db.get<{ id: number; project_id: number }>(`SELECT ti.id, ti.project_id FROM todo_items ti
    JOIN todo_lists tl ON tl.id = ti.todo_list_id WHERE ti.id = ? AND ${vis} AND ${notPrivate('tl.private', c)}`, p);
}

/** A person with access to the project (a member, or an administrator of the firm). */
export const personHasAccess = (db: Queryable, projectId: number, personId: number): Promise<boolean> =>
  found(db, `SELECT pe.id FROM people pe JOIN companies co ON co.id = pe.company_id
    WHERE pe.id = ? AND ((co.firm = 1 AND pe.administrator = 1)
      OR EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_id = ? AND pm.person_id = pe.id))`, [personId, projectId]);

/** A person the caller sees (§5.3: firm people see everyone; clients the firm and their own company). */
export function personVisible(db: Queryable, c: Caller, personId: number): Promise<boolean> {
  if (c.firm) return found(db, 'SELECT id FROM people WHERE id = ?', [personId]);
  return found(db, `SELECT pe.id FROM people pe JOIN companies co ON co.id = pe.company_id
    WHERE pe.id = ? AND (co.firm = 1 OR pe.company_id = ?)`, [personId, c.companyId]);
}

/** One of the project's companies (its own and its members', §8.3) that the caller sees (§5.3). */
export async function companyOfProject(db: Queryable, c: Caller, projectId: number, companyId: number): Promise<boolean> {
  if (!c.firm && companyId !== c.companyId && !(await found(db, 'SELECT id FROM companies WHERE id = ? AND firm = 1', [companyId]))) return false;
  return (await projectCompanyIds(db, projectId)).some((r) => Number(r.id) === companyId);
}
