// People queries (contract §8.2, §5.3).

import type { Caller, Param, Queryable, Row, Store } from '../types.ts';
import { perCaller } from './access.ts';
import { column, RESOURCES } from '../../../shared/registry.ts';

/**
 * The person's stored fields as the registry lists them: not `pe.*`, which also read the password hash
 * and the version into every answer's row for nothing (D198).
 */
const COLS = RESOURCES.person.fields.filter((f) => f.stored).map((f) => `pe.${column(f.name)}`).join(', ');
const SELECT = `SELECT ${COLS}, CASE WHEN c.firm = 1 THEN 0 ELSE pe.company_id END AS client_id
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

const ONE = perCaller((c) => `${SELECT} WHERE pe.id = ? AND ${visible(c, [])}`);

/** A person the caller sees (the statement built once per kind of caller, D195). */
export function getPerson(db: Queryable, c: Caller, id: number): Promise<Row | undefined> {
  const p: Param[] = [id];
  visible(c, p); // its parameters
  return db.get(ONE(c), p);
}

/** What authentication needs of a person (contract §3), found by id, user name or API token. */
export interface AuthPerson {
  [k: string]: unknown;
  id: number; company_id: number; administrator: number | null; first_name: string; last_name: string;
  password_hash: string | null; token: string; firm: number;
}
const AUTH = `SELECT p.id, p.company_id, p.administrator, p.first_name, p.last_name, p.password_hash, p.token, c.firm
  FROM people p JOIN companies c ON c.id = p.company_id`;
/** A deactivated person (D273) is found by none of these: no password, token or cached credential works. */
const ACTIVE = 'AND COALESCE(p.active, 1) = 1';
/**
 * The person behind a cached credential, checked again after a commit: memoised by the people and
 * companies tables (D145), so a write to other tables costs the check no query (with a store pinned
 * to the request's token, none at all).
 */
export function authPersonById(db: Queryable, id: number): Promise<AuthPerson | undefined> {
  const load = () => db.get<AuthPerson>(`${AUTH} WHERE p.id = ? ${ACTIVE}`, [id]);
  const store = db as Partial<Store>;
  return typeof store.memo === 'function' ? store.memo(`auth.person:${id}`, load, ['people', 'companies']) : load();
}
export const authPersonByUserName = (db: Queryable, user: string): Promise<AuthPerson | undefined> => db.get(`${AUTH} WHERE p.user_name = ? ${ACTIVE}`, [user]);
export const authPersonByToken = (db: Queryable, token: string): Promise<AuthPerson | undefined> => db.get(`${AUTH} WHERE p.token = ? ${ACTIVE}`, [token]);

/** The token and user name of the account's first firm administrator (else first firm person): the desktop's local user. */
export function ownerCredentials(db: Queryable): Promise<{ token: string; user_name: string } | undefined> {
  return db.get('SELECT p.token, p.user_name FROM people p JOIN companies c ON c.id = p.company_id WHERE c.firm = 1 ORDER BY p.administrator DESC, p.id LIMIT 1');
}

/** Every user name taken. */
export async function userNames(db: Queryable): Promise<string[]> {
  return (await db.all<{ user_name: string }>('SELECT user_name FROM people')).map((x) => x.user_name);
}

/** Ids of a company's people, by id. */
export async function peopleOfCompany(db: Queryable, companyId: number): Promise<number[]> {
  return (await db.all<{ id: number }>('SELECT id FROM people WHERE company_id = ? ORDER BY id', [companyId])).map((x) => Number(x.id));
}

/** Ids of the firm's administrators, by id. */
export async function firmAdminIds(db: Queryable): Promise<number[]> {
  return (await db.all<{ id: number }>(
    'SELECT p.id FROM people p JOIN companies co ON co.id = p.company_id WHERE co.firm = 1 AND p.administrator = 1 ORDER BY p.id')).map((x) => Number(x.id));
}
