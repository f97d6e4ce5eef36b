import { describe, expect, it } from 'vitest';
import type { OverviewEvent } from '../../../shared/client.ts';
import { actionOf, dayOf, groupEvents, isNew, placeOf, relativeDay } from '../../../renderer/lib/overview.ts';

const ev = (o: Partial<OverviewEvent>): OverviewEvent => ({
  kind: 'post', at: '2026-11-28T12:00:00Z', project_id: 1, project_name: 'Alpha', resource: 'post', record_id: 1,
  title: 'T', excerpt: null, parent_type: null, parent_id: null, person_id: 2, person_name: 'Fran Firm', hours: null, ...o,
});

describe('the Overview (renderer)', () => {
  it('groups by day, then by project in the order of their newest event', () => {
    const g = groupEvents([
      ev({ record_id: 1, project_id: 2, project_name: 'Base', at: '2026-11-28T12:00:00Z' }),
      ev({ record_id: 2, project_id: 1, at: '2026-11-28T11:00:00Z' }),
      ev({ record_id: 3, project_id: 2, project_name: 'Base', at: '2026-11-28T10:00:00Z' }),
      ev({ record_id: 4, kind: 'time-entry', project_id: 1, at: '2026-11-25T00:00:00Z', hours: 2 }),
    ]);
    expect(g.map((d) => d.day)).toEqual([dayOf(ev({ at: '2026-11-28T12:00:00Z' })), '2026-11-25']);
    expect(g[0].projects.map((p) => [p.projectName, p.events.map((e) => e.record_id)])).toEqual([['Base', [1, 3]], ['Alpha', [2]]]);
  });
  it('a time entry belongs to its own date, whatever the time zone', () => {
    expect(dayOf(ev({ kind: 'time-entry', at: '2026-11-25T00:00:00Z' }))).toBe('2026-11-25');
  });
  it('links each event to its place', () => {
    expect(placeOf(ev({ record_id: 9 }))).toBe('#/projects/1/messages/9');
    expect(placeOf(ev({ kind: 'comment', parent_type: 'Post', parent_id: 4 }))).toBe('#/projects/1/messages/4');
    expect(placeOf(ev({ kind: 'comment', parent_type: 'TodoItem', parent_id: 4 }))).toBe('#/projects/1/todos');
    expect(placeOf(ev({ kind: 'todo-item-completed' }))).toBe('#/projects/1/todos');
    expect(placeOf(ev({ kind: 'time-entry' }))).toBe('#/projects/1/time');
    expect(placeOf(ev({ kind: 'milestone' }))).toBe('#/projects/1/milestones');
    expect(placeOf(ev({ kind: 'milestone-completed' }))).toBe('#/projects/1/milestones');
    expect(placeOf(ev({ kind: 'comment', parent_type: 'Milestone', parent_id: 4 }))).toBe('#/projects/1/milestones');
  });
  it('says what happened', () => {
    expect(actionOf(ev({ kind: 'time-entry', hours: 1 }))).toBe('logged 1 hour');
    expect(actionOf(ev({ kind: 'time-entry', hours: 2.5 }))).toBe('logged 2.5 hours');
    expect(actionOf(ev({ kind: 'comment', parent_type: 'Milestone' }))).toBe('commented on the milestone');
  });
  it('marks what is newer than the last visit; a first visit marks nothing', () => {
    expect(isNew(ev({ at: '2026-11-28T12:00:01Z' }), '2026-11-28T12:00:00Z')).toBe(true);
    expect(isNew(ev({ at: '2026-11-28T12:00:00Z' }), '2026-11-28T12:00:00Z')).toBe(false);
    expect(isNew(ev({}), null)).toBe(false);
  });
  it('names today and yesterday', () => {
    expect(relativeDay('2026-11-28', '2026-11-28')).toBe('Today');
    expect(relativeDay('2026-11-27', '2026-11-28')).toBe('Yesterday');
    expect(relativeDay('2026-11-26', '2026-11-28')).toBeNull();
  });
});
