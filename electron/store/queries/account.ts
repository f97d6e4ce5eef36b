// Whole-account queries: the account's name and the raw rows of a backup (export/import).
// Table names come from the registry (fixed lists), never from input.

import type { Queryable, Row } from '../types.ts';

export async function setMeta(db: Queryable, key: string, value: string): Promise<void> {
  await db.run('INSERT INTO meta (key, value) VALUES (?, ?)', [key, value]);
}

/** Every row of a table, as stored. */
export async function dumpTable(db: Queryable, table: string): Promise<Row[]> {
  return (await db.all(`SELECT * FROM ${table}`)).map((r) => ({ ...r }));
}

/** Put a row of a backup back as it was (ids and versions included; no change feed entry). */
export async function restoreRow(db: Queryable, table: string, row: Row): Promise<void> {
  const cols = Object.keys(row);
  await db.run(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, cols.map((c) => row[c] as never));
}

export async function getMeta(db: Queryable, key: string): Promise<string | null> {
  const r = await db.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key]);
  return r ? String(r.value) : null;
}
