// The time report: rows as shown, totals per day/person/project, and the CSV of exactly those rows.

import type { TimeEntry } from '../../shared/client.ts';
import { toCsv } from './csv.ts';
import { dateRange, weekStart } from './dates.ts';
import { sumHours } from './week.ts';

export interface Names {
  project(id: number): string;
  item(id: number | null): string;
  /** The company a project is for (the client company, or the firm for its own projects). */
  company?(projectId: number): string;
}

export interface ReportRow { id: number; date: string; person: string; project: string; item: string; company: string; description: string; hours: number }

export const reportRows = (entries: readonly TimeEntry[], n: Names): ReportRow[] => entries.map((e) => ({
  id: e.id, date: e.date, person: e.person_name, project: n.project(e.project_id), item: n.item(e.todo_item_id),
  company: n.company?.(e.project_id) ?? '', description: e.description, hours: e.hours,
}));

export const CSV_HEADER = ['Date', 'Person', 'Project', 'Todo item', 'Description', 'Hours'] as const;

export const reportCsv = (rows: readonly ReportRow[]): string =>
  toCsv(CSV_HEADER, rows.map((r) => [r.date, r.person, r.project, r.item, r.description, r.hours]));

/** Totals grouped by a key, largest first (ties by key). */
export function totalsBy(rows: readonly ReportRow[], key: (r: ReportRow) => string): { key: string; hours: number; count: number }[] {
  const m = new Map<string, number[]>();
  for (const r of rows) { const k = key(r); const a = m.get(k); if (a) a.push(r.hours); else m.set(k, [r.hours]); }
  return [...m].map(([k, hs]) => ({ key: k, hours: sumHours(hs), count: hs.length }))
    .sort((a, b) => b.hours - a.hours || a.key.localeCompare(b.key));
}

/** Hours per day for every date of the range (from the filters, else the entries' span). */
export function hoursPerDay(rows: readonly ReportRow[], from?: string, to?: string): { date: string; hours: number }[] {
  if (!rows.length && (!from || !to)) return [];
  const dates = rows.map((r) => r.date).sort();
  const lo = from || dates[0];
  const hi = to || dates[dates.length - 1];
  const by = new Map<string, number[]>();
  for (const r of rows) { const a = by.get(r.date); if (a) a.push(r.hours); else by.set(r.date, [r.hours]); }
  return dateRange(lo, hi).map((d) => ({ date: d, hours: sumHours(by.get(d) ?? []) }));
}

export type Bucket = 'day' | 'week' | 'month';

/** How to draw a range of `days` days: one bar a day up to two months, a week up to a year, else a month. */
export const bucketFor = (days: number): Bucket => (days <= 62 ? 'day' : days <= 366 ? 'week' : 'month');

/** Hours per day summed into weeks (starting Monday) or months; each bucket is named by its first date. */
export function bucketHours(days: readonly { date: string; hours: number }[], unit: Bucket): { date: string; end: string; hours: number }[] {
  if (unit === 'day') return days.map((d) => ({ date: d.date, end: d.date, hours: d.hours }));
  const out: { date: string; end: string; hours: number[] }[] = [];
  for (const d of days) {
    const start = unit === 'week' ? weekStart(d.date) : `${d.date.slice(0, 7)}-01`;
    const last = out[out.length - 1];
    if (last && last.date === start) { last.hours.push(d.hours); last.end = d.date; } else out.push({ date: start, end: d.date, hours: [d.hours] });
  }
  return out.map((b) => ({ date: b.date, end: b.end, hours: sumHours(b.hours) }));
}

/** Is the range given in the filters backwards? */
export const rangeBackwards = (from?: string, to?: string): boolean => Boolean(from && to && from > to);

