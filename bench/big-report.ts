// The 1,000,000-entry time report database of bench:team (100 projects, 500 people, one year), on
// PostgreSQL, written with set-based INSERT … SELECT generate_series. A bulk load as a DBA does it:
// the table's secondary indexes are dropped first and built again after the load, and the
// foreign-key triggers are skipped for the load (session_replication_role = replica; every id
// inserted is one of the projects and people just made, so no check could fail). The data is the
// same as with the indexes and checks in place; it only loads faster (D143).
//
//   node bench/big-report.ts   — EXPLAIN (ANALYZE, BUFFERS) of the two report queries on a fresh cluster

import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const FIXTURE = join(ROOT, 'tests', 'fixtures', 'account.json');

export interface BigReport { readonly url: string; readonly pmin: number; readonly emin: number; readonly count: number; readonly seconds: number }

/** Fill `url` (a new database) with the fixture, then 500 people, 100 projects and 1,000,000 entries. */
export async function generateBigReport(url: string): Promise<BigReport> {
  const { PgStore } = await import('../electron/store/postgres.ts');
  const { importSeed } = await import('../electron/service/account.ts');
  const big = await PgStore.open(url);
  await importSeed(big, JSON.parse(readFileSync(FIXTURE, 'utf8')));
  await big.close();
  const t = performance.now();
  const b = new pg.Client({ connectionString: url });
  await b.connect();
  try {
    const firm = Number((await b.query('SELECT id FROM companies WHERE firm = 1')).rows[0].id);
    await b.query(`INSERT INTO people (first_name, last_name, email_address, user_name, token, company_id, administrator, time_zone_name, title, created_at, updated_at)
      SELECT 'Bench', 'Person ' || g, 'bench' || g || '@example.test', 'bench' || g, md5('bench' || g) || 'deadbeef', $1, 0, 'UTC', '', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'
      FROM generate_series(1, 500) g`, [firm]);
    await b.query(`INSERT INTO projects (name, status, company_id, created_on, last_changed_on, start_page, show_writeboards, show_announcement)
      SELECT 'Bench ' || g, 'active', $1, '2026-01-01', '2026-01-01T00:00:00Z', 'log', 0, 0 FROM generate_series(1, 100) g`, [firm]);
    await b.query(`INSERT INTO project_members (project_id, person_id)
      SELECT pr.id, pe.id FROM projects pr, people pe WHERE pr.name LIKE 'Bench %' AND pe.user_name LIKE 'bench%' AND (pr.id + pe.id) % 5 = 0`);
    const pmin = Number((await b.query("SELECT MIN(id) AS m FROM projects WHERE name LIKE 'Bench %'")).rows[0].m);
    const emin = Number((await b.query("SELECT MIN(id) AS m FROM people WHERE user_name LIKE 'bench%'")).rows[0].m);
    // Bulk load: secondary indexes off, built again after; foreign-key triggers skipped for the load.
    const indexes = (await b.query<{ name: string; def: string }>(
      "SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE tablename = 'time_entries' AND indexname NOT LIKE '%_pkey'")).rows;
    await b.query('BEGIN');
    for (const i of indexes) await b.query(`DROP INDEX ${i.name}`);
    await b.query('SET LOCAL session_replication_role = replica');
    await b.query(`INSERT INTO time_entries (project_id, person_id, date, hours, description, private, version)
      SELECT $1::bigint + (g % 100), $2::bigint + ((g / 100) % 500), to_char(date '2026-11-22' - (g % 365), 'YYYY-MM-DD'), 0.25 * (1 + g % 16), 'work item ' || g, 0, 0
      FROM generate_series(1, 1000000) g`, [pmin, emin]);
    await b.query('COMMIT');
    await b.query("SET maintenance_work_mem = '256MB'");
    for (const i of indexes) await b.query(i.def);
    // A server that has run for a while has its tables vacuumed (autovacuum): the visibility map is set.
    await b.query('VACUUM ANALYZE');
    const count = Number((await b.query('SELECT COUNT(*) AS n FROM time_entries')).rows[0].n);
    return { url, pmin, emin, count, seconds: (performance.now() - t) / 1000 };
  } finally {
    await b.end();
  }
}

/** The report queries as the service runs them for an administrator (reportEntries). */
export async function explainReports(r: BigReport): Promise<string[]> {
  const { reportEntries } = await import('../electron/store/queries/time-entries.ts');
  const out: string[] = [];
  const b = new pg.Client({ connectionString: r.url });
  await b.connect();
  try {
    const captured: { sql: string; params: readonly unknown[] }[] = [];
    const spy = { all: async (sql: string, params?: readonly unknown[]) => { captured.push({ sql, params: params ?? [] }); return []; }, get: async () => undefined, run: async () => ({ changes: 0 }) };
    const admin = { id: 1, companyId: 1, firm: true, admin: true, name: 'a' };
    await reportEntries(spy as never, admin, { projectId: r.pmin + 4, from: '2026-10-01', to: '2026-10-31' });
    await reportEntries(spy as never, admin, { personId: r.emin + 3, from: '2026-10-01', to: '2026-10-31' });
    const { toDollar } = await import('../electron/store/postgres.ts');
    for (const q of captured) {
      out.push(`-- ${q.sql.replace(/\s+/g, ' ')}  ${JSON.stringify(q.params)}`);
      for (let k = 0; k < 2; k++) await b.query(toDollar(q.sql), q.params as unknown[]); // warm, as a server that has run a while
      for (const row of (await b.query(`EXPLAIN (ANALYZE, BUFFERS) ${toDollar(q.sql)}`, q.params as unknown[])).rows) out.push(String(row["QUERY PLAN"]));
    }
  } finally {
    await b.end();
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // @ts-expect-error: a plain ES module without types
  const { startCluster } = await import('../scripts/pg-cluster.mjs');
  const cluster = await startCluster({ settings: { synchronous_commit: 'off' }, log: (s: string) => process.stdout.write(`${s}\n`) });
  try {
    const r = await generateBigReport(await cluster.createDatabase('big'));
    process.stdout.write(`generated ${r.count} entries in ${r.seconds.toFixed(1)} s\n`);
    for (const l of await explainReports(r)) process.stdout.write(`${l}\n`);
  } finally {
    cluster.stopSync();
  }
}
