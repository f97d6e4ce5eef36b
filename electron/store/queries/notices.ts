// Queries of conflict notices (issue #26, D312, D328–D330).
// Team server: `sync_notices`, what a replica tells the other side of a conflict it recorded, kept as
// long as the feed's tombstones. Replica: `sync_notices_out` (notices queued with the conflict, sent
// after the push) and `sync_pushed` (the value this replica pushed last per record and field, so that
// only the person whose value was overwritten is told).
// Bookkeeping: plain statements, outside the Writer's record methods (no feed entry, no outbox action).

import type { Caller, Param, Queryable } from '../types.ts';

// ---- team server ------------------------------------------------------------------------------

export interface NoticeRow { [k: string]: unknown; seq: number; person_id: number; project_id: number; body: string; at: string; first_name: string | null; last_name: string | null }

/** Store one notice; false when this person already sent this key (a replay). */
export async function putNotice(db: Queryable, personId: number, key: string, projectId: number, body: string, at: string): Promise<boolean> {
  const r = await db.run(`INSERT INTO sync_notices (person_id, notice_key, project_id, body, at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (person_id, notice_key) DO NOTHING`, [personId, key, projectId, body, at]);
  return r.changes === 1;
}

/** Notices after `since` of the projects the caller sees now (every project for an administrator), oldest first. */
export function noticesPage(db: Queryable, c: Caller, since: number, limit: number): Promise<NoticeRow[]> {
  const p: Param[] = [since];
  let scope = '';
  if (!c.admin) {
    scope = ' AND EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_id = n.project_id AND pm.person_id = ?)';
    p.push(c.id);
  }
  p.push(limit);
  return db.all<NoticeRow>(`SELECT n.seq, n.person_id, n.project_id, n.body, n.at, pe.first_name, pe.last_name FROM sync_notices n
    LEFT JOIN people pe ON pe.id = n.person_id WHERE n.seq > ?${scope} ORDER BY n.seq LIMIT ?`, p);
}

/** The project a record lives in now (a project is its own), or, for a record deleted, its tombstone's. */
export async function projectOfRecord(db: Queryable, table: string, id: number): Promise<number | null> {
  if (table === 'projects') return (await db.get('SELECT id FROM projects WHERE id = ?', [id])) ? id : null;
  const row = await db.get<{ project_id: number | null }>(`SELECT project_id FROM ${table} WHERE id = ?`, [id]);
  if (row) return row.project_id === null ? null : Number(row.project_id);
  const gone = await db.get<{ project_id: number | null }>("SELECT project_id FROM changes WHERE tbl = ? AND record_id = ? AND op = 'delete' ORDER BY seq DESC LIMIT 1", [table, id]);
  return gone?.project_id === null || gone?.project_id === undefined ? null : Number(gone.project_id);
}

/**
 * A record deleted that clients could see when it went: gone from its table, and its tombstone's `shown`
 * (D245) says so (null: a table without private records).
 */
export async function goneClientVisible(db: Queryable, table: string, id: number): Promise<boolean> {
  if (await db.get(`SELECT 1 AS x FROM ${table} WHERE id = ?`, [id])) return false;
  const t = await db.get<{ shown: number | null }>("SELECT shown FROM changes WHERE tbl = ? AND record_id = ? AND op = 'delete' AND person_id IS NULL ORDER BY seq DESC LIMIT 1", [table, id]);
  return t !== undefined && (t.shown === null || Number(t.shown) === 1);
}

/** Retention: notices older than `before` (ISO UTC), as the feed's tombstones. */
export async function purgeNotices(db: Queryable, before: string): Promise<number> {
  return (await db.run('DELETE FROM sync_notices WHERE at < ?', [before])).changes;
}

// ---- replica ------------------------------------------------------------------------------------

export interface OutRow { [k: string]: unknown; notice_key: string; body: string; grp: string | null }

export const queueNotice = (db: Queryable, key: string, body: string, group: string | null, at: string) =>
  db.run('INSERT INTO sync_notices_out (notice_key, body, grp, sent, at) VALUES (?, ?, ?, 0, ?) ON CONFLICT (notice_key) DO NOTHING', [key, body, group, at]);
