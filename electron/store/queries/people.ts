// People queries (contract §8.2, §5.3).

import type { Caller, Param, Queryable, Row } from '../types.ts';

const SELECT = `SELECT pe.*, CASE WHEN c.firm = 1 THEN 0 ELSE pe.company_id END AS client_id
  FROM people pe JOIN companies c ON c.id = pe.company_id`;

/** Firm people see everyone; a client sees the firm's people and their own company's. */
function visible(c: Caller, p: Param[]): string {
  if (c.firm) return '1 = 1';
  p.push(c.companyId);
  return '(c.firm = 1 OR pe.company_id = ?)';
}

export function listPeople(db: Queryable, c: Caller, filter: { companyId?: number; projectId?: number } = {}): Promise<Row[]> {
  const p: Param[] = [];
  let where = visible(c, p);
  if (filter.companyId !== undefined) { where += ' AND pe.company_id = ?'; p.push(filter.companyId); }
  if (filter.projectId !== undefined) {
    where += ' AND EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_id = ? AND pm.person_id = pe.id)';
    p.push(filter.projectId);
  }
  return db.all(`${SELECT} WHERE ${where} ORDER BY pe.id`, p);
}

export function getPerson(db: Queryable, c: Caller, id: number): Promise<Row | undefined> {
  const p: Param[] = [id];
  return db.get(`${SELECT} WHERE pe.id = ? AND ${visible(c, p)}`, p);
}
