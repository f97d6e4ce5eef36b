// PostgreSQL implementation of the store (the team server), on `pg` with a connection pool.
// The same query modules as SQLite: `?` placeholders are rewritten to `$n` here, and results come
// back as SQLite gives them (BIGINT/NUMERIC as JS numbers, booleans as 0/1).
//
// Concurrency (D51): every write transaction first takes one transaction-scoped advisory lock,
// so write transactions are serialised across every connection and process, exactly as SQLite
// serialises them in one process; reads never wait. A service's read-check-write inside write()
// therefore sees the latest committed state, and positions, counts and references hold.
//
// Change token (D52): every write transaction bumps a one-row commit counter; changeToken() reads
// it (one indexed read per request), so a write committed by any process invalidates the response
// and credential caches of every process before its next answer. The same row holds per-table
// counters (D145): the commit number at which each table was last written, so a memo of some tables
// (names: people, companies) survives writes to others; and the request's own read serves the
// memos of that request (pin()), so a memo hit costs no round trip.

import pg from 'pg';
import { AsyncLocalStorage } from 'node:async_hooks';
import { MIGRATIONS, registrySync } from './schema.ts';
import { DerivedCache } from './derived.ts';
import { cascade, clientVisible, CLIENT_VISIBLE, companyOf, COMPANY_OF, parentsFrom, scope, PARENT_COLUMNS, type ChangeOp } from './feed.ts';
import { StoreUnavailable, StoreVersionError, type Clock, type MemoKey, type Param, type Row, type Store, type Writer } from './types.ts';
import { isoSeconds } from '../../shared/values.ts';

/** Advisory lock keys (one namespace for Bivouac). */
const WRITE_LOCK = 0x42495601;
const MIGRATE_LOCK = 0x42495602;

/** Result types as SQLite gives them: numbers for BIGINT, NUMERIC and booleans. */
function typeOverrides(): pg.TypeOverrides {
  const t = new pg.TypeOverrides();
  const num = (v: string) => Number(v);
  t.setTypeParser(20, num); // int8 (ids, COUNT)
  t.setTypeParser(1700, num); // numeric (SUM of integers)
  t.setTypeParser(16, (v: string) => (v === 't' ? 1 : 0)); // bool (comparisons selected as columns)
  return t;
}

/** `?` placeholders to `$1, $2, …`, leaving string literals and quoted names alone. */
export function toDollar(sql: string): string {
  let out = '';
  let n = 0;
  let quote: string | null = null;
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i];
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === '?') {
      out += `$${++n}`;
    } else out += ch;
  }
  return out;
}

const bind = (params: readonly Param[]): unknown[] =>
  params.map((p) => (p === undefined ? null : typeof p === 'boolean' ? (p ? 1 : 0) : typeof p === 'bigint' ? p.toString() : p));

/** Connection-level failures (server down, restarting, network): the request may be retried later. */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', '57P01', '57P02', '57P03', '53300']);
export function isUnavailable(e: unknown): boolean {
  const err = e as { code?: string; message?: string } | null;
  if (!err) return false;
  if (err.code && (UNAVAILABLE_CODES.has(err.code) || err.code.startsWith('08'))) return true;
  const m = err.message ?? '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|Connection ended/i.test(m);
}
/** Errors that a retry of the whole transaction resolves (serialization failure, deadlock). */
const RETRY_CODES = new Set(['40001', '40P01']);

export interface PgOptions {
  readonly clock?: Clock;
  /** Connections for reads (default 10). */
  readonly max?: number;
  /** Connections for write transactions (default 3; they run one at a time anyway, D51). */
  readonly writers?: number;
}

/** Statement texts rewritten once, kept per store. */
class SqlCache {
  private readonly m = new Map<string, string>();
  get(sql: string): string {
    let s = this.m.get(sql);
    if (s === undefined) {
      s = toDollar(sql);
      if (this.m.size > 5000) this.m.clear();
      this.m.set(sql, s);
    }
    return s;
  }
}

type Runner = pg.Pool | pg.PoolClient;

