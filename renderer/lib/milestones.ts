// The Milestones board's order and words (issue #27, D295): late milestones first (the longest
// overdue first), then upcoming ones by due date (with the days left), then completed ones (the
// latest completed first). "Today" is the user's local calendar day, as for todo due dates.

import type { Milestone } from '../../shared/client.ts';
import { toDate } from './dates.ts';

export type MilestoneGroup = 'late' | 'upcoming' | 'completed';

/** Whole days from `from` to `to` (both `YYYY-MM-DD`): negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return Math.round((toDate(to).getTime() - toDate(from).getTime()) / 86_400_000);
}

export function groupOf(m: Pick<Milestone, 'completed' | 'deadline'>, today: string): MilestoneGroup {
  if (m.completed) return 'completed';
  return m.deadline.slice(0, 10) < today ? 'late' : 'upcoming';
}

export interface Grouped<M> { late: M[]; upcoming: M[]; completed: M[] }

/**
 * The board's three groups. Late and upcoming: by due date (ties keep the given order, the server's
 * creation order); completed: the latest completion first (ties: the later due date first).
 */
export function groupMilestones<M extends Pick<Milestone, 'completed' | 'deadline' | 'completed_at'>>(ms: readonly M[], today: string): Grouped<M> {
  const out: Grouped<M> = { late: [], upcoming: [], completed: [] };
  for (const m of ms) out[groupOf(m, today)].push(m);
  const byDeadline = (a: M, b: M) => (a.deadline < b.deadline ? -1 : a.deadline > b.deadline ? 1 : 0);
  out.late.sort(byDeadline);
  out.upcoming.sort(byDeadline);
  out.completed.sort((a, b) => {
    const ca = a.completed_at ?? '', cb = b.completed_at ?? '';
    return ca !== cb ? (ca < cb ? 1 : -1) : -byDeadline(a, b);
  });
  return out;
}

/** When a milestone is due, in words: "3 days late", "due today", "due tomorrow", "12 days left", or "" when completed. */
export function dueWords(m: Pick<Milestone, 'completed' | 'deadline'>, today: string): string {
  if (m.completed) return '';
  const d = daysBetween(today, m.deadline.slice(0, 10));
  if (d < 0) return `${-d} day${d === -1 ? '' : 's'} late`;
  if (d === 0) return 'due today';
  if (d === 1) return 'due tomorrow';
  return `${d} days left`;
}

/** The records (todo lists, messages) linked to a milestone; `0` and null mean none. */
export function linkedTo<T extends { milestone_id: number | null }>(records: readonly T[], milestoneId: number): T[] {
  return milestoneId > 0 ? records.filter((r) => r.milestone_id === milestoneId) : [];
}

/** The responsible party of a milestone as a select value (`4`, `c12`, or `''` for nobody). */
export const partyValue = (m: Pick<Milestone, 'responsible_party_id' | 'responsible_party_type'>): string =>
  m.responsible_party_id === undefined ? '' : `${m.responsible_party_type === 'Company' ? 'c' : ''}${m.responsible_party_id}`;

/**
 * "Move upcoming milestones" (contract §8.7, D333): the other uncompleted milestones due after `oldDeadline`, which
 * move by as many days as the due date does when the user asks. The server moves those the caller sees, as here.
 */
export function laterOpen<M extends Pick<Milestone, 'id' | 'completed' | 'deadline'>>(ms: readonly M[], id: number, oldDeadline: string): M[] {
  return ms.filter((m) => m.id !== id && !m.completed && m.deadline.slice(0, 10) > oldDeadline.slice(0, 10));
}

/** A date moved by `days`; off weekends, a Saturday or a Sunday moves on to the Monday (the server's rule). */
export function shiftDay(d: string, days: number, offWeekends: boolean): string {
  const t = new Date(`${d.slice(0, 10)}T00:00:00Z`);
  t.setUTCDate(t.getUTCDate() + days);
  const wd = t.getUTCDay();
  if (offWeekends && (wd === 6 || wd === 0)) t.setUTCDate(t.getUTCDate() + (wd === 6 ? 2 : 1));
  return t.toISOString().slice(0, 10);
}

/** What the checkbox does, in words: "Also move the 3 later milestones by 5 days" ("back by", "the later milestone"). */
export function moveWords(count: number, days: number): string {
  const what = count === 1 ? 'the later milestone' : `the ${count} later milestones`;
  const n = Math.abs(days);
  return `Also move ${what} ${days < 0 ? 'back ' : ''}by ${n} day${n === 1 ? '' : 's'}`;
}
