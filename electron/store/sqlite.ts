// SQLite implementation of the store, on node:sqlite (built into Node 24 and Electron 37+).
// One connection for writes and reads, WAL, foreign keys on, statements cached. Write transactions are
// serialised by a promise queue. A write function awaits (the Writer's promises, or I/O), and other
// requests' work runs in those awaits: their reads then go to a second, read-only connection, which sees
// what is committed and nothing of the open write (D215).

import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { dirname } from 'node:path';
import { MIGRATIONS, registrySync } from './schema.ts';
import { afterUpdate, appendChange, cascade, CLIENT_VISIBLE, commentRowsName, COMPANY_OF, movesParent, parentsFrom, placesRows, rowsName, scope, touchAll, type ChangeOp, type Touched } from './feed.ts';
import { batchSizes, rowsPerStatement, valuesOf } from './batch.ts';
import { repairPrivateFile, securePrivateDir, securePrivateFile } from './files.ts';
import { StoreVersionError, type Clock, type MemoKey, type NewRow, type Param, type Queryable, type Row, type Store, type Writer } from './types.ts';
import { DerivedCache } from './derived.ts';
import { isoSeconds } from '../../shared/values.ts';
import { OutboxRecorder } from './outbox.ts';
import { Checkpointer, type CheckpointerOptions } from './checkpointer.ts';

type SqlValue = string | number | bigint | null;
const bind = (params: readonly Param[]): SqlValue[] =>
  params.map((p) => (p === undefined ? null : typeof p === 'boolean' ? (p ? 1 : 0) : p));

/**
 * A function making a row object from a statement's array of values. Column names are the statement's
 * own (our SQL), written into the code as JSON string literals; a later column of the same name wins,
 * as with assignments. A column named `__proto__` (a literal would set the prototype) gets the loop.
 */
function rowMaker(cols: readonly string[]): (a: unknown[]) => Row {
  if (cols.includes('__proto__')) {
    return (a) => {
      const o: Row = {};
      for (let i = 0; i < cols.length; i++) o[cols[i]] = a[i];
      return o;
    };
  }
  return new Function('a', `return { ${cols.map((c, i) => `${JSON.stringify(c)}: a[${i}]`).join(', ')} };`) as (a: unknown[]) => Row;
}

const allOf = <T extends Row>({ st, make }: { st: StatementSync; make: (a: unknown[]) => Row }, params: readonly Param[]): T[] => {
  const rows = st.all(...bind(params)) as unknown as unknown[][];
  const out = new Array<T>(rows.length);
  for (let k = 0; k < rows.length; k++) out[k] = make(rows[k]) as T;
  return out;
};
const getOf = <T extends Row>({ st, make }: { st: StatementSync; make: (a: unknown[]) => Row }, params: readonly Param[]): T | undefined => {
  const a = st.get(...bind(params)) as unknown as unknown[] | undefined;
  return a ? make(a) as T : undefined;
};

export class SqliteStore implements Store {
  readonly dialect = 'sqlite' as const;
  readonly db: DatabaseSync;
  private readonly stmts = new Map<string, StatementSync>();
  private readonly readers = new Map<string, { st: StatementSync; make: (a: unknown[]) => Row }>();
  private queue: Promise<unknown> = Promise.resolve();
  /** Write transactions this connection committed (PRAGMA data_version covers the others). */
  private commits = 0;
  private version = 0;
  private versionAt = -Infinity;
  private readonly clock: Clock;
  recordOutbox = false;
  /** A read transaction of this turn is open (beginRead). */
  private readOpen = false;
  /** The database file, for the read connection (null in memory: one connection, D215). */
  private readonly path: string | null;
  /**
   * The read connection of reads made while another request's write transaction is open on `db`
   * (D215); opened when first needed. Each statement runs on its own (no turn transaction): it is
   * rare, and a read transaction held there would keep checkpoints from rewinding the WAL.
   */
  private committedDb: DatabaseSync | null = null;
  private readonly committedReaders = new Map<string, { st: StatementSync; make: (a: unknown[]) => Row }>();
  private readonly derived = new DerivedCache();
  /** Commits per table by this connection (other connections' show in data_version). */
  private readonly tableCommits = new Map<string, number>();
  /**
   * WAL checkpoints in a worker thread on a second connection, not inside a request's COMMIT (D180);
   * null in memory, or with `checkpoints: false` (SQLite's automatic checkpoint, as before).
   */
  readonly checkpointer: Checkpointer | null = null;

