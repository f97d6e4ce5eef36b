// Todo list operations (contract §8.8): project lists with `filter` / `complete`, the
// responsible-party view, one list with its items, create, update, delete, reorder, move.

import { RESOURCES } from '../../shared/registry.ts';
import { child, recordElement, type XNode } from '../../shared/codec/in.ts';
import { toColumns, validate, type Validated } from '../../shared/values.ts';
import {
  getList, listsByIds, listsOfProject, nextListPosition, positionsOfProject, visibleListIds,
} from '../store/queries/todo-lists.ts';
import { itemsOfList, itemsOfLists, openItemsOf, type PartyFilter } from '../store/queries/todo-items.ts';
import { checkReferences, recheckReferences } from './references.ts';
import { badRequest, check, invalid, notFound, type Caller, type Ctx } from './context.ts';
import * as projects from './projects.ts';
import { moveTo, readIds, readTo, renumber } from './todo-items.ts';
import { blankTemplate, editForm, type Template } from './templates.ts';
import type { Queryable, Row, Writer } from '../store/types.ts';
import { deleteRecord } from '../store/delete-record.ts';

const R = RESOURCES.todoList;

/** `complete` (untyped) and `completed` follow uncompleted-count (an empty list is complete). */
function finish(row: Row, items?: Row[]): Row {
  const done = Number(row.uncompleted_count) === 0;
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

/** The `complete` selector of /projects/{id}/todos/lists: body `<request>`, else the query. */
export function completeSelector(root: XNode | null, query: string | undefined): Filter {
  const node = child(root, 'complete');
  const raw = node ? (node.nil ? '' : node.text.trim()) : (query ?? '').trim();
  const t = raw.toLowerCase();
  if (t === '') return 'all';
  if (t === 'true' || t === '1') return 'finished';
  if (t === 'false' || t === '0') return 'pending';
  throw badRequest(`complete must be true, false, 1 or 0 (got "${raw}")`);
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
export async function getVisible(ctx: Ctx, id: number): Promise<Row> {
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
export async function list(ctx: Ctx, projectId: number, filter: Filter, items = false): Promise<Row[]> {
  await projects.get(ctx, projectId);
  let rows = (await listsOfProject(ctx.store, ctx.caller, projectId)).map((r) => finish(r));
  if (filter === 'pending') rows = rows.filter((r) => !r.complete);
  if (filter === 'finished') rows = rows.filter((r) => r.complete);
  if (items) {
    const byList = await itemsOfLists(ctx.store, ctx.caller, rows.map((r) => Number(r.id)));
    for (const r of rows) r.todo_items = byList.get(Number(r.id))!;
  }
  return rows;
}

/** The responsible-party view (§8.8): lists with open items assigned to the party, with those items. */
export async function responsibleView(ctx: Ctx, party: PartyFilter): Promise<Row[]> {
  const items = await openItemsOf(ctx.store, ctx.caller, party);
  const byList = new Map<number, Row[]>();
  for (const it of items) {
    const k = Number(it.todo_list_id);
    let a = byList.get(k);
    if (!a) byList.set(k, (a = []));
    a.push(it);
  }
  const lists = await listsByIds(ctx.store, ctx.caller, [...byList.keys()]);
  return lists.map((l) => finish(l, byList.get(Number(l.id))!));
}

/** One list with all its items, by position. */
export async function get(ctx: Ctx, id: number): Promise<Row> {
  const l = await getVisible(ctx, id);
  return finish(l, await itemsOfList(ctx.store, ctx.caller, id, Number(l.project_id)));
}

/** One list without its items (the change feed's `items=0`: each item has its own entry; D170). */
export async function getBare(ctx: Ctx, id: number): Promise<Row> {
  return finish(await getVisible(ctx, id));
}

const checkMilestone = (db: Queryable, ctx: Ctx, projectId: number, v: Validated, stored?: Row): Promise<void> =>
  checkReferences(db, ctx.caller, R, projectId, v, stored);

export async function create(ctx: Ctx, projectId: number, root: XNode | null): Promise<Row> {
  await projects.get(ctx, projectId);
  const v = validate(R, 'create', root, recordElement(root, R.recordNames), ctx.caller);
  await checkMilestone(ctx.store, ctx, projectId, v);
  check(v.errors);
  const id = await ctx.store.write(async (w) => {
    await recheckReferences(w, ctx.caller, R, projectId, v);
    return w.insert('todo_lists', { ...toColumns(v.values), project_id: projectId, position: await nextListPosition(w, projectId) }, projectId);
  });
  return finish(await getVisible(ctx, id));
}

export async function update(ctx: Ctx, id: number, root: XNode | null): Promise<Row> {
  const l = await getVisible(ctx, id);
  const pid = Number(l.project_id);
  const v = validate(R, 'update', root, recordElement(root, R.recordNames), ctx.caller);
  await checkMilestone(ctx.store, ctx, pid, v, l);
  check(v.errors);
  if (v.values.size) {
    await ctx.store.write(async (w) => {
      await recheckReferences(w, ctx.caller, R, pid, v);
      await w.update('todo_lists', id, toColumns(v.values), pid);
    });
  }
  return finish(await getVisible(ctx, id));
}

/** Delete a list with its items (their comments go, their time entries stay unlinked). Answers it as it was, with its items. */
export async function remove(ctx: Ctx, id: number): Promise<Row> {
  const before = await get(ctx, id);
  const pid = Number(before.project_id);
  await ctx.store.write(async (w) => {
    await deleteRecord(w, 'todoList', id); // D321
    const rows = await positionsOfProject(w, pid);
    await renumber(w, 'todo_lists', rows.map((r) => Number(r.id)), new Map(rows.map((r) => [Number(r.id), Number(r.position)])), pid);
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

/** Renumber a project's lists so that the caller's lists are in `visibleOrder`. */
async function reposition(w: Writer, caller: Caller, projectId: number, order: (visible: number[]) => number[]): Promise<void> {
  const rows = await positionsOfProject(w, projectId);
  const visible = await visibleListIds(w, caller, projectId);
  const next = placeVisible(rows.map((r) => Number(r.id)), visible, order(visible));
  if (!await renumber(w, 'todo_lists', next, new Map(rows.map((r) => [Number(r.id), Number(r.position)])), projectId)) w.touch(projectId);
}

/**
 * Reorder the lists of a project (§8.8) in the caller's terms: the listed lists take the caller's
 * positions 1..k, the caller's other lists follow; answers all visible lists in the new order.
 */
export async function reorder(ctx: Ctx, projectId: number, root: XNode | null): Promise<Row[]> {
  await projects.get(ctx, projectId);
  const ids = readIds(root, 'todo-lists');
  if (ids.length) {
    await ctx.store.write((w) => reposition(w, ctx.caller, projectId, (visible) => {
      const shown = new Set(visible);
      if (ids.some((x) => !shown.has(x))) throw invalid(['Todo list is not a list of this project']);
      const listed = new Set(ids);
      return [...ids, ...visible.filter((x) => !listed.has(x))];
    }));
  }
  return list(ctx, projectId, 'all');
}

/** Move a list to position `to` of the lists the caller sees (clamped to 1..their number) (§8.8). */
export async function move(ctx: Ctx, id: number, root: XNode | null): Promise<Row> {
  const l = await getVisible(ctx, id);
  const to = readTo(root);
  const pid = Number(l.project_id);
  await ctx.store.write((w) => reposition(w, ctx.caller, pid, (visible) => moveTo(visible, id, to)));
  return finish(await getVisible(ctx, id));
}

export async function newTemplate(ctx: Ctx, projectId: number): Promise<Template> {
  await projects.get(ctx, projectId);
  return blankTemplate(R, ctx.caller);
}

export async function editTemplate(ctx: Ctx, id: number): Promise<Template> {
  return editForm(ctx, R, await getVisible(ctx, id));
}