/**
 * One read of the commit counter row: the commit number `n`, and per table the commit number that
 * last wrote it (`*`: a statement the Writer could not attribute to a table; `@`: the last commit
 * that counted tables — when it is not `n`, a Bivouac that does not count them committed since).
 */
interface Snapshot { readonly n: number; readonly tables: Readonly<Record<string, number>> }
/** What a request pinned (D145); `snap` is dropped when the request itself commits a write. */
interface Pinned { snap: Snapshot | undefined }

/** The table a Writer statement writes; '' for a read; '*' when it cannot tell. */
export function writtenTable(sql: string): string {
  if (/^\s*SELECT\b/i.test(sql)) return '';
  const m = /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)/i.exec(sql);
  return m ? m[1] : '*';
}

export class PgStore implements Store {
  readonly dialect = 'postgres' as const;
  readonly pool: pg.Pool;
  /**
   * Write transactions have a pool of their own: a writer waiting for the write lock holds its
   * connection, and must never take the last connections readers need (D51).
   */
  private readonly writePool: pg.Pool;
  readonly url: string;
  private readonly clock: Clock;
  private readonly sql = new SqlCache();
  private readonly derived = new DerivedCache();
  private closed = false;
  /** Statements sent to the server by this store (round trips; a diagnostic, and what tests count). */
  roundTrips = 0;
  /** The snapshot each recently read token stands for (a token names one commit: never out of date). */
  private readonly snapshots = new Map<string, Snapshot>();
  /** The snapshot pinned by the request running (pin()); owned by this instance, not module state. */
  private readonly pinned = new AsyncLocalStorage<Pinned>();

  private constructor(url: string, opts: PgOptions) {
    this.url = url;
    this.clock = opts.clock ?? (() => new Date());
    const config = (max: number): pg.PoolConfig => ({
      connectionString: url, max, types: typeOverrides(),
      // Waiting for a free connection under load is not an outage: a server that is down refuses at
      // once (ECONNREFUSED), so a long wait here only means "busy".
      connectionTimeoutMillis: 30_000, idleTimeoutMillis: 30_000, application_name: 'bivouac',
    });
    this.pool = new pg.Pool(config(opts.max ?? 10));
    this.writePool = new pg.Pool(config(opts.writers ?? 3));
    // An idle connection cut by a server restart must not take the process down: the next
    // query opens a new one (or answers StoreUnavailable).
    this.pool.on('error', () => undefined);
    this.writePool.on('error', () => undefined);
  }

