// The Writer of the PostgreSQL store (D140), apart from the store's pool, locks and connections
// (store/postgres.ts): the statements of one write transaction, each one round trip, and at commit the
// change feed entries, row versions, project stamps and the commit counter in one statement sent with COMMIT.

import type pg from 'pg';
import { cascade, clientVisible, CLIENT_VISIBLE, companyOf, COMPANY_OF, parentsFrom, scope, PARENT_COLUMNS, type ChangeOp } from './feed.ts';
import type { NewRow, Param, Row, Writer } from './types.ts';
import type { PgStore } from './postgres.ts';

/** The table a Writer statement writes; '' for a read; '*' when it cannot tell. */
export function writtenTable(sql: string): string {
  if (/^\s*SELECT\b/i.test(sql)) return '';
  const m = /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)/i.exec(sql);
  return m ? m[1] : '*';
}

/**
 * `$n` parameters of a statement as SQL literals (integers, escaped strings, arrays of them), so the
 * statement can go in one simple-protocol batch with COMMIT. Only for values the Writer itself makes.
 */
function inline(c: pg.PoolClient, sql: string, params: readonly unknown[]): string {
  const lit = (v: unknown): string => {
    if (v === null || v === undefined) return 'NULL';
    if (typeof v === 'number') {
      if (!Number.isSafeInteger(v)) throw new Error(`not an integer: ${v}`);
      return String(v);
    }
    if (typeof v === 'string') return c.escapeLiteral(v);
    if (Array.isArray(v)) return `ARRAY[${v.map(lit).join(', ')}]`;
    throw new Error(`cannot inline ${typeof v}`);
  };
  return sql.replace(/\$(\d+)/g, (_, n: string) => lit(params[Number(n) - 1]));
}

/** A feed entry waiting for the commit (PgWriter.commit writes them all in one statement). */
interface Pending {
  readonly tbl: string;
  readonly id: number;
  readonly op: ChangeOp;
  readonly project: number | null;
  readonly person: number | null;
  /** The row's `version` becomes this entry's sequence number (records the Writer wrote itself). */
  readonly version: boolean;
  /** Clients could see the record when it was deleted in this transaction (D245). */
  readonly seen: boolean;
  /** The company a person deleted in this transaction belonged to (D268). */
  readonly company: number | null;
}

/**
 * `changes.shown` of an entry being written at commit (D245): for a record that can be private, whether
 * clients ever could see it: its entry being replaced said so, it was seen when deleted in this transaction,
 * or they see it now (the transaction's final state); null for other tables and membership entries.
 */
const SHOWN = `CASE WHEN e.person_id IS NULL AND e.tbl IN (${Object.keys(CLIENT_VISIBLE).map((t) => `'${t}'`).join(', ')}) THEN
  CASE WHEN e.seen = 1 OR EXISTS (SELECT 1 FROM changes o WHERE o.tbl = e.tbl AND o.record_id = e.record_id AND o.person_id IS NULL AND o.shown = 1)
    OR CASE e.tbl ${Object.entries(CLIENT_VISIBLE).map(([t, v]) => `WHEN '${t}' THEN ${v('e.record_id')}`).join(' ')} ELSE false END
  THEN 1 ELSE 0 END END`;

/**
 * `changes.company_id` of an entry being written at commit (D268): for a company or a person, the company it
 * belongs to in the transaction's final state, else as it was when deleted in this transaction, else as the
 * entry being replaced said; null for other tables and membership entries.
 */
const COMPANY = `CASE WHEN e.person_id IS NULL AND e.tbl IN (${Object.keys(COMPANY_OF).map((t) => `'${t}'`).join(', ')}) THEN
  COALESCE(CASE e.tbl ${Object.entries(COMPANY_OF).map(([t, of]) => `WHEN '${t}' THEN ${of('e.record_id')}`).join(' ')} END, e.company,
    (SELECT MAX(o.company_id) FROM changes o WHERE o.tbl = e.tbl AND o.record_id = e.record_id AND o.person_id IS NULL)) END`;

