// Timesheets: the week grid of one person (all their projects) and the time report.

import { create } from 'zustand';
import type { ReportFilters, TimeEntry } from '../../shared/client.ts';
import { api } from '../api.ts';
import { addDays, today, weekStart } from '../lib/dates.ts';
import { planCell, type Cell, type GroupBy, type RowKey } from '../lib/week.ts';
import { fail, track, useUi } from './ui.ts';

interface TimeState {
  weekStart: string;
  personId: number | null;
  groupBy: GroupBy;
  entries: TimeEntry[];
  extraRows: RowKey[];
  loading: boolean;
  loaded: boolean;
  /** `person:weekStart` of the entries held (a week that failed to load is not shown as empty). */
  loadedKey: string | null;
  /** Todo item names by id (rows of the grid, report columns). */
  itemNames: Record<number, string>;
  reportFilters: ReportFilters;
  report: TimeEntry[];
  reportRan: boolean;
  reportLoading: boolean;
  setPerson(id: number): void;
  setGroupBy(g: GroupBy): void;
  shiftWeek(weeks: number): void;
  gotoWeek(date: string): void;
  loadWeek(): Promise<void>;
  addRow(r: RowKey): void;
  setCell(row: RowKey, cell: Cell, hours: number): Promise<boolean>;
  learnItems(names: Record<number, string>): void;
  /** Learn the names of the todo items these entries are logged on. */
  ensureItemNames(entries: readonly TimeEntry[]): Promise<void>;
  setReportFilters(f: ReportFilters): void;
  runReport(): Promise<void>;
}

let tempId = -1;
let weekSeq = 0;
const pending = new Set<number>();
const loadedProjects = new Set<number>();

export const useTime = create<TimeState>((set, get) => ({
  weekStart: weekStart(today()),
  personId: null,
  groupBy: 'item',
  entries: [],
  extraRows: [],
  loading: false,
  loaded: false,
  loadedKey: null,
  itemNames: {},
  reportFilters: { from: addDays(today(), -29), to: today() },
  report: [],
  reportRan: false,
  reportLoading: false,

  setPerson(personId) { if (personId !== get().personId) { set({ personId, extraRows: [] }); void get().loadWeek(); } },
  setGroupBy(groupBy) { set({ groupBy }); },
  shiftWeek(n) { set({ weekStart: addDays(get().weekStart, 7 * n) }); void get().loadWeek(); },
  gotoWeek(date) { set({ weekStart: weekStart(date) }); void get().loadWeek(); },

  async loadWeek() {
    const { personId, weekStart: from } = get();
    if (!personId) return;
    const s = ++weekSeq;
    set({ loading: true });
    try {
      const entries = await track(api.timeReport({ from, to: addDays(from, 6), subject_id: personId }));
      if (s === weekSeq) set({ entries, loaded: true, loadedKey: `${personId}:${from}` });
      void get().ensureItemNames(entries);
    } catch (e) {
      if (s === weekSeq) fail('Could not load the week', e);
    } finally {
      if (s === weekSeq) set({ loading: false });
    }
  },

  addRow(r) {
    if (get().extraRows.some((x) => x.projectId === r.projectId && x.itemId === r.itemId)) return;
    set((s) => ({ extraRows: [...s.extraRows, r] }));
  },

  async setCell(row, cell, hours) {
    const plan = planCell(cell, hours);
    const { personId } = get();
    if (plan.kind === 'none' || !personId) return true;
    if (plan.kind === 'refuse') { useUi.getState().notify('error', 'Cannot set these hours', [plan.reason]); return false; }
    const before = get().entries;
    let change: TimeEntry[];
    let call: () => Promise<unknown>;
    if (plan.kind === 'create') {
      const tmp: TimeEntry = { id: tempId--, date: cell.date, hours: plan.hours, description: '', person_id: personId, person_name: '', project_id: row.projectId, todo_item_id: row.itemId };
      change = [...before, tmp];
      call = async () => {
        const e = await api.createTimeEntry(row.projectId, { date: cell.date, hours: plan.hours, person_id: personId, todo_item_id: row.itemId });
        set((s) => ({ entries: s.entries.map((x) => (x.id === tmp.id ? e : x)) }));
      };
    } else if (plan.kind === 'update') {
      change = before.map((e) => (e.id === plan.entry.id ? { ...e, hours: plan.hours } : e));
      call = async () => {
        const e = await api.updateTimeEntry(plan.entry.id, { hours: plan.hours });
        set((s) => ({ entries: s.entries.map((x) => (x.id === e.id ? e : x)) }));
      };
    } else {
      change = before.filter((e) => e.id !== plan.entry.id);
      call = () => api.deleteTimeEntry(plan.entry.id);
    }
    set({ entries: change });
    try {
      await track(call());
      return true;
    } catch (e) {
      set({ entries: before });
      fail('Could not save the hours', e);
      return false;
    }
  },

  learnItems(names) {
    const cur = get().itemNames;
    if (Object.entries(names).some(([k, v]) => cur[Number(k)] !== v)) set({ itemNames: { ...cur, ...names } });
  },

  async ensureItemNames(entries) {
    const known = get().itemNames;
    const missing = entries.filter((e) => e.todo_item_id !== null && known[e.todo_item_id] === undefined && !pending.has(e.todo_item_id));
    if (!missing.length) return;
    const ids = [...new Set(missing.map((e) => e.todo_item_id!))];
    ids.forEach((id) => pending.add(id));
    const found: Record<number, string> = {};
    // One project's lists (with their items) name all its items at once: fewer calls than one per item.
    const projects = [...new Set(missing.map((e) => e.project_id))].filter((p) => !loadedProjects.has(p));
    await Promise.all(projects.map(async (pid) => {
      loadedProjects.add(pid);
      try {
        const lists = await api.todoLists(pid);
        for (const l of await Promise.all(lists.map((x) => api.todoList(x.id)))) for (const i of l.todo_items ?? []) found[i.id] = i.content;
      } catch { loadedProjects.delete(pid); }
    }));
    await Promise.all(ids.filter((id) => found[id] === undefined).map(async (id) => {
      try { found[id] = (await api.todoItem(id)).content; } catch { found[id] = `Todo #${id}`; }
    }));
    ids.forEach((id) => pending.delete(id));
    set((s) => ({ itemNames: { ...s.itemNames, ...found } }));
  },

  setReportFilters(reportFilters) { set({ reportFilters }); },

  async runReport() {
    set({ reportLoading: true });
    try {
      const report = await track(api.timeReport(get().reportFilters));
      set({ report, reportRan: true });
      void get().ensureItemNames(report);
    } catch (e) {
      fail('Could not run the report', e);
    } finally {
      set({ reportLoading: false });
    }
  },
}));
