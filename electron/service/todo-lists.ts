// Todo list operations (contract §8.8): project lists with `filter` / `complete`, the
// responsible-party view, one list with its items, create, update, delete, reorder, move.

import { RESOURCES } from '../../shared/registry.ts';
import { toColumns, validateInput, type Given, type Validated } from '../../shared/values.ts';
import type { TodoListInput } from '../../shared/client.ts';
import {
  getList, listsByIds, listsOfProject, nextListPosition, positionsOfProject, visibleListIds,
} from '../store/queries/todo-lists.ts';
import { itemsOfList, itemsOfLists, openItemsOf, type PartyFilter } from '../store/queries/todo-items.ts';
import { checkReferences, recheckReferences } from './references.ts';
import { badRequest, check, invalid, notFound, type Caller, type Ctx } from './context.ts';
import * as projects from './projects.ts';
import { checkIds, checkTo, moveTo, renumber } from './todo-items.ts';
import { blankTemplate, editForm, type Template } from './templates.ts';
import type { Queryable, Row, Writer } from '../store/types.ts';
import type { TodoItemRow, TodoListRow } from '../../shared/rows.ts';
import { deleteRecord } from '../store/delete-record.ts';

const R = RESOURCES.todoList;

/** `complete` (untyped) and `completed` follow uncompleted-count (an empty list is complete). */
function finish(row: TodoListRow, items?: TodoItemRow[]): TodoListRow {
  const done = row.uncompleted_count === 0;
  row.complete = done;
  row.completed = done;
  if (items) row.todo_items = items;
  return row;
}

export type Filter = 'all' | 'pending' | 'finished';

/** `filter` of GET /projects/{id}/todo_lists.xml (§8.8): other values 400. */
export function parseFilter(v: string | undefined): Filter {
  if (v === undefined || v === '' || v === 'all') return 'all';
  if (v === 'pending' || v === 'finished') return v;
  throw badRequest(`filter must be all, pending or finished (got "${v}")`);
}

/** `responsible_party` of /todo_lists.xml: digits (person), c + digits (company), empty (unassigned). */
export function parseResponsible(v: string | undefined, callerId: number): PartyFilter {
  if (v === undefined) return { type: 'Person', id: callerId };
  const t = v.trim();
  if (t === '') return null;
  if (/^\d{1,15}$/.test(t)) return { type: 'Person', id: Number(t) };
  const m = /^c(\d{1,15})$/.exec(t);
  if (m) return { type: 'Company', id: Number(m[1]) };
  throw badRequest('responsible_party must be a person id, c followed by a company id, or empty');
}

/** A visible list, or 404. */
export async function getVisible(ctx: Ctx, id: number): Promise<TodoListRow> {
  const l = await getList(ctx.store, ctx.caller, id);
  if (!l) throw notFound('Todo list');
  return l;
}

/** `include` of GET /projects/{id}/todo_lists.xml (docs/api-extensions.md): absent, or `items`; other values 400. */
export function parseInclude(v: string | undefined): boolean {
  if (v === undefined) return false;
  if (v === 'items') return true;
  throw badRequest(`include must be items (got "${v}")`);
}

/**
 * The visible lists of a project, filtered. With `items`, each carries all its items by position, as
 * GET /todo_lists/{id}.xml answers it (the board's one request: docs/api-extensions.md).
 */
export async function list(ctx: Ctx, projectId: number, filter: Filter, items = false): Promise<TodoListRow[]> {
  await projects.get(ctx, projectId);
  let rows = (await listsOfProject(ctx.store, ctx.caller, projectId)).map((r) => finish(r));
  if (filter === 'pending') rows = rows.filter((r) => !r.complete);
  if (filter === 'finished') rows = rows.filter((r) => r.complete);
  if (items) {
    const byList = await itemsOfLists(ctx.store, ctx.caller, rows.map((r) => r.id));
    for (const r of rows) r.todo_items = byList.get(r.id)!;
  }
  return rows;
}

/** The responsible-party view (§8.8): lists with open items assigned to the party, with those items. */
export async function responsibleView(ctx: Ctx, party: PartyFilter): Promise<TodoListRow[]> {
  const items = await openItemsOf(ctx.store, ctx.caller, party);
  const byList = new Map<number, TodoItemRow[]>();
  for (const it of items) {
    const k = it.todo_list_id;
    let a = byList.get(k);
    if (!a) byList.set(k, (a = []));
    a.push(it);
  }
  const lists = await listsByIds(ctx.store, ctx.caller, [...byList.keys()]);
  return lists.map((l) => finish(l, byList.get(l.id)!));
}

/** One list with all its items, by position. */
export async function get(ctx: Ctx, id: number): Promise<TodoListRow> {
  const l = await getVisible(ctx, id);
  return finish(l, await itemsOfList(ctx.store, ctx.caller, id, l.project_id));
}

/** One list without its items (the change feed's `items=0`: each item has its own entry; D170). */
export async function getBare(ctx: Ctx, id: number): Promise<TodoListRow> {
  return finish(await getVisible(ctx, id));
}

