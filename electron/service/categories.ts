// Category operations (contract §8.4). Reads: anyone who sees the project. Writes: firm people
// with access to the project (§5.5). A category that still has posts cannot be deleted (409).

import { RESOURCES } from '../../shared/registry.ts';
import { toColumns, validateInput, type Given } from '../../shared/values.ts';
import type { CategoryInput } from '../../shared/client.ts';
import { getCategory, listCategories, postsInCategory } from '../store/queries/categories.ts';
import { badRequest, check, conflict, forbidden, notFound, type Ctx } from './context.ts';
import * as projects from './projects.ts';
import type { CategoryRow } from '../../shared/rows.ts';
import { deleteRecord } from '../store/delete-record.ts';

const R = RESOURCES.category;
export type CategoryType = 'post' | 'attachment';

/** The `type` query parameter (§2.3): absent = both kinds, else `post` or `attachment` (400). */
export function parseType(raw: string | undefined): CategoryType | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'post' || raw === 'attachment') return raw;
  throw badRequest('type must be post or attachment');
}

/** Categories of a visible project, optionally of one kind. */
export async function list(ctx: Ctx, projectId: number, type?: CategoryType): Promise<CategoryRow[]> {
  await projects.get(ctx, projectId);
  return listCategories(ctx.store, ctx.caller, projectId, type);
}

/** A visible category, or 404. */
export async function get(ctx: Ctx, id: number): Promise<CategoryRow> {
  const c = await getCategory(ctx.store, ctx.caller, id);
  if (!c) throw notFound('Category');
  return c;
}

/** A visible category of this project, or 404 (category routes under a project). */
export async function inProject(ctx: Ctx, projectId: number, id: number): Promise<CategoryRow> {
  await projects.get(ctx, projectId);
  const c = await getCategory(ctx.store, ctx.caller, id);
  if (!c || c.project_id !== projectId) throw notFound('Category');
  return c;
}

const mayWrite = (ctx: Ctx): void => {
  if (!ctx.caller.firm) throw forbidden('Only people of the firm can change categories');
};

export async function create(ctx: Ctx, projectId: number, input: Given<CategoryInput>): Promise<CategoryRow> {
  await projects.get(ctx, projectId);
  mayWrite(ctx);
  const v = validateInput(R, 'create', input, ctx.caller);
  check(v.errors);
  const id = await ctx.store.write(async (w) => {
    const cid = await w.insert('categories', { ...toColumns(v.values), project_id: projectId }, projectId);
    w.outbox?.intent('category.create', { id: cid });
    return cid;
  });
  return get(ctx, id);
}

/** Only `name` changes; `type` is ignored on update. */
export async function update(ctx: Ctx, id: number, input: Given<CategoryInput>): Promise<CategoryRow> {
  const c = await get(ctx, id);
  mayWrite(ctx);
  const v = validateInput(R, 'update', input, ctx.caller);
  check(v.errors);
  if (v.values.size) {
    await ctx.store.write(async (w) => {
      await w.update('categories', id, toColumns(v.values), c.project_id);
      w.outbox?.intent('category.update', { id });
    });
  }
  return get(ctx, id);
}

export async function remove(ctx: Ctx, id: number): Promise<CategoryRow> {
  const c = await get(ctx, id);
  mayWrite(ctx);
  await ctx.store.write(async (w) => {
    if (await postsInCategory(w, id)) throw conflict('The category still has posts');
    await deleteRecord(w, 'category', id);
    w.outbox?.intent('category.delete', { id });
  });
  return c;
}
