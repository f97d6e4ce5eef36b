// Rows of the busiest lists (a list's todo items, a page of time entries), kept by the store instance
// by id and version (D185). The list statement reads only `id, version` (index order, two integers a
// row); the rows whose version the cache holds are copied from it, the others read by id in one
// statement and kept. node:sqlite spends most of a 50-row read turning ~700 values into JavaScript
// (82 µs, against 27 µs for the ids and versions).
//
// Why a row's version is enough: every write of a record goes through the Writer, which gives the row
// a new version (the feed's sequence number) in the same transaction, on both engines, whichever
// process writes. The only statements that write these tables otherwise are imports of new rows (a new
// id). As a second guard, the cache itself is a memo under the table `raw:<table>`: SQL text run in a
// write (SQLite counts it as `*`, which every memo token holds; PostgreSQL as `raw:<table>`), or on
// SQLite a commit by another connection, starts a new cache.
// Inside a write (`db` is a Writer) nothing is cached: rows are read as they are in the transaction.

import { isStore, type Param, type Queryable, type Row } from '../types.ts';

/** Rows of one table by id, bounded: the oldest half goes when it is full (insertion order). */
export class RowCache {
  private readonly map = new Map<number, { readonly v: number; readonly row: Row }>();
  readonly max: number;
  constructor(max: number) {
    this.max = max;
  }

  /** A copy of the kept row when it has this version (callers add computed fields to their rows). */
  get(id: number, version: number): Row | undefined {
    const e = this.map.get(id);
    return e !== undefined && e.v === version ? { ...e.row } : undefined;
  }

  set(id: number, row: Row): void {
    if (this.map.size >= this.max && !this.map.has(id)) {
      let drop = this.map.size >> 1;
      for (const k of this.map.keys()) {
        if (drop-- <= 0) break;
        this.map.delete(k);
      }
    }
    this.map.delete(id); // re-inserted: counts as new for the eviction order
    this.map.set(id, { v: Number(row.version), row: { ...row } });
  }

  get size(): number { return this.map.size; }
}

/** Rows kept per table: the 20,000 todo items of bench:api fit (a row of ~15 columns is ~0.3–0.5 KB of heap). */
export const ROWS_PER_TABLE = 32_768;

/** Id list lengths the by-id statement is padded to (repeating an id changes nothing in `IN`). */
const BUCKETS = [1, 4, 16, 64, 256, 500] as const;

/** How the rows of a table are read by id: built once per query module (constant strings). */
export interface RowSource {
  readonly table: string;
  /** The memo key of its cache: one per statement, so two sources of one table never share rows. */
  readonly key: `rows:${string}`;
  /** The statement per bucket length: `select` + ` WHERE alias.id IN (?, …)`. */
  readonly byId: readonly string[];
}

/**
 * `select` reads whole rows, without WHERE, with `version` among its columns, the table aliased
 * `alias` (`SELECT i.id, …, i.version FROM todo_items i`).
 */
export const rowSource = (table: string, select: string, alias: string): RowSource => ({
  table, key: `rows:${table}:${select}`, byId: BUCKETS.map((n) => `${select} WHERE ${alias}.id IN (${new Array(n).fill('?').join(', ')})`),
});

/**
 * The rows of a list statement, in its order (D185, D202). `refsSql` reads `id, version` of the records the
 * caller may see; the rows come from the store's row cache where it holds a ref's version, the others are
 * read by id (and kept). A row read by id at another version than its ref's changed between the two
 * statements (on PostgreSQL they run on two pooled connections; on SQLite a write in between ends the turn's
 * read transaction): it may now be one the caller must not see (made private), so it is left out and the
 * list is read again, up to three times; a row gone by then (deleted) is left out. Each row is a copy the
 * caller may change.
 *
 * `tables` names every table `refsSql` reads (`table@project` for one project's rows of it, D134): the ids
 * and versions are kept by the store as a memo of those tables (D222), so a list read again runs no statement
 * until a commit writes one of them. A read made again after a changed row reads the statement itself.
 */
/** `T`: the row type the source's statement answers (its columns; the caller names them, shared/rows.ts). */
export async function listRows<T extends Row = Row>(db: Queryable, src: RowSource, refsSql: string, params: readonly Param[], tables: readonly string[]): Promise<T[]> {
  for (let tries = 1; ; tries++) {
    const refs = tries === 1 && isStore(db)
      ? await db.memo(`refs:${refsSql}\u0000${JSON.stringify(params)}\u0000${tables.join(',')}`, async () => refsOf(await db.all(refsSql, params)), tables)
      : refsOf(await db.all(refsSql, params));
    const { rows, changed } = await rowsOf(db, src, refs);
    if (!changed || tries === 3) return rows as T[];
  }
}

/**
 * The rows of `refs` (see listRows); `changed`: a row read by id was not at its ref's version (left out).
 * `refs` holds ids and versions in turn (`[id, version, id, version, …]`): kept by the memo, half the memory
 * of an object per record, and never changed here.
 */
async function rowsOf(db: Queryable, src: RowSource, refs: readonly number[]): Promise<{ rows: Row[]; changed: boolean }> {
  const n = refs.length >> 1;
  if (n === 0) return { rows: [], changed: false };
  const cache = isStore(db) ? await db.memo(src.key, async () => new RowCache(ROWS_PER_TABLE), [`raw:${src.table}`]) : undefined;
  const out = new Array<Row | undefined>(n);
  const missing: number[] = [];
  for (let k = 0; k < n; k++) {
    const r = cache?.get(refs[2 * k], refs[2 * k + 1]);
    if (r) out[k] = r;
    else missing.push(k);
  }
  let changed = false;
  if (missing.length) {
    const found = new Map<number, Row>();
    for (let k = 0; k < missing.length; k += 500) {
      const ids: Param[] = missing.slice(k, k + 500).map((i) => refs[2 * i]);
      const b = BUCKETS.findIndex((n) => n >= ids.length);
      while (ids.length < BUCKETS[b]) ids.push(ids[0]);
      // Kept only when it can only be committed data (D207): read inside another request's open write on
      // SQLite in memory, a row may roll back and its version be handed out again to other content (D215).
      const { rows, committed } = cache && isStore(db) ? await db.allCommitted(src.byId[b], ids) : { rows: await db.all(src.byId[b], ids), committed: false };
      for (const row of rows) {
        const id = Number(row.id);
        found.set(id, row);
        if (committed) cache?.set(id, row);
      }
    }
    for (const k of missing) {
      const row = found.get(refs[2 * k]); // the cache keeps its own copy
      if (row !== undefined && Number(row.version) === refs[2 * k + 1]) out[k] = row;
      else if (row !== undefined) changed = true;
    }
  }
  const rows: Row[] = [];
  for (const r of out) if (r) rows.push(r);
  return { rows, changed };
}

/** `id, version` rows of a statement as refs: ids and versions in turn. */
function refsOf(rows: readonly Row[]): number[] {
  const refs: number[] = [];
  for (const r of rows) refs.push(Number(r.id), Number(r.version));
  return refs;
}