  constructor(path: string, opts: { clock?: Clock; checkpoints?: CheckpointerOptions | false } = {}) {
    const onDisk = path !== ':memory:';
    // The directory 0700 and the database 0600 before SQLite opens it: SQLite creates the WAL, SHM and
    // journal files with the database file's mode; they are chmod-ed as well, for files an older
    // version left behind (D30).
    if (onDisk) {
      securePrivateDir(dirname(path));
      securePrivateFile(path);
    }
    this.db = new DatabaseSync(path);
    this.path = onDisk ? path : null;
    this.clock = opts.clock ?? (() => new Date());
    this.db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; PRAGMA cache_size = -32000; PRAGMA temp_store = MEMORY');
    if (onDisk) for (const sidecar of ['-wal', '-shm', '-journal']) repairPrivateFile(`${path}${sidecar}`);
    this.migrate();
    if (onDisk && opts.checkpoints !== false) {
      this.db.exec('PRAGMA wal_autocheckpoint = 0');
      // The worker could not start or died: SQLite checkpoints on this connection again (D180).
      this.checkpointer = new Checkpointer(path, (e) => {
        // Said once (the checkpointer fails once): requests now wait for checkpoints' copies and fsyncs (D233).
        process.emitWarning(`the SQLite checkpoint worker failed (${e instanceof Error ? e.message : String(e)}): checkpoints run in the request thread`,
          { code: 'BIVOUAC_CHECKPOINT_WORKER' });
        if (this.db.isOpen) this.db.exec('PRAGMA wal_autocheckpoint = 1000');
      }, opts.checkpoints);
    }
  }