/**
 * The Writer on PostgreSQL (D140): each call is ONE round trip (the row, with RETURNING of the
 * columns that name its parents); the change feed entries, row versions, project stamps and the
 * commit counter are kept in memory and written by commit() in one statement sent with COMMIT.
 * The feed's contract is the same as store/feed.ts's appendChange on SQLite: one entry per record
 * (the latest), its parents logged after it, version = the record's sequence number, numbers from
 * `feed_clock` (whose row lock, now taken at the end, keeps them in commit order).
 */
export class PgWriter implements Writer {
  private readonly projects = new Set<number>();
  /** Tables that got explicit ids: their identity sequence is moved past them at commit. */
  private readonly explicit = new Set<string>();
  /** Feed entries in the order they were (last) logged, one per record and person. */
  private readonly feed = new Map<string, Pending>();
  /** Tables this transaction wrote (`*`: a statement it could not attribute), counted at commit (D145). */
  private readonly tables = new Set<string>();
  private readonly s: PgStore;
  private readonly c: pg.PoolClient;
  readonly now: string;
  constructor(s: PgStore, c: pg.PoolClient, now: string) {
    this.s = s;
    this.c = c;
    this.now = now;
  }

  /**
   * SQL text run in a write counts for its table, and as `raw:<table>`: rows it changed did not get a
   * new version, so caches keyed by versions (the row cache, D185) must start again.
   */
  private wrote(sql: string): void {
    const t = writtenTable(sql);
    if (t) this.tables.add(t);
    if (t && t !== '*') this.tables.add(`raw:${t}`);
  }
  async all<T extends Row = Row>(sql: string, params?: readonly Param[]): Promise<T[]> {
    this.wrote(sql);
    return (await this.s.query<T>(this.c, sql, params)).rows;
  }
  async get<T extends Row = Row>(sql: string, params?: readonly Param[]): Promise<T | undefined> {
    this.wrote(sql);
    return (await this.s.query<T>(this.c, sql, params)).rows[0];
  }
  async run(sql: string, params?: readonly Param[]): Promise<{ changes: number }> {
    this.wrote(sql);
    const ins = /^\s*INSERT\s+INTO\s+(\w+)\s*\(([^)]*)\)/i.exec(sql);
    if (ins && ins[2].split(',').some((c) => c.trim() === 'id')) this.explicit.add(ins[1]);
    return { changes: (await this.s.query(this.c, sql, params)).rowCount ?? 0 };
  }

  /** Queue a feed entry, replacing the record's earlier one in this transaction (it moves to the end). */
  private note(tbl: string, id: number, op: ChangeOp, project: number | null, person: number | null, version: boolean, seen = false,
    company: number | null = null): void {
    const k = `${tbl}:${id}:${person ?? 0}`;
    const prev = this.feed.get(k);
    this.feed.delete(k);
    this.feed.set(k, { tbl, id, op, project, person, version: version || (prev?.version ?? false), seen: seen || (prev?.seen ?? false),
      company: company ?? prev?.company ?? null });
  }

  /** The record's entry, then one for each parent (as appendChange does). */
  private log(table: string, id: number, op: ChangeOp, projectId: number | null | undefined, row: Row | undefined, seen = false,
    company: number | null = null): void {
    const pid = scope(table, id, projectId);
    this.note(table, id, op, pid, null, true, seen, company);
    for (const p of parentsFrom(table, row, pid)) this.note(p.tbl, p.id, 'update', pid, null, false);
  }

  async logChange(table: string, id: number, op: ChangeOp, projectId?: number | null, personId: number | null = null): Promise<void> {
    this.note(table, id, op, scope(table, id, projectId), personId, false);
  }

  /** One by one: this Writer logs its entries at commit already (D350). */
  async insertMany(table: string, rows: readonly NewRow[]): Promise<number[]> {
    if (rows.some((r) => 'id' in r.values)) throw new Error(`insertMany(${table}): the store gives the ids`);
    const ids: number[] = [];
    for (const r of rows) ids.push(await this.insert(table, r.values, r.projectId));
    return ids;
  }

  async insert(table: string, values: Row, projectId?: number | null): Promise<number> {
    const cols = Object.keys(values);
    if (cols.includes('id')) this.explicit.add(table);
    this.tables.add(table);
    const parents = PARENT_COLUMNS[table];
    const sql = `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) RETURNING id${parents ? `, ${parents}` : ''}`;
    const r = await this.s.query<{ id: number }>(this.c, sql, cols.map((c) => values[c] as Param));
    const id = Number(r.rows[0].id);
    this.log(table, id, 'insert', projectId, r.rows[0]);
    if (projectId) this.projects.add(projectId);
    return id;
  }

  async update(table: string, id: number, values: Row, projectId?: number | null): Promise<void> {
    const cols = Object.keys(values);
    this.tables.add(table);
    const parents = PARENT_COLUMNS[table];
    const params = [...cols.map((c) => values[c] as Param), id];
    let before: Row | undefined;
    if (!cols.length) {
      before = parents ? await this.get(`SELECT ${parents} FROM ${table} WHERE id = ?`, [id]) : undefined;
    } else if (parents) {
      // The parents as they were before the change (an item moved to another list logs its old list
      // here, its new one in cascade): the FROM row is read from the statement's snapshot.
      const old = parents.split(', ').map((c) => `o.${c}`).join(', ');
      before = (await this.s.query(this.c, `UPDATE ${table} AS t SET ${cols.map((c) => `${c} = ?`).join(', ')}
        FROM (SELECT ${parents} FROM ${table} WHERE id = ?) AS o WHERE t.id = ? RETURNING ${old}`, [...params, id])).rows[0];
    } else {
      await this.s.query(this.c, `UPDATE ${table} SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`, params);
    }
    this.log(table, id, 'update', projectId, before);
    await cascade(this, table, id, values, projectId);
    if (projectId) this.projects.add(projectId);
  }

  async remove(table: string, id: number, projectId?: number | null): Promise<void> {
    this.tables.add(table);
    const parents = PARENT_COLUMNS[table];
    // Whether clients could see it, read before it goes (the entry is written at commit, D245).
    const seen = CLIENT_VISIBLE[table] ? (await clientVisible(this, table, id)) === true : false;
    // And the company of a person or company, read before it goes (D268; rare: not through the interface).
    const company = COMPANY_OF[table] ? await companyOf(this, table, id) : null;
    const r = await this.s.query(this.c, `DELETE FROM ${table} WHERE id = ?${parents ? ` RETURNING ${parents}` : ''}`, [id]);
    this.log(table, id, 'delete', projectId, r.rows[0], seen, company);
    if (projectId) this.projects.add(projectId);
  }

  touch(projectId: number): void { this.projects.add(projectId); }

  /**
   * Move sequences past explicit ids, then in ONE round trip: one statement that takes the block of
   * sequence numbers from feed_clock (its row lock is held from here to COMMIT), replaces the records'
   * feed entries, sets their rows' versions, stamps the projects' last-changed-on and counts the
   * commit, followed by COMMIT itself (a simple-protocol batch: the values are inlined as literals,
   * escaped by the driver; if the statement fails, COMMIT is not run and write() rolls back).
   */
  async commit(): Promise<void> {
    for (const t of this.explicit) {
      await this.s.query(this.c, `SELECT setval(pg_get_serial_sequence('${t}', 'id'), GREATEST(m, COALESCE(pg_sequence_last_value(pg_get_serial_sequence('${t}', 'id')::regclass), 1)))
        FROM (SELECT MAX(id) AS m FROM ${t}) x WHERE m IS NOT NULL`);
    }
    const stamp = [...this.projects];
    const entries = [...this.feed.values()];
    // The feed's own tables, the versions it sets and the projects it stamps are writes too.
    if (stamp.length) this.tables.add('projects');
    for (const e of entries) if (e.version) this.tables.add(e.tbl);
    if (entries.length) this.tables.add('changes').add('feed_clock');
    // Each written table's counter becomes this commit's number; `@` says this commit counted them, and
    // if the last one did not (n moved without `@`), `*` records that unknown write first.
    const counted = `UPDATE commit_counter SET n = n + 1, tables = tables
        || CASE WHEN (tables->>'@')::bigint IS DISTINCT FROM n THEN jsonb_build_object('*', n) ELSE '{}'::jsonb END
        || jsonb_build_object(${[...this.tables, '@'].map((t) => `${this.c.escapeLiteral(t)}, n + 1`).join(', ')}) WHERE id = 1`;
    if (!entries.length) {
      const stamped = stamp.length ? 'WITH stamped AS (UPDATE projects SET last_changed_on = $1 WHERE id = ANY($2::bigint[])) ' : '';
      await this.s.raw(this.c, `${inline(this.c, `${stamped}${counted}`, stamp.length ? [this.now, stamp] : [])}; COMMIT`, []);
      return;
    }
    // $1 count, $2..$8 the entries as arrays, $9 now, $10 projects to stamp, $11 seen (D245), $12 company (D268).
    const versioned = [...new Set(entries.filter((e) => e.version && e.tbl !== 'projects').map((e) => e.tbl))];
    const versions = versioned.map((t, i) => `, v${i} AS (UPDATE ${t} AS t SET version = clock.base + e.k FROM e, clock
      WHERE e.tbl = '${t}' AND e.ver = 1 AND t.id = e.record_id)`).join('');
    const sql = `WITH clock AS (UPDATE feed_clock SET seq = seq + $1 WHERE id = 1 RETURNING seq - $1 AS base),
      e AS (SELECT * FROM unnest($2::bigint[], $3::text[], $4::bigint[], $5::text[], $6::bigint[], $7::bigint[], $8::int[], $11::int[], $12::bigint[])
        AS x(k, tbl, record_id, op, project_id, person_id, ver, seen, company)),
      gone AS (DELETE FROM changes c USING e WHERE c.tbl = e.tbl AND c.record_id = e.record_id AND COALESCE(c.person_id, 0) = COALESCE(e.person_id, 0)),
      added AS (INSERT INTO changes (seq, tbl, record_id, op, at, project_id, person_id, shown, company_id)
        SELECT clock.base + e.k, e.tbl, e.record_id, e.op, $9, e.project_id, e.person_id, ${SHOWN}, ${COMPANY} FROM e, clock)${versions},
      stamped AS (UPDATE projects AS p SET
          last_changed_on = CASE WHEN p.id = ANY($10::bigint[]) THEN $9 ELSE p.last_changed_on END,
          version = COALESCE((SELECT clock.base + e.k FROM e, clock WHERE e.tbl = 'projects' AND e.ver = 1 AND e.record_id = p.id), p.version)
        WHERE p.id = ANY($10::bigint[]) OR p.id IN (SELECT e.record_id FROM e WHERE e.tbl = 'projects' AND e.ver = 1))
      ${counted}`;
    await this.s.raw(this.c, `${inline(this.c, sql, [
      entries.length, entries.map((_, i) => i + 1), entries.map((e) => e.tbl), entries.map((e) => e.id), entries.map((e) => e.op),
      entries.map((e) => e.project), entries.map((e) => e.person), entries.map((e) => (e.version ? 1 : 0)), this.now, stamp,
      entries.map((e) => (e.seen ? 1 : 0)), entries.map((e) => e.company),
    ])}; COMMIT`, []);
  }
}
