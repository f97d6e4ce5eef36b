// A replica's lifecycle (issue #25, D254, D256): who has signed in to this data directory, and a
// snapshot of every table taken before a connect, put back when the connect fails half way.

import type { Param, Queryable, Row, Store } from '../types.ts';

/** User names that signed in from some address, as the sign-in guard records them (a server on a network). */
export async function signedInUserNames(db: Queryable): Promise<string[]> {
  return (await db.all<{ user_name: string }>('SELECT DISTINCT user_name FROM auth_known')).map((r) => String(r.user_name));
}

export async function userNameOf(db: Queryable, personId: number): Promise<string | null> {
  const r = await db.get<{ user_name: string | null }>('SELECT user_name FROM people WHERE id = ?', [personId]);
  return r?.user_name ?? null;
}

/** Every row of every table (schema bookkeeping aside), tables in creation order. */
export type Snapshot = { table: string; rows: Row[] }[];

async function tableNames(store: Store): Promise<string[]> {
  const rows = store.dialect === 'sqlite'
    ? await store.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'schema_migrations' ORDER BY rowid")
    : await store.all<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations'");
  // SQLite's AUTOINCREMENT counters go last: inserting the rows back moves them, the snapshot's values win.
  const names = rows.map((r) => String(r.name));
  return [...names.filter((n) => n !== 'sqlite_sequence'), ...names.filter((n) => n === 'sqlite_sequence')];
}

export async function snapshot(store: Store): Promise<Snapshot> {
  const out: Snapshot = [];
  for (const table of await tableNames(store)) out.push({ table, rows: await store.all(`SELECT * FROM ${table}`) });
  return out;
}

/** Put every table back as the snapshot holds it (inside the caller's transaction). */
export async function restore(w: Queryable, dialect: Store['dialect'], snap: Snapshot): Promise<void> {
  if (dialect === 'sqlite') await w.run('PRAGMA defer_foreign_keys = ON');
  for (const { table } of [...snap].reverse()) await w.run(`DELETE FROM ${table}`);
  for (const { table, rows } of snap) {
    // Inserting rows back moved SQLite's AUTOINCREMENT counters: the snapshot's (last) replace them.
    if (table === 'sqlite_sequence') await w.run('DELETE FROM sqlite_sequence');
    for (const row of rows) {
      const cols = Object.keys(row);
      await w.run(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, cols.map((c) => row[c] as Param));
    }
  }
}

/** Only the sync link (sync_state) put back as it was. */
export async function restoreState(w: Queryable, rows: ReadonlyMap<string, string>): Promise<void> {
  await w.run('DELETE FROM sync_state');
  for (const [k, v] of rows) await w.run('INSERT INTO sync_state (key, value) VALUES (?, ?)', [k, v]);
}
