// Comment operations (contract §8.6): comments on posts, milestones and todo items.
// Visibility per §5.2 (clients never see private comments nor comments of private parents);
// update/delete/edit.xml: the author or an administrator (§5.5). Pagination per §6.3.

import { COMMENT_PARENTS, COMMENTABLE_TYPES, RESOURCES } from '../../shared/registry.ts';
import { toColumns, validateInput, type Given } from '../../shared/values.ts';
import type { CommentInput } from '../../shared/client.ts';
import {
  countComments, getComment, getParent, isCommentOf, listComments, type CommentableType,
} from '../store/queries/comments.ts';
import { withCommentStats } from '../store/queries/fragments.ts';
import { badRequest, check, forbidden, notFound, type Ctx } from './context.ts';
import { blankTemplate, editForm, type Template } from './templates.ts';
import type { Row } from '../store/types.ts';
import type { CommentRow } from '../../shared/rows.ts';
import { deleteRecord } from '../store/delete-record.ts';

const R = RESOURCES.comment;
export const PAGE = 50;

/** The `{kind}` path words (§8.6): each comment parent's table, and the parent type it names (the registry's, D320). */
export const KINDS: Readonly<Record<string, CommentableType>> = Object.fromEntries(COMMENTABLE_TYPES.map((t) => [RESOURCES[COMMENT_PARENTS[t]].table, t]));
export type Kind = string;

export interface Page { readonly rows: Row[]; readonly count: number; readonly continuedAt?: string }

const NAMES: Record<CommentableType, string> = { Post: 'Post', Milestone: 'Milestone', TodoItem: 'Todo item' };

async function parent(ctx: Ctx, type: CommentableType, id: number): Promise<{ id: number; project_id: number }> {
  const p = await getParent(ctx.store, ctx.caller, type, id);
  if (!p) throw notFound(NAMES[type]);
  return p;
}

const digits = (s: string): boolean => /^\d{1,16}$/.test(s) && Number(s) > 0 && Number(s) <= Number.MAX_SAFE_INTEGER;

/** `GET /{kind}/{id}/comments.xml`: the 50 most recent visible comments (older than `threshold`), oldest first. */
export async function page(ctx: Ctx, kind: Kind, parentId: number, threshold: string | undefined): Promise<Page> {
  if (threshold !== undefined && !/^\d+$/.test(threshold)) throw badRequest('threshold must be a comment id');
  const type = KINDS[kind];
  const p = await parent(ctx, type, parentId);
  let before: number | undefined;
  if (threshold !== undefined) {
    before = Number(threshold);
    if (!digits(threshold) || !(await isCommentOf(ctx.store, ctx.caller, type, parentId, before))) throw notFound('Comment');
  }
  const rows = await listComments(ctx.store, ctx.caller, type, parentId, { limit: PAGE, before });
  // The parent's visible comments, as its comments-count (kept per project by the store, D185).
  const [stats] = await withCommentStats<Row>(ctx.store, ctx.caller, type, [{ id: p.id, project_id: p.project_id }]);
  const count = Number(stats.comments_count);
  const oldest = rows.length ? rows[0].id : undefined;
  // Without a threshold the page holds the newest comments: older ones exist when there are more.
  const older = oldest !== undefined && (before === undefined ? count > rows.length
    : (await countComments(ctx.store, ctx.caller, type, parentId, oldest)) > 0);
  return { rows, count, continuedAt: older ? `/${kind}/${parentId}/comments.xml?threshold=${oldest}` : undefined };
}

/** `/msg/comments/{id}`: every visible comment of a visible post, oldest first. */
export async function ofPost(ctx: Ctx, postId: number): Promise<CommentRow[]> {
  await parent(ctx, 'Post', postId);
  return listComments(ctx.store, ctx.caller, 'Post', postId);
}

/** A visible comment, or 404. */
export async function get(ctx: Ctx, id: number): Promise<CommentRow> {
  const c = await getComment(ctx.store, ctx.caller, id);
  if (!c) throw notFound('Comment');
  return c;
}

/** A comment the caller may change: the author or an administrator (403). */
async function editable(ctx: Ctx, id: number): Promise<CommentRow> {
  const c = await get(ctx, id);
  if (!ctx.caller.admin && c.author_id !== ctx.caller.id) throw forbidden('Only the author or an administrator can change this comment');
  return c;
}

export async function create(ctx: Ctx, type: CommentableType, parentId: number, input: Given<CommentInput>): Promise<CommentRow> {
  const p = await parent(ctx, type, parentId);
  const v = validateInput(R, 'create', input, ctx.caller);
  check(v.errors);
  const id = await ctx.store.write(async (w) => {
    // the parent may have been deleted since it was read
    if (!(await getParent(w, ctx.caller, type, parentId))) throw notFound(NAMES[type]);
    const cid = await w.insert('comments', {
      ...toColumns(v.values), author_id: ctx.caller.id, commentable_type: type, commentable_id: parentId,
      created_at: w.now, project_id: p.project_id,
    }, p.project_id);
    w.outbox?.intent('comment.create', { id: cid });
    return cid;
  });
  return get(ctx, id);
}

export async function update(ctx: Ctx, id: number, input: Given<CommentInput>): Promise<CommentRow> {
  const c = await editable(ctx, id);
  const v = validateInput(R, 'update', input, ctx.caller);
  check(v.errors);
  if (v.values.size) {
    await ctx.store.write(async (w) => {
      await w.update('comments', id, toColumns(v.values), c.project_id);
      w.outbox?.intent('comment.update', { id });
    });
  }
  return get(ctx, id);
}

/** Delete a comment; answers it as it was just before. */
export async function remove(ctx: Ctx, id: number): Promise<CommentRow> {
  const c = await editable(ctx, id);
  await ctx.store.write(async (w) => {
    await deleteRecord(w, 'comment', id);
    w.outbox?.intent('comment.delete', { id });
  });
  return c;
}

export async function newTemplate(ctx: Ctx, type: CommentableType, parentId: number): Promise<Template> {
  await parent(ctx, type, parentId);
  return blankTemplate(R, ctx.caller);
}

export async function editTemplate(ctx: Ctx, id: number): Promise<Template> {
  return editForm(ctx, R, await editable(ctx, id));
}
