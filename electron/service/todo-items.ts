// Todo item operations (contract §8.9), and the helpers todo lists and milestones share:
// responsible-party checks, reorder/move bodies, contiguous renumbering (§6.2), cascades.

import { RESOURCES } from '../../shared/registry.ts';
import { child, recordElement, type XNode } from '../../shared/codec/in.ts';
import { toColumns, validate, type Validated } from '../../shared/values.ts';
import { visibleList } from '../store/queries/todo-lists.ts';
import {
  getItem, itemsInProject, itemsOfList, itemState, nextItemPosition, positionsOfList,
} from '../store/queries/todo-items.ts';
import { check, invalid, notFound, type Caller, type Ctx } from './context.ts';
import { checkReferences, recheckReferences } from './references.ts';
import { blankTemplate, editForm, type Template } from './templates.ts';
import type { Queryable, Row, Writer } from '../store/types.ts';
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
 * The ids of a reorder body (§8.8, §8.9): `<todo-lists type="array"><todo-list><id>…`, the same
 * inside `<request>`, or a JSON array of `{id}`. Repeated ids count at their first place.
 * A record without a well-formed id: 422.
 */
export function readIds(root: XNode | null, collection: string): number[] {
  if (!root) return [];
  let container = root;
  if (root.name === 'request') {
    const inner = root.children.filter((c) => c.name === collection);
    if (inner.length === 1 && !child(inner[0], 'id')) container = inner[0];
  }
  const out: number[] = [];
  const seen = new Set<number>();
  let bad = 0;
  for (const rec of container.children) {
    const node = rec.children.length ? child(rec, 'id') : rec;
    const t = node && !node.children.length ? node.text.trim() : '';
    if (!/^\d{1,15}$/.test(t) || Number(t) === 0) { bad++; continue; }
    const id = Number(t);
    if (!seen.has(id)) { seen.add(id); out.push(id); }
  }
  if (bad) throw invalid([`Id is invalid${bad > 1 ? ` (${bad} records)` : ''}`]);
  return out;
}

