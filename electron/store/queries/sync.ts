// Queries of the sync extension and the team server's bookkeeping (docs/sync-protocol.md):
// pages of the change feed, stored idempotency keys, brute-force and rate counters.
// The bookkeeping tables are written with single atomic statements outside the Writer: they are
// not records (no feed entry, no change token: a counter must not invalidate every cache).

import type { Param, Queryable } from '../types.ts';
import type { Caller } from '../types.ts';
import { COMPANY_OF, MEMBERS } from '../feed.ts';

/** `shown`: for a record that can be private, whether clients ever could see it (0/1; null otherwise, D245). */
export interface FeedRow { [k: string]: unknown; seq: number; tbl: string; record_id: number; op: string; project_id: number | null; person_id: number | null; shown: number | null }

/** The last sequence number committed, and the horizon below which cursors are expired. */
export async function feedBounds(db: Queryable): Promise<{ clock: number; horizon: number }> {
  const c = await db.get<{ seq: number }>('SELECT seq FROM feed_clock WHERE id = 1');
  const h = await db.get<{ value: string }>("SELECT value FROM meta WHERE key = 'feed_horizon'");
  return { clock: Number(c?.seq ?? 0), horizon: Number(h?.value ?? 0) };
}

/**
 * Entries after `since` up to `clock` that may concern the caller, oldest first: entries of
 * projects the caller has access to now, entries outside projects (people, companies; for a client,
 * only those of the firm and of its own company, D268), and the caller's own membership changes.
 * Whether each record is visible is decided by the service.
 */
export function feedPage(db: Queryable, c: Caller, since: number, clock: number, limit: number): Promise<FeedRow[]> {
  const p: Param[] = [since, clock, c.id];
  let scope = '';
  if (!c.admin) {
    scope = ' AND (ch.project_id IS NULL OR EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_id = ch.project_id AND pm.person_id = ?))';
    p.push(c.id);
  }
  if (!c.firm) {
    // A client sees the firm, its own company and their people (contract §5.3); an entry of unknown company
    // (a tombstone written before migration 13) is left out: the safe side. Records clients never could see
    // are left out here too (D245), not after the page is read: a page of one such entry would be sent empty
    // with its seq as the cursor, telling where (and so how many) hidden records sit (D270).
    scope += ` AND (ch.tbl NOT IN (${Object.keys(COMPANY_OF).map((t) => `'${t}'`).join(', ')})
      OR ch.company_id = ? OR ch.company_id IN (SELECT co.id FROM companies co WHERE co.firm = 1))
      AND (ch.shown IS NULL OR ch.shown <> 0)`;
    p.push(c.companyId);
  }
  p.push(limit);
  return db.all<FeedRow>(`SELECT ch.seq, ch.tbl, ch.record_id, ch.op, ch.project_id, ch.person_id, ch.shown FROM changes ch
    WHERE ch.seq > ? AND ch.seq <= ?
      AND ((ch.tbl = '${MEMBERS}' AND ch.person_id = ?) OR (ch.tbl <> '${MEMBERS}'${scope}))
    ORDER BY ch.seq LIMIT ?`, p);
}

/**
 * Of these records (table, id), those whose own feed entry (not a member's) comes after `cursor`, up to `clock`,
 * with its seq: a feed page carries them ahead (D348).
 */
export async function entriesAfter(db: Queryable, records: readonly { tbl: string; id: number }[], cursor: number, clock: number): Promise<{ tbl: string; id: number; seq: number }[]> {
  const byTable = new Map<string, number[]>();
  for (const r of records) {
    const ids = byTable.get(r.tbl);
    if (ids) ids.push(r.id); else byTable.set(r.tbl, [r.id]);
  }
  const out: { tbl: string; id: number; seq: number }[] = [];
  for (const [tbl, ids] of byTable) {
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const rows = await db.all<{ record_id: number; seq: number }>(`SELECT record_id, seq FROM changes
        WHERE tbl = ? AND record_id IN (${chunk.map(() => '?').join(', ')}) AND person_id IS NULL AND seq > ? AND seq <= ?`, [tbl, ...chunk, cursor, clock]);
      for (const r of rows) out.push({ tbl, id: Number(r.record_id), seq: Number(r.seq) });
    }
  }
  return out;
}

