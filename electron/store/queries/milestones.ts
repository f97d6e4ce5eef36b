// Milestone queries (contract §8.7).

import type { Caller, Param, Queryable } from '../types.ts';
import type { MilestoneRow } from '../../../shared/rows.ts';
import { notPrivate, projectVisible } from './access.ts';
import { commentColumns } from './fragments.ts';
import { withPartyNames } from './names.ts';

/** Names (creator, completer, responsible party) are filled from the store's name maps (D43). */
function select(c: Caller): string {
  return `SELECT m.id, m.title, m.deadline, m.wants_notification, m.private, m.project_id,
    m.completed, m.completed_at, m.completed_at AS completed_on, m.completer_id,
    m.created_on, m.creator_id, m.responsible_party_id, m.responsible_party_type,
    ${commentColumns('Milestone', 'm.id', c)}
    FROM milestones m`;
}

/** Visible to the caller: the project is visible and (firm or not private). */
function visible(c: Caller, p: Param[]): string {
  return `${projectVisible('m.project_id', c, p)} AND ${notPrivate('m.private', c)}`;
}

export type Find = 'all' | 'late' | 'upcoming' | 'completed';

export async function listMilestones(db: Queryable, c: Caller, projectId: number, find: Find, today: string): Promise<MilestoneRow[]> {
  const p: Param[] = [projectId];
  let where = `m.project_id = ? AND ${visible(c, p)}`;
  if (find === 'late') { where += ' AND m.completed = 0 AND m.deadline < ?'; p.push(today); }
  else if (find === 'upcoming') { where += ' AND m.completed = 0 AND m.deadline >= ?'; p.push(today); }
  else if (find === 'completed') where += ' AND m.completed = 1';
  return withPartyNames(db, await db.all(`${select(c)} WHERE ${where} ORDER BY m.deadline, m.id`, p));
}

export async function getMilestone(db: Queryable, c: Caller, id: number): Promise<MilestoneRow | undefined> {
  const p: Param[] = [id];
  const row = await db.get<MilestoneRow>(`${select(c)} WHERE m.id = ? AND ${visible(c, p)}`, p);
  return row && (await withPartyNames(db, [row]))[0];
}

export async function getMilestones(db: Queryable, c: Caller, ids: readonly number[]): Promise<MilestoneRow[]> {
  if (!ids.length) return [];
  const p: Param[] = [...ids];
  return withPartyNames(db, await db.all(`${select(c)} WHERE m.id IN (${ids.map(() => '?').join(', ')}) AND ${visible(c, p)}`, p));
}

/** Other uncompleted milestones of a project visible to the caller, deadline after `after` (§8.7 shifting). */
export function laterOpenMilestones(db: Queryable, c: Caller, projectId: number, exceptId: number, after: string): Promise<{ id: number; deadline: string }[]> {
  const p: Param[] = [projectId, exceptId, after];
  return db.all(`SELECT m.id, m.deadline FROM milestones m
    WHERE m.project_id = ? AND m.id <> ? AND m.completed = 0 AND m.deadline > ? AND ${visible(c, p)}`, p);
}

/** A milestone's deadline and completion as stored, whatever the caller (inside a write, after the visibility check). */
export function milestoneState(db: Queryable, id: number): Promise<{ deadline: string; completed: number } | undefined> {
  return db.get('SELECT deadline, completed FROM milestones WHERE id = ?', [id]);
}