/** `<request><to>N</to></request>` (§8.8, §8.9): an integer; missing or not an integer is 422. */
export function readTo(root: XNode | null): number {
  const node = root ? (child(root, 'to') ?? (root.name === 'to' ? root : undefined)) : undefined;
  if (!node) throw invalid(["To can't be blank"]);
  const t = node.nil || node.children.length ? '' : node.text.trim();
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
  await renumber(w, 'todo_items', rows.map((r) => Number(r.id)), new Map(rows.map((r) => [Number(r.id), Number(r.position)])), projectId);
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

export async function get(ctx: Ctx, id: number): Promise<Row> {
  const it = await getItem(ctx.store, ctx.caller, id);
  if (!it) throw notFound('Todo item');
  return it;
}

/** An item that must be in the given list (compatibility routes, §8.13). */
export async function getInList(ctx: Ctx, listId: number, id: number): Promise<Row> {
  await listOf(ctx, listId);
  const it = await get(ctx, id);
  if (Number(it.todo_list_id) !== listId) throw notFound('Todo item');
  return it;
}

export async function list(ctx: Ctx, listId: number): Promise<Row[]> {
  const l = await listOf(ctx, listId);
  return itemsOfList(ctx.store, ctx.caller, listId, Number(l.project_id));
}

export async function create(ctx: Ctx, listId: number, root: XNode | null): Promise<Row> {
  const l = await listOf(ctx, listId);
  const pid = Number(l.project_id);
  const v = validate(R, 'create', root, recordElement(root, R.recordNames), ctx.caller);
  await checkParty(ctx.store, ctx.caller, pid, v);
  check(v.errors);
  const id = await ctx.store.write(async (w) => {
    // the list may have been deleted since it was read
    if (!(await visibleList(w, ctx.caller, listId))) throw notFound('Todo list');
    await recheckReferences(w, ctx.caller, R, pid, v);
    return w.insert('todo_items', {
    ...toColumns(v.values), todo_list_id: listId, project_id: pid, position: await nextItemPosition(w, listId),
    completed: 0, creator_id: ctx.caller.id, created_at: w.now, updated_at: w.now,
    }, pid);
  });
  return get(ctx, id);
}

export async function update(ctx: Ctx, id: number, root: XNode | null): Promise<Row> {
  const it = await get(ctx, id);
  const pid = Number(it.project_id);
  const v = validate(R, 'update', root, recordElement(root, R.recordNames), ctx.caller);
  await checkParty(ctx.store, ctx.caller, pid, v, it);
  check(v.errors);
  if (v.values.size) {
    await ctx.store.write(async (w) => {
      await recheckReferences(w, ctx.caller, R, pid, v);
      await w.update('todo_items', id, { ...toColumns(v.values), updated_at: w.now }, pid);
    });
  }
  return get(ctx, id);
}

/** Delete an item; answers it as it was (§4.6). */
export async function remove(ctx: Ctx, id: number): Promise<Row> {
  const it = await get(ctx, id);
  const pid = Number(it.project_id);
  await ctx.store.write(async (w) => {
    const cur = await itemState(w, id);
    if (!cur) return;
    await deleteRecord(w, 'todoItem', id); // its comments go, its time entries stay unlinked (D321)
    await closeListGaps(w, Number(cur.todo_list_id), pid);
  });
  return it;
}

export async function complete(ctx: Ctx, id: number): Promise<Row> {
  const it = await get(ctx, id);
  await ctx.store.write(async (w) => {
    const cur = await itemState(w, id);
    if (!cur || Number(cur.completed) === 1) return;
    await w.update('todo_items', id, { completed: 1, completed_at: w.now, completer_id: ctx.caller.id, updated_at: w.now }, Number(it.project_id));
  });
  return get(ctx, id);
}

export async function uncomplete(ctx: Ctx, id: number): Promise<Row> {
  const it = await get(ctx, id);
  await ctx.store.write(async (w) => {
    const cur = await itemState(w, id);
    if (!cur || Number(cur.completed) !== 1) return;
    await w.update('todo_items', id, { completed: 0, completed_at: null, completer_id: null, updated_at: w.now }, Number(it.project_id));
  });
  return get(ctx, id);
}

/**
 * Reorder a list's items (§8.9): the listed items first, in the order given, then the list's
 * others in their old order. Items of other lists of the project move into this list.
 */
export async function reorder(ctx: Ctx, listId: number, root: XNode | null): Promise<Row[]> {
  const l = await listOf(ctx, listId);
  const pid = Number(l.project_id);
  const ids = readIds(root, 'todo-items');
  if (ids.length) {
    await ctx.store.write(async (w) => {
      const found = await itemsInProject(w, ctx.caller, pid, ids);
      if (found.length !== ids.length) throw invalid(['Todo item is not an item of this project']);
      const from = new Map(found.map((r) => [Number(r.id), Number(r.todo_list_id)]));
      const current = await positionsOfList(w, listId);
      const listed = new Set(ids);
      const order = [...ids, ...current.map((r) => Number(r.id)).filter((x) => !listed.has(x))];
      const old = new Map(current.map((r) => [Number(r.id), Number(r.position)]));
      const sources = new Set<number>();
      const changed = await renumber(w, 'todo_items', order, old, pid, (id) => {
        const src = from.get(id);
        if (src === undefined || src === listId) return {};
        sources.add(src);
        return { todo_list_id: listId, updated_at: w.now };
      });
      for (const s of sources) await closeListGaps(w, s, pid);
      if (!changed) w.touch(pid);
    });
  }
  return itemsOfList(ctx.store, ctx.caller, listId, pid);
}

/** Move an item to position `to` within its list, clamped (§8.9). */
export async function move(ctx: Ctx, id: number, root: XNode | null): Promise<Row> {
  const it = await get(ctx, id);
  const to = readTo(root);
  const pid = Number(it.project_id);
  await ctx.store.write(async (w) => {
    const cur = await itemState(w, id);
    if (!cur) return;
    const rows = await positionsOfList(w, Number(cur.todo_list_id));
    const order = moveTo(rows.map((r) => Number(r.id)), id, to);
    if (!await renumber(w, 'todo_items', order, new Map(rows.map((r) => [Number(r.id), Number(r.position)])), pid)) w.touch(pid);
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
