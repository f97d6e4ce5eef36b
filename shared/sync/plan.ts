// Push planning (issue #8): the requests that replay a local action on ANY server of the interface,
// through the public XML routes, with every id rewritten to the remote's. Pure. The step helpers
// (createStep, updateStep, completionStep, deleteStep, reorderStep) serve the intent planners
// (shared/sync/intents/, D336); `planAction` plans an outbox entry WITHOUT intents (written before them,
// or adopted on connect: D337) from its row changes alone, by these rules, in order:
//  - an action that deletes records replays only its principal delete (the record highest in the
//    hierarchy: a post, not the comments its delete cascaded to; gap closing is the server's job);
//  - inserts become creates, parents before children (the order they were written, which is the
//    order of the registry's tables within one action);
//  - updates send only the writable fields the action wrote; `completed` becomes complete/uncomplete;
//    `position`/`todo_list_id` changes become ONE reorder of each parent that changed (its current order).

import { column, RESOURCES, TABLE_ORDER, writableFields, type Resource, type ResourceKey } from '../registry.ts';
import { commentsOf, routesOf } from '../routes.ts';
import { rewriteIds, type IdLookup } from './ids.ts';
import { element, recordBody, reorderBody, resourceOfTable, type Value, type WireRow } from './wire.ts';

export interface RowChange {
  readonly t: string;
  readonly id: number;
  readonly op: 'insert' | 'update' | 'delete';
  readonly v?: WireRow;
}

export type StepKind = 'create' | 'update' | 'complete' | 'uncomplete' | 'delete' | 'reorder';

export interface Step {
  readonly kind: StepKind;
  readonly resource: ResourceKey;
  /** The local record it acts on (the parent for a reorder). */
  readonly localId: number;
  readonly method: 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly body: string | null;
  /**
   * Creates only: where an earlier create that succeeded would show (a plain server has no
   * idempotency keys: a lost response after the remote committed is found here before re-creating),
   * and the values (remote ids) it would carry.
   */
  readonly find?: { readonly path: string; readonly values: WireRow };
}

/** What the planner may read of the local store, loaded by the engine beforehand. */
export interface LocalView {
  /** The current local row (undefined when it no longer exists). */
  row(table: string, id: number): WireRow | undefined;
  /** Current local order (ids by position) of a list's items or a project's lists. */
  order(resource: 'todoItem' | 'todoList', parentId: number): readonly number[];
}

/** A reference to a local record the remote does not know (its create was refused or is gone). */
export class Unmapped extends Error {
  readonly resource: ResourceKey;
  readonly id: number;
  constructor(resource: ResourceKey, id: number) {
    super(`${resource} ${id} is not on the remote`);
    this.resource = resource;
    this.id = id;
  }
}

/** Reads of a record collection on the remote (full scan, finding an earlier create): shared/routes.ts (D322). */
export function createPath(r: ResourceKey, v: WireRow): string | null {
  const routes = routesOf(r);
  if (!routes) return null;
  if (r !== 'comment') return routes.create(String(parentId(r, v)), '.xml');
  // A parent type no route serves (never written here): a path the remote refuses, like any record it cannot take.
  return commentsOf(v.commentable_type, String(v.commentable_id), '.xml') ?? `/unknown/${String(v.commentable_id)}/comments.xml`;
}

/** The id a new record is created under: its list for a to-do, else its project (none for a project). */
const parentId = (r: ResourceKey, v: WireRow) => (r === 'todoItem' ? v.todo_list_id : v.project_id);

function listPath(r: ResourceKey, v: WireRow): string | null {
  if (r === 'milestone') return routesOf(r)!.list(String(v.project_id), '');
  return createPath(r, v);
}

function recordPath(r: ResourceKey, id: number): { update: [Step['method'], string]; remove: [Step['method'], string] | null } | null {
  const routes = routesOf(r);
  if (!routes) return null;
  const u = routes.update(id, '.xml'), d = routes.remove?.(id, '.xml');
  return { update: [u.method as Step['method'], u.path], remove: d ? [d.method as Step['method'], d.path] : null };
}

const fmt = (v: Value, kind: string | undefined): Value => {
  if (v === null) return kind === 'string' ? null : '';
  if (kind === 'boolean') return v ? 'true' : 'false';
  return v;
};

