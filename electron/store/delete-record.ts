// One delete for every record (issue #30, D321): the record and its dependents as the registry's
// links say (shared/registry.ts `dependentsOf`): dependents with a `cascade` link are deleted first
// (each with its own dependents), `setNull` references are emptied, then the record goes. Used by the
// services' deletes and by the sync engine's local removal alike, so the two cannot drift apart.
//
// What is particular to a caller (a sync removal's conflict log, restore tree, outbox and id map) runs
// in the visitor: `enter` before a record's dependents go, `leave` just before its own row goes.
// Positions (closing a list's gaps) are the services' job: a delete leaves them as they are.

import { dependentsOf, RESOURCES, type ResourceKey } from '../../shared/registry.ts';
import { dropMemberships, dropPersonMemberships, recordRow, referrers } from './queries/relations.ts';
import type { Row, Writer } from './types.ts';

export interface DeleteVisitor<T> {
  /** A record is about to be deleted (before its dependents); answers what its dependents get as `parent`. */
  enter?(res: ResourceKey, id: number, row: Row, parent: T | undefined): T | Promise<T>;
  /** Its dependents are gone; its row goes next. `self` is what `enter` answered. */
  leave?(res: ResourceKey, id: number, row: Row, self: T | undefined): void | Promise<void>;
}

const projectOf = (res: ResourceKey, row: Row): number | undefined =>
  res === 'project' || row.project_id === null || row.project_id === undefined ? undefined : Number(row.project_id);

/**
 * Delete record `id` of `res` with its dependents; answers its row as it was, or undefined when
 * there is no such record (nothing is done).
 */
export async function deleteRecord<T = undefined>(w: Writer, res: ResourceKey, id: number, visit: DeleteVisitor<T> = {}): Promise<Row | undefined> {
  const row = await recordRow(w, RESOURCES[res].table, id);
  if (row) await remove(w, res, row, visit, undefined);
  return row;
}

/** Delete a record whose row is read (its dependents' rows come from one read per link, not one per record). */
async function remove<T>(w: Writer, res: ResourceKey, row: Row, visit: DeleteVisitor<T>, parent: T | undefined): Promise<void> {
  const R = RESOURCES[res];
  const id = Number(row.id);
  const self = visit.enter ? await visit.enter(res, id, row, parent) : undefined;
  const { cascade, setNull } = dependentsOf(res);
  for (const d of cascade) {
    for (const r of await referrers(w, RESOURCES[d.res].table, d, id, '*')) await remove(w, d.res, r, visit, self);
  }
  for (const d of setNull) {
    const table = RESOURCES[d.res].table;
    for (const r of await referrers(w, table, d, id, 'id, project_id')) await w.update(table, Number(r.id), { [d.link.column]: null }, projectOf(d.res, r));
  }
  await visit.leave?.(res, id, row, self);
  if (res === 'project') await dropMemberships(w, id);
  if (res === 'person') await dropPersonMemberships(w, id);
  await w.remove(R.table, id, projectOf(res, row));
}