  /** Apply pending numbered migrations, then bring tables in line with the registry. */
  private migrate(): void {
    this.db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    const done = new Set((this.db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version));
    const known = Math.max(...MIGRATIONS.map((m) => m.version));
    const newest = Math.max(0, ...done);
    if (newest > known) throw new StoreVersionError(`the store has schema version ${newest}, newer than this Bivouac understands (${known}): upgrade Bivouac`);
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      this.db.exec('BEGIN IMMEDIATE');
      try {
        for (const s of m.sql('sqlite')) this.db.exec(s);
        this.db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, isoSeconds(this.clock()));
        this.db.exec('COMMIT');
      } catch (e) {
        this.db.exec('ROLLBACK');
        throw e;
      }
    }
    const existing = new Map<string, Set<string>>();
    for (const { name } of this.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]) {
      existing.set(name, new Set((this.db.prepare(`PRAGMA table_info(${name})`).all() as { name: string }[]).map((c) => c.name)));
    }
    const indexes = new Map((this.db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all() as { name: string; sql: string }[])
      .map((r) => [r.name, r.sql]));
    for (const s of registrySync('sqlite', existing, indexes)) this.db.exec(s);
  }

  private stmt(sql: string): StatementSync {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  /**
   * A reading statement returns arrays, turned into rows here: 20 % faster than node:sqlite building
   * the objects (50 todo items: 71 µs vs 90 µs). The rows are made by an object literal compiled once
   * per statement from its column names (one shape, no per-property transitions): 50 rows of 14 columns
   * 14.4 -> 0.8 µs against a loop over the names (D124).
   */
  private reader(sql: string, db = this.db, cache = this.readers): { st: StatementSync; make: (a: unknown[]) => Row } {
    let r = cache.get(sql);
    if (!r) {
      const st = db.prepare(sql);
      st.setReturnArrays(true);
      r = { st, make: rowMaker(st.columns().map((c) => c.name)) };
      cache.set(sql, r);
    }
    return r;
  }

  /**
   * Where a read outside the Writer runs (D215). With another request's write transaction open on `db`
   * (open and not the turn's read), it would see that write's rows before they commit, rows that may
   * roll back: it goes to the read connection instead, which sees the last commit. In memory there is
   * no second connection to the same database: the read sees the open write (the row cache and the kept
   * figures then keep nothing of it: allCommitted).
   */
  private readStatement(sql: string): { st: StatementSync; make: (a: unknown[]) => Row } {
    if (this.readOpen) return this.reader(sql);
    if (!this.db.isTransaction || this.path === null) {
      this.beginRead();
      return this.reader(sql);
    }
    if (!this.committedDb) {
      this.committedDb = new DatabaseSync(this.path);
      this.committedDb.exec('PRAGMA query_only = ON; PRAGMA busy_timeout = 5000; PRAGMA cache_size = -8000; PRAGMA temp_store = MEMORY');
    }
    return this.reader(sql, this.committedDb, this.committedReaders);
  }

  /**
   * Reads outside a write share one read transaction until the event loop's turn ends (D186): a statement
   * in WAL mode outside a transaction takes and drops the read lock itself (two fcntl and an fstat), 3.5 µs
   * against 0.6 µs inside one. A write ends it first, so a request sees its own write at once; another
   * connection's commit shows from the next turn.
   */
  private beginRead(): void {
    if (this.readOpen || this.db.isTransaction) return;
    this.stmt('BEGIN').run(); // prepared once: exec parses it every turn (~0.5 µs)
    this.readOpen = true;
    setImmediate(this.endRead);
  }
  private readonly endRead = (): void => {
    if (!this.readOpen) return;
    this.readOpen = false;
    if (this.db.isOpen && this.db.isTransaction) this.stmt('COMMIT').run();
  };

  /** A read of the store (not of a Writer): committed data, or the turn's own (readStatement). */
  allSync<T extends Row = Row>(sql: string, params: readonly Param[] = []): T[] {
    return allOf<T>(this.readStatement(sql), params);
  }
  getSync<T extends Row = Row>(sql: string, params: readonly Param[] = []): T | undefined {
    return getOf<T>(this.readStatement(sql), params);
  }
  /** A read inside this connection's write transaction (the Writer's): sees that transaction's rows. */
  txAll<T extends Row = Row>(sql: string, params: readonly Param[] = []): T[] {
    return allOf<T>(this.reader(sql), params);
  }
  txGet<T extends Row = Row>(sql: string, params: readonly Param[] = []): T | undefined {
    return getOf<T>(this.reader(sql), params);
  }
  runSync(sql: string, params: readonly Param[] = []): { changes: number; lastId: number } {
    if (this.readOpen) this.endRead(); // a statement of its own commits at once, not at the turn's end
    const r = this.stmt(sql).run(...bind(params));
    return { changes: Number(r.changes), lastId: Number(r.lastInsertRowid) };
  }

  async all<T extends Row = Row>(sql: string, params?: readonly Param[]): Promise<T[]> { return this.allSync<T>(sql, params); }
  async allCommitted<T extends Row = Row>(sql: string, params?: readonly Param[]): Promise<{ rows: T[]; committed: boolean }> {
    // Decided before the read, as it runs: a transaction open and not the turn's read is another request's
    // write, which the read sees only in memory (readStatement).
    const committed = this.path !== null || !(this.db.isTransaction && !this.readOpen);
    return { rows: this.allSync<T>(sql, params), committed };
  }
  async get<T extends Row = Row>(sql: string, params?: readonly Param[]): Promise<T | undefined> { return this.getSync<T>(sql, params); }
  /**
   * A statement of its own (bookkeeping: idempotency keys, rate counters, sync state). With another
   * request's write transaction open on the connection (its function awaiting), it would run inside that
   * write, be rolled back with it, and reads made meanwhile (D215) would not see it: it waits for the
   * writes queued so far and runs after them, as on PostgreSQL, where it takes a connection of its own
   * (D217). Never called inside a write function (the Writer's `run` is): it would wait for itself.
   */
  async run(sql: string, params?: readonly Param[]): Promise<{ changes: number }> {
    this.endRead(); // the turn's read transaction is not a write: `isTransaction` below means a write
    if (!this.db.isTransaction) return this.runOwn(sql, params);
    const next = this.queue.then(() => { this.endRead(); return this.runOwn(sql, params); });
    this.queue = next.catch(() => undefined);
    return next;
  }
  private runOwn(sql: string, params?: readonly Param[]): { changes: number } {
    if (!this.checkpointer) return this.runSync(sql, params);
    this.checkpointer.writing(); // a statement of its own may write: count it as a write
    try {
      return this.runSync(sql, params);
    } finally {
      this.checkpointer.written();
    }
  }

  write<T>(fn: (w: Writer) => Promise<T>): Promise<T> {
    const next = this.queue.then(() => this.transaction(fn));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async transaction<T>(fn: (w: Writer) => Promise<T>): Promise<T> {
    // Many writes without a caught-up checkpoint: wait for one, so that this write rewinds the WAL (D180).
    const gate = this.checkpointer?.beforeWrite();
    if (gate) await gate;
    const w = new SqliteWriter(this, isoSeconds(this.clock()), this.recordOutbox ? new OutboxRecorder() : null);
    this.checkpointer?.writing();
    try {
      this.endRead();
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const out = await fn(w);
        await w.settle();
        w.finish();
        this.db.exec('COMMIT');
        this.commits++;
        this.committed(w.tables);
        return out;
      } catch (e) {
        if (this.db.isTransaction) this.db.exec('ROLLBACK');
        throw e;
      }
    } finally {
      this.checkpointer?.written();
    }
  }

  /**
   * Own commits are counted exactly. Commits by other connections (another process on the same file)
   * show in PRAGMA data_version, which starts a read transaction: under load that costs more than the
   * rest of a cached answer, so it is sampled at most once per millisecond.
   */
  changeToken(): Promise<string> {
    this.sampleVersion();
    return Promise.resolve(`${this.commits}:${this.version}`);
  }

  private sampleVersion(): void {
    const now = performance.now();
    if (now - this.versionAt >= 1) {
      this.beginRead();
      this.version = getOf<{ data_version: number }>(this.reader('PRAGMA data_version'), [])!.data_version; // this connection's
      this.versionAt = now;
    }
  }

  async memo<T>(key: MemoKey, compute: () => Promise<T>, tables?: readonly string[]): Promise<T> {
    // Another request's write is open on this connection (its Writer awaited). On a file, reads go to the
    // read connection and see the commit the token stands for; in memory they see that write, which may
    // never commit, so it is computed for this caller and not kept (D215).
    if (this.path === null && this.db.isTransaction && !this.readOpen) return compute();
    const token = (): string => {
      this.sampleVersion();
      if (!tables) return `${this.commits}:${this.version}`;
      let t = `${this.version}:${this.tableCommits.get('*') ?? 0}`;
      for (const name of tables) {
        t += `:${this.tableCommits.get(name) ?? 0}`;
        // `table@project` (D134): that project's rows, and any write to the table whose project is unknown.
        const at = name.indexOf('@');
        if (at > 0) t += `:${this.tableCommits.get(`${name.slice(0, at)}@*`) ?? 0}`;
      }
      return t;
    };
    return this.derived.memo(key, token(), compute, token);
  }

  /** Count a commit that changed these tables (`*`: a statement the Writer could not attribute). */
  committed(tables: Iterable<string>): void {
    for (const t of tables) this.tableCommits.set(t, (this.tableCommits.get(t) ?? 0) + 1);
  }

  async isEmpty(): Promise<boolean> {
    return this.getSync('SELECT id FROM companies LIMIT 1') === undefined;
  }

  async reachable(): Promise<boolean> {
    return this.db.isOpen;
  }

  async close(): Promise<void> {
    await this.queue;
    this.endRead();
    await this.checkpointer?.close();
    this.stmts.clear();
    this.readers.clear();
    this.committedReaders.clear();
    if (this.committedDb?.isOpen) this.committedDb.close();
    if (this.db.isOpen) this.db.close();
  }
}

