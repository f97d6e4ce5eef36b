// Milestone operations (contract §8.7): list with `find`, batch create, update with
// move-upcoming-milestones (+ off weekends), complete, uncomplete, delete.

import { RESOURCES } from '../../shared/registry.ts';
import { givenText, parseBoolean, toColumns, validateInput, type Given, type Validated } from '../../shared/values.ts';
import type { MilestoneInput, MilestoneUpdateInput } from '../../shared/client.ts';
import {
  getMilestone, getMilestones, laterOpenMilestones, listMilestones, milestoneState, type Find,
} from '../store/queries/milestones.ts';
import { check, notFound, type Ctx } from './context.ts';
import * as projects from './projects.ts';
import { checkReferences, recheckReferences } from './references.ts';
import type { MilestoneRow } from '../../shared/rows.ts';
import { deleteRecord } from '../store/delete-record.ts';

const R = RESOURCES.milestone;
export type { Find };

const todayUtc = (): string => new Date().toISOString().slice(0, 10);

/** A visible milestone, or 404. */
export async function get(ctx: Ctx, id: number): Promise<MilestoneRow> {
  const m = await getMilestone(ctx.store, ctx.caller, id);
  if (!m) throw notFound('Milestone');
  return m;
}

export async function list(ctx: Ctx, projectId: number, find: Find): Promise<MilestoneRow[]> {
  await projects.get(ctx, projectId);
  return listMilestones(ctx.store, ctx.caller, projectId, find, todayUtc());
}

/** Create a batch (§8.7), all or nothing; answers the created milestones in input order. */
export async function create(ctx: Ctx, projectId: number, inputs: readonly Given<MilestoneInput>[]): Promise<MilestoneRow[]> {
  await projects.get(ctx, projectId);
  const errors: string[] = [];
  const batch: Validated[] = [];
  for (const input of inputs) {
    const v = validateInput(R, 'create', input, ctx.caller);
    await checkReferences(ctx.store, ctx.caller, R, projectId, v);
    errors.push(...v.errors);
    batch.push(v);
  }
  check(errors);
  const ids = await ctx.store.write(async (w) => {
    const out: number[] = [];
    for (const v of batch) await recheckReferences(w, ctx.caller, R, projectId, v);
    for (const v of batch) {
      const mid = await w.insert('milestones', {
        ...toColumns(v.values), project_id: projectId, completed: 0, created_on: w.now, creator_id: ctx.caller.id,
      }, projectId);
      w.outbox?.intent('milestone.create', { id: mid });
      out.push(mid);
    }
    return out;
  });
  const rows = new Map((await getMilestones(ctx.store, ctx.caller, ids)).map((r) => [r.id, r]));
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
export async function update(ctx: Ctx, id: number, input: Given<MilestoneUpdateInput>): Promise<MilestoneRow> {
  const m = await get(ctx, id);
  const pid = m.project_id;
  const v = validateInput(R, 'update', input, ctx.caller);
  await checkReferences(ctx.store, ctx.caller, R, pid, v, m);
  const flag = (given: unknown, label: string): boolean => {
    if (given === undefined) return false;
    const text = givenText(given);
    if (text === undefined) { v.errors.push(`${label} is invalid`); return false; }
    const b = parseBoolean(text);
    if (!b.ok) { v.errors.push(`${label} ${b.message}`); return false; }
    return b.value;
  };
  const shift = flag(input.move_upcoming_milestones, 'Move upcoming milestones');
  const offWeekends = flag(input.move_upcoming_milestones_off_weekends, 'Move upcoming milestones off weekends');
  check(v.errors);
  if (v.values.size) {
    await ctx.store.write(async (w) => {
      const cur = await milestoneState(w, id);
      if (!cur) return;
      await recheckReferences(w, ctx.caller, R, pid, v);
      await w.update('milestones', id, toColumns(v.values), pid);
      const next = v.values.get('deadline') as string | undefined;
      const moves = shift && next !== undefined && next !== cur.deadline;
      // D336: ONE action; the remote shifts its own later open milestones (the shifts below are its consequences here).
      w.outbox?.intent('milestone.update', { id, moveUpcoming: moves, offWeekends: moves && offWeekends });
      if (!moves) return;
      const days = Math.round((toMs(next) - toMs(cur.deadline)) / DAY);
      for (const o of await laterOpenMilestones(w, ctx.caller, pid, id, cur.deadline)) {
        const d = shiftDate(o.deadline, days, offWeekends);
        if (d !== o.deadline) await w.update('milestones', o.id, { deadline: d }, pid);
      }
    });
  }
  return get(ctx, id);
}

export async function complete(ctx: Ctx, id: number): Promise<MilestoneRow> {
  const m = await get(ctx, id);
  await ctx.store.write(async (w) => {
    const cur = await milestoneState(w, id);
    if (!cur || cur.completed === 1) return;
    await w.update('milestones', id, { completed: 1, completed_at: w.now, completer_id: ctx.caller.id }, m.project_id);
    w.outbox?.intent('milestone.complete', { id });
  });
  return get(ctx, id);
}

export async function uncomplete(ctx: Ctx, id: number): Promise<MilestoneRow> {
  const m = await get(ctx, id);
  await ctx.store.write(async (w) => {
    const cur = await milestoneState(w, id);
    if (!cur || cur.completed !== 1) return;
    await w.update('milestones', id, { completed: 0, completed_at: null, completer_id: null }, m.project_id);
    w.outbox?.intent('milestone.uncomplete', { id });
  });
  return get(ctx, id);
}

/** Delete a milestone and its comments; posts and lists that referred to it get "none". */
export async function remove(ctx: Ctx, id: number): Promise<MilestoneRow> {
  const m = await get(ctx, id);
  await ctx.store.write(async (w) => {
    await deleteRecord(w, 'milestone', id); // D321
    w.outbox?.intent('milestone.delete', { id });
  });
  return m;
}
