import { describe, expect, it } from 'vitest';
import type { TodoItem, TodoList } from '../../../shared/client.ts';
import { groupMyWork } from '../../../renderer/lib/mywork.ts';

const item = (id: number, due?: string, completed = false): TodoItem => ({
  id, content: `i${id}`, due_at: due, completed, position: id, todo_list_id: 1, comments_count: 0, commented_at: null,
  created_at: '', created_on: '', creator_id: 1, creator_name: '', updated_at: '',
});
const list = (id: number, project: number, items: TodoItem[]): TodoList => ({
  id, project_id: project, name: `l${id}`, position: id, todo_items: items, completed_count: 0, uncompleted_count: items.length,
  description: '', milestone_id: null, tracked: false, complete: false, completed: false,
});

describe('groupMyWork', () => {
  it('puts overdue first, then due within a week (today included), then later and undated; completed left out', () => {
    const g = groupMyWork([
      list(1, 10, [item(1, '2026-11-20'), item(2), item(3, '2026-11-28T00:00:00Z'), item(4, '2026-12-05'), item(5, '2026-12-06')]),
      list(2, 11, [item(6, '2026-11-27'), item(7, '2026-11-01', true), item(8, '2026-11-30')]),
    ], '2026-11-28');
    expect(g.overdue.map((w) => w.item.id)).toEqual([1, 6]);
    expect(g.soon.map((w) => w.item.id)).toEqual([3, 8, 4]);
    expect(g.rest.map((w) => w.item.id)).toEqual([5, 2]);
  });
  it('lists an item once even when two lists carry it', () => {
    const shared = item(9, '2026-11-29');
    expect(groupMyWork([list(1, 1, [shared]), list(2, 1, [shared])], '2026-11-28').soon).toHaveLength(1);
  });
});
