// The live change stream (docs/changes-stream.md, D94): what changed since a point of the change
// feed, as resource names and the projects they belong to, limited to the projects the caller sees.

import { changesSince, lastChangeSeq } from '../store/queries/changes.ts';
import { listProjects } from '../store/queries/projects.ts';
import type { Ctx } from './context.ts';

export interface ChangeBatch {
  /** The last change included: the next batch starts after it. */
  readonly seq: number;
  /** Resource names (`todo_items`, `posts`, `comments`, `time_entries`, …) that changed. */
  readonly resources: readonly string[];
  /** Projects (visible to the caller) in which something changed. */
  readonly projects: readonly number[];
}

/** Where the feed stands now (a new stream starts here). */
export const head = (ctx: Ctx): Promise<number> => lastChangeSeq(ctx.store);

/**
 * Changes after `seq`, or null when there are none. A change in a project the caller cannot see is
 * left out entirely; a change whose record is gone (a deletion) names only its resource.
 */
export async function since(ctx: Ctx, seq: number): Promise<ChangeBatch | null> {
  const rows = await changesSince(ctx.store, seq);
  if (rows.length === 0) return null;
  const visible = new Set((await listProjects(ctx.store, ctx.caller)).map((p) => Number(p.id)));
  const resources = new Set<string>();
  const projects = new Set<number>();
  for (const r of rows) {
    if (r.project_id !== null && !visible.has(r.project_id)) continue;
    if (!ctx.caller.firm && r.shown === 0) continue; // a record clients never could see (D245)
    resources.add(r.tbl);
    if (r.project_id !== null) projects.add(r.project_id);
  }
  return { seq: rows[rows.length - 1].seq, resources: [...resources].sort(), projects: [...projects].sort((a, b) => a - b) };
}
