// Todo item operations (contract §8.9), and the helpers todo lists and milestones share:
// responsible-party checks, reorder/move bodies, contiguous renumbering (§6.2), cascades.

import { RESOURCES } from '../../shared/registry.ts';
import { givenText, toColumns, validateInput, type Given, type Validated } from '../../shared/values.ts';
import type { TodoItemInput } from '../../shared/client.ts';
import { visibleList } from '../store/queries/todo-lists.ts';
import {
  getItem, itemsInProject, itemsOfList, itemState, nextItemPosition, positionsOfList,
} from '../store/queries/todo-items.ts';
import { check, invalid, notFound, type Caller, type Ctx } from './context.ts';
import { checkReferences, recheckReferences } from './references.ts';
import { blankTemplate, editForm, type Template } from './templates.ts';
import type { Queryable, Row, Writer } from '../store/types.ts';
import type { TodoItemRow } from '../../shared/rows.ts';
import { deleteRecord } from '../store/delete-record.ts';

const R = RESOURCES.todoItem;

// ---- shared helpers ---------------------------------------------------------------------------

/**
 * Check the responsible party of validated values (§2.6): a person with access to the project,
 * or a company among the project's companies. Adds one error when it is not.
 */
export const checkParty = (db: Queryable, c: Caller, projectId: number, v: Validated, stored?: Row): Promise<void> =>
  checkReferences(db, c, R, projectId, v, stored);

/**
 * The ids of a reorder (§8.8, §8.9), as given (numbers, or the texts of a body: http/inputs.ts).
 * Repeated ids count at their first place. One that is not a positive id: 422.
 */
export function checkIds(given: readonly (number | string)[]): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  let bad = 0;
  for (const g of given) {
    const t = (givenText(g) ?? '').trim();
    if (!/^\d{1,15}$/.test(t) || Number(t) === 0) { bad++; continue; }
    const id = Number(t);
    if (!seen.has(id)) { seen.add(id); out.push(id); }
  }
  if (bad) throw invalid([`Id is invalid${bad > 1 ? ` (${bad} records)` : ''}`]);
  return out;
}

/** The position of a move (§8.8, §8.9): an integer; missing (undefined), empty or not an integer is 422. */
export function checkTo(given: number | string | undefined): number {
  if (given === undefined) throw invalid(["To can't be blank"]);
  const t = (givenText(given) ?? '').trim();
  if (t === '') throw invalid(["To can't be blank"]);
  if (!/^[+-]?\d{1,15}$/.test(t)) throw invalid(['To is not a number']);
  return Number(t);
}

/** Give the rows of `order` positions 1..n, writing only those that change. */
export async function renumber(
  w: Writer, table: string, order: readonly number[], old: ReadonlyMap<number, number>, projectId: number,
  extra: (id: number) => Row = () => ({}),
): Promise<boolean> {
  let changed = false;
  for (let k = 0; k < order.length; k++) {
    const id = order[k];
    const more = extra(id);
    if (old.get(id) !== k + 1 || Object.keys(more).length) {
      await w.update(table, id, { position: k + 1, ...more }, projectId);
      changed = true;
    }
  }
  return changed;
}

/** Close the gaps of a list's positions (after a delete or a move out). */
export async function closeListGaps(w: Writer, listId: number, projectId: number): Promise<void> {
  const rows = await positionsOfList(w, listId);
  await renumber(w, 'todo_items', rows.map((r) => r.id), new Map(rows.map((r) => [r.id, r.position])), projectId);
}

/** Move `id` to 1-based position `to` (clamped) within `order`. */
export function moveTo(order: readonly number[], id: number, to: number): number[] {
  const rest = order.filter((x) => x !== id);
  const at = Math.min(Math.max(to, 1), rest.length + 1) - 1;
  rest.splice(at, 0, id);
  return rest;
}

// ---- operations -------------------------------------------------------------------------------

/** A visible list, or 404. */
async function listOf(ctx: Ctx, listId: number): Promise<{ id: number; project_id: number }> {
  const l = await visibleList(ctx.store, ctx.caller, listId);
  if (!l) throw notFound('Todo list');
  return l;
}

export async function get(ctx: Ctx, id: number): Promise<TodoItemRow> {
  const it = await getItem(ctx.store, ctx.caller, id);
  if (!it) throw notFound('Todo item');
  return it;
}

/** An item that must be in the given list (compatibility routes, §8.13). */
export async function getInList(ctx: Ctx, listId: number, id: number): Promise<TodoItemRow> {
  await listOf(ctx, listId);
  const it = await get(ctx, id);
  if (it.todo_list_id !== listId) throw notFound('Todo item');
  return it;
}

export async function list(ctx: Ctx, listId: number): Promise<TodoItemRow[]> {
  const l = await listOf(ctx, listId);
  return itemsOfList(ctx.store, ctx.caller, listId, l.project_id);
}