// ---- idempotency keys ------------------------------------------------------------------

export interface IdemRow {
  [k: string]: unknown;
  fingerprint: string; state: string; started_ms: number; status: number | null;
  location: string | null; content_type: string | null; body: string | null;
}

/** Bytes a key holds in the table (its text columns), as `bytes` counts them for the cap (D244). */
export const keyBytes = (...texts: readonly (string | null)[]): number => texts.reduce((n, t) => n + (t === null ? 0 : Buffer.byteLength(t)), 0);

export async function claimKey(db: Queryable, personId: number, key: string, fingerprint: string, nowMs: number, at: string): Promise<boolean> {
  const r = await db.run(`INSERT INTO idempotency_keys (person_id, idem_key, fingerprint, state, started_ms, created_at, bytes)
    VALUES (?, ?, ?, 'running', ?, ?, ?) ON CONFLICT (person_id, idem_key) DO NOTHING`, [personId, key, fingerprint, nowMs, at, keyBytes(key, fingerprint)]);
  return r.changes === 1;
}

export const readKey = (db: Queryable, personId: number, key: string): Promise<IdemRow | undefined> =>
  db.get<IdemRow>(`SELECT fingerprint, state, started_ms, status, location, content_type, body FROM idempotency_keys
    WHERE person_id = ? AND idem_key = ?`, [personId, key]);

/** Take over a key whose first request was abandoned (its process died): still running after the lease. */
export async function takeOverKey(db: Queryable, personId: number, key: string, fingerprint: string, staleBefore: number, nowMs: number): Promise<boolean> {
  const r = await db.run(`UPDATE idempotency_keys SET started_ms = ? WHERE person_id = ? AND idem_key = ? AND fingerprint = ?
    AND state = 'running' AND started_ms < ?`, [nowMs, personId, key, fingerprint, staleBefore]);
  return r.changes === 1;
}

/** Store the response of a running key; `bytes` is what the row then holds (keyBytes of its texts). */
export async function storeResponse(db: Queryable, personId: number, key: string, status: number,
  location: string | null, contentType: string | null, body: string, bytes: number): Promise<void> {
  await db.run(`UPDATE idempotency_keys SET state = 'done', status = ?, location = ?, content_type = ?, body = ?, bytes = ?
    WHERE person_id = ? AND idem_key = ?`, [status, location, contentType, body, bytes, personId, key]);
}

/** What one person's keys hold (kept by triggers, migration 11). */
export async function keyUsage(db: Queryable, personId: number): Promise<{ keys: number; bytes: number }> {
  const r = await db.get<{ keys: number; bytes: number }>('SELECT keys, bytes FROM idempotency_usage WHERE person_id = ?', [personId]);
  return { keys: Number(r?.keys ?? 0), bytes: Number(r?.bytes ?? 0) };
}

/** People whose keys hold more than the cap. */
export async function overCap(db: Queryable, keys: number, bytes: number): Promise<number[]> {
  return (await db.all<{ person_id: number }>('SELECT person_id FROM idempotency_usage WHERE keys > ? OR bytes > ?', [keys, bytes]))
    .map((r) => Number(r.person_id));
}

/** A person's oldest answered keys (not `except`), oldest first, with the bytes each holds. */
export function oldestKeys(db: Queryable, personId: number, except: string, limit: number): Promise<{ idem_key: string; bytes: number }[]> {
  return db.all<{ idem_key: string; bytes: number }>(`SELECT idem_key, bytes FROM idempotency_keys
    WHERE person_id = ? AND state = 'done' AND idem_key <> ? ORDER BY created_at, idem_key LIMIT ?`, [personId, except, limit]);
}

