// "My work" (issue #28): the open items assigned to me (or my company) across all projects, in three
// groups: overdue, due soon (today and the next days), the rest (later, then no due date).

import type { TodoItem, TodoList } from '../../shared/client.ts';
import { addDays } from './dates.ts';

export interface WorkItem { item: TodoItem; list: TodoList; projectId: number; due: string | null }
export interface WorkGroups { overdue: WorkItem[]; soon: WorkItem[]; rest: WorkItem[] }

/** Days after today that still count as "due soon" (today + 7: the coming week). */
export const SOON_DAYS = 7;

const byDue = (a: WorkItem, b: WorkItem): number => {
  if (a.due !== b.due) {
    if (a.due === null) return 1;
    if (b.due === null) return -1;
    return a.due < b.due ? -1 : 1;
  }
  return a.projectId - b.projectId || a.list.position - b.list.position || a.item.position - b.item.position;
};

/** Group the lists' uncompleted items (`today` as YYYY-MM-DD in the user's calendar). Each item once. */
export function groupMyWork(lists: readonly TodoList[], today: string, soonDays = SOON_DAYS): WorkGroups {
  const seen = new Set<number>();
  const all: WorkItem[] = [];
  for (const list of lists) {
    for (const item of list.todo_items ?? []) {
      if (item.completed || seen.has(item.id)) continue;
      seen.add(item.id);
      all.push({ item, list, projectId: list.project_id, due: item.due_at ? item.due_at.slice(0, 10) : null });
    }
  }
  all.sort(byDue);
  const soonEnd = addDays(today, soonDays);
  return {
    overdue: all.filter((w) => w.due !== null && w.due < today),
    soon: all.filter((w) => w.due !== null && w.due >= today && w.due <= soonEnd),
    rest: all.filter((w) => w.due === null || w.due > soonEnd),
  };
}
