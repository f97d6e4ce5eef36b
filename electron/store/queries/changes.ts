// The change feed (`changes`) read for the live change stream (docs/changes-stream.md, D94): which
// records changed after a sequence number, with the project each belongs to (as stored with the entry).

import type { Queryable } from '../types.ts';

/**
 * `project_id`: the record's project (stored with the entry; else looked up while the record exists).
 * `person_id`: whose membership a `project_members` entry is. `shown`: for a record that can be private,
 * whether clients ever could see it (0/1; null otherwise, D245). `company_id`: the company of a company or
 * person entry (D268).
 */
export interface ChangeRow {
  seq: number; tbl: string; record_id: number; project_id: number | null; person_id: number | null; shown: number | null; company_id: number | null;
}

export async function lastChangeSeq(db: Queryable): Promise<number> {
  const r = await db.get<{ s: number | null }>('SELECT MAX(seq) AS s FROM changes');
  return Number(r?.s ?? 0);
}

/** The project of a record of each table (the record still existing). */
const PROJECT_OF: Record<string, string> = {
  projects: 'SELECT id AS project_id FROM projects WHERE id = ?',
  todo_lists: 'SELECT project_id FROM todo_lists WHERE id = ?',
  posts: 'SELECT project_id FROM posts WHERE id = ?',
  time_entries: 'SELECT project_id FROM time_entries WHERE id = ?',
  categories: 'SELECT project_id FROM categories WHERE id = ?',
  milestones: 'SELECT project_id FROM milestones WHERE id = ?',
  todo_items: 'SELECT l.project_id FROM todo_items i JOIN todo_lists l ON l.id = i.todo_list_id WHERE i.id = ?',
  comments: `SELECT COALESCE(p.project_id, l.project_id, m.project_id) AS project_id FROM comments c
    LEFT JOIN posts p ON c.commentable_type = 'Post' AND p.id = c.commentable_id
    LEFT JOIN todo_items i ON c.commentable_type = 'TodoItem' AND i.id = c.commentable_id
    LEFT JOIN todo_lists l ON l.id = i.todo_list_id
    LEFT JOIN milestones m ON c.commentable_type = 'Milestone' AND m.id = c.commentable_id
    WHERE c.id = ?`,
};

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** Changes after `seq` (at most `limit`, oldest first), each with its record's project when known. */
export async function changesSince(db: Queryable, seq: number, limit = 500): Promise<ChangeRow[]> {
  const rows = await db.all<{ seq: number; tbl: string; record_id: number; project_id: number | null; person_id: number | null; shown: number | null; company_id: number | null }>(
    'SELECT seq, tbl, record_id, project_id, person_id, shown, company_id FROM changes WHERE seq > ? ORDER BY seq LIMIT ?', [seq, limit]);
  const out: ChangeRow[] = [];
  const seen = new Map<string, number | null>();
  for (const r of rows) {
    // The project stored with the entry: a deleted record keeps it (the lookup finds no row any more).
    let pid = num(r.project_id);
    if (pid === null) {
      const key = `${r.tbl}:${r.record_id}`;
      let hit = seen.get(key);
      if (hit === undefined) {
        const sql = PROJECT_OF[r.tbl];
        hit = sql ? num((await db.get<{ project_id: number | null }>(sql, [r.record_id]))?.project_id) : null;
        seen.set(key, hit);
      }
      pid = hit;
    }
    out.push({ seq: Number(r.seq), tbl: r.tbl, record_id: Number(r.record_id), project_id: pid, person_id: num(r.person_id),
      shown: num(r.shown), company_id: num(r.company_id) });
  }
  return out;
}
