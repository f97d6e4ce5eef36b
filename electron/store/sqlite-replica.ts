// A read-only store on the same SQLite file as a SqliteStore, for a read thread (http/read-worker.ts, D232).
//
// Its own connection (WAL: readers never wait for the writer) and its own memos, valid by the writing
// store's counts in shared memory (shared-counts.ts) and by the change token the writing thread read for
// the request (its `version`: commits of other processes). Each request reads in a snapshot of its own,
// taken after the request's epoch was read (`begin`): a commit the snapshot may miss moves the epoch, and a
// memo or a kept row computed then is used for that request alone, never kept (the writing thread's own
// store needs no such care: its commits and its reads are never interleaved).
//
// It never writes: `write` and `run` throw ReplicaWrite, and the read thread hands the request back to the
// writing thread, which answers it itself.

import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { allOf, getOf, namesToken, rowMaker } from './sqlite.ts';
import { SharedCounts } from './shared-counts.ts';
import { DerivedCache } from './derived.ts';
import type { Param, Row, Store, Writer } from './types.ts';

/** A replica was asked to write: the request goes back to the thread that writes. */
export class ReplicaWrite extends Error {
  constructor() { super('a read replica does not write'); }
}

export class SqliteReplica implements Store {
  readonly dialect = 'sqlite' as const;
  private readonly db: DatabaseSync;
  private readonly readers = new Map<string, { st: StatementSync; make: (a: unknown[]) => Row }>();
  private readonly counts: SharedCounts;
  private readonly derived = new DerivedCache();
  private readonly begin_: StatementSync;
  private readonly commit: StatementSync;
  private readonly snapshot: StatementSync;
  /** The request's change token (the writing thread's), its `version` part, and the epoch read before its snapshot. */
  private token = '0:0';
  private version = '0';
  private epoch = 0;
  /** Memos computed while the epoch moved: told apart so that none is kept. */
  private moved = 0;

  constructor(path: string, counts: SharedArrayBuffer) {
    this.db = new DatabaseSync(path);
    this.db.exec('PRAGMA query_only = ON; PRAGMA busy_timeout = 5000; PRAGMA cache_size = -16000; PRAGMA temp_store = MEMORY');
    this.counts = new SharedCounts(counts);
    this.begin_ = this.db.prepare('BEGIN');
    this.commit = this.db.prepare('COMMIT');
    this.snapshot = this.db.prepare('PRAGMA data_version'); // reads the WAL index: the snapshot is taken here
  }

  /**
   * A request begins: `token` is the change token the writing thread read for it. The epoch is read first,
   * then the snapshot is taken, so that every commit it may miss moves the epoch.
   */
  begin(token: string): void {
    this.end();
    this.token = token;
    this.version = token.slice(token.indexOf(':') + 1);
    this.epoch = this.counts.epoch();
    this.begin_.run();
    this.snapshot.get();
  }

  /** The request is answered: its snapshot goes (a held snapshot would keep checkpoints from rewinding the WAL). */
  end(): void {
    if (this.db.isOpen && this.db.isTransaction) this.commit.run();
  }

  private reader(sql: string): { st: StatementSync; make: (a: unknown[]) => Row } {
    let r = this.readers.get(sql);
    if (!r) {
      const st = this.db.prepare(sql);
      st.setReturnArrays(true);
      r = { st, make: rowMaker(st.columns().map((c) => c.name)) };
      this.readers.set(sql, r);
    }
    return r;
  }

  async all<T extends Row = Row>(sql: string, params: readonly Param[] = []): Promise<T[]> { return allOf<T>(this.reader(sql), params); }
  async get<T extends Row = Row>(sql: string, params: readonly Param[] = []): Promise<T | undefined> { return getOf<T>(this.reader(sql), params); }
  async allCommitted<T extends Row = Row>(sql: string, params: readonly Param[] = []): Promise<{ rows: T[]; committed: boolean }> {
    const rows = allOf<T>(this.reader(sql), params);
    // Kept only if no commit landed since the snapshot: the memo it fills may stand for that commit already.
    return { rows, committed: this.counts.epoch() === this.epoch };
  }
  async run(): Promise<{ changes: number }> { throw new ReplicaWrite(); }
  write<T>(_fn: (w: Writer) => Promise<T>): Promise<T> { return Promise.reject(new ReplicaWrite()); }
  async changeToken(): Promise<string> { return this.token; }

  async memo<T>(key: string, compute: () => Promise<T>, tables?: readonly string[]): Promise<T> {
    const token = (): string => (tables ? namesToken(this.counts, this.version, tables) : this.token);
    // After computing: the same token and no commit since the snapshot, or the value is not kept.
    const now = (): string => (this.counts.epoch() === this.epoch ? token() : `moved ${++this.moved}`);
    return this.derived.memo(key, token(), compute, now);
  }

  async isEmpty(): Promise<boolean> { return (await this.get('SELECT id FROM companies LIMIT 1')) === undefined; }
  async reachable(): Promise<boolean> { return this.db.isOpen; }
  async close(): Promise<void> {
    this.end();
    this.readers.clear();
    if (this.db.isOpen) this.db.close();
  }
}
