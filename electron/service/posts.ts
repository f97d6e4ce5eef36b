// Post operations (contract §8.5). display-body / display-extended-body are rendered here from
// the stored body (never stored). Update, delete and edit.xml: the author or an administrator.

import { RESOURCES } from '../../shared/registry.ts';
import { toColumns, validateInput, type Given, type Validated } from '../../shared/values.ts';
import type { PostInput } from '../../shared/client.ts';
import { renderBody, renderExtended } from '../../shared/render.ts';
import { getPost, listPosts } from '../store/queries/posts.ts';
import { checkReferences as checkRefs } from './references.ts';
import { badRequest, check, forbidden, notFound, type Ctx } from './context.ts';
import * as projects from './projects.ts';
import * as categories from './categories.ts';
import { blankTemplate, editForm, type Template } from './templates.ts';
import type { Queryable, Row } from '../store/types.ts';
import type { PostRow } from '../../shared/rows.ts';
import { deleteRecord } from '../store/delete-record.ts';

const R = RESOURCES.post;
export const PAGE = 25;

/** Add the rendered bodies to a full post row. */
function full(row: PostRow): PostRow {
  row.display_body = renderBody(row.body);
  row.display_extended_body = renderExtended(row.extended_body);
  return row;
}

/** `?n=OFFSET` (§2.3, §6.3): decimal digits, default 0; anything else is 400. */
export function parseOffset(raw: string | undefined): number {
  if (raw === undefined) return 0;
  if (!/^\d+$/.test(raw)) throw badRequest('n must be a number of posts to skip');
  return Math.min(Number(raw), Number.MAX_SAFE_INTEGER);
}

/** `GET /projects/{id}/posts.xml` (and per category): 25 newest visible posts after skipping `n`. */
export async function list(ctx: Ctx, projectId: number, n: string | undefined, categoryId?: number): Promise<PostRow[]> {
  const offset = parseOffset(n);
  if (categoryId !== undefined) await categories.inProject(ctx, projectId, categoryId);
  else await projects.get(ctx, projectId);
  // full rows (not `summary`): the columns of PostRow
  const rows = await listPosts(ctx.store, ctx.caller, projectId, { categoryId, limit: PAGE, offset }) as PostRow[];
  return rows.map(full);
}

/** Summary posts of a project (archive routes), all of them, optionally of one category. */
export async function archive(ctx: Ctx, projectId: number, categoryId?: number): Promise<Row[]> {
  if (categoryId !== undefined) await categories.inProject(ctx, projectId, categoryId);
  else await projects.get(ctx, projectId);
  return listPosts(ctx.store, ctx.caller, projectId, { categoryId, summary: true });
}

/** A visible post, or 404. */
export async function get(ctx: Ctx, id: number): Promise<PostRow> {
  const p = await getPost(ctx.store, ctx.caller, id);
  if (!p) throw notFound('Post');
  return full(p);
}

/** A post the caller may change: its author or an administrator (403). */
async function editable(ctx: Ctx, id: number): Promise<PostRow> {
  const p = await get(ctx, id);
  if (!ctx.caller.admin && p.author_id !== ctx.caller.id) throw forbidden('Only the author or an administrator can change this post');
  return p;
}

/** category-id: a post category of the project; milestone-id: a milestone of the project (§2.6). */
const checkReferences = (db: Queryable, ctx: Ctx, projectId: number, v: Validated, stored?: Row): Promise<void> =>
  checkRefs(db, ctx.caller, R, projectId, v, stored);

/** The references again, inside the write (a category or milestone may have gone meanwhile). */
async function recheck(w: Queryable, ctx: Ctx, projectId: number, v: Validated, stored?: Row): Promise<void> {
  const again: Validated = { values: v.values, errors: [] };
  await checkReferences(w, ctx, projectId, again, stored);
  check(again.errors);
}

export async function create(ctx: Ctx, projectId: number, input: Given<PostInput>): Promise<PostRow> {
  await projects.get(ctx, projectId);
  const v = validateInput(R, 'create', input, ctx.caller);
  await checkReferences(ctx.store, ctx, projectId, v);
  check(v.errors);
  const id = await ctx.store.write(async (w) => {
    await recheck(w, ctx, projectId, v);
    const pid = await w.insert('posts', { ...toColumns(v.values), author_id: ctx.caller.id, project_id: projectId, posted_on: w.now }, projectId);
    w.outbox?.intent('post.create', { id: pid });
    return pid;
  });
  return get(ctx, id);
}

export async function update(ctx: Ctx, id: number, input: Given<PostInput>): Promise<PostRow> {
  const p = await editable(ctx, id);
  const projectId = p.project_id;
  const v = validateInput(R, 'update', input, ctx.caller);
  await checkReferences(ctx.store, ctx, projectId, v, p);
  check(v.errors);
  if (v.values.size) {
    await ctx.store.write(async (w) => {
      await recheck(w, ctx, projectId, v, p);
      await w.update('posts', id, toColumns(v.values), projectId);
      w.outbox?.intent('post.update', { id });
    });
  }
  return get(ctx, id);
}

/** Delete a post and its comments; answers the post as it was just before. */
export async function remove(ctx: Ctx, id: number): Promise<PostRow> {
  const p = await editable(ctx, id);
  await ctx.store.write(async (w) => {
    await deleteRecord(w, 'post', id); // D321
    w.outbox?.intent('post.delete', { id });
  });
  return p;
}

export async function newTemplate(ctx: Ctx, projectId: number): Promise<Template> {
  await projects.get(ctx, projectId);
  return blankTemplate(R, ctx.caller);
}

export async function editTemplate(ctx: Ctx, id: number): Promise<Template> {
  return editForm(ctx, R, await editable(ctx, id));
}
