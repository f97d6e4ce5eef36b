import { describe, expect, it } from 'vitest';
import { dateRange } from '../../../renderer/lib/dates.ts';
import { bucketFor, bucketHours, rangeBackwards } from '../../../renderer/lib/report.ts';

describe('report ranges', () => {
  it('long ranges are drawn by week, then by month', () => {
    expect([1, 62, 63, 366, 367].map(bucketFor)).toEqual(['day', 'day', 'week', 'week', 'month']);
  });
  it('weeks start on Monday and months on the 1st; hours add up without drift', () => {
    const days = dateRange('2026-02-26', '2026-03-03').map((date, i) => ({ date, hours: [0.1, 0.2, 1, 0, 2, 0.25][i] }));
    expect(bucketHours(days, 'week')).toEqual([
      { date: '2026-02-23', end: '2026-03-01', hours: 1.3 },
      { date: '2026-03-02', end: '2026-03-03', hours: 2.25 },
    ]);
    expect(bucketHours(days, 'month')).toEqual([
      { date: '2026-02-01', end: '2026-02-28', hours: 1.3 },
      { date: '2026-03-01', end: '2026-03-03', hours: 2.25 },
    ]);
    expect(bucketHours(dateRange('2026-01-01', '2026-12-31').map((date) => ({ date, hours: 1 })), 'week')).toHaveLength(53);
  });
  it('a From after To is backwards; an open end is not', () => {
    expect(rangeBackwards('2026-03-02', '2026-03-01')).toBe(true);
    expect(rangeBackwards('2026-03-01', '2026-03-01')).toBe(false);
    expect(rangeBackwards('2026-03-02', undefined)).toBe(false);
  });
});
