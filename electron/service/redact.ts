// What a client sees of the records it may see (D32). Visibility (§5) decides which records a caller
// gets; this decides what those records may carry:
//   - a reference to a private milestone (`ref: 'milestone'`) reads as "none" (a post's 0, a list's nil),
//     as if the link did not exist; an unchanged save keeps it (references.ts);
//   - the name of a person or company the client cannot see (§5.3; registry `nameOf`) reads ''. The id
//     stays: it is what an edit form sends back, and it answers 404 like any record the client cannot see.
// Firm people see everything: nothing to do. Rows are changed in place (they are the caller's own copies).

import { column, RESOURCES, type Field, type Resource } from '../../shared/registry.ts';
import { clientSees, privateMilestones } from '../store/queries/redaction.ts';
import type { Row } from '../store/types.ts';
import type { Ctx } from './context.ts';

/** The resource whose records an array field holds (a todo list's `todo-items`). */
const byElement = (element: string): Resource | undefined => Object.values(RESOURCES).find((r) => r.element === element);

/** Every (fields, row) pair of these rows, nested arrays of records (a list's todo-items) included. */
function walk(fields: readonly Field[], rows: readonly Row[], visit: (fields: readonly Field[], row: Row) => void): void {
  for (const row of rows) {
    visit(fields, row);
    for (const f of fields) {
      const inner = f.type === 'array' && f.of ? byElement(f.of) : undefined;
      const value = row[column(f.name)];
      if (inner && Array.isArray(value)) walk(inner.fields, value as Row[], visit);
    }
  }
}

/** Remove from `rows` (of resource `r`, rendered with `fields`) what the caller may not see. */
export async function redact(ctx: Ctx, r: Resource, rows: readonly Row[], fields: readonly Field[] = r.fields): Promise<void> {
  if (ctx.caller.firm || rows.length === 0) return;
  let hasNames = false;
  const milestones: number[] = [];
  walk(fields, rows, (fs, row) => {
    for (const f of fs) {
      if (f.nameOf) hasNames = true;
      const v = row[column(f.name)];
      if (f.ref === 'milestone' && v !== null && v !== undefined) milestones.push(Number(v));
    }
  });
  const sees = hasNames ? await clientSees(ctx.store, ctx.caller) : undefined;
  const hidden = milestones.length ? await privateMilestones(ctx.store, milestones) : undefined;
  walk(fields, rows, (fs, row) => {
    for (const f of fs) {
      if (f.ref === 'milestone' && hidden?.has(Number(row[column(f.name)]))) row[column(f.name)] = null;
      const n = f.nameOf;
      if (!n || !sees) continue;
      const id = row[n.id];
      if (id === null || id === undefined) continue;
      const kind = n.kind === 'party' ? (row[n.id.replace(/_id$/, '_type')] === 'Company' ? 'company' : 'person') : n.kind;
      const seen = kind === 'company' ? sees.companies.has(Number(id)) : sees.people.has(Number(id));
      if (!seen) row[n.name ?? column(f.name)] = '';
    }
  });
}
