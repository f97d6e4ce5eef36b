// Milestone operations (contract §8.7): list with `find`, batch create, update with
// move-upcoming-milestones (+ off weekends), complete, uncomplete, delete.

import { RESOURCES } from '../../shared/registry.ts';
import { child, fieldNode, recordElement, type XNode } from '../../shared/codec/in.ts';
import { parseBoolean, toColumns, validate, type Validated } from '../../shared/values.ts';
import {
  getMilestone, getMilestones, laterOpenMilestones, listMilestones, milestoneState, type Find,
} from '../store/queries/milestones.ts';
import { badRequest, check, notFound, type Ctx } from './context.ts';
import * as projects from './projects.ts';
import { checkReferences, recheckReferences } from './references.ts';
import type { Row } from '../store/types.ts';
import { deleteRecord } from '../store/delete-record.ts';

const R = RESOURCES.milestone;

/** `find` of the list route (§8.7), from the body's `<request>`, else the query. Other values 400. */
export function parseFind(root: XNode | null, query: string | undefined): Find {
  const node = child(root, 'find');
  const raw = node ? (node.nil ? '' : node.text.trim()) : (query ?? '').trim();
  switch (raw) {
    case '': case 'all': return 'all';
    case 'late': return 'late';
    case 'upcoming': return 'upcoming';
    case 'completed': case 'complete': return 'completed';
    default: throw badRequest(`find must be all, late, upcoming or completed (got "${raw}")`);
  }
}

const todayUtc = (): string => new Date().toISOString().slice(0, 10);

/** A visible milestone, or 404. */
export async function get(ctx: Ctx, id: number): Promise<Row> {
  const m = await getMilestone(ctx.store, ctx.caller, id);
  if (!m) throw notFound('Milestone');
  return m;
}

export async function list(ctx: Ctx, projectId: number, find: Find): Promise<Row[]> {
  await projects.get(ctx, projectId);
  return listMilestones(ctx.store, ctx.caller, projectId, find, todayUtc());
}

/**
 * The record elements of a create (§8.7): every `<milestone>` child of `<request>` (a batch);
 * else the bare root, or the flat `<request>` itself. A JSON array of objects is a batch too.
 */
function batchRecords(root: XNode | null): (XNode | null)[] {
  if (!root) return [null];
  if (root.name !== 'request') return [root];
  const ms = root.children.filter((c) => c.name === 'milestone');
  if (ms.length) return ms;
  const items = root.children.filter((c) => c.name === 'item' && c.children.length > 0);
  if (items.length && items.length === root.children.length) return items;
  return [recordElement(root, R.recordNames)];
}

/** Create a batch, all or nothing; answers the created milestones in request order. */
export async function create(ctx: Ctx, projectId: number, root: XNode | null): Promise<Row[]> {
  await projects.get(ctx, projectId);
  const recs = batchRecords(root);
  const errors: string[] = [];
  const batch: Validated[] = [];
  for (const rec of recs) {
    const v = validate(R, 'create', root, rec, ctx.caller);
    await checkReferences(ctx.store, ctx.caller, R, projectId, v);
    errors.push(...v.errors);
    batch.push(v);
  }
  check(errors);
  const ids = await ctx.store.write(async (w) => {
    const out: number[] = [];
    for (const v of batch) await recheckReferences(w, ctx.caller, R, projectId, v);
    for (const v of batch) {
      out.push(await w.insert('milestones', {
        ...toColumns(v.values), project_id: projectId, completed: 0, created_on: w.now, creator_id: ctx.caller.id,
      }, projectId));
    }
    return out;
  });
  const rows = new Map((await getMilestones(ctx.store, ctx.caller, ids)).map((r) => [Number(r.id), r]));
  return ids.map((id) => rows.get(id)!);
}

const DAY = 86_400_000;
const toMs = (d: string): number => Date.UTC(Number(d.slice(0, 4)), Number(d.slice(5, 7)) - 1, Number(d.slice(8, 10)));
const toDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Shift a date by `days`; off weekends: Saturday and Sunday move on to Monday. */
export function shiftDate(d: string, days: number, offWeekends: boolean): string {
  let ms = toMs(d) + days * DAY;
  if (offWeekends) {
    const wd = new Date(ms).getUTCDay();
    if (wd === 6) ms += 2 * DAY;
    else if (wd === 0) ms += DAY;
  }
  return toDate(ms);
}

/** Partial update; with move-upcoming-milestones, later open milestones shift by the same days. */
export async function update(ctx: Ctx, id: number, root: XNode | null): Promise<Row> {
  const m = await get(ctx, id);
  const pid = Number(m.project_id);
  const rec = recordElement(root, R.recordNames);
  const v = validate(R, 'update', root, rec, ctx.caller);
  await checkReferences(ctx.store, ctx.caller, R, pid, v, m);
  const flag = (name: string, label: string): boolean => {
    const node = fieldNode(root, rec, name);
    if (!node) return false;
    if (node.children.length) { v.errors.push(`${label} is invalid`); return false; }
    const b = parseBoolean(node.nil ? '' : node.text);
    if (!b.ok) { v.errors.push(`${label} ${b.message}`); return false; }
    return b.value;
  };
  const shift = flag('move-upcoming-milestones', 'Move upcoming milestones');
  const offWeekends = flag('move-upcoming-milestones-off-weekends', 'Move upcoming milestones off weekends');
  check(v.errors);
  if (v.values.size) {
    await ctx.store.write(async (w) => {
      const cur = await milestoneState(w, id);
      if (!cur) return;
      await recheckReferences(w, ctx.caller, R, pid, v);
      await w.update('milestones', id, toColumns(v.values), pid);
      const next = v.values.get('deadline') as string | undefined;
      if (!shift || next === undefined || next === cur.deadline) return;
      const days = Math.round((toMs(next) - toMs(cur.deadline)) / DAY);
      for (const o of await laterOpenMilestones(w, ctx.caller, pid, id, cur.deadline)) {
        const d = shiftDate(o.deadline, days, offWeekends);
        if (d !== o.deadline) await w.update('milestones', Number(o.id), { deadline: d }, pid);
      }
    });
  }
  return get(ctx, id);
}

export async function complete(ctx: Ctx, id: number): Promise<Row> {
  const m = await get(ctx, id);
  await ctx.store.write(async (w) => {
    const cur = await milestoneState(w, id);
    if (!cur || Number(cur.completed) === 1) return;
    await w.update('milestones', id, { completed: 1, completed_at: w.now, completer_id: ctx.caller.id }, Number(m.project_id));
  });
  return get(ctx, id);
}

export async function uncomplete(ctx: Ctx, id: number): Promise<Row> {
  const m = await get(ctx, id);
  await ctx.store.write(async (w) => {
    const cur = await milestoneState(w, id);
    if (!cur || Number(cur.completed) !== 1) return;
    await w.update('milestones', id, { completed: 0, completed_at: null, completer_id: null }, Number(m.project_id));
  });
  return get(ctx, id);
}

/** Delete a milestone and its comments; posts and lists that referred to it get "none". */
export async function remove(ctx: Ctx, id: number): Promise<Row> {
  const m = await get(ctx, id);
  await ctx.store.write((w) => deleteRecord(w, 'milestone', id)); // D321
  return m;
}
