// Migrations of the team server's bookkeeping (versions 10–19): the change feed's commit clock and
// the columns its reader filters on, stored idempotency keys, and the brute-force / rate-limit
// counters. Portable DDL (BIGINT, TEXT, composite primary keys) that both engines run as is.

import type { Dialect } from './schema.ts';

export const TEAM_MIGRATIONS: readonly { version: number; name: string; sql: (d: Dialect) => string[] }[] = [
  {
    version: 10,
    name: 'feed clock and scope, idempotency keys, auth and rate counters',
    sql: () => [
      // One row: the last sequence number handed out. Taking it (UPDATE … RETURNING) locks the row
      // until commit, so on a multi-connection engine sequence numbers are committed in order.
      'CREATE TABLE IF NOT EXISTS feed_clock (id BIGINT PRIMARY KEY, seq BIGINT NOT NULL)',
      'INSERT INTO feed_clock (id, seq) SELECT 1, COALESCE(MAX(seq), 0) FROM changes',
      'ALTER TABLE changes ADD COLUMN project_id BIGINT',
      'ALTER TABLE changes ADD COLUMN person_id BIGINT',
      // Entries written before the feed knew projects: fill project_id from the records.
      `UPDATE changes SET project_id = record_id WHERE tbl = 'projects'`,
      ...['categories', 'posts', 'comments', 'milestones', 'todo_lists', 'todo_items', 'time_entries'].map((t) =>
        `UPDATE changes SET project_id = (SELECT x.project_id FROM ${t} x WHERE x.id = changes.record_id) WHERE tbl = '${t}'`),
      // Superseded entries of one record are compacted: only its latest entry stays.
      'DELETE FROM changes WHERE seq < (SELECT MAX(c2.seq) FROM changes c2 WHERE c2.tbl = changes.tbl AND c2.record_id = changes.record_id)',
      'CREATE INDEX IF NOT EXISTS changes_person ON changes (person_id)',
      `CREATE TABLE IF NOT EXISTS idempotency_keys (person_id BIGINT NOT NULL, idem_key TEXT NOT NULL,
        fingerprint TEXT NOT NULL, state TEXT NOT NULL, started_ms BIGINT NOT NULL, created_at TEXT NOT NULL,
        status BIGINT, location TEXT, content_type TEXT, body TEXT, PRIMARY KEY (person_id, idem_key))`,
      'CREATE INDEX IF NOT EXISTS idempotency_created ON idempotency_keys (created_at)',
      // GCRA counters: `tat` is the time (ms) at which the bucket of this subject is empty again.
      'CREATE TABLE IF NOT EXISTS auth_failures (kind TEXT NOT NULL, subject TEXT NOT NULL, tat BIGINT NOT NULL, PRIMARY KEY (kind, subject))',
      'CREATE TABLE IF NOT EXISTS auth_known (user_name TEXT NOT NULL, addr TEXT NOT NULL, ok_ms BIGINT NOT NULL, PRIMARY KEY (user_name, addr))',
      'CREATE TABLE IF NOT EXISTS rate_limits (person_id BIGINT PRIMARY KEY, tat BIGINT NOT NULL)',
    ],
  },
];
