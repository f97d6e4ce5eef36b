// The records the services answer (issue #30, D324): a record as the store's queries read it, before the
// out codec (shared/codec/out.ts) renders it through the registry. Stored columns keep their snake_case
// names and stored forms (integers for booleans: `completed` is 0 or 1, on SQLite and PostgreSQL alike;
// ids and counts are numbers on both engines, electron/store/postgres.ts); computed columns sit beside them.
// The columns the services and their callers read are named with their types (each one is selected by
// every query that answers that record: tests/electron/service/typed-services.test.ts checks them); the others pass
// through the index signature to the codec. The wire forms are shared/client.ts `Records`.

import type { ProjectStatus } from './client.ts';

/** A record of a resource's table: its id, then its columns. */
export interface RecordRow { id: number; [column: string]: unknown }

export interface ProjectRow extends RecordRow {
  name: string; status: ProjectStatus; company_id: number; created_on: string; last_changed_on: string;
}

export interface CategoryRow extends RecordRow { project_id: number; name: string; type: 'post' | 'attachment'; elements_count: number }

export interface PostRow extends RecordRow {
  project_id: number; author_id: number; title: string; body: string | null; extended_body: string | null;
  category_id: number | null; milestone_id: number | null; use_textile: number; private: number; posted_on: string;
}

export interface CommentRow extends RecordRow {
  project_id: number; author_id: number; body: string; private: number; created_at: string;
  commentable_type: 'Post' | 'Milestone' | 'TodoItem'; commentable_id: number;
}

export interface MilestoneRow extends RecordRow {
  project_id: number; title: string; deadline: string; completed: number; private: number; creator_id: number;
}

export interface TodoItemRow extends RecordRow {
  project_id: number; todo_list_id: number; content: string; position: number; completed: number; creator_id: number;
}

export interface TodoListRow extends RecordRow {
  project_id: number; name: string; position: number; private: number; completed_count: number; uncompleted_count: number;
  /** Set by the service (`complete` and `completed`: no open item), and `todo_items` when it answers the items. */
  complete?: boolean; completed?: boolean; todo_items?: TodoItemRow[];
}

export interface TimeEntryRow extends RecordRow {
  project_id: number; person_id: number; date: string; hours: number; description: string; todo_item_id: number | null; private: number;
}

/** The columns named above, per table, at run time (the test checks the queries answer them). */
export const ROW_COLUMNS = {
  projects: ['id', 'name', 'status', 'company_id', 'created_on', 'last_changed_on'],
  categories: ['id', 'project_id', 'name', 'type', 'elements_count'],
  posts: ['id', 'project_id', 'author_id', 'title', 'body', 'extended_body', 'category_id', 'milestone_id', 'use_textile', 'private', 'posted_on'],
  comments: ['id', 'project_id', 'author_id', 'body', 'private', 'created_at', 'commentable_type', 'commentable_id'],
  milestones: ['id', 'project_id', 'title', 'deadline', 'completed', 'private', 'creator_id'],
  todo_items: ['id', 'project_id', 'todo_list_id', 'content', 'position', 'completed', 'creator_id'],
  todo_lists: ['id', 'project_id', 'name', 'position', 'private', 'completed_count', 'uncompleted_count'],
  time_entries: ['id', 'project_id', 'person_id', 'date', 'hours', 'description', 'todo_item_id', 'private'],
} as const satisfies Record<string, readonly string[]>;
