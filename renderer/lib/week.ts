// The timesheet week grid: entries grouped into rows (project or todo item) by day, with totals.
// Hours are summed in hundredths so that 0.1 + 0.2 is 0.3.

import type { TimeEntry } from '../../shared/client.ts';

export type GroupBy = 'item' | 'project';

export interface RowKey { projectId: number; itemId: number | null }
export interface Cell { date: string; hours: number; entries: TimeEntry[] }
export interface GridRow extends RowKey { key: string; cells: Cell[]; total: number }
export interface Grid { rows: GridRow[]; dayTotals: number[]; total: number }

export const rowKey = (groupBy: GroupBy, projectId: number, itemId: number | null): string =>
  groupBy === 'project' ? `p${projectId}` : `p${projectId}:i${itemId ?? 0}`;

const cents = (h: number): number => Math.round(h * 100);
export const sumHours = (hs: readonly number[]): number => hs.reduce((a, h) => a + cents(h), 0) / 100;

/**
 * Build the grid for `days` (7 dates). `extra` rows are kept even when empty (rows the user added).
 * Rows are ordered by the `order` callback (e.g. project name then item name); ties by key.
 */
export function buildGrid(entries: readonly TimeEntry[], days: readonly string[], groupBy: GroupBy, extra: readonly RowKey[] = [],
  order: (a: RowKey, b: RowKey) => number = () => 0): Grid {
  const dayIx = new Map(days.map((d, i) => [d, i]));
  const rows = new Map<string, GridRow>();
  const ensure = (projectId: number, itemId: number | null): GridRow => {
    const k = rowKey(groupBy, projectId, itemId);
    let r = rows.get(k);
    if (!r) {
      r = { key: k, projectId, itemId: groupBy === 'project' ? null : itemId, cells: days.map((date) => ({ date, hours: 0, entries: [] })), total: 0 };
      rows.set(k, r);
    }
    return r;
  };
  for (const x of extra) ensure(x.projectId, x.itemId);
  for (const e of entries) {
    const i = dayIx.get(e.date);
    if (i === undefined) continue;
    ensure(e.project_id, e.todo_item_id).cells[i].entries.push(e);
  }
  const dayC = days.map(() => 0);
  let totalC = 0;
  for (const r of rows.values()) {
    let rc = 0;
    r.cells.forEach((c, i) => {
      const cc = c.entries.reduce((a, e) => a + cents(e.hours), 0);
      c.hours = cc / 100;
      rc += cc;
      dayC[i] += cc;
    });
    r.total = rc / 100;
    totalC += rc;
  }
  const list = [...rows.values()].sort((a, b) => order(a, b) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { rows: list, dayTotals: dayC.map((c) => c / 100), total: totalC / 100 };
}

/**
 * What to send when a cell is set to `hours`: create a new entry, update one, delete one, or
 * refuse (a cell summing several entries cannot go below the others' sum).
 */
export type CellPlan =
  | { kind: 'none' }
  | { kind: 'create'; hours: number }
  | { kind: 'update'; entry: TimeEntry; hours: number }
  | { kind: 'delete'; entry: TimeEntry }
  | { kind: 'refuse'; reason: string };

export function planCell(cell: Cell, hours: number): CellPlan {
  const h = Math.round(hours * 100) / 100;
  if (cell.entries.length === 0) return h === 0 ? { kind: 'none' } : { kind: 'create', hours: h };
  if (cents(cell.hours) === cents(h)) return { kind: 'none' };
  const [first, ...others] = cell.entries;
  if (others.length === 0) return h === 0 ? { kind: 'delete', entry: first } : { kind: 'update', entry: first, hours: h };
  const rest = sumHours(others.map((e) => e.hours));
  if (cents(h) < cents(rest)) {
    return { kind: 'refuse', reason: `This cell adds up ${cell.entries.length} entries; it cannot be less than ${rest} h. Edit them in the report.` };
  }
  return { kind: 'update', entry: first, hours: (cents(h) - cents(rest)) / 100 };
}