export async function dropKeys(db: Queryable, personId: number, keys: readonly string[]): Promise<number> {
  if (!keys.length) return 0;
  return (await db.run(`DELETE FROM idempotency_keys WHERE person_id = ? AND state = 'done' AND idem_key IN (${keys.map(() => '?').join(', ')})`,
    [personId, ...keys])).changes;
}

export async function releaseKey(db: Queryable, personId: number, key: string): Promise<void> {
  await db.run("DELETE FROM idempotency_keys WHERE person_id = ? AND idem_key = ? AND state = 'running'", [personId, key]);
}

export async function purgeKeys(db: Queryable, before: string): Promise<number> {
  return (await db.run('DELETE FROM idempotency_keys WHERE created_at < ?', [before])).changes;
}

// ---- GCRA counters (brute force, request rate) -------------------------------------------
// `tat` is the time (ms) at which the subject's bucket is empty; each event adds `step` ms to
// max(tat, now). The level in events is (tat - now) / step. One statement each: atomic on both engines.

export async function readTat(db: Queryable, kind: string, subject: string): Promise<number> {
  const r = await db.get<{ tat: number }>('SELECT tat FROM auth_failures WHERE kind = ? AND subject = ?', [kind, subject]);
  return Number(r?.tat ?? 0);
}

export async function bumpTat(db: Queryable, kind: string, subject: string, nowMs: number, step: number): Promise<void> {
  await db.run(`INSERT INTO auth_failures (kind, subject, tat) VALUES (?, ?, ?)
    ON CONFLICT (kind, subject) DO UPDATE SET tat = (CASE WHEN auth_failures.tat > ? THEN auth_failures.tat ELSE ? END) + ?`,
  [kind, subject, nowMs + step, nowMs, nowMs, step]);
}

export async function knownAddress(db: Queryable, user: string, addr: string, since: number): Promise<boolean> {
  return (await db.get('SELECT 1 AS x FROM auth_known WHERE user_name = ? AND addr = ? AND ok_ms >= ?', [user, addr, since])) !== undefined;
}

export async function rememberAddress(db: Queryable, user: string, addr: string, nowMs: number): Promise<void> {
  await db.run(`INSERT INTO auth_known (user_name, addr, ok_ms) VALUES (?, ?, ?)
    ON CONFLICT (user_name, addr) DO UPDATE SET ok_ms = ?`, [user, addr, nowMs, nowMs]);
}

/**
 * One request of a person under a rate of one per `step` ms with a burst of `burst`: true when
 * admitted (and counted), false when over the limit (nothing counted).
 */
export async function admitRequest(db: Queryable, personId: number, nowMs: number, step: number, burst: number): Promise<boolean> {
  await db.run('INSERT INTO rate_limits (person_id, tat) VALUES (?, 0) ON CONFLICT (person_id) DO NOTHING', [personId]);
  const r = await db.run(`UPDATE rate_limits SET tat = (CASE WHEN tat > ? THEN tat ELSE ? END) + ?
    WHERE person_id = ? AND (CASE WHEN tat > ? THEN tat ELSE ? END) + ? - ? <= ?`,
  [nowMs, nowMs, step, personId, nowMs, nowMs, step, nowMs, burst * step]);
  return r.changes === 1;
}

export async function rateTat(db: Queryable, personId: number): Promise<number> {
  return Number((await db.get<{ tat: number }>('SELECT tat FROM rate_limits WHERE person_id = ?', [personId]))?.tat ?? 0);
}

export async function purgeCounters(db: Queryable, nowMs: number, knownBefore: number): Promise<void> {
  await db.run('DELETE FROM auth_failures WHERE tat < ?', [nowMs]);
  await db.run('DELETE FROM rate_limits WHERE tat < ?', [nowMs]);
  await db.run('DELETE FROM auth_known WHERE ok_ms < ?', [knownBefore]);
}
