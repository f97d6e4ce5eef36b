// Project queries (contract §8.1).

import type { Caller, Param, Queryable } from '../types.ts';
import type { ProjectRow } from '../../../shared/rows.ts';
import { perCaller, projectVisible } from './access.ts';

const SELECT = `SELECT p.id, p.name, p.status, p.created_on, p.last_changed_on, p.announcement, p.start_page,
  p.show_writeboards, p.show_announcement, p.company_id, c.name AS company_name
  FROM projects p JOIN companies c ON c.id = p.company_id`;

export function listProjects(db: Queryable, c: Caller): Promise<ProjectRow[]> {
  const p: Param[] = [];
  return db.all(`${SELECT} WHERE ${projectVisible('p.id', c, p)} ORDER BY p.id`, p);
}

const ONE = perCaller((c) => `${SELECT} WHERE p.id = ? AND ${projectVisible('p.id', c, [])}`);

/** A project the caller sees (the statement built once per kind of caller, D195). */
export function getProject(db: Queryable, c: Caller, id: number): Promise<ProjectRow | undefined> {
  const p: Param[] = [id];
  projectVisible('p.id', c, p); // its parameters
  return db.get(ONE(c), p);
}

export async function countProjects(db: Queryable, c: Caller): Promise<Record<string, number>> {
  const p: Param[] = [];
  const rows = await db.all<{ status: string; n: number }>(
    `SELECT p.status, COUNT(*) AS n FROM projects p WHERE ${projectVisible('p.id', c, p)} GROUP BY p.status`, p);
  const out: Record<string, number> = { active: 0, archived: 0, on_hold: 0 };
  for (const r of rows) out[r.status] = Number(r.n);
  return out;
}

export async function isMember(db: Queryable, projectId: number, personId: number): Promise<boolean> {
  return (await db.get('SELECT 1 AS x FROM project_members WHERE project_id = ? AND person_id = ?', [projectId, personId])) !== undefined;
}

/** The companies of a project: its own company plus the companies of its members (§8.3). */
export function projectCompanyIds(db: Queryable, projectId: number): Promise<{ id: number }[]> {
  return db.all<{ id: number }>(`SELECT company_id AS id FROM projects WHERE id = ?
    UNION SELECT pe.company_id FROM project_members pm JOIN people pe ON pe.id = pm.person_id WHERE pm.project_id = ?`, [projectId, projectId]);
}

// Membership changes go through store/feed.ts (addMember/removeMember): they are in the change feed.

/** Every project id, in order. */
export async function allProjectIds(db: Queryable): Promise<number[]> {
  return (await db.all<{ id: number }>('SELECT id FROM projects ORDER BY id')).map((x) => Number(x.id));
}

/** The members of a project with whether each belongs to the firm, by person id. */
export async function membersWithFirm(db: Queryable, projectId: number): Promise<{ personId: number; firm: boolean }[]> {
  const rows = await db.all<{ person_id: number; firm: number }>(`SELECT pm.person_id, co.firm FROM project_members pm
    JOIN people pe ON pe.id = pm.person_id JOIN companies co ON co.id = pe.company_id WHERE pm.project_id = ? ORDER BY pm.person_id`, [projectId]);
  return rows.map((x) => ({ personId: Number(x.person_id), firm: Number(x.firm) === 1 }));
}
