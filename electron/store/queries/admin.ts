// Administration (docs/api-extensions.md E2–E6): uniqueness checks, people and membership facts, and
// invitations (stored as a SHA-256 of the token, D275).

import type { Queryable } from '../types.ts';

/** Which of a user name / e-mail address another person (not `exceptId`) already has (e-mail: any case). */
export async function takenBy(db: Queryable, userName: string | undefined, email: string | undefined, exceptId = 0): Promise<{ userName: boolean; email: boolean }> {
  const u = userName === undefined ? undefined
    : await db.get('SELECT 1 AS x FROM people WHERE user_name = ? AND id <> ?', [userName, exceptId]);
  const e = email === undefined ? undefined
    : await db.get('SELECT 1 AS x FROM people WHERE LOWER(email_address) = LOWER(?) AND id <> ?', [email, exceptId]);
  return { userName: u !== undefined, email: e !== undefined };
}

/** A person's facts the administration needs (undefined: no such person). */
export function personFacts(db: Queryable, id: number): Promise<{ id: number; user_name: string; company_id: number; active: number; firm: number; administrator: number } | undefined> {
  return db.get(`SELECT p.id, p.user_name, p.company_id, COALESCE(p.active, 1) AS active, c.firm, COALESCE(p.administrator, 0) AS administrator
    FROM people p JOIN companies c ON c.id = p.company_id WHERE p.id = ?`, [id]);
}

/** Ids of the deactivated people (D273), by id. */
export async function deactivatedIds(db: Queryable): Promise<number[]> {
  return (await db.all<{ id: number }>('SELECT id FROM people WHERE COALESCE(active, 1) = 0 ORDER BY id')).map((x) => Number(x.id));
}

/** Is the company the firm (undefined: no such company)? */
export async function companyIsFirm(db: Queryable, id: number): Promise<boolean | undefined> {
  const r = await db.get<{ firm: number }>('SELECT firm FROM companies WHERE id = ?', [id]);
  return r ? Number(r.firm) === 1 : undefined;
}

export async function companyNameTaken(db: Queryable, name: string, exceptId = 0): Promise<boolean> {
  return (await db.get('SELECT 1 AS x FROM companies WHERE LOWER(name) = LOWER(?) AND id <> ?', [name, exceptId])) !== undefined;
}

export async function projectStatus(db: Queryable, id: number): Promise<string | undefined> {
  const r = await db.get<{ status: string }>('SELECT status FROM projects WHERE id = ?', [id]);
  return r ? String(r.status) : undefined;
}

/** Drop a person's open invitations (a new one replaces them; deactivation ends them). */
export async function dropInvitations(db: Queryable, personId: number): Promise<void> {
  await db.run('DELETE FROM invitations WHERE person_id = ? AND used_at IS NULL', [personId]);
}

export async function insertInvitation(db: Queryable, tokenHash: string, personId: number, createdAt: string, expiresAt: string): Promise<void> {
  await db.run('INSERT INTO invitations (token_hash, person_id, created_at, expires_at) VALUES (?, ?, ?, ?)', [tokenHash, personId, createdAt, expiresAt]);
}

/**
 * Take an invitation: marks it used if it is open, unexpired at `now`, and the person's (one statement,
 * so two concurrent uses cannot both succeed). Returns the person's id, or undefined.
 */
export async function takeInvitation(db: Queryable, tokenHash: string, userName: string, now: string): Promise<number | undefined> {
  const r = await db.get<{ person_id: number }>(`UPDATE invitations SET used_at = ?
    WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?
      AND person_id = (SELECT p.id FROM people p WHERE p.user_name = ? AND COALESCE(p.active, 1) = 1)
    RETURNING person_id`, [now, tokenHash, now, userName]);
  return r ? Number(r.person_id) : undefined;
}

/**
 * A person pulled from the team server takes a user name a person made here and not pushed yet holds (D338: both
 * were created at once): the local one yields it (`nia~12`) until the push, where the team server refuses its
 * create (the name is taken there) and the rejection removes it. A person the team server knows never yields.
 */
export async function yieldUserName(db: Queryable, userName: string, exceptId: number): Promise<void> {
  await db.run(`UPDATE people SET user_name = user_name || '~' || CAST(id AS TEXT) WHERE user_name = ? AND id <> ?
    AND NOT EXISTS (SELECT 1 FROM sync_ids s WHERE s.resource = 'person' AND s.local_id = people.id)`, [userName, exceptId]);
}

/** The people or projects of a company (ids), for a company removed here (D338). */
export async function companyUsers(db: Queryable, table: 'people' | 'projects', companyId: number): Promise<number[]> {
  return (await db.all<{ id: number }>(`SELECT id FROM ${table} WHERE company_id = ? ORDER BY id`, [companyId])).map((r) => Number(r.id));
}