/** A statement on the idempotency keys (their usage counters follow by trigger): bookkeeping, no record table. */
const IDEMPOTENCY_KEYS = /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+idempotency_keys\b/i;

class SqliteWriter implements Writer {
  private readonly projects = new Set<number>();
  /**
   * Tables this transaction changed; `*` for statements run as SQL text (any table). Each record write
   * also names `table@project` (or `table@*` when the project is not known, or may change), so a memo
   * of one project's rows survives writes to another's (D134).
   */
  readonly tables = new Set<string>();
  private readonly s: SqliteStore;
  readonly now: string;
  readonly outbox: OutboxRecorder | null;
  constructor(s: SqliteStore, now: string, outbox: OutboxRecorder | null) {
    this.s = s;
    this.now = now;
    this.outbox = outbox;
  }

  async all<T extends Row = Row>(sql: string, params?: readonly Param[]): Promise<T[]> { return this.s.txAll<T>(sql, params); }
  async get<T extends Row = Row>(sql: string, params?: readonly Param[]): Promise<T | undefined> { return this.s.txGet<T>(sql, params); }
  async run(sql: string, params?: readonly Param[]): Promise<{ changes: number }> {
    // An Idempotency-Key claimed with the request's write (D340) changes no table a memo reads.
    if (!IDEMPOTENCY_KEYS.test(sql)) this.tables.add('*');
    return this.s.runSync(sql, params);
  }

