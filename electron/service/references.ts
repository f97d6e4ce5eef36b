// The reference rules of the registry (`ref` on a field), checked in one place: a validated value
// that points at a record the caller may not use from this project is "is invalid" (422, §2.6).
// Services call it before their write and again inside it (a referenced record may have gone).

import { column, type Field, type RefKind, type Resource } from '../../shared/registry.ts';
import { humanize, type Party, type Validated } from '../../shared/values.ts';
import {
  companyOfProject, milestoneInProject, personHasAccess, personVisible, postCategoryInProject, visibleItem,
} from '../store/queries/references.ts';
import type { Queryable, Row } from '../store/types.ts';
import { check, type Caller } from './context.ts';

type Check = (db: Queryable, c: Caller, projectId: number, value: unknown) => Promise<boolean>;

const CHECKS: Record<RefKind, Check> = {
  postCategory: (db, _c, pid, id) => postCategoryInProject(db, pid, id as number),
  milestone: (db, c, pid, id) => milestoneInProject(db, c, pid, id as number),
  todoItem: async (db, c, pid, id) => Number((await visibleItem(db, c, id as number))?.project_id) === pid,
  member: async (db, c, pid, id) => (await personVisible(db, c, id as number)) && personHasAccess(db, pid, id as number),
  party: (db, c, pid, v) => {
    const p = v as NonNullable<Party>;
    return p.type === 'Person' ? CHECKS.member(db, c, pid, p.id) : companyOfProject(db, c, pid, p.id);
  },
};

/** The stored value of a reference field in the form `validate` gives it (a party as `{type, id}`). */
function storedValue(f: Field, stored: Row): unknown {
  const id = stored[column(f.name)];
  if (id === null || id === undefined) return null;
  if (f.inputKind === 'party') return { type: stored[column(f.name).replace(/_id$/, '_type')], id: Number(id) };
  return Number(id);
}
const same = (a: unknown, b: unknown): boolean => (a !== null && typeof a === 'object' && b !== null && typeof b === 'object'
  ? (a as Party & object).type === (b as Party & object).type && (a as Party & object).id === (b as Party & object).id
  : a === b);

/**
 * Add an "is invalid" error for every present reference that breaks its rule. On an update (`stored`:
 * the record's row before it), an edit form saved back unchanged must always succeed (D32):
 *   - a reference equal to the stored one is not checked again (a person who has since left the
 *     project, or one the caller cannot see, stays), and is dropped from the values (nothing to write);
 *   - "none" for a reference the caller was shown as none because it points at a record hidden from
 *     it (a private milestone, for a client) keeps the hidden link: the caller cannot clear what it
 *     cannot see. Any other value replaces it as usual.
 */
export async function checkReferences(db: Queryable, c: Caller, r: Resource, projectId: number, v: Validated, stored?: Row): Promise<void> {
  for (const f of r.fields) {
    if (!f.ref || !v.values.has(f.name)) continue;
    const value = v.values.get(f.name);
    if (stored) {
      const before = storedValue(f, stored);
      if (same(value, before)) { v.values.delete(f.name); continue; }
      if ((value === null || value === undefined) && before !== null && HIDDEN_AS_NONE.has(f.ref)
        && !(await CHECKS[f.ref](db, c, projectId, before))) { v.values.delete(f.name); continue; }
    }
    if (value === null || value === undefined) continue;
    if (!(await CHECKS[f.ref](db, c, projectId, value))) v.errors.push(`${humanize(f.input ?? f.name)} is invalid`);
  }
}

/** References shown as "none" to a caller who cannot see their target (service/redact.ts). */
const HIDDEN_AS_NONE: ReadonlySet<RefKind> = new Set(['milestone']);

/**
 * The same rules again inside the write transaction, where the answer holds until commit (writes
 * are serialised, D51): a referenced record deleted since the first check is a 422, never a
 * dangling reference.
 */
export async function recheckReferences(w: Queryable, c: Caller, r: Resource, projectId: number, v: Validated): Promise<void> {
  const again: Validated = { values: v.values, errors: [] };
  await checkReferences(w, c, r, projectId, again);
  check(again.errors);
}