  /**
   * Connect, check the schema version and migrate (under an advisory lock, so processes starting
   * together do not race). Throws StoreUnavailable / StoreVersionError with a readable message.
   */
  static async open(url: string, opts: PgOptions = {}): Promise<PgStore> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new StoreUnavailable(`not a PostgreSQL URL: ${url} (expected postgres://USER@HOST:PORT/DB)`);
    }
    if (!/^postgres(ql)?:$/.test(parsed.protocol) || !parsed.hostname || parsed.pathname.length < 2) {
      throw new StoreUnavailable(`not a PostgreSQL URL: ${redact(url)} (expected postgres://USER@HOST:PORT/DB)`);
    }
    const s = new PgStore(url, opts);
    try {
      await s.migrate();
    } catch (e) {
      await s.pool.end().catch(() => undefined);
      await s.writePool.end().catch(() => undefined);
      if (e instanceof StoreVersionError || e instanceof StoreUnavailable) throw e;
      const err = e as { code?: string; message?: string };
      throw new StoreUnavailable(`cannot use PostgreSQL at ${redact(url)}: ${err.message ?? String(e)}${err.code ? ` (${err.code})` : ''}`);
    }
    return s;
  }

  private async migrate(): Promise<void> {
    const c = await this.pool.connect();
    try {
      await c.query('SELECT pg_advisory_lock($1)', [MIGRATE_LOCK]);
      try {
        await c.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
        const done = new Set((await c.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => Number(r.version)));
        const known = Math.max(...MIGRATIONS.map((m) => m.version));
        const newest = Math.max(0, ...done);
        if (newest > known) {
          throw new StoreVersionError(`the database ${redact(this.url)} has schema version ${newest}, newer than this Bivouac understands (${known}): upgrade Bivouac`);
        }
        for (const m of MIGRATIONS) {
          if (done.has(m.version)) continue;
          await c.query('BEGIN');
          try {
            for (const st of m.sql('postgres')) await c.query(st);
            await c.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [m.version, m.name, isoSeconds(this.clock())]);
            await c.query('COMMIT');
          } catch (e) {
            await c.query('ROLLBACK');
            throw e;
          }
        }
        const existing = new Map<string, Set<string>>();
        for (const r of (await c.query<{ t: string; c: string }>(
          'SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = current_schema()')).rows) {
          let set = existing.get(r.t);
          if (!set) existing.set(r.t, (set = new Set()));
          set.add(r.c);
        }
        const indexes = new Map((await c.query<{ n: string; d: string }>('SELECT indexname AS n, indexdef AS d FROM pg_indexes WHERE schemaname = current_schema()')).rows
          .map((r) => [r.n, r.d.replace(/ ON \w+\./, ' ON ').replace(/ USING btree/, '')]));
        const sync = registrySync('postgres', existing, indexes);
        if (sync.length) {
          await c.query('BEGIN');
          try {
            for (const st of sync) await c.query(st);
            await c.query('COMMIT');
          } catch (e) {
            await c.query('ROLLBACK');
            throw e;
          }
        }
        // The commit counter behind changeToken() (PostgreSQL only: SQLite counts in-process).
        await c.query('CREATE TABLE IF NOT EXISTS commit_counter (id INTEGER PRIMARY KEY, n BIGINT NOT NULL)');
        await c.query('INSERT INTO commit_counter (id, n) VALUES (1, 0) ON CONFLICT (id) DO NOTHING');
        await c.query("ALTER TABLE commit_counter ADD COLUMN IF NOT EXISTS tables JSONB NOT NULL DEFAULT '{}'::jsonb");
      } finally {
        await c.query('SELECT pg_advisory_unlock($1)', [MIGRATE_LOCK]).catch(() => undefined);
      }
    } finally {
      c.release();
    }
  }

  /** Run one statement, mapping connection failures to StoreUnavailable. */
  async query<T extends Row>(on: Runner, sql: string, params: readonly Param[] = []): Promise<pg.QueryResult<T>> {
    this.roundTrips++;
    try {
      return await on.query<T>(this.sql.get(sql), bind(params));
    } catch (e) {
      throw unavailableOr(e);
    }
  }

  /** A statement already in `$n` form with any parameters (arrays included), mapping connection failures. */
  async raw(on: Runner, sql: string, params: readonly unknown[]): Promise<pg.QueryResult> {
    this.roundTrips++;
    try {
      return await on.query(sql, params as unknown[]);
    } catch (e) {
      throw unavailableOr(e);
    }
  }

  async all<T extends Row = Row>(sql: string, params?: readonly Param[]): Promise<T[]> {
    return (await this.query<T>(this.pool, sql, params)).rows;
  }
  /** A pooled connection outside any write: committed data only (D207). */
  async allCommitted<T extends Row = Row>(sql: string, params?: readonly Param[]): Promise<{ rows: T[]; committed: boolean }> {
    return { rows: await this.all<T>(sql, params), committed: true };
  }
  async get<T extends Row = Row>(sql: string, params?: readonly Param[]): Promise<T | undefined> {
    return (await this.query<T>(this.pool, sql, params)).rows[0];
  }
  async run(sql: string, params?: readonly Param[]): Promise<{ changes: number }> {
    return { changes: (await this.query(this.pool, sql, params)).rowCount ?? 0 };
  }

  async write<T>(fn: (w: Writer) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.writePool.connect();
    } catch (e) {
      throw unavailableOr(e);
    }
    let broken = false;
    try {
      for (let attempt = 1; ; attempt++) {
        const w = new PgWriter(this, client, isoSeconds(this.clock()));
        try {
          this.roundTrips++;
          await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK})`);
          const out = await fn(w);
          // The request's pinned snapshot is older than its own write: its later memos read again.
          const pin = this.pinned.getStore();
          if (pin) pin.snap = undefined;
          await w.commit();
          return out;
        } catch (e) {
          try {
            await client.query('ROLLBACK');
          } catch {
            broken = true;
          }
          const code = (e as { code?: string }).code;
          if (!broken && code && RETRY_CODES.has(code) && attempt < 5) continue;
          throw unavailableOr(e);
        }
      }
    } finally {
      client.release(broken);
    }
  }

  async changeToken(): Promise<string> {
    return String((await this.snapshot()).n);
  }

  /** The commit counter row (one round trip), remembered under its token for pin(). */
  private async snapshot(): Promise<Snapshot> {
    const r = await this.get<{ n: number; tables: Record<string, number> | null }>('SELECT n, tables FROM commit_counter WHERE id = 1');
    const snap: Snapshot = { n: r?.n ?? 0, tables: r?.tables ?? {} };
    if (this.snapshots.size >= 64) this.snapshots.clear();
    this.snapshots.set(String(snap.n), snap);
    return snap;
  }

  /**
   * Run fn with the change token the request read (D52) standing for this store's state in memo()
   * calls made within it, so a memo hit costs no round trip (D145). A write committed by fn itself
   * unpins (its own change must show); a memo computed here is kept only if no commit came since.
   */
  pin<T>(token: string, fn: (unpin: () => void) => T): T {
    const snap = this.snapshots.get(token);
    if (!snap) return fn(() => undefined);
    const pinned: Pinned = { snap };
    return this.pinned.run(pinned, fn, () => { pinned.snap = undefined; });
  }

  /** The memo token of a snapshot: the commit number, or with `tables` the commits that last wrote them. */
  private static tokenOf(s: Snapshot, tables: readonly string[] | undefined): string {
    if (!tables) return String(s.n);
    // A commit by a Bivouac that does not count tables (mixed versions) counts as a write to all.
    let t = String(s.tables['@'] === s.n ? (s.tables['*'] ?? 0) : s.n);
    for (const name of tables) {
      const at = name.indexOf('@'); // `table@project` (D134): here the whole table
      let table = at > 0 ? name.slice(0, at) : name;
      // `table:rows` (D228) and `comments:rows:Type` (D230) are the table here: a process of an older version
      // writing the same database would not count them, and a value kept under them would miss its inserts.
      const rows = table.indexOf(':rows');
      if (rows > 0) table = table.slice(0, rows);
      t += `:${s.tables[table] ?? 0}`;
    }
    return t;
  }

  async isEmpty(): Promise<boolean> {
    return (await this.get('SELECT id FROM companies LIMIT 1')) === undefined;
  }

  /**
   * Derived values under the request's pinned snapshot (no round trip) or a fresh read, by the
   * tables' counters when `tables` is given. A miss reads the counters again after computing and keeps
   * the value only if they did not move (a commit during the computation: D52).
   */
  async memo<T>(key: MemoKey, compute: () => Promise<T>, tables?: readonly string[]): Promise<T> {
    const snap = this.pinned.getStore()?.snap ?? await this.snapshot();
    const token = PgStore.tokenOf(snap, tables);
    let after = token;
    return this.derived.memo(key, token, async () => {
      const value = await compute();
      after = PgStore.tokenOf(await this.snapshot(), tables);
      return value;
    }, () => after);
  }

  async reachable(): Promise<boolean> {
    try {
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
    await this.writePool.end();
  }
}

function unavailableOr(e: unknown): unknown {
  if (e instanceof StoreUnavailable) return e;
  if (isUnavailable(e)) return new StoreUnavailable(`the database is unavailable: ${(e as Error).message}`);
  return e;
}

/** A URL without its password, for messages. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]+):[^@/]*@/, '$1:***@');
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
 * The Writer on PostgreSQL (D140): each call is ONE round trip (the row, with RETURNING of the
 * columns that name its parents); the change feed entries, row versions, project stamps and the
 * commit counter are kept in memory and written by commit() in one statement sent with COMMIT.
 * The feed's contract is the same as store/feed.ts's appendChange on SQLite: one entry per record
 * (the latest), its parents logged after it, version = the record's sequence number, numbers from
 * `feed_clock` (whose row lock, now taken at the end, keeps them in commit order).
 */
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

class PgWriter implements Writer {
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
