// The reads of a delete that follows the registry's links (electron/store/delete-record.ts, D321).
// Table and column names come from shared/registry.ts, never from a request.

import { TYPE_COLUMN, type Dependent } from '../../../shared/registry.ts';
import type { Queryable, Row } from '../types.ts';

/** A record's whole row (what a sync removal keeps to restore it). */
export const recordRow = (db: Queryable, table: string, id: number): Promise<Row | undefined> =>
  db.get(`SELECT * FROM ${table} WHERE id = ?`, [id]);

/** The records of a dependent table whose link points at record `id` (private ones included), in id order: whole rows, or their ids and projects. */
export function referrers(db: Queryable, table: string, d: Dependent, id: number, cols: '*' | 'id, project_id'): Promise<Row[]> {
  const to = d.link.to;
  const typeColumn = d.type !== undefined && (to === 'commentable' || to === 'party') ? TYPE_COLUMN[to] : null;
  const where = typeColumn ? `${d.link.column} = ? AND ${typeColumn} = ?` : `${d.link.column} = ?`;
  return db.all(`SELECT ${cols} FROM ${table} WHERE ${where} ORDER BY id`, typeColumn ? [id, d.type] : [id]);
}

/** A project's memberships (they go with it). */
export const dropMemberships = (db: Queryable, projectId: number) => db.run('DELETE FROM project_members WHERE project_id = ?', [projectId]);

/** A person's memberships (they go with a person removed here: a create the team server refused, D338). */
export const dropPersonMemberships = (db: Queryable, personId: number) => db.run('DELETE FROM project_members WHERE person_id = ?', [personId]);
