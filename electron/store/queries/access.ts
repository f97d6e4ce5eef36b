// SQL fragments for visibility (contract §5), shared by every query module.
// Each takes the table alias and adds its parameters to `p`.

import type { Caller, Param } from '../types.ts';

/** The project with id column `col` is visible: the caller is an administrator or a member. */
export function projectVisible(col: string, c: Caller, p: Param[]): string {
  if (c.admin) return '1 = 1';
  p.push(c.id);
  return `EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_id = ${col} AND pm.person_id = ?)`;
}

/** Clients never see private records (§5.2). */
export function notPrivate(col: string, c: Caller): string {
  return c.firm ? '1 = 1' : `COALESCE(${col}, 0) = 0`;
}