const checkMilestone = (db: Queryable, ctx: Ctx, projectId: number, v: Validated, stored?: Row): Promise<void> =>
  checkReferences(db, ctx.caller, R, projectId, v, stored);

export async function create(ctx: Ctx, projectId: number, input: Given<TodoListInput>): Promise<TodoListRow> {
  await projects.get(ctx, projectId);
  const v = validateInput(R, 'create', input, ctx.caller);
  await checkMilestone(ctx.store, ctx, projectId, v);
  check(v.errors);
  const id = await ctx.store.write(async (w) => {
    await recheckReferences(w, ctx.caller, R, projectId, v);
    const lid = await w.insert('todo_lists', { ...toColumns(v.values), project_id: projectId, position: await nextListPosition(w, projectId) }, projectId);
    w.outbox?.intent('todoList.create', { id: lid });
    return lid;
  });
  return finish(await getVisible(ctx, id));
}

export async function update(ctx: Ctx, id: number, input: Given<TodoListInput>): Promise<TodoListRow> {
  const l = await getVisible(ctx, id);
  const pid = l.project_id;
  const v = validateInput(R, 'update', input, ctx.caller);
  await checkMilestone(ctx.store, ctx, pid, v, l);
  check(v.errors);
  if (v.values.size) {
    await ctx.store.write(async (w) => {
      await recheckReferences(w, ctx.caller, R, pid, v);
      await w.update('todo_lists', id, toColumns(v.values), pid);
      w.outbox?.intent('todoList.update', { id });
    });
  }
  return finish(await getVisible(ctx, id));
}

/** Delete a list with its items (their comments go, their time entries stay unlinked). Answers it as it was, with its items. */
export async function remove(ctx: Ctx, id: number): Promise<TodoListRow> {
  const before = await get(ctx, id);
  const pid = before.project_id;
  await ctx.store.write(async (w) => {
    await deleteRecord(w, 'todoList', id); // D321
    w.outbox?.intent('todoList.delete', { id });
    const rows = await positionsOfProject(w, pid);
    await renumber(w, 'todo_lists', rows.map((r) => r.id), new Map(rows.map((r) => [r.id, r.position])), pid);
  });
  return before;
}

/**
 * The project's order after the caller re-ordered the lists it sees: the caller's lists take, in their
 * new order, the places its lists held; lists hidden from the caller keep their places (D31). For firm
 * people every list is visible and this is `visibleOrder` itself.
 */
export function placeVisible(all: readonly number[], visibleBefore: readonly number[], visibleOrder: readonly number[]): number[] {
  const shown = new Set(visibleBefore);
  let k = 0;
  return all.map((id) => (shown.has(id) ? visibleOrder[k++] : id));
}

/** Renumber a project's lists so that the caller's lists are in `visibleOrder`; false when no position changed. */
async function reposition(w: Writer, caller: Caller, projectId: number, order: (visible: number[]) => number[]): Promise<boolean> {
  const rows = await positionsOfProject(w, projectId);
  const visible = await visibleListIds(w, caller, projectId);
  const next = placeVisible(rows.map((r) => r.id), visible, order(visible));
  if (await renumber(w, 'todo_lists', next, new Map(rows.map((r) => [r.id, r.position])), projectId)) return true;
  w.touch(projectId);
  return false;
}

/**
 * Reorder the lists of a project (§8.8) in the caller's terms: the listed lists take the caller's
 * positions 1..k, the caller's other lists follow; answers all visible lists in the new order.
 */
export async function reorder(ctx: Ctx, projectId: number, given: readonly (number | string)[]): Promise<TodoListRow[]> {
  await projects.get(ctx, projectId);
  const ids = checkIds(given);
  if (ids.length) {
    await ctx.store.write(async (w) => {
      const moved = await reposition(w, ctx.caller, projectId, (visible) => {
        const shown = new Set(visible);
        if (ids.some((x) => !shown.has(x))) throw invalid(['Todo list is not a list of this project']);
        const listed = new Set(ids);
        return [...ids, ...visible.filter((x) => !listed.has(x))];
      });
      if (moved) w.outbox?.intent('todoList.reorder', { projectId });
    });
  }
  return list(ctx, projectId, 'all');
}

/** Move a list to position `to` of the lists the caller sees (clamped to 1..their number) (§8.8). */
export async function move(ctx: Ctx, id: number, to: number | string | undefined): Promise<TodoListRow> {
  const l = await getVisible(ctx, id);
  const position = checkTo(to);
  const pid = l.project_id;
  await ctx.store.write(async (w) => {
    if (await reposition(w, ctx.caller, pid, (visible) => moveTo(visible, id, position))) w.outbox?.intent('todoList.move', { id });
  });
  return finish(await getVisible(ctx, id));
}

export async function newTemplate(ctx: Ctx, projectId: number): Promise<Template> {
  await projects.get(ctx, projectId);
  return blankTemplate(R, ctx.caller);
}

export async function editTemplate(ctx: Ctx, id: number): Promise<Template> {
  return editForm(ctx, R, await getVisible(ctx, id));
}
