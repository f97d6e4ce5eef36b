// Company queries (contract §8.3, §5.3).

import type { Param, Queryable, Row } from '../types.ts';
import type { Caller } from '../../service/context.ts';

const SELECT = 'SELECT c.*, c.firm AS can_see_private FROM companies c';

function visible(c: Caller, p: Param[]): string {
  if (c.firm) return '1 = 1';
  p.push(c.companyId);
  return '(c.firm = 1 OR c.id = ?)';
}

export function listCompanies(db: Queryable, c: Caller, ids?: readonly number[]): Promise<Row[]> {
  const p: Param[] = [];
  let where = visible(c, p);
  if (ids) {
    if (!ids.length) return Promise.resolve([]);
    where += ` AND c.id IN (${ids.map(() => '?').join(', ')})`;
    p.push(...ids);
  }
  return db.all(`${SELECT} WHERE ${where} ORDER BY c.id`, p);
}

export function getCompany(db: Queryable, c: Caller, id: number): Promise<Row | undefined> {
  const p: Param[] = [id];
  return db.get(`${SELECT} WHERE c.id = ? AND ${visible(c, p)}`, p);
}

/** Does the store hold an account (any company) yet? */
export async function hasAccount(db: Queryable): Promise<boolean> {
  return (await db.get('SELECT id FROM companies LIMIT 1')) !== undefined;
}
