import { describe, expect, it } from 'vitest';
import type { TimeEntry } from '../../../shared/client.ts';
import { addDays, weekDays, weekStart } from '../../../renderer/lib/dates.ts';
import { buildGrid, planCell, rowKey, sumHours } from '../../../renderer/lib/week.ts';

let n = 0;
const e = (date: string, hours: number, projectId = 1, itemId: number | null = null): TimeEntry => ({
  id: ++n, date, hours, description: '', person_id: 1, person_name: 'Ada Admin', project_id: projectId, todo_item_id: itemId,
});
const days = weekDays('2024-03-04');

describe('dates', () => {
  it('weeks start on Monday, across month and year ends', () => {
    expect(weekStart('2024-03-10')).toBe('2024-03-04'); // Sunday
    expect(weekStart('2024-03-04')).toBe('2024-03-04');
    expect(weekStart('2025-01-01')).toBe('2024-12-30');
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(days).toEqual(['2024-03-04', '2024-03-05', '2024-03-06', '2024-03-07', '2024-03-08', '2024-03-09', '2024-03-10']);
  });
});

describe('week grid', () => {
  it('groups by todo item, totals rows, days and the week without float drift', () => {
    const g = buildGrid([e('2024-03-04', 0.1, 1, 5), e('2024-03-04', 0.2, 1, 5), e('2024-03-05', 1.5, 1, null), e('2024-03-10', 2, 2, 7), e('2024-03-11', 9, 1, 5)], days, 'item');
    expect(g.rows.map((r) => r.key)).toEqual(['p1:i0', 'p1:i5', 'p2:i7']);
    const r5 = g.rows.find((r) => r.key === 'p1:i5')!;
    expect(r5.cells[0].hours).toBe(0.3);
    expect(r5.cells[0].entries).toHaveLength(2);
    expect(r5.total).toBe(0.3);
    expect(g.dayTotals).toEqual([0.3, 1.5, 0, 0, 0, 0, 2]);
    expect(g.total).toBe(3.8); // the entry of the next week is out
  });

  it('groups by project and keeps empty rows the user added', () => {
    const g = buildGrid([e('2024-03-04', 1, 1, 5), e('2024-03-04', 2, 1, null)], days, 'project', [{ projectId: 3, itemId: null }]);
    expect(g.rows.map((r) => [r.key, r.total])).toEqual([['p1', 3], ['p3', 0]]);
    expect(rowKey('project', 1, 5)).toBe('p1');
  });

  it('sorts rows with the given order', () => {
    const g = buildGrid([e('2024-03-04', 1, 1), e('2024-03-04', 1, 2)], days, 'project', [], (a, b) => b.projectId - a.projectId);
    expect(g.rows.map((r) => r.projectId)).toEqual([2, 1]);
  });

  it('sums hours in hundredths', () => {
    expect(sumHours([0.1, 0.2])).toBe(0.3);
    expect(sumHours([1.15, 2.3, 0.05])).toBe(3.5);
    expect(sumHours([])).toBe(0);
  });

  it('plans a cell edit: create, update, delete, nothing, several entries', () => {
    const g = buildGrid([e('2024-03-05', 1, 1, null), e('2024-03-06', 1, 1, null), e('2024-03-06', 0.5, 1, null)], days, 'item');
    const [mon, tue, wed] = g.rows[0].cells;
    expect(planCell(mon, 0)).toEqual({ kind: 'none' });
    expect(planCell(mon, 2.5)).toEqual({ kind: 'create', hours: 2.5 });
    expect(planCell(tue, 1)).toEqual({ kind: 'none' });
    expect(planCell(tue, 3)).toMatchObject({ kind: 'update', hours: 3, entry: { date: '2024-03-05' } });
    expect(planCell(tue, 0)).toMatchObject({ kind: 'delete' });
    expect(planCell(wed, 2)).toMatchObject({ kind: 'update', hours: 1.5 }); // others keep 0.5
    expect(planCell(wed, 0.25).kind).toBe('refuse');
  });
});