  /**
   * The transaction's statements without the Writer's bookkeeping: feed bookkeeping is not a change of a
   * record table, so it must not count as `*` for the table-scoped memos (D44).
   */
  private readonly feed: Queryable = {
    all: async <T extends Row = Row>(sql: string, params?: readonly Param[]) => this.s.txAll<T>(sql, params),
    get: async <T extends Row = Row>(sql: string, params?: readonly Param[]) => this.s.txGet<T>(sql, params),
    run: async (sql: string, params?: readonly Param[]) => this.s.runSync(sql, params),
  };

  /** Records the transaction's changes touched (their computed fields changed): logged once, at its end (D349). */
  private readonly touched = new Map<string, Touched>();
  private readonly touch1 = (t: Touched): void => {
    const k = `${t.tbl}:${t.id}`;
    // Re-inserted: its entry goes after the last change that touched it.
    this.touched.delete(k);
    this.touched.set(k, t);
  };

  private log(table: string, id: number, op: ChangeOp, projectId?: number | null): Promise<number> {
    return appendChange(this.feed, table, id, op, this.now, projectId, null, this.touch1);
  }

  /** Before the commit: the touched records' entries (touchAll). */
  async settle(): Promise<void> {
    if (!this.touched.size) return;
    await touchAll(this.feed, this.touched, this.now);
    this.touched.clear();
  }

  async insert(table: string, values: Row, projectId?: number | null): Promise<number> {
    const cols = Object.keys(values);
    const sql = `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`;
    this.tables.add(table);
    this.scoped(table, values.project_id ?? projectId, true, values.commentable_type);
    const id = this.s.runSync(sql, cols.map((c) => values[c] as Param)).lastId;
    const v = await this.log(table, id, 'insert', projectId);
    this.s.runSync(`UPDATE ${table} SET version = ? WHERE id = ?`, [v, id]);
    if (projectId) this.projects.add(projectId);
    this.outbox?.insert(table, id, values);
    return id;
  }

