// SQL of the sync CLIENT (issue #8, a replica): outbox, id map, shadow copies, state, conflicts, rejected.
// Portable SQL only. The sync phases (electron/sync/: apply, push, connect…) call these inside store.write/w.

import type { RowChange } from '../../../shared/sync/plan.ts';
import { readIntents, type Intent } from '../../../shared/sync/intents/index.ts';
import type { Conflict } from '../../../shared/sync/merge.ts';
import type { WireRow } from '../../../shared/sync/wire.ts';
import type { ResourceKey } from '../../../shared/registry.ts';
import type { Queryable } from '../types.ts';
import { batchSizes, rowsPerStatement, valuesOf } from '../batch.ts';

export interface OutboxEntry {
  seq: number; changes: RowChange[]; attempts: number; doneSteps: number; inDoubt: boolean;
  /** What the person did, by name (D336); null on an entry written before intents, or whose intents cannot be read (readIntents). */
  intents: Intent[] | null;
}

export async function outbox(db: Queryable, limit = 1_000_000): Promise<OutboxEntry[]> {
  const rows = await db.all<{ seq: number; changes: string; intents: string | null; attempts: number; done_steps: number; in_doubt: number }>(
    'SELECT seq, changes, intents, attempts, done_steps, in_doubt FROM sync_outbox ORDER BY seq LIMIT ?', [limit]);
  return rows.map((r) => ({
    seq: Number(r.seq), changes: JSON.parse(r.changes) as RowChange[], attempts: Number(r.attempts), doneSteps: Number(r.done_steps),
    inDoubt: Number(r.in_doubt) === 1, intents: readIntents(r.intents),
  }));
}

