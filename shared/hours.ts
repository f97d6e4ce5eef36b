// Hours: the one grammar of the API (contract §2.6) and of the timesheet cells (D90).
// Pure: no Node, no DOM. shared/values.ts validates request bodies with it; the renderer parses
// what a person types into a cell with it, so the UI never accepts what the API refuses.

export type HoursResult = { ok: true; value: number } | { ok: false; message: string };

/** What one person's day can hold, across all their entries (the timesheet checks a day's total). */
export const MAX_DAY_HOURS = 24;

/** Hours in hundredths (how they are stored and summed: 0.1 + 0.2 is 0.3). */
export const hundredths = (h: number): number => Math.round(h * 100);

/**
 * The wire grammar: a non-negative decimal (`1.5`, `.25`, `2`, `2.`), or `H:MM` / `:MM` with
 * minutes 00–59 (`1:30` is 1.5, `:15` is 0.25). Rounded to 2 decimals. Messages follow the
 * API's error texts (`Hours is not a number`).
 */
export function parseHours(s: string): HoursResult {
  const t = s.trim();
  if (t.startsWith('-')) return { ok: false, message: 'must be greater than or equal to 0' };
  let v: number;
  const hm = /^(\d*):([0-5]\d)$/.exec(t);
  if (hm) v = Number(hm[1] || 0) + Number(hm[2]) / 60;
  else if (/^(\d+(\.\d*)?|\.\d+)$/.test(t)) v = Number(t);
  else return { ok: false, message: 'is not a number' };
  if (!Number.isFinite(v) || v > 1e9) return { ok: false, message: 'is not a number' };
  return { ok: true, value: hundredths(v) / 100 };
}

/**
 * What a person types in a timesheet cell: the wire grammar, plus two spellings of a cell only:
 * empty is 0 (delete the entry) and a decimal comma is a decimal point (`1,5`, the locale form).
 * Messages are sentences for the cell.
 */
export function parseCellHours(s: string): HoursResult {
  const t = s.trim();
  if (t === '') return { ok: true, value: 0 };
  const r = parseHours(/^\d*,\d*$/.test(t) && t !== ',' ? t.replace(',', '.') : t);
  if (r.ok) return r;
  if (/^\d*:\d$/.test(t)) return { ok: false, message: 'Write minutes with two digits: 1:05, 1:30.' };
  if (/^\d*:\d+$/.test(t)) return { ok: false, message: 'Minutes go from 00 to 59: write 1:45, or 1.75.' };
  if (t.startsWith('-')) return { ok: false, message: 'Hours cannot be negative.' };
  return { ok: false, message: 'Not a number of hours: write 1.5, 0.25 or 1:30.' };
}

/**
 * Can a day take `hours` in one cell, given the hours of the person's other cells that day?
 * Returns null when it can, else the reason (the day would exceed MAX_DAY_HOURS).
 */
export function dayOverflow(hours: number, otherCellsThatDay: number): string | null {
  const total = hundredths(hours) + hundredths(otherCellsThatDay);
  if (total <= MAX_DAY_HOURS * 100) return null;
  const room = Math.max(0, MAX_DAY_HOURS * 100 - hundredths(otherCellsThatDay)) / 100;
  return otherCellsThatDay > 0
    ? `A day holds at most ${MAX_DAY_HOURS} h: ${otherCellsThatDay} h are already logged that day, so this cell can take at most ${room} h.`
    : `A day holds at most ${MAX_DAY_HOURS} h.`;
}
