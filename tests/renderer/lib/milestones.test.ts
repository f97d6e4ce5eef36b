import { describe, expect, it } from 'vitest';
import { daysBetween, dueWords, groupMilestones, groupOf, laterOpen, linkedTo, moveWords, partyValue, shiftDay } from '../../../renderer/lib/milestones.ts';

const m = (id: number, deadline: string, completed_at?: string) => ({ id, deadline, completed: completed_at !== undefined, ...(completed_at ? { completed_at } : {}) });

describe('milestones: groups and order', () => {
  const today = '2026-03-10';
  it('late = not completed and due before today; today itself is upcoming; completed wins over late', () => {
    expect(groupOf(m(1, '2026-03-09'), today)).toBe('late');
    expect(groupOf(m(1, '2026-03-10'), today)).toBe('upcoming');
    expect(groupOf(m(1, '2026-03-11'), today)).toBe('upcoming');
    expect(groupOf(m(1, '2020-01-01', '2020-01-02T10:00:00Z'), today)).toBe('completed');
  });
  it('late by due date (longest overdue first), upcoming by due date, completed latest first; ties keep the given order', () => {
    const g = groupMilestones([
      m(1, '2026-04-01'), m(2, '2026-03-01'), m(3, '2026-02-01'), m(4, '2026-03-10'), m(5, '2026-04-01'),
      m(6, '2026-01-01', '2026-01-05T08:00:00Z'), m(7, '2026-02-01', '2026-03-01T08:00:00Z'), m(8, '2026-05-01', '2026-03-01T08:00:00Z'),
    ], today);
    expect(g.late.map((x) => x.id)).toEqual([3, 2]);
    expect(g.upcoming.map((x) => x.id)).toEqual([4, 1, 5]);
    expect(g.completed.map((x) => x.id)).toEqual([8, 7, 6]);
  });
  it('an empty board has three empty groups', () => {
    expect(groupMilestones([], today)).toEqual({ late: [], upcoming: [], completed: [] });
  });
});

describe('milestones: days left in words', () => {
  it('counts calendar days, across months, years and a DST change', () => {
    expect(daysBetween('2026-02-27', '2026-03-02')).toBe(3);
    expect(daysBetween('2025-12-31', '2026-01-01')).toBe(1);
    expect(daysBetween('2026-03-28', '2026-03-30')).toBe(2);
    expect(daysBetween('2026-03-10', '2026-03-01')).toBe(-9);
  });
  it('late, today, tomorrow, days left; nothing for a completed one', () => {
    const t = '2026-03-10';
    expect(dueWords(m(1, '2026-03-09'), t)).toBe('1 day late');
    expect(dueWords(m(1, '2026-03-01'), t)).toBe('9 days late');
    expect(dueWords(m(1, '2026-03-10'), t)).toBe('due today');
    expect(dueWords(m(1, '2026-03-11'), t)).toBe('due tomorrow');
    expect(dueWords(m(1, '2026-03-22'), t)).toBe('12 days left');
    expect(dueWords(m(1, '2026-03-01', '2026-03-02T00:00:00Z'), t)).toBe('');
  });
});

describe('milestones: links and parties', () => {
  it('lists and messages linked to a milestone; 0 and null link to nothing', () => {
    const rs = [{ id: 1, milestone_id: 5 }, { id: 2, milestone_id: null }, { id: 3, milestone_id: 0 }, { id: 4, milestone_id: 5 }];
    expect(linkedTo(rs, 5).map((r) => r.id)).toEqual([1, 4]);
    expect(linkedTo(rs, 0)).toEqual([]);
  });
  it('the responsible party as a select value', () => {
    expect(partyValue({})).toBe('');
    expect(partyValue({ responsible_party_id: 4, responsible_party_type: 'Person' })).toBe('4');
    expect(partyValue({ responsible_party_id: 12, responsible_party_type: 'Company' })).toBe('c12');
  });
});

describe('milestones: moving the later ones (§8.7, D333)', () => {
  it('the later ones are the other open milestones due after the old date (not the same day, not completed)', () => {
    const ms = [m(1, '2026-03-10'), m(2, '2026-03-10'), m(3, '2026-03-11'), m(4, '2026-04-01', '2026-03-01T08:00:00Z'), m(5, '2026-03-09'), m(6, '2026-05-01')];
    expect(laterOpen(ms, 1, '2026-03-10').map((x) => x.id)).toEqual([3, 6]);
    expect(laterOpen(ms, 3, '2026-03-11').map((x) => x.id)).toEqual([6]);
  });
  it('moves by whole days across months and years; off weekends a Saturday or Sunday moves on to Monday', () => {
    expect(shiftDay('2026-02-27', 3, false)).toBe('2026-03-02');
    expect(shiftDay('2026-12-30', 5, false)).toBe('2027-01-04');
    expect(shiftDay('2026-03-10', -3, false)).toBe('2026-03-07'); // a Saturday, kept
    expect(shiftDay('2026-03-10', -3, true)).toBe('2026-03-09'); // Saturday → Monday
    expect(shiftDay('2026-03-10', 5, true)).toBe('2026-03-16'); // Sunday → Monday
    expect(shiftDay('2026-03-10', 2, true)).toBe('2026-03-12');
  });
  it('says what it will do in words', () => {
    expect(moveWords(3, 5)).toBe('Also move the 3 later milestones by 5 days');
    expect(moveWords(1, 1)).toBe('Also move the later milestone by 1 day');
    expect(moveWords(2, -7)).toBe('Also move the 2 later milestones back by 7 days');
  });
});