/** The input elements of the writable fields present in `v` (remote ids already). */
export function inputFields(r: Resource, mode: 'create' | 'update', v: WireRow): string {
  let out = '';
  for (const f of writableFields(r, mode)) {
    const col = column(f.name);
    if (!(col in v)) continue;
    const name = f.input ?? f.name;
    if (f.inputKind === 'party') {
      const id = v[col];
      out += element(name, id === null || id === 0 ? '' : v.responsible_party_type === 'Company' ? `c${id}` : String(id));
    } else if (f.inputKind === 'reference') {
      const id = v[col];
      out += element(name, id === null || id === 0 ? '' : id);
    } else out += element(name, fmt(v[col], f.inputKind));
  }
  return out;
}

function toRemote(r: ResourceKey, row: WireRow, map: IdLookup, self: boolean): WireRow {
  const { row: out, missing } = rewriteIds(row, map, self ? r : undefined);
  if (missing.length) throw new Unmapped(missing[0].resource, missing[0].id);
  return out;
}

/** The request that creates a record (`values`: its inserted row, local ids), or null for a kind no route creates. */
export function createStep(r: ResourceKey, id: number, values: WireRow, map: IdLookup): Step | null {
  const R = RESOURCES[r];
  const v = toRemote(r, values, map, false);
  const path = createPath(r, v);
  if (!path) return null; // companies and people come from the remote only
  const body = recordBody(R, inputFields(R, 'create', v), r === 'milestone');
  const found: WireRow = {};
  for (const f of writableFields(R, 'create')) {
    const col = column(f.name);
    if (col in v && (f.inputKind === 'string' || f.inputKind === 'date' || f.inputKind === 'enum')) found[col] = v[col];
  }
  return { kind: 'create', resource: r, localId: id, method: 'POST', path, body, find: { path: listPath(r, v)!, values: found } };
}

/** Does `values` hold a field an update of `r` sends? */
export const hasWritable = (r: ResourceKey, values: WireRow): boolean => writableFields(RESOURCES[r], 'update').some((f) => column(f.name) in values);

/**
 * The update of the writable fields in `values` (local ids), or null when it holds none. `wrap`: the milestone
 * update's `<request>` extras (the move-upcoming flags, §8.7), placed after the record.
 */
export function updateStep(r: ResourceKey, id: number, values: WireRow, map: IdLookup, extra = ''): Step | null {
  if (!hasWritable(r, values)) return null;
  const remoteId = map(r, id);
  if (remoteId === undefined) throw new Unmapped(r, id);
  const p = recordPath(r, remoteId);
  if (!p) return null;
  const R = RESOURCES[r];
  const inner = inputFields(R, 'update', toRemote(r, values, map, false));
  const body = extra ? recordBody(R, inner, true).replace('</request>', `${extra}</request>`) : recordBody(R, inner, r === 'milestone');
  return { kind: 'update', resource: r, localId: id, method: p.update[0], path: p.update[1], body };
}

/** Complete or uncomplete a to-do or a milestone. */
export function completionStep(r: 'todoItem' | 'milestone', id: number, done: boolean, map: IdLookup): Step {
  const remoteId = map(r, id);
  if (remoteId === undefined) throw new Unmapped(r, id);
  const path = r === 'todoItem' ? `/todo_items/${remoteId}/${done ? 'complete' : 'uncomplete'}.xml` : `/milestones/${done ? 'complete' : 'uncomplete'}/${remoteId}`;
  return { kind: done ? 'complete' : 'uncomplete', resource: r, localId: id, method: r === 'todoItem' ? 'PUT' : 'POST', path, body: null };
}

/** The delete of a record, or null when the remote never had it (nothing to delete there) or no route deletes it. */
export function deleteStep(r: ResourceKey, id: number, map: IdLookup): Step | null {
  const remote = map(r, id);
  if (remote === undefined) return null;
  const p = recordPath(r, remote);
  // No route deletes a project (they are archived): no local action can, so there is nothing to replay.
  return p?.remove ? { kind: 'delete', resource: r, localId: id, method: p.remove[0], path: p.remove[1], body: null } : null;
}

