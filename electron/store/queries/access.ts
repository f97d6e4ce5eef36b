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

/**
 * A statement built once for each kind of caller (administrator or not, firm or client), from a
 * builder that depends on nothing else of the caller: the same string object each time, so the store's
 * statement cache finds it without building and hashing a fresh string per request (D122, D195).
 * The builder's parameters are the caller's business: build the list as the statement expects it.
 */
export function perCaller(build: (c: Caller) => string): (c: Caller) => string {
  const kinds = [false, true].flatMap((admin) => [false, true].map((firm) => build({ id: 0, companyId: 0, admin, firm, name: '' })));
  return (c) => kinds[(c.admin ? 2 : 0) + (c.firm ? 1 : 0)];
}
