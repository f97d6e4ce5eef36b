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
//
// The Writer (one write transaction's statements, the feed written at commit) is store/postgres-writer.ts.

import pg from 'pg';
import { AsyncLocalStorage } from 'node:async_hooks';
import { MIGRATIONS, registrySync } from './schema.ts';
import { DerivedCache } from './derived.ts';
import { PgWriter } from './postgres-writer.ts';
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
