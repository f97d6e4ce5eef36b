// bench:sync's clone floor (issue #26, D350): what an ideal replica writes for a clone, timed alone. The team
// server's records are read first (not timed), then written into a new SQLite store as a replica must keep
// them: each record's row with its feed entry (Writer.insertMany), its id-map row and its shadow copy, the
// references rewritten to local ids, 1,000 records a transaction. No HTTP, no decoding, no merge, no parking:
// the store's own cost of a clone, to set the measured replica against.

import { RESOURCES, TABLE_ORDER } from '../../shared/registry.ts';
import { rewriteIds } from '../../shared/sync/ids.ts';
import type { WireRow } from '../../shared/sync/wire.ts';
import { mapIds, putShadows } from '../../electron/store/queries/replica.ts';
import { SqliteStore } from '../../electron/store/sqlite.ts';

/** Records written and the time the writes took (ms). */
export async function replicaFloor(team: SqliteStore, file: string): Promise<{ records: number; ms: number }> {
  const st = new SqliteStore(file);
  const local = new Map<string, number>();
  let records = 0, ms = 0;
  try {
    for (const res of TABLE_ORDER) {
      const table = RESOURCES[res].table;
      for (let after = 0; ;) {
        const rows = team.allSync<WireRow & { id: number }>(`SELECT * FROM ${table} WHERE id > ? ORDER BY id LIMIT 1000`, [after]);
        if (!rows.length) break;
        after = Number(rows[rows.length - 1].id);
        const t0 = performance.now();
        await st.write(async (w) => {
          const values = rows.map((r) => {
            const { row } = rewriteIds(r, (rr, id) => local.get(`${rr}:${id}`));
            delete row.id; delete row.version; delete row.token; delete row.password_hash;
            if (res === 'person') row.user_name = null; // a replica keeps only its owner's (lockOthers)
            return { values: row, projectId: (row.project_id as number | null | undefined) ?? (res === 'project' ? null : undefined) };
          });
          const ids = await w.insertMany(table, values);
          ids.forEach((id, i) => local.set(`${res}:${rows[i].id}`, id));
          await mapIds(w, res, ids.map((id, i) => [id, Number(rows[i].id)] as const));
          await putShadows(w, res, rows.map((r) => ({ remote: Number(r.id), scope: 'p', row: r })));
        });
        ms += performance.now() - t0;
        records += rows.length;
      }
    }
  } finally {
    await st.close();
  }
  return { records, ms };
}