export async function create(ctx: Ctx, listId: number, input: Given<TodoItemInput>): Promise<TodoItemRow> {
  const l = await listOf(ctx, listId);
  const pid = l.project_id;
  const v = validateInput(R, 'create', input, ctx.caller);
  await checkParty(ctx.store, ctx.caller, pid, v);
  check(v.errors);
  const id = await ctx.store.write(async (w) => {
    // the list may have been deleted since it was read
    if (!(await visibleList(w, ctx.caller, listId))) throw notFound('Todo list');
    await recheckReferences(w, ctx.caller, R, pid, v);
    const iid = await w.insert('todo_items', {
      ...toColumns(v.values), todo_list_id: listId, project_id: pid, position: await nextItemPosition(w, listId),
      completed: 0, creator_id: ctx.caller.id, created_at: w.now, updated_at: w.now,
    }, pid);
    w.outbox?.intent('todoItem.create', { id: iid });
    return iid;
  });
  return get(ctx, id);
}

export async function update(ctx: Ctx, id: number, input: Given<TodoItemInput>): Promise<TodoItemRow> {
  const it = await get(ctx, id);
  const pid = it.project_id;
  const v = validateInput(R, 'update', input, ctx.caller);
  await checkParty(ctx.store, ctx.caller, pid, v, it);
  check(v.errors);
  if (v.values.size) {
    await ctx.store.write(async (w) => {
      await recheckReferences(w, ctx.caller, R, pid, v);
      await w.update('todo_items', id, { ...toColumns(v.values), updated_at: w.now }, pid);
      w.outbox?.intent('todoItem.update', { id });
    });
  }
  return get(ctx, id);
}

/** Delete an item; answers it as it was (§4.6). */
export async function remove(ctx: Ctx, id: number): Promise<TodoItemRow> {
  const it = await get(ctx, id);
  const pid = it.project_id;
  await ctx.store.write(async (w) => {
    const cur = await itemState(w, id);
    if (!cur) return;
    await deleteRecord(w, 'todoItem', id); // its comments go, its time entries stay unlinked (D321)
    await closeListGaps(w, cur.todo_list_id, pid);
    w.outbox?.intent('todoItem.delete', { id });
  });
  return it;
}

export async function complete(ctx: Ctx, id: number): Promise<TodoItemRow> {
  const it = await get(ctx, id);
  await ctx.store.write(async (w) => {
    const cur = await itemState(w, id);
    if (!cur || cur.completed === 1) return;
    await w.update('todo_items', id, { completed: 1, completed_at: w.now, completer_id: ctx.caller.id, updated_at: w.now }, it.project_id);
    w.outbox?.intent('todoItem.complete', { id });
  });
  return get(ctx, id);
}

export async function uncomplete(ctx: Ctx, id: number): Promise<TodoItemRow> {
  const it = await get(ctx, id);
  await ctx.store.write(async (w) => {
    const cur = await itemState(w, id);
    if (!cur || cur.completed !== 1) return;
    await w.update('todo_items', id, { completed: 0, completed_at: null, completer_id: null, updated_at: w.now }, it.project_id);
    w.outbox?.intent('todoItem.uncomplete', { id });
  });
  return get(ctx, id);
}

/**
 * Reorder a list's items (§8.9): the listed items first, in the order given, then the list's
 * others in their old order. Items of other lists of the project move into this list.
 */
export async function reorder(ctx: Ctx, listId: number, given: readonly (number | string)[]): Promise<TodoItemRow[]> {
  const l = await listOf(ctx, listId);
  const pid = l.project_id;
  const ids = checkIds(given);
  if (ids.length) {
    await ctx.store.write(async (w) => {
      const found = await itemsInProject(w, ctx.caller, pid, ids);
      if (found.length !== ids.length) throw invalid(['Todo item is not an item of this project']);
      const from = new Map(found.map((r) => [r.id, r.todo_list_id]));
      const current = await positionsOfList(w, listId);
      const listed = new Set(ids);
      const order = [...ids, ...current.map((r) => r.id).filter((x) => !listed.has(x))];
      const old = new Map(current.map((r) => [r.id, r.position]));
      const sources = new Set<number>();
      const changed = await renumber(w, 'todo_items', order, old, pid, (id) => {
        const src = from.get(id);
        if (src === undefined || src === listId) return {};
        sources.add(src);
        return { todo_list_id: listId, updated_at: w.now };
      });
      for (const s of sources) await closeListGaps(w, s, pid);
      if (changed) w.outbox?.intent('todoItem.reorder', { listId });
      else w.touch(pid);
    });
  }
  return itemsOfList(ctx.store, ctx.caller, listId, pid);
}

/** Move an item to position `to` within its list, clamped (§8.9). */
export async function move(ctx: Ctx, id: number, to: number | string | undefined): Promise<TodoItemRow> {
  const it = await get(ctx, id);
  const position = checkTo(to);
  const pid = it.project_id;
  await ctx.store.write(async (w) => {
    const cur = await itemState(w, id);
    if (!cur) return;
    const rows = await positionsOfList(w, cur.todo_list_id);
    const order = moveTo(rows.map((r) => r.id), id, position);
    if (await renumber(w, 'todo_items', order, new Map(rows.map((r) => [r.id, r.position])), pid)) w.outbox?.intent('todoItem.move', { id });
    else w.touch(pid);
  });
  return get(ctx, id);
}

/** new.xml (§8.11): the list must be visible. */
export async function newTemplate(ctx: Ctx, listId: number): Promise<Template> {
  await listOf(ctx, listId);
  return blankTemplate(R, ctx.caller);
}

export async function editTemplate(ctx: Ctx, id: number): Promise<Template> {
  return editForm(ctx, R, await get(ctx, id));
}
