// The Overview's pure parts (issue #27, D302): events grouped by day then project, what each says, where it
// links, and which are new since the last visit.

import type { OverviewEvent } from '../../shared/client.ts';
import { addDays, pad } from './dates.ts';

/** The local calendar day of an event; a time entry's day is its own date (it has no time). */
export function dayOf(e: Pick<OverviewEvent, 'at' | 'kind'>): string {
  if (e.kind === 'time-entry') return e.at.slice(0, 10);
  const d = new Date(e.at);
  if (Number.isNaN(d.getTime())) return e.at.slice(0, 10);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

export interface ProjectGroup { readonly projectId: number; readonly projectName: string; readonly events: OverviewEvent[] }
export interface DayGroup { readonly day: string; readonly projects: ProjectGroup[] }

/** Events (newest first) by day, then by project in the order of each project's newest event that day. */
export function groupEvents(events: readonly OverviewEvent[]): DayGroup[] {
  const days: DayGroup[] = [];
  for (const e of events) {
    const day = dayOf(e);
    let d = days.find((x) => x.day === day);
    if (!d) { d = { day, projects: [] }; days.push(d); }
    let p = d.projects.find((x) => x.projectId === e.project_id);
    if (!p) { p = { projectId: e.project_id, projectName: e.project_name, events: [] }; d.projects.push(p); }
    p.events.push(e);
  }
  return days;
}

/** "Today", "Yesterday", or null (the caller writes the date). */
export function relativeDay(day: string, today: string): string | null {
  if (day === today) return 'Today';
  if (day === addDays(today, -1)) return 'Yesterday';
  return null;
}

/** Where an event's record is shown: a URL hash of the app. */
export function placeOf(e: OverviewEvent): string {
  const p = `#/projects/${e.project_id}`;
  switch (e.kind) {
    case 'post': return `${p}/messages/${e.record_id}`;
    case 'comment':
      if (e.parent_type === 'Post' && e.parent_id) return `${p}/messages/${e.parent_id}`;
      if (e.parent_type === 'Milestone') return `${p}/milestones`;
      return `${p}/todos`;
    case 'time-entry': return `${p}/time`;
    case 'milestone': case 'milestone-completed': return `${p}/milestones`;
    default: return `${p}/todos`;
  }
}

/** What happened, after the person's name: the verb and the record's kind. */
export function actionOf(e: OverviewEvent): string {
  switch (e.kind) {
    case 'post': return 'posted the message';
    case 'comment': return e.parent_type === 'Post' ? 'commented on the message' : e.parent_type === 'Milestone' ? 'commented on the milestone' : 'commented on the to-do';
    case 'todo-item': return 'added the to-do';
    case 'todo-item-completed': return 'completed the to-do';
    case 'milestone': return 'added the milestone';
    case 'milestone-completed': return 'completed the milestone';
    case 'time-entry': return `logged ${hours(e.hours ?? 0)}`;
  }
}

const hours = (h: number): string => { const r = Math.round(h * 100) / 100; return `${r} ${r === 1 ? 'hour' : 'hours'}`; };

/** Is the event newer than the last visit (none: nothing is marked)? */
export const isNew = (e: Pick<OverviewEvent, 'at'>, lastSeen: string | null): boolean => lastSeen !== null && e.at > lastSeen;

/** The key of an event (unique across kinds). */
export const eventKey = (e: Pick<OverviewEvent, 'kind' | 'record_id'>): string => `${e.kind}:${e.record_id}`;

/** Where the last visit is kept: per person, in this browser (localStorage). */
export const seenKey = (personId: number): string => `bivouac.overview.seen.${personId}`;

export function readSeen(personId: number): string | null {
  try { return window.localStorage.getItem(seenKey(personId)); } catch { return null; }
}

/** Keep the newest time seen (never goes back). */
export function writeSeen(personId: number, at: string): void {
  try {
    const had = window.localStorage.getItem(seenKey(personId));
    if (had === null || at > had) window.localStorage.setItem(seenKey(personId), at);
  } catch { /* storage off: nothing is marked next time */ }
}
