import type { Store } from '../../electron/store/types.ts';

/** Everything in a SQLite store, table by table (schema bookkeeping aside): "exactly as it was". */
export async function everything(store: Store): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const { name } of await store.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'schema_migrations' ORDER BY name")) {
    out[name] = (await store.all(`SELECT * FROM ${name}`)).map((row) => JSON.stringify(row)).sort();
  }
  return out;
}
