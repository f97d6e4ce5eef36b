// Company queries (contract §8.3, §5.3).

import type { Caller, Param, Queryable, Row } from '../types.ts';
import { perCaller } from './access.ts';

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

const ONE = perCaller((c) => `${SELECT} WHERE c.id = ? AND ${visible(c, [])}`);

/** A company the caller sees (the statement built once per kind of caller, D195). */
export function getCompany(db: Queryable, c: Caller, id: number): Promise<Row | undefined> {
  const p: Param[] = [id];
  visible(c, p); // its parameters
  return db.get(ONE(c), p);
}

/** Does the store hold an account (any company) yet? */
export async function hasAccount(db: Queryable): Promise<boolean> {
  return (await db.get('SELECT id FROM companies LIMIT 1')) !== undefined;
}

/** Whether a company with this id exists (any caller may name any company as a project's). */
export async function companyExists(db: Queryable, id: number): Promise<boolean> {
  return (await db.get('SELECT id FROM companies WHERE id = ?', [id])) !== undefined;
}

/** The account's own company (the firm); undefined before an account was imported. */
export async function firmCompanyId(db: Queryable): Promise<number | undefined> {
  const r = await db.get<{ id: number }>('SELECT id FROM companies WHERE firm = 1');
  return r ? Number(r.id) : undefined;
}

/** The client companies, by id. */
export async function clientCompanyIds(db: Queryable): Promise<number[]> {
  return (await db.all<{ id: number }>('SELECT id FROM companies WHERE firm = 0 ORDER BY id')).map((x) => Number(x.id));
}