export async function outboxCount(db: Queryable): Promise<number> {
  return Number((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM sync_outbox'))!.n);
}

export const markInDoubt = (db: Queryable, seq: number) => db.run('UPDATE sync_outbox SET in_doubt = 1, attempts = attempts + 1 WHERE seq = ?', [seq]);
export const stepDone = (db: Queryable, seq: number, step: number) => db.run('UPDATE sync_outbox SET done_steps = ?, in_doubt = 0 WHERE seq = ?', [step, seq]);
export const outboxDone = (db: Queryable, seq: number) => db.run('DELETE FROM sync_outbox WHERE seq = ?', [seq]);
export const rewriteOutbox = (db: Queryable, seq: number, changes: RowChange[]) =>
  changes.length ? db.run('UPDATE sync_outbox SET changes = ? WHERE seq = ?', [JSON.stringify(changes), seq]) : outboxDone(db, seq);

// ---- id map -----------------------------------------------------------------------------------
export async function idMap(db: Queryable): Promise<{ toRemote: Map<string, number>; toLocal: Map<string, number> }> {
  const rows = await db.all<{ resource: string; local_id: number; remote_id: number }>('SELECT resource, local_id, remote_id FROM sync_ids');
  const toRemote = new Map<string, number>();
  const toLocal = new Map<string, number>();
  for (const r of rows) {
    toRemote.set(`${r.resource}:${r.local_id}`, Number(r.remote_id));
    toLocal.set(`${r.resource}:${r.remote_id}`, Number(r.local_id));
  }
  return { toRemote, toLocal };
}
/** The id-map rows of the given `resource:remoteId` keys only (an incremental pull maps O(changes); D170). */
export async function idsByRemote(db: Queryable, keys: Iterable<string>): Promise<{ toRemote: Map<string, number>; toLocal: Map<string, number> }> {
  const by = new Map<string, number[]>();
  for (const k of keys) {
    const [res, id] = k.split(':');
    if (!by.has(res)) by.set(res, []);
    by.get(res)!.push(Number(id));
  }
  const toRemote = new Map<string, number>();
  const toLocal = new Map<string, number>();
  for (const [res, ids] of by) {
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const rows = await db.all<{ local_id: number; remote_id: number }>(
        `SELECT local_id, remote_id FROM sync_ids WHERE resource = ? AND remote_id IN (${chunk.map(() => '?').join(', ')})`, [res, ...chunk]);
      for (const r of rows) {
        toRemote.set(`${res}:${r.local_id}`, Number(r.remote_id));
        toLocal.set(`${res}:${r.remote_id}`, Number(r.local_id));
      }
    }
  }
  return { toRemote, toLocal };
}
export const mapId = (db: Queryable, resource: ResourceKey, local: number, remote: number) =>
  db.run('INSERT INTO sync_ids (resource, local_id, remote_id) VALUES (?, ?, ?)', [resource, local, remote]);
/** Id-map rows of many records of one kind at once (a clone's page, D350). */
export async function mapIds(db: Queryable, resource: ResourceKey, pairs: readonly (readonly [local: number, remote: number])[]): Promise<void> {
  let j = 0;
  for (const size of batchSizes(pairs.length, rowsPerStatement(3))) {
    const params: (string | number)[] = [];
    for (const [l, r] of pairs.slice(j, j + size)) params.push(resource, l, r);
    await db.run(`INSERT INTO sync_ids (resource, local_id, remote_id) ${valuesOf('(?, ?, ?)', size)}`, params);
    j += size;
  }
}
export const unmapLocal = (db: Queryable, resource: ResourceKey, local: number) =>
  db.run('DELETE FROM sync_ids WHERE resource = ? AND local_id = ?', [resource, local]);

// ---- shadow copies (last remote state, remote ids) --------------------------------------------
export async function shadows(db: Queryable): Promise<Map<string, { row: WireRow; scope: string }>> {
  const rows = await db.all<{ resource: string; remote_id: number; scope: string; record: string }>("SELECT resource, remote_id, scope, record FROM sync_shadow WHERE resource NOT LIKE '~%'");
  return new Map(rows.map((r) => [`${r.resource}:${r.remote_id}`, { row: JSON.parse(r.record) as WireRow, scope: r.scope }]));
}
/**
 * The shadows in keyset order, `batch` at a time: the last page of a resync round walks them all, and memory
 * holds one batch, not the account (D346).
 */
export async function* shadowBatches(db: Queryable, batch = 2000): AsyncGenerator<{ key: string; scope: string; record: string }[]> {
  let after: [string, number] = ['', -1];
  for (;;) {
    const rows = await db.all<{ resource: string; remote_id: number; scope: string; record: string }>(
      "SELECT resource, remote_id, scope, record FROM sync_shadow WHERE resource NOT LIKE '~%' AND (resource > ? OR (resource = ? AND remote_id > ?)) ORDER BY resource, remote_id LIMIT ?",
      [after[0], after[0], after[1], batch]);
    if (!rows.length) return;
    yield rows.map((r) => ({ key: `${r.resource}:${r.remote_id}`, scope: r.scope, record: r.record }));
    if (rows.length < batch) return;
    const last = rows[rows.length - 1];
    after = [last.resource, Number(last.remote_id)];
  }
}
export async function shadow(db: Queryable, resource: ResourceKey, remote: number): Promise<WireRow | undefined> {
  const r = await db.get<{ record: string }>('SELECT record FROM sync_shadow WHERE resource = ? AND remote_id = ?', [resource, remote]);
  return r ? JSON.parse(r.record) as WireRow : undefined;
}
export async function putShadow(db: Queryable, resource: ResourceKey, remote: number, scope: string, row: WireRow): Promise<void> {
  const rec = JSON.stringify(row);
  const u = await db.run('UPDATE sync_shadow SET scope = ?, record = ? WHERE resource = ? AND remote_id = ?', [scope, rec, resource, remote]);
  if (!u.changes) await db.run('INSERT INTO sync_shadow (resource, remote_id, scope, record) VALUES (?, ?, ?, ?)', [resource, remote, scope, rec]);
}
/** Shadows of many records of one kind at once, new or replacing theirs (a clone's page, D350). */
export async function putShadows(db: Queryable, resource: ResourceKey, rows: readonly { remote: number; scope: string; row: WireRow }[]): Promise<void> {
  let j = 0;
  for (const size of batchSizes(rows.length, rowsPerStatement(4))) {
    const params: (string | number)[] = [];
    for (const r of rows.slice(j, j + size)) params.push(resource, r.remote, r.scope, JSON.stringify(r.row));
    await db.run(`INSERT INTO sync_shadow (resource, remote_id, scope, record) ${valuesOf('(?, ?, ?, ?)', size)}
      ON CONFLICT (resource, remote_id) DO UPDATE SET scope = excluded.scope, record = excluded.record`, params);
    j += size;
  }
}
export const dropShadow = (db: Queryable, resource: ResourceKey, remote: number) =>
  db.run('DELETE FROM sync_shadow WHERE resource = ? AND remote_id = ?', [resource, remote]);

// ---- parked records (D248): pulled from a feed page before a record they need; kept beside the
// shadows (resource `~<key>`, scope `~<scope>`) until that record came or the feed's last page.
export const parkRow = (db: Queryable, resource: ResourceKey, remote: number, scope: string, row: WireRow) =>
  putShadow(db, `~${resource}` as ResourceKey, remote, `~${scope}`, row);
/** The parked records of a resource, a batch at a time (by remote id: each applied one is unparked meanwhile). */
export async function* parkedBatches(db: Queryable, resource: ResourceKey, batch = 1000): AsyncGenerator<{ remoteId: number; scope: string; row: WireRow }[]> {
  let after = -1;
  for (;;) {
    const rows = await db.all<{ remote_id: number; scope: string; record: string }>(
      'SELECT remote_id, scope, record FROM sync_shadow WHERE resource = ? AND remote_id > ? ORDER BY remote_id LIMIT ?', [`~${resource}`, after, batch]);
    if (!rows.length) return;
    yield rows.map((r) => ({ remoteId: Number(r.remote_id), scope: r.scope.slice(1), row: JSON.parse(r.record) as WireRow }));
    if (rows.length < batch) return;
    after = Number(rows[rows.length - 1].remote_id);
  }
}
export const unpark = (db: Queryable, resource: ResourceKey, remote: number) =>
  db.run('DELETE FROM sync_shadow WHERE resource = ? AND remote_id = ?', [`~${resource}`, remote]);
/** unpark, for many records of one kind. */
export async function unparkMany(db: Queryable, resource: ResourceKey, remotes: readonly number[]): Promise<void> {
  let j = 0;
  for (const size of batchSizes(remotes.length, 256)) {
    await db.run(`DELETE FROM sync_shadow WHERE resource = ? AND remote_id IN (${new Array<string>(size).fill('?').join(', ')})`, [`~${resource}`, ...remotes.slice(j, j + size)]);
    j += size;
  }
}
export const dropParked = (db: Queryable) => db.run("DELETE FROM sync_shadow WHERE resource LIKE '~%'");
export async function hasParked(db: Queryable): Promise<boolean> {
  return (await db.get("SELECT 1 AS x FROM sync_shadow WHERE resource LIKE '~%' LIMIT 1")) !== undefined;
}

// ---- state ------------------------------------------------------------------------------------
/**
 * Every key of the replica's bookkeeping (`sync_state`), named once (issue #30): a misspelt key is a type
 * error, not a value that is never found.
 * - the link: `url` (the remote), `user` (who it signs in as), `self_remote` (that person's id there),
 *   `client` (this replica's id in its idempotency keys), `password_hash` (the remote password's hash, to sign
 *   in locally as that person);
 * - a link that was: `was_url`, `was_self`, `was_user` (a reconnect as another person is refused: D150);
 * - the pull: `cursor` (the feed's), `resync` (a full pass under way: its round), `scan_round` (a plain
 *   server's), `last_success_at`;
 * - `restore:<group>`: the rows a deletion removed while they held local work (D311);
 * - `notice_cursor`: the last conflict notice of the team server read (D329).
 * - `remote_kind`: what the remote's capabilities said at the last sync: `admin`, `team` or `plain` (D338).
 */
export type SyncStateKey = 'url' | 'user' | 'self_remote' | 'client' | 'password_hash' | 'was_url' | 'was_self' | 'was_user'
  | 'cursor' | 'resync' | 'scan_round' | 'last_success_at' | `restore:${string}` | 'notice_cursor'
  /** What the remote's capabilities said at the last sync (D338): `admin`, `team` or `plain`. */
  | 'remote_kind';
/** The state as read: typed keys, string values. */
export type SyncState = ReadonlyMap<SyncStateKey, string>;

export async function state(db: Queryable): Promise<SyncState> {
  return new Map((await db.all<{ key: SyncStateKey; value: string }>('SELECT key, value FROM sync_state')).map((r) => [r.key, r.value]));
}
export async function setState(db: Queryable, key: SyncStateKey, value: string | null): Promise<void> {
  await db.run('DELETE FROM sync_state WHERE key = ?', [key]);
  if (value !== null) await db.run('INSERT INTO sync_state (key, value) VALUES (?, ?)', [key, value]);
}

// ---- conflicts and rejected -----------------------------------------------------------------
const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
/** `context`: what people read about the record when it is gone (title, place, who; JSON, D310). */
export const addConflict = (db: Queryable, resource: ResourceKey, recordId: number, c: Conflict, at: string, context: unknown = null) =>
  db.run('INSERT INTO sync_conflicts (resource, record_id, field, mine, theirs, kind, at, context) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    [resource, recordId, c.field, text(c.mine), text(c.theirs), c.kind, at, context === null ? null : JSON.stringify(context)]);

export interface ConflictRow { id: number; resource: ResourceKey; record_id: number; field: string; mine: string | null; theirs: string | null; kind: string; at: string; resolved: string | null; context: string | null }
export const conflicts = (db: Queryable) => db.all<ConflictRow & Record<string, unknown>>('SELECT id, resource, record_id, field, mine, theirs, kind, at, resolved, context FROM sync_conflicts ORDER BY id');
export const conflict = (db: Queryable, id: number) => db.get<ConflictRow & Record<string, unknown>>('SELECT id, resource, record_id, field, mine, theirs, kind, at, resolved, context FROM sync_conflicts WHERE id = ?', [id]);
export const resolveConflict = (db: Queryable, id: number, keep: string) => db.run('UPDATE sync_conflicts SET resolved = ? WHERE id = ?', [keep, id]);
/** Resolve the open conflicts of one removal (`context.group`, a generated token of [A-Za-z0-9:_-]; D311). */
export const resolveConflictGroup = (db: Queryable, group: string, keep: string) =>
  db.run('UPDATE sync_conflicts SET resolved = ? WHERE resolved IS NULL AND context LIKE ?', [keep, `%"group":"${group}"%`]);
export async function counts(db: Queryable): Promise<{ pending: number; rejected: number; conflicts: number }> {
  const g = async (sql: string) => Number((await db.get<{ n: number }>(sql))!.n);
  return {
    pending: await g('SELECT COUNT(*) AS n FROM sync_outbox'),
    rejected: await g('SELECT COUNT(*) AS n FROM sync_rejected'),
    conflicts: await g('SELECT COUNT(*) AS n FROM sync_conflicts WHERE resolved IS NULL'),
  };
}
export const addRejected = (db: Queryable, seq: number, resource: ResourceKey, recordId: number, method: string, path: string, status: number, message: string, at: string) =>
  db.run('INSERT INTO sync_rejected (seq, resource, record_id, method, path, status, message, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [seq, resource, recordId, method, path, status, message, at]);
export const rejected = (db: Queryable) => db.all('SELECT id, seq, resource, record_id, method, path, status, message, at FROM sync_rejected ORDER BY id');

// ---- local rows as the engine sees them -------------------------------------------------------
/** The project of each of these rows (`table` → ids), by `table:id`, when it has one (a page's new comments and to-dos, D350). */
export async function projectsOf(db: Queryable, wanted: ReadonlyMap<string, ReadonlySet<number>>): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const [table, set] of wanted) {
    const ids = [...set];
    let j = 0;
    for (const size of batchSizes(ids.length, 256)) {
      const rows = await db.all<{ id: number; project_id: number }>(`SELECT id, project_id FROM ${table} WHERE id IN (${new Array<string>(size).fill('?').join(', ')})`, ids.slice(j, j + size));
      for (const r of rows) if (r.project_id !== null && r.project_id !== undefined) out.set(`${table}:${r.id}`, Number(r.project_id));
      j += size;
    }
  }
  return out;
}
export const localRow = (db: Queryable, table: string, id: number) => db.get<WireRow & Record<string, unknown>>(`SELECT * FROM ${table} WHERE id = ?`, [id]);
export const childOrder = (db: Queryable, resource: 'todoItem' | 'todoList', parent: number) =>
  db.all<{ id: number }>(resource === 'todoItem'
    ? 'SELECT id FROM todo_items WHERE todo_list_id = ? ORDER BY position, id'
    : 'SELECT id FROM todo_lists WHERE project_id = ? ORDER BY position, id', [parent]);
export const addMember = async (db: Queryable, projectId: number, personId: number) => {
  if (!await db.get('SELECT project_id FROM project_members WHERE project_id = ? AND person_id = ?', [projectId, personId])) {
    await db.run('INSERT INTO project_members (project_id, person_id) VALUES (?, ?)', [projectId, personId]);
  }
};
export const membersOf = (db: Queryable, projectId: number) => db.all<{ person_id: number }>('SELECT person_id FROM project_members WHERE project_id = ?', [projectId]);
export const dropMember = (db: Queryable, projectId: number, personId: number) => db.run('DELETE FROM project_members WHERE project_id = ? AND person_id = ?', [projectId, personId]);
export const setPersonSecrets = (db: Queryable, id: number, token: string, passwordHash: string | null) =>
  db.run('UPDATE people SET token = ?, password_hash = COALESCE(?, password_hash) WHERE id = ?', [token, passwordHash, id]);
export const personSecrets = (db: Queryable, id: number) => db.get<{ token: string | null; user_name: string | null }>('SELECT token, user_name FROM people WHERE id = ?', [id]);
export async function localIdOf(db: Queryable, resource: ResourceKey, remote: number): Promise<number | undefined> {
  const r = await db.get<{ local_id: number }>('SELECT local_id FROM sync_ids WHERE resource = ? AND remote_id = ?', [resource, remote]);
  return r ? Number(r.local_id) : undefined;
}
export async function selfRemoteId(db: Queryable): Promise<number | null> {
  const r = await db.get<{ value: string }>("SELECT value FROM sync_state WHERE key = 'self_remote'");
  return r ? Number(r.value) : null;
}

/** The remote person of a disconnected replica (D151), null otherwise. */
export async function formerSelfRemoteId(db: Queryable): Promise<number | null> {
  const r = await db.get<{ value: string }>("SELECT value FROM sync_state WHERE key = 'was_self'");
  return r && r.value !== '' ? Number(r.value) : null;
}

type ShadowMap = Map<string, { row: WireRow; scope: string }>;
const shadowRows = (rows: { resource: string; remote_id: number; scope: string; record: string }[], into: ShadowMap): ShadowMap => {
  for (const r of rows) into.set(`${r.resource}:${r.remote_id}`, { row: JSON.parse(r.record) as WireRow, scope: r.scope });
  return into;
};
/** Shadows of the given `resource:remoteId` keys only (an incremental pull reads O(changes)). */
export async function shadowsByKeys(db: Queryable, keys: Iterable<string>, into: ShadowMap = new Map()): Promise<ShadowMap> {
  const by = new Map<string, number[]>();
  for (const k of keys) {
    const [res, id] = k.split(':');
    if (!by.has(res)) by.set(res, []);
    by.get(res)!.push(Number(id));
  }
  for (const [res, ids] of by) {
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      shadowRows(await db.all(`SELECT resource, remote_id, scope, record FROM sync_shadow WHERE resource = ? AND remote_id IN (${chunk.map(() => '?').join(', ')})`, [res, ...chunk]), into);
    }
  }
  return into;
}
export async function shadowsInScope(db: Queryable, prefix: string, into: ShadowMap = new Map()): Promise<ShadowMap> {
  return shadowRows(await db.all("SELECT resource, remote_id, scope, record FROM sync_shadow WHERE scope LIKE ? OR (resource = 'project' AND scope = 'projects')", [`${prefix}%`]), into);
}

