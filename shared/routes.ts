// The record routes of each resource (contract §8), written once (issue #30, D322): where a record is
// created and listed under its parent, and how one record is read, updated and deleted. The API client
// (shared/client.ts, `.json`) and sync's push planner (shared/sync/plan.ts, `.xml`) build their paths
// here; tests/electron/store/delete-record.test.ts checks that the server answers every one of them.
//
// Pure: no Node, no DOM. Ids may be numbers, or `:name` placeholders for a route pattern.

import { commentParent, RESOURCES, type ResourceKey } from './registry.ts';

/** `''`: the action style's paths without an extension (§2.1). */
export type Ext = '.xml' | '.json' | '';
type Id = number | string;
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RecordRoutes {
  /**
   * The collection a record is created in (POST) under its parent: a project, a to-do list, or a
   * comment's record (`parentType`, its `commentable_type`). Milestones are created at `…/milestones/create`.
   */
  create(parent: Id, ext: Ext, parentType?: string): string;
  /** Where the records under that parent are listed (GET). */
  list(parent: Id, ext: Ext, parentType?: string): string;
  /** One record (GET); milestones have none (§8.7). */
  show?(id: Id, ext: Ext): string;
  update(id: Id, ext: Ext): { method: Method; path: string };
  /** None for projects: they are archived, never deleted (§8.3). */
  remove?(id: Id, ext: Ext): { method: Method; path: string };
}

/** `/table/id.ext`: a record in the REST style (§2.1). */
const rest = (table: string): Required<Pick<RecordRoutes, 'show' | 'update' | 'remove'>> => ({
  show: (id, ext) => `/${table}/${id}${ext}`,
  update: (id, ext) => ({ method: 'PUT', path: `/${table}/${id}${ext}` }),
  remove: (id, ext) => ({ method: 'DELETE', path: `/${table}/${id}${ext}` }),
});

/** A collection under the project (`/projects/3/posts.xml`). */
const inProject = (table: string) => (p: Id, ext: Ext) => `/projects/${p}/${table}${ext}`;

/** A comment's parent path word is its table (`/todo_items/3/comments.xml`, §8.6); undefined for an unknown type. */
export function commentsOf(parentType: unknown, parent: Id, ext: Ext): string | undefined {
  const res = commentParent(parentType);
  return res ? `/${RESOURCES[res].table}/${parent}/comments${ext}` : undefined;
}
const comments = (p: Id, ext: Ext, type?: string) => {
  const path = commentsOf(type, p, ext);
  if (!path) throw new Error(`no comments on ${String(type)}`);
  return path;
};

/** The resources written through record routes: all but people and companies (their own admin routes). */
export type RoutedKey = Exclude<ResourceKey, 'company' | 'person'>;

export const ROUTES = {
  project: { create: (_p, ext) => `/projects${ext}`, list: (_p, ext) => `/projects${ext}`, show: rest('projects').show, update: rest('projects').update },
  category: { create: inProject('categories'), list: inProject('categories'), ...rest('categories') },
  post: { create: inProject('posts'), list: inProject('posts'), ...rest('posts') },
  comment: { create: comments, list: comments, ...rest('comments') },
  // The action style only (§8.7): no extension on create, update and delete.
  milestone: {
    create: (p) => `/projects/${p}/milestones/create`,
    list: (p, ext) => `/projects/${p}/milestones/list${ext}`,
    update: (id) => ({ method: 'POST', path: `/milestones/update/${id}` }),
    remove: (id) => ({ method: 'POST', path: `/milestones/delete/${id}` }),
  },
  todoList: { create: inProject('todo_lists'), list: inProject('todo_lists'), ...rest('todo_lists') },
  todoItem: { create: (l, ext) => `/todo_lists/${l}/todo_items${ext}`, list: (l, ext) => `/todo_lists/${l}/todo_items${ext}`, ...rest('todo_items') },
  timeEntry: { create: inProject('time_entries'), list: inProject('time_entries'), ...rest('time_entries') },
} as const satisfies Readonly<Record<RoutedKey, RecordRoutes>>;

/** The routes of a resource's records, or null (people and companies are not written through sync). */
export const routesOf = (res: ResourceKey): RecordRoutes | null => (res === 'company' || res === 'person' ? null : ROUTES[res]);
