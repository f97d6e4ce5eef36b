// What a client sees of the records it may see (D32). Visibility (§5) decides which records a caller
// gets; this decides what those records may carry:
//   - a reference to a private milestone (`ref: 'milestone'`) reads as "none" (a post's 0, a list's nil),
//     as if the link did not exist; an unchanged save keeps it (references.ts);
//   - the name of a person or company the client cannot see (§5.3; registry `nameOf`) reads ''. The id
//     stays: it is what an edit form sends back, and it answers 404 like any record the client cannot see.
// Firm people see everything: nothing to do. Rows are changed in place (they are the caller's own copies).
// What to look at in a row is worked out once per field list (a plan, D196): the column names, the
// milestone references, the names and the nested records, instead of per field and row.

import { column, RESOURCES, type Field, type Resource } from '../../shared/registry.ts';
import { clientSees, privateMilestones } from '../store/queries/redaction.ts';
import type { Row } from '../store/types.ts';
import type { Ctx } from './context.ts';

interface Plan {
  /** Columns holding a milestone reference. */
  readonly milestones: readonly string[];
  /** Names to blank: the id column, the type column of a party (else null), the kind, the name column. */
  readonly names: readonly { readonly id: string; readonly type: string | null; readonly kind: 'person' | 'company' | 'party'; readonly name: string }[];
  /** Array fields holding records of another resource: the column and that resource's plan. */
  readonly nested: readonly { readonly col: string; readonly plan: Plan }[];
  /** Whether this plan or a nested one shows a name. */
  readonly hasNames: boolean;
}

/** The resource whose records an array field holds (a todo list's `todo-items`). */
const byElement = (element: string): Resource | undefined => Object.values(RESOURCES).find((r) => r.element === element);

function makePlan(fields: readonly Field[], depth = 0): Plan {
  const milestones: string[] = [];
  const names: Plan['names'][number][] = [];
  const nested: Plan['nested'][number][] = [];
  let hasNames = false;
  for (const f of fields) {
    const col = column(f.name);
    if (f.ref === 'milestone') milestones.push(col);
    const n = f.nameOf;
    if (n) {
      hasNames = true;
      names.push({ id: n.id, type: n.kind === 'party' ? n.id.replace(/_id$/, '_type') : null, kind: n.kind, name: n.name ?? col });
    }
    const inner = f.type === 'array' && f.of ? byElement(f.of) : undefined;
    if (inner && depth < 8) {
      const plan = makePlan(inner.fields, depth + 1);
      nested.push({ col, plan });
      if (plan.hasNames) hasNames = true;
    }
  }
  return { milestones, names, nested, hasNames };
}

/** The plan of every resource's own fields, made once (derived from the registry's constants). */
const PLANS: Readonly<Record<string, Plan>> = Object.fromEntries(Object.values(RESOURCES).map((r) => [r.key, makePlan(r.fields)]));
/** Other field lists (a post's summary form) are planned when used. */
const planOf = (r: Resource, fields: readonly Field[]): Plan => (fields === r.fields ? PLANS[r.key] : undefined) ?? makePlan(fields);

/** Every (plan, row) pair of these rows, nested arrays of records (a list's todo-items) included. */
function walk(plan: Plan, rows: readonly Row[], visit: (plan: Plan, row: Row) => void): void {
  for (const row of rows) {
    visit(plan, row);
    for (const n of plan.nested) {
      const value = row[n.col];
      if (Array.isArray(value)) walk(n.plan, value as Row[], visit);
    }
  }
}

/** Remove from `rows` (of resource `r`, rendered with `fields`) what the caller may not see. */
export async function redact(ctx: Ctx, r: Resource, rows: readonly Row[], fields: readonly Field[] = r.fields): Promise<void> {
  if (ctx.caller.firm || rows.length === 0) return;
  const plan = planOf(r, fields);
  let milestones: number[] | undefined;
  walk(plan, rows, (p, row) => {
    for (const col of p.milestones) {
      const v = row[col];
      if (v !== null && v !== undefined) (milestones ??= []).push(Number(v));
    }
  });
  const sees = plan.hasNames ? await clientSees(ctx.store, ctx.caller) : undefined;
  const hidden = milestones ? await privateMilestones(ctx.store, milestones) : undefined;
  if (!sees && !hidden) return;
  walk(plan, rows, (p, row) => {
    if (hidden) for (const col of p.milestones) if (hidden.has(Number(row[col]))) row[col] = null;
    if (!sees) return;
    for (const n of p.names) {
      const id = row[n.id];
      if (id === null || id === undefined) continue;
      const kind = n.kind === 'party' ? (row[n.type!] === 'Company' ? 'company' : 'person') : n.kind;
      const seen = kind === 'company' ? sees.companies.has(Number(id)) : sees.people.has(Number(id));
      if (!seen) row[n.name] = '';
    }
  });
}