export const unsent = (db: Queryable, limit: number) =>
  db.all<OutRow>('SELECT notice_key, body, grp FROM sync_notices_out WHERE sent = 0 ORDER BY at, notice_key LIMIT ?', [limit]);
export async function markSent(db: Queryable, keys: readonly string[]): Promise<void> {
  for (const k of keys) await db.run('UPDATE sync_notices_out SET sent = 1 WHERE notice_key = ?', [k]);
}
/** A notice queued for a removal (D311's group): what a later "restored" / "dropped" is about. */
export const noticeOfGroup = (db: Queryable, group: string) =>
  db.get<OutRow>('SELECT notice_key, body, grp FROM sync_notices_out WHERE grp = ? ORDER BY at, notice_key LIMIT 1', [group]);
/** Sent notices are kept a while (a restore weeks later still finds its group), then dropped. */
export const purgeSent = (db: Queryable, before: string) => db.run('DELETE FROM sync_notices_out WHERE sent = 1 AND at < ?', [before]);

export async function setPushed(db: Queryable, resource: string, remoteId: number, field: string, value: string | null, expires: string): Promise<void> {
  await db.run('DELETE FROM sync_pushed WHERE resource = ? AND remote_id = ? AND field = ?', [resource, remoteId, field]);
  await db.run('INSERT INTO sync_pushed (resource, remote_id, field, value, expires) VALUES (?, ?, ?, ?, ?)', [resource, remoteId, field, value, expires]);
}
/** A record this replica deleted: only its deletion ('*') matters now. */
export const dropPushedFields = (db: Queryable, resource: string, remoteId: number) =>
  db.run("DELETE FROM sync_pushed WHERE resource = ? AND remote_id = ? AND field <> '*'", [resource, remoteId]);
/** A record the remote deleted: its rows expire at `by` at the latest. */
export const expirePushed = (db: Queryable, resource: string, remoteId: number, by: string) =>
  db.run('UPDATE sync_pushed SET expires = ? WHERE resource = ? AND remote_id = ? AND (expires IS NULL OR expires > ?)', [by, resource, remoteId, by]);
/** Rows expired before `now` (ISO UTC) go. */
export const prunePushed = (db: Queryable, now: string) => db.run('DELETE FROM sync_pushed WHERE expires < ?', [now]);
export async function pushed(db: Queryable, resource: string, remoteId: number, field: string): Promise<{ value: string | null } | undefined> {
  return db.get<{ value: string | null }>('SELECT value FROM sync_pushed WHERE resource = ? AND remote_id = ? AND field = ?', [resource, remoteId, field]);
}

/** One value of the replica's sync state (without reading the whole of it, as replica.ts `state` does). */
export async function stateValue(db: Queryable, key: 'client' | 'notice_cursor'): Promise<string | undefined> {
  return (await db.get<{ value: string }>('SELECT value FROM sync_state WHERE key = ?', [key]))?.value;
}

export async function remoteIdOf(db: Queryable, resource: string, local: number): Promise<number | undefined> {
  const r = await db.get<{ remote_id: number }>('SELECT remote_id FROM sync_ids WHERE resource = ? AND local_id = ?', [resource, local]);
  return r ? Number(r.remote_id) : undefined;
}
export async function localIdOf(db: Queryable, resource: string, remote: number): Promise<number | undefined> {
  const r = await db.get<{ local_id: number }>('SELECT local_id FROM sync_ids WHERE resource = ? AND remote_id = ?', [resource, remote]);
  return r ? Number(r.local_id) : undefined;
}

/** Open conflicts this replica was told of about one removed record (context.target, a `resource:id` key). */
export const toldAbout = (db: Queryable, target: string) =>
  db.all<{ id: number; context: string | null }>('SELECT id, context FROM sync_conflicts WHERE context LIKE ?', [`%"target":"${target}"%`]);
export const setContext = (db: Queryable, id: number, context: string) => db.run('UPDATE sync_conflicts SET context = ? WHERE id = ?', [context, id]);
