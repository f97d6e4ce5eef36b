// The store seam: the service layer talks to these interfaces only. SQLite (node:sqlite) is the
// implementation today; PostgreSQL (pg) implements the same interfaces for the team server.
// SQL is written in the portable subset both engines share: `?` placeholders (rewritten to
// `$n` for PostgreSQL), COALESCE, lower(), RETURNING, integers for booleans.

import type { OutboxRecorder } from './outbox.ts';

export type Row = Record<string, unknown>;

/**
 * Who asks: the store's queries filter by it (visibility, contract §5). It lives here, below both
 * the service and the store, because both need it (D40); the service re-exports it.
 */
export interface Caller {
  readonly id: number;
  readonly companyId: number;
  readonly firm: boolean;
  readonly admin: boolean;
  readonly name: string;
}
export type Param = string | number | bigint | boolean | null | undefined;

export interface Queryable {
  all<T extends Row = Row>(sql: string, params?: readonly Param[]): Promise<T[]>;
  get<T extends Row = Row>(sql: string, params?: readonly Param[]): Promise<T | undefined>;
  run(sql: string, params?: readonly Param[]): Promise<{ changes: number }>;
}

/**
 * Every change to a record goes through a Writer inside one transaction. It stamps each row
 * with a server version, writes the record's entry in the change feed (`changes`: one entry per
 * record, tombstones included, store/feed.ts; what a team server serves as `/sync/changes`, D60),
 * and bumps the project's last-changed-on. On a replica it also records the write in the sync
 * outbox (`sync_outbox`, through `outbox` below, store/outbox.ts, D70): that, not the feed, is
 * what the sync engine pushes.
 */
/** A record for Writer.insertMany: its values (never an `id`: the store gives it) and its project, as for `insert`. */
export interface NewRow { readonly values: Row; readonly projectId?: number | null }

export interface Writer extends Queryable {
  insert(table: string, values: Row, projectId?: number | null): Promise<number>;
  /**
   * Many new records of one table, in order: the same rows, versions and feed entries as `insert` called for each
   * (D350); their ids, in order. A store may write them in fewer statements (a clone's page).
   */
  insertMany(table: string, rows: readonly NewRow[]): Promise<number[]>;
  update(table: string, id: number, values: Row, projectId?: number | null): Promise<void>;
  remove(table: string, id: number, projectId?: number | null): Promise<void>;
  /**
   * A feed entry for a record this call did not write itself (membership, records whose visibility
   * follows a changed one), replacing its previous entry; no entries for its parents (store/feed.ts).
   */
  logChange(table: string, id: number, op: 'insert' | 'update' | 'delete', projectId?: number | null, personId?: number | null): Promise<void>;
  /** Count a change inside a project without changing a row of it (reorders that move nothing). */
  touch(projectId: number): void;
  /** The transaction's timestamp (second precision, UTC). */
  readonly now: string;
  /** The sync outbox of this transaction (electron/store/outbox.ts); absent when the store is not a replica. */
  readonly outbox?: OutboxRecorder | null;
}

export interface Store extends Queryable {
  readonly dialect: 'sqlite' | 'postgres';
  /** Record local writes in the sync outbox (a replica of a remote account, issue #8). */
  recordOutbox?: boolean;
  /** Run fn in one transaction; it commits when fn resolves and rolls back when it throws. */
  write<T>(fn: (w: Writer) => Promise<T>): Promise<T>;
  /**
   * Changes whenever anything was committed, by this process or another: caches of derived data
   * (rendered responses, counts) are valid only while it stays the same.
   */
  changeToken(): Promise<string>;
  /**
   * A value derived from stored data (a count, a name map), computed by `compute` once per change token
   * and kept by this store instance (`store/derived.ts`, D42). With `tables`, the value depends only on
   * those tables: it stays valid while no write touches them (D44; a store may ignore `tables` and use
   * its change token, which is always correct). Never call it inside `write`: the transaction's own
   * changes are not committed yet.
   */
  memo<T>(key: MemoKey, compute: () => Promise<T>, tables?: readonly string[]): Promise<T>;
  /**
   * `all`, and whether what it read can only be committed data (D207): false on SQLite in memory when the
   * read ran inside another request's open write (one connection: what it read may still roll back, and a
   * rolled back feed number is handed out again, so a row's version would not tell). On a file such reads
   * go to a second connection and see the last commit (D215). What a memo keeps filling after it was made
   * (rows, comment figures) is read this way and kept only when true.
   */
  allCommitted<T extends Row = Row>(sql: string, params?: readonly Param[]): Promise<{ rows: T[]; committed: boolean }>;
  /**
   * Run fn (and what it starts) with `token`, a change token this store just returned, standing for
   * the store's state in memo() calls made within it: a request reads the token once (D52) and its
   * memo hits cost nothing more (D145). A write committed within fn unpins, and so does calling the
   * `unpin` fn is given (at the end of the request: timers or background work it started must not keep
   * an old token). Optional: a store whose token costs no round trip (SQLite) has no need of it.
   */
  pin?<T>(token: string, fn: (unpin: () => void) => T): T;
  /** True when the store holds no account yet (a seed may be imported). */
  isEmpty(): Promise<boolean>;
  /** Can the store answer right now? (GET /health; false while a database server restarts.) */
  reachable(): Promise<boolean>;
  close(): Promise<void>;
}

/** Is this the store itself (it keeps derived values), not a Writer inside a transaction (which keeps none)? */
/**
 * The keys of `Store.memo`, named once (issue #30): two modules that built the same string by hand would
 * share (and clobber) one value; a key here says what it holds and who computes it.
 */
export type MemoKey =
  | 'names' // queries/names.ts: every person's and company's name
  | 'overview.projects' // queries/overview.ts: the projects and their sizes, for the Overview's read path
  | 'milestones.private' // queries/redaction.ts: the private milestones' ids
  | `auth.person:${number}` // queries/people.ts: a person as authentication reads them
  | `client.sees:${number}` // queries/redaction.ts: what a client company's people may see
  | `time_entries.count:${number}:${'firm' | 'client'}` // queries/time-entries.ts
  | `comment-stats:${string}` // queries/fragments.ts: comment counts per record, per audience
  | `rows:${string}` // queries/rows.ts: a row cache per table and select list
  | `refs:${string}` // queries/rows.ts: the references of a query, by its SQL and parameters
  | `test:${string}`; // the store's own tests

export const isStore = (db: Queryable): db is Store => typeof (db as Partial<Store>).memo === 'function';

/** Current time as the API shows it: `YYYY-MM-DDTHH:MM:SSZ`. Overridable for tests. */
export type Clock = () => Date;

/**
 * The database cannot be reached right now (server down or restarting, connection cut): the
 * HTTP layer answers 503 with Retry-After; the store recovers by itself when it is back.
 */
export class StoreUnavailable extends Error {}

/** The database was written by a newer Bivouac (a schema version this one does not know). */
export class StoreVersionError extends Error {}
