// SQL fragments several resources share: people's names, responsible-party names and the
// visible-comment columns of a parent (posts, milestones, todo items).

import type { Caller } from '../types.ts';
import { notPrivate } from './access.ts';

export type CommentableType = 'Post' | 'Milestone' | 'TodoItem';

/** Full name of the person whose id is in `col` (nil when none). */
export const personName = (col: string): string =>
  `(SELECT pn.first_name || ' ' || pn.last_name FROM people pn WHERE pn.id = ${col})`;

/** Name of the responsible party of the row with alias `a` (person's full name or company name). */
export const partyName = (a: string): string => `CASE
  WHEN ${a}.responsible_party_type = 'Person' THEN ${personName(`${a}.responsible_party_id`)}
  WHEN ${a}.responsible_party_type = 'Company' THEN (SELECT pc.name FROM companies pc WHERE pc.id = ${a}.responsible_party_id)
  END`;

/** `comments-count` of a parent whose id column is `idCol`: visible comments only (§5.2). */
export const commentsCountSql = (type: CommentableType, idCol: string, c: Caller): string =>
  `(SELECT COUNT(*) FROM comments cm WHERE cm.commentable_type = '${type}' AND cm.commentable_id = ${idCol} AND ${notPrivate('cm.private', c)})`;

/** `commented-at` of a parent: creation time of its newest visible comment, or NULL. */
export const commentedAtSql = (type: CommentableType, idCol: string, c: Caller): string =>
  `(SELECT MAX(cm.created_at) FROM comments cm WHERE cm.commentable_type = '${type}' AND cm.commentable_id = ${idCol} AND ${notPrivate('cm.private', c)})`;

/** Both comment columns, aliased `comments_count` and `commented_at`. Index-only (comments_parent). */
export const commentColumns = (type: CommentableType, idCol: string, c: Caller): string =>
  `${commentsCountSql(type, idCol, c)} AS comments_count, ${commentedAtSql(type, idCol, c)} AS commented_at`;
