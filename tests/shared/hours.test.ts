import { describe, expect, it } from 'vitest';
import { dayOverflow, parseCellHours, parseHours } from '../../shared/hours.ts';
import { readValue } from '../../shared/values.ts';

const val = (r: { ok: boolean; value?: number }) => (r.ok ? r.value : null);

describe('hours: one grammar for the API and the timesheet', () => {
  it('reads decimals and H:MM, rounded to hundredths', () => {
    expect(['1.5', '.25', '2', '2.', '1:30', ':15', '0', '1.234', ' 3 '].map((s) => val(parseHours(s)))).toEqual([1.5, 0.25, 2, 2, 1.5, 0.25, 0, 1.23, 3]);
  });
  it('refuses minutes past 59, negatives and words, in the API and in a cell alike', () => {
    for (const s of ['1:75', '1:60', '-1', 'abc', '1.2.3', '1e3', '0x10', '1:5']) {
      expect(parseHours(s).ok, s).toBe(false);
      expect(parseCellHours(s).ok, s).toBe(false);
    }
  });
  it('a cell agrees with the API on every text the API reads (the cell adds only "" and the decimal comma)', () => {
    const texts = ['0', '1', '1.5', '.5', '12:00', '0:59', ':00', '99', '7.25', '1:7', '1::30', '..5', '+1', ' ', '1 5'];
    for (const s of texts) {
      if (s.trim() === '') continue;
      expect(val(parseCellHours(s)), s).toBe(val(parseHours(s)));
    }
    expect(val(parseCellHours(''))).toBe(0);
    expect(val(parseCellHours('1,25'))).toBe(1.25);
    expect(parseCellHours(',').ok).toBe(false);
  });
  it('the API validation of a time entry uses the same parser', () => {
    const field = { name: 'hours', inputKind: 'hours' } as unknown as Parameters<typeof readValue>[0];
    const node = (text: string) => ({ name: 'hours', text, nil: false, children: [], attrs: {} }) as unknown as Parameters<typeof readValue>[1];
    expect(readValue(field, node('1:75'))).toEqual({ ok: false, message: 'is not a number' });
    expect(readValue(field, node('1:45'))).toEqual({ ok: true, value: 1.75 });
  });
  it('cell messages say what to write', () => {
    expect(parseCellHours('1:75')).toEqual({ ok: false, message: 'Minutes go from 00 to 59: write 1:45, or 1.75.' });
    expect(parseCellHours('abc')).toEqual({ ok: false, message: 'Not a number of hours: write 1.5, 0.25 or 1:30.' });
  });
});

describe('a day holds at most 24 h', () => {
  it('across the cells of the day', () => {
    expect(dayOverflow(24, 0)).toBeNull();
    expect(dayOverflow(25, 0)).toBe('A day holds at most 24 h.');
    expect(dayOverflow(10, 14)).toBeNull();
    expect(dayOverflow(10.01, 14)).toMatch(/14 h are already logged that day, so this cell can take at most 10 h/);
    expect(dayOverflow(0.1, 23.9)).toBeNull();
  });
});