  /**
   * `insert` for many records in a few statements (D350): the ids AUTOINCREMENT would give them one after the
   * other (the transaction holds the write lock) and as many feed sequence numbers, taken as two ranges; the rows,
   * with their versions, and their entries written by multi-row INSERTs; what clients see of them (`shown`) and
   * their company computed by one UPDATE over the range; the records they touched logged at the end, as insert's.
   */
  async insertMany(table: string, rows: readonly NewRow[]): Promise<number[]> {
    const n = rows.length;
    if (!n) return [];
    if (rows.some((r) => 'id' in r.values)) throw new Error(`insertMany(${table}): the store gives the ids`);
    const s = this.s;
    const top = s.txGet<{ m: number }>(
      `SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = ?), 0), COALESCE((SELECT MAX(id) FROM ${table}), 0)) AS m`, [table])!;
    const firstId = Number(top.m) + 1, lastId = firstId + n - 1;
    const firstSeq = Number(s.txGet<{ seq: number }>('UPDATE feed_clock SET seq = seq + ? WHERE id = 1 RETURNING seq', [n])!.seq) - n + 1;
    // The rows, by their columns (rows of one kind usually have the same), with their id and version.
    const shapes = new Map<string, number[]>();
    for (let i = 0; i < n; i++) {
      const k = Object.keys(rows[i].values).join(', ');
      const at = shapes.get(k);
      if (at) at.push(i); else shapes.set(k, [i]);
    }
    for (const [k, idx] of shapes) {
      const cols = k === '' ? [] : k.split(', ');
      const tuple = `(${['?', '?', ...cols.map(() => '?')].join(', ')})`;
      let j = 0;
      for (const size of batchSizes(idx.length, rowsPerStatement(cols.length + 2))) {
        const params: Param[] = [];
        for (const i of idx.slice(j, j + size)) {
          params.push(firstId + i, firstSeq + i);
          for (const c of cols) params.push(rows[i].values[c] as Param);
        }
        s.runSync(`INSERT INTO ${table} (${['id', 'version', ...cols].join(', ')}) ${valuesOf(tuple, size)}`, params);
        j += size;
      }
    }
    // Their entries (appendChange's, for a range): an earlier entry of a reused id goes, what it said kept.
    const visible = CLIENT_VISIBLE[table] as ((id: string) => string) | undefined, company = COMPANY_OF[table] as ((id: string) => string) | undefined;
    const range = [table, firstId, lastId];
    const prev = visible || company
      ? s.txAll<{ record_id: number; shown: number | null; company_id: number | null }>(
        'DELETE FROM changes WHERE tbl = ? AND record_id BETWEEN ? AND ? AND person_id IS NULL RETURNING record_id, shown, company_id', range)
      : (s.runSync('DELETE FROM changes WHERE tbl = ? AND record_id BETWEEN ? AND ? AND COALESCE(person_id, 0) = 0', range), []);
    const pids = rows.map((r, i) => scope(table, firstId + i, r.projectId));
    let j = 0;
    for (const size of batchSizes(n, rowsPerStatement(5))) {
      const params: Param[] = [];
      for (let i = j; i < j + size; i++) params.push(firstSeq + i, table, firstId + i, this.now, pids[i]);
      s.runSync(`INSERT INTO changes (seq, tbl, record_id, op, at, project_id, person_id, shown, company_id) ${valuesOf("(?, ?, ?, 'insert', ?, ?, NULL, NULL, NULL)", size)}`, params);
      j += size;
    }
    if (visible) {
      s.runSync(`UPDATE changes SET shown = CASE WHEN ${visible('changes.record_id')} THEN 1 ELSE 0 END WHERE tbl = ? AND record_id BETWEEN ? AND ? AND person_id IS NULL`, range);
      for (const p of prev) if (Number(p.shown) === 1) s.runSync('UPDATE changes SET shown = 1 WHERE tbl = ? AND record_id = ? AND person_id IS NULL', [table, p.record_id]);
    }
    if (company) {
      s.runSync(`UPDATE changes SET company_id = ${company('changes.record_id')} WHERE tbl = ? AND record_id BETWEEN ? AND ? AND person_id IS NULL`, range);
      for (const p of prev) {
        if (p.company_id !== null && p.company_id !== undefined) s.runSync('UPDATE changes SET company_id = COALESCE(company_id, ?) WHERE tbl = ? AND record_id = ? AND person_id IS NULL', [p.company_id, table, p.record_id]);
      }
    }
    this.tables.add(table);
    const ids = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      const { values, projectId } = rows[i];
      ids[i] = firstId + i;
      this.scoped(table, values.project_id ?? projectId, true, values.commentable_type);
      for (const p of parentsFrom(table, values, pids[i])) this.touch1({ tbl: p.tbl, id: p.id, pid: pids[i] });
      if (projectId) this.projects.add(projectId);
      this.outbox?.insert(table, ids[i], values);
    }
    return ids;
  }

  async update(table: string, id: number, values: Row, projectId?: number | null): Promise<void> {
    const cols = Object.keys(values);
    this.tables.add(table);
    // A new project, or a new parent, which may be another project's: `table@*` (D134, D222).
    this.scoped(table, 'project_id' in values || movesParent(table, values) ? null : projectId, placesRows(table, values));
    const v = await this.log(table, id, 'update', projectId);
    const sets = [...cols.map((c) => `${c} = ?`), 'version = ?'].join(', ');
    this.s.runSync(`UPDATE ${table} SET ${sets} WHERE id = ?`, [...cols.map((c) => values[c] as Param), v, id]);
    await afterUpdate(this.feed, table, id, values); // logged before the row changed (D245, D268)
    await cascade(this, table, id, values, projectId);
    if (projectId) this.projects.add(projectId);
    this.outbox?.update(table, id, values);
  }

  async remove(table: string, id: number, projectId?: number | null): Promise<void> {
    this.tables.add(table);
    this.scoped(table, projectId, true);
    await this.log(table, id, 'delete', projectId); // first: the feed reads the row's parents
    this.s.runSync(`DELETE FROM ${table} WHERE id = ?`, [id]);
    if (projectId) this.projects.add(projectId);
    this.outbox?.remove(table, id);
  }

  /**
   * `table@project` (or `table@*`); with `rows`, `table:rows` and its `@project` too (placesRows, D228), and for
   * comments their parents' type's name (commentRowsName: `commentableType` of an insert, else any type, D230).
   */
  private scoped(table: string, projectId: unknown, rows: boolean, commentableType?: unknown): void {
    const p = Number(projectId);
    const at = Number.isSafeInteger(p) && p > 0 ? `@${p}` : '@*';
    this.tables.add(table + at);
    if (!rows) return;
    this.tables.add(rowsName(table)).add(rowsName(table) + at);
    if (table === 'comments') {
      const byType = commentRowsName(typeof commentableType === 'string' && commentableType !== '' ? commentableType : null);
      this.tables.add(byType).add(byType + at);
    }
  }

  async logChange(table: string, id: number, op: ChangeOp, projectId?: number | null, personId: number | null = null): Promise<void> {
    await appendChange(this.feed, table, id, op, this.now, projectId, personId, false);
  }

  touch(projectId: number): void { this.projects.add(projectId); }

  /** Stamp last-changed-on of every project this transaction changed. */
  finish(): void {
    if (this.projects.size) this.tables.add('projects');
    for (const p of this.projects) this.s.runSync('UPDATE projects SET last_changed_on = ? WHERE id = ?', [this.now, p]);
    const o = this.outbox?.flush(this.now);
    if (o) this.s.runSync(o.sql, o.params);
  }
}