/** One reorder of a list's items or a project's lists, in their CURRENT local order (a later reorder supersedes). */
export function reorderStep(r: 'todoItem' | 'todoList', parent: number, view: LocalView, map: IdLookup): Step {
  const parentRes: ResourceKey = r === 'todoItem' ? 'todoList' : 'project';
  const remoteParent = map(parentRes, parent);
  if (remoteParent === undefined) throw new Unmapped(parentRes, parent);
  const ids = view.order(r, parent).map((x) => map(r, x)).filter((x): x is number => x !== undefined);
  const path = r === 'todoItem' ? `/todo_lists/${remoteParent}/todo_items/reorder.xml` : `/projects/${remoteParent}/todo_lists/reorder.xml`;
  return { kind: 'reorder', resource: r, localId: parent, method: 'POST', path, body: reorderBody(RESOURCES[r], ids) };
}

/** What one entry's row changes did to one record: its inserted values, its updated columns merged, whether it was deleted. */
export function changesOf(changes: readonly RowChange[], table: string, id: number): { inserted?: WireRow; updated?: WireRow; deleted: boolean } {
  let inserted: WireRow | undefined;
  let updated: WireRow | undefined;
  let deleted = false;
  for (const c of changes) {
    if (c.t !== table || c.id !== id) continue;
    if (c.op === 'delete') deleted = true;
    else if (c.op === 'insert') inserted = { ...c.v };
    else if (inserted) Object.assign(inserted, c.v);
    else updated = { ...updated, ...c.v };
  }
  return { inserted, updated, deleted };
}

/**
 * The requests that replay one outbox entry from its row changes alone: an entry without intents (written
 * before them, or by adoption on connect, D150; D337). Throws Unmapped when a needed record is not on the remote.
 */
export function planAction(changes: readonly RowChange[], view: LocalView, map: IdLookup): Step[] {
  const tracked = changes.filter((c) => resourceOfTable(c.t));
  const deletes = tracked.filter((c) => c.op === 'delete');
  if (deletes.length) {
    const rank = (c: RowChange) => TABLE_ORDER.indexOf(resourceOfTable(c.t)!);
    const principal = deletes.reduce((a, b) => (rank(b) < rank(a) ? b : a));
    if (tracked.some((c) => c.op === 'insert' && c.t === principal.t && c.id === principal.id)) return []; // born and gone offline
    const step = deleteStep(resourceOfTable(principal.t)!, principal.id, map);
    return step ? [step] : [];
  }

  // Merge the changes of each record within the action.
  const inserted = new Map<string, WireRow>();
  const updated = new Map<string, { r: ResourceKey; id: number; v: WireRow }>();
  const order: string[] = [];
  for (const c of tracked) {
    const k = `${c.t}:${c.id}`;
    const r = resourceOfTable(c.t)!;
    if (c.op === 'insert') { inserted.set(k, { ...c.v }); order.push(k); continue; }
    const ins = inserted.get(k);
    if (ins) { Object.assign(ins, c.v); continue; }
    const u = updated.get(k);
    if (u) Object.assign(u.v, c.v);
    else { updated.set(k, { r, id: c.id, v: { ...c.v } }); order.push(k); }
  }

  const steps: Step[] = [];
  const reorders = new Map<string, Step>();
  for (const k of order) {
    const [t, idText] = k.split(':');
    const r = resourceOfTable(t)!;
    const id = Number(idText);
    const ins = inserted.get(k);
    if (ins) {
      const step = createStep(r, id, ins, map);
      if (step) steps.push(step);
      continue;
    }
    const u = updated.get(k)!;
    if (!recordPath(r, 0)) continue;
    const update = updateStep(r, id, u.v, map);
    if (update) steps.push(update);
    if ('completed' in u.v && (r === 'todoItem' || r === 'milestone')) steps.push(completionStep(r, id, Number(u.v.completed) === 1, map));
    if (('position' in u.v || 'todo_list_id' in u.v) && (r === 'todoItem' || r === 'todoList')) {
      const cur = view.row(t, id);
      if (!cur) continue;
      const parent = Number(r === 'todoItem' ? cur.todo_list_id : cur.project_id);
      const rk = `${r}:${parent}`;
      if (!reorders.has(rk)) reorders.set(rk, reorderStep(r, parent, view, map));
    }
  }
  return [...steps, ...reorders.values()];
}

/** Does a remote record look like the result of this create (same written values)? */
export function matchesCreate(find: NonNullable<Step['find']>, remote: WireRow): boolean {
  return Object.entries(find.values).every(([k, v]) => (remote[k] ?? null) === (v ?? null) || (v === null && remote[k] === ''));
}