// ---- adopting local work on connect (D150) ----------------------------------------------------
/** Every row of a table, in the order its records are created on the remote (lists and items by position). */
export const allRows = (db: Queryable, table: string) => db.all<WireRow & Record<string, unknown>>(`SELECT * FROM ${table} ORDER BY ${
  table === 'todo_items' ? 'todo_list_id, position, id' : table === 'todo_lists' ? 'project_id, position, id' : 'id'}`);
export const appendOutbox = (db: Queryable, at: string, changes: RowChange[]) =>
  db.run('INSERT INTO sync_outbox (at, changes) VALUES (?, ?)', [at, JSON.stringify(changes)]);
/** Forget another remote's sync state (its ids mean nothing to the new one); local records stay. */
export async function forgetRemote(db: Queryable): Promise<void> {
  for (const t of ['sync_outbox', 'sync_ids', 'sync_shadow', 'sync_state', 'sync_conflicts', 'sync_rejected', 'sync_notices_out', 'sync_pushed']) await db.run(`DELETE FROM ${t}`);
}
/**
 * A replica is one person: nobody else signs in locally (no password, no token, no user name: the
 * pull brings the remote's user names, which must not clash with local ones). The owner takes the
 * remote user name at once.
 */
export async function lockOthers(db: Queryable, self: number | null, selfUserName: string | null): Promise<void> {
  await db.run('UPDATE people SET password_hash = NULL, token = NULL, user_name = NULL WHERE id <> ?', [self ?? -1]);
  if (self !== null && selfUserName) await db.run('UPDATE people SET user_name = ? WHERE id = ?', [selfUserName, self]);
}
