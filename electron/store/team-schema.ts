// Migrations of the team server's bookkeeping (versions 10–19): the change feed's commit clock and
// the columns its reader filters on, stored idempotency keys, and the brute-force / rate-limit
// counters. Portable DDL (BIGINT, TEXT, composite primary keys) that both engines run as is.

import type { Dialect } from './schema.ts';
import { CLIENT_VISIBLE, COMPANY_OF } from './feed.ts';

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
  {
    version: 11,
    // D244: what one person's keys hold (count, bytes) is kept by triggers in the statement that changes a
    // key, so it is exact whatever deletes a key (a release, the cap, retention, another process), and the
    // cap is read in O(1) on both engines.
    name: 'idempotency keys: bytes per key, usage per person, age index',
    sql: (d) => {
      const len = (c: string) => (d === 'postgres' ? `COALESCE(octet_length(${c}), 0)` : `COALESCE(length(CAST(${c} AS BLOB)), 0)`);
      const upsert = (who: string, n: string, b: string) => `INSERT INTO idempotency_usage (person_id, keys, bytes) VALUES (${who}, ${n}, ${b})
        ON CONFLICT (person_id) DO UPDATE SET keys = idempotency_usage.keys + EXCLUDED.keys, bytes = idempotency_usage.bytes + EXCLUDED.bytes`;
      const triggers = d === 'postgres'
        ? [`CREATE OR REPLACE FUNCTION idempotency_usage_track() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF TG_OP = 'INSERT' THEN ${upsert('NEW.person_id', '1', 'NEW.bytes')}; RETURN NEW;
              ELSIF TG_OP = 'UPDATE' THEN ${upsert('NEW.person_id', '0', 'NEW.bytes - OLD.bytes')}; RETURN NEW;
              ELSE ${upsert('OLD.person_id', '-1', '-OLD.bytes')}; RETURN OLD;
              END IF;
            END $$`,
        'DROP TRIGGER IF EXISTS idempotency_usage_track ON idempotency_keys',
        'CREATE TRIGGER idempotency_usage_track AFTER INSERT OR UPDATE OF bytes OR DELETE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION idempotency_usage_track()']
        : [`CREATE TRIGGER IF NOT EXISTS idempotency_usage_ins AFTER INSERT ON idempotency_keys BEGIN ${upsert('NEW.person_id', '1', 'NEW.bytes')}; END`,
          `CREATE TRIGGER IF NOT EXISTS idempotency_usage_upd AFTER UPDATE OF bytes ON idempotency_keys BEGIN ${upsert('NEW.person_id', '0', 'NEW.bytes - OLD.bytes')}; END`,
          `CREATE TRIGGER IF NOT EXISTS idempotency_usage_del AFTER DELETE ON idempotency_keys BEGIN ${upsert('OLD.person_id', '-1', '-OLD.bytes')}; END`];
      return [
        'ALTER TABLE idempotency_keys ADD COLUMN bytes BIGINT NOT NULL DEFAULT 0',
        `UPDATE idempotency_keys SET bytes = ${['idem_key', 'fingerprint', 'location', 'content_type', 'body'].map(len).join(' + ')}`,
        'CREATE TABLE IF NOT EXISTS idempotency_usage (person_id BIGINT PRIMARY KEY, keys BIGINT NOT NULL, bytes BIGINT NOT NULL)',
        `INSERT INTO idempotency_usage (person_id, keys, bytes) SELECT person_id, COUNT(*), SUM(bytes) FROM idempotency_keys GROUP BY person_id`,
        ...triggers,
        // The oldest keys of one person first (the cap, D244).
        'CREATE INDEX IF NOT EXISTS idempotency_age ON idempotency_keys (person_id, created_at)',
      ];
    },
  },
  {
    version: 12,
    // D245: whether clients (people who cannot see private records) ever could see an entry's record, so that
    // a client's feed carries no entry of a record it never could see. Live records: whether clients see them
    // now. Tombstones written before: unknown, so hidden from clients (the safe side; see D245).
    name: 'feed: shown to clients, per entry of records that can be private',
    sql: () => [
      'ALTER TABLE changes ADD COLUMN shown INTEGER',
      ...Object.entries(CLIENT_VISIBLE).map(([t, visible]) => `UPDATE changes SET shown = CASE WHEN op <> 'delete' AND ${visible('changes.record_id')}
        THEN 1 ELSE 0 END WHERE tbl = '${t}' AND person_id IS NULL`),
    ],
  },
  {
    version: 13,
    // D268: the company a company or person entry belongs to, so that a client gets no entry of another client
    // company or its people. Live records: from their rows. Tombstones written before: unknown (null), so
    // hidden from clients (the safe side, as D245's).
    name: 'feed: the company of each entry of a company or person',
    sql: () => [
      'ALTER TABLE changes ADD COLUMN company_id BIGINT',
      ...Object.entries(COMPANY_OF).map(([t, of]) => `UPDATE changes SET company_id = ${of('changes.record_id')}
        WHERE tbl = '${t}' AND person_id IS NULL`),
    ],
  },
  {
    version: 14,
    // D328: conflict notices one replica sends for the other side of a conflict it recorded (issue #26). One
    // row per notice; the body is the validated notice (JSON); `project_id` scopes who reads it; a replay of
    // the same (person, key) is ignored; kept as long as the feed's tombstones (service/maintenance.ts).
    name: 'sync: conflict notices',
    sql: (d) => [
      `CREATE TABLE IF NOT EXISTS sync_notices (seq ${d === 'postgres' ? 'BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY' : 'INTEGER PRIMARY KEY AUTOINCREMENT'},
        person_id BIGINT NOT NULL, notice_key TEXT NOT NULL, project_id BIGINT NOT NULL, body TEXT NOT NULL, at TEXT NOT NULL)`,
      'CREATE UNIQUE INDEX IF NOT EXISTS sync_notices_key ON sync_notices (person_id, notice_key)',
      'CREATE INDEX IF NOT EXISTS sync_notices_at ON sync_notices (at)',
    ],
  },
];
