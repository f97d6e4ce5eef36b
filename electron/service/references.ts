// The reference rules of the registry (`ref` on a field), checked in one place: a validated value
// that points at a record the caller may not use from this project is "is invalid" (422, §2.6).
// Services call it before their write and again inside it (a referenced record may have gone).

import type { RefKind, Resource } from '../../shared/registry.ts';
import { humanize, type Party, type Validated } from '../../shared/values.ts';
import {
  companyOfProject, milestoneInProject, personHasAccess, personVisible, postCategoryInProject, visibleItem,
} from '../store/queries/references.ts';
import type { Queryable } from '../store/types.ts';
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

/** Add an "is invalid" error for every present reference that breaks its rule. */
export async function checkReferences(db: Queryable, c: Caller, r: Resource, projectId: number, v: Validated): Promise<void> {
  for (const f of r.fields) {
    if (!f.ref || !v.values.has(f.name)) continue;
    const value = v.values.get(f.name);
    if (value === null || value === undefined) continue;
    if (!(await CHECKS[f.ref](db, c, projectId, value))) v.errors.push(`${humanize(f.input ?? f.name)} is invalid`);
  }
}

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
