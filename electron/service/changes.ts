// The live change stream (docs/changes-stream.md, D94): what changed since a point of the change
// feed, as resource names and the projects they belong to, limited to the projects the caller sees.

import { changesSince, lastChangeSeq } from '../store/queries/changes.ts';
import { listProjects } from '../store/queries/projects.ts';
import { firmCompanyId } from '../store/queries/companies.ts';
import { COMPANY_OF, MEMBERS } from '../store/feed.ts';
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
 * Changes after `seq`, or null when there are none. What the feed would not send this caller is left out
 * entirely (docs/sync-protocol.md §3.5): a change in a project the caller cannot see (a deletion too: the
 * entry keeps its project), another person's membership, for a client a record clients never could see (D245)
 * and a company or person other than the firm's and its own (D268).
 */
export async function since(ctx: Ctx, seq: number): Promise<ChangeBatch | null> {
  const rows = await changesSince(ctx.store, seq);
  if (rows.length === 0) return null;
  const visible = new Set((await listProjects(ctx.store, ctx.caller)).map((p) => Number(p.id)));
  const companies = ctx.caller.firm ? null : new Set([ctx.caller.companyId, await firmCompanyId(ctx.store)]);
  const resources = new Set<string>();
  const projects = new Set<number>();
  for (const r of rows) {
    if (r.project_id !== null && !visible.has(r.project_id)) continue;
    if (r.tbl === MEMBERS && r.person_id !== ctx.caller.id) continue;
    if (companies && r.shown === 0) continue; // a record clients never could see (D245)
    if (companies && COMPANY_OF[r.tbl] && (r.company_id === null || !companies.has(r.company_id))) continue; // D268
    resources.add(r.tbl);
    if (r.project_id !== null) projects.add(r.project_id);
  }
  return { seq: rows[rows.length - 1].seq, resources: [...resources].sort(), projects: [...projects].sort((a, b) => a - b) };
}
