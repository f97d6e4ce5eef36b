// Calendar helpers on plain `YYYY-MM-DD` strings (no time zones involved: UTC arithmetic only).

export const pad = (n: number): string => String(n).padStart(2, '0');

export function toDate(s: string): Date {
  const [y, m, d] = s.slice(0, 10).split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d));
}

export const fmt = (d: Date): string => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;

export function addDays(s: string, n: number): string {
  const d = toDate(s);
  d.setUTCDate(d.getUTCDate() + n);
  return fmt(d);
}

/** Today in the user's local calendar. */
export function today(now: Date = new Date()): string {
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** The Monday of the week holding `s`. */
export function weekStart(s: string): string {
  const dow = (toDate(s).getUTCDay() + 6) % 7; // Monday = 0
  return addDays(s, -dow);
}

export const weekDays = (monday: string): string[] => Array.from({ length: 7 }, (_, i) => addDays(monday, i));

/** Every date from `from` to `to` inclusive (empty when from > to). Capped for safety. */
export function dateRange(from: string, to: string, cap = 3660): string[] {
  const out: string[] = [];
  for (let d = from; d <= to && out.length < cap; d = addDays(d, 1)) out.push(d);
  return out;
}

// Dates as the user's locale writes them (Intl), one formatter per form. Calendar dates are formatted
// in UTC (they are days, not instants); datetimes in the user's time zone.
const fmtDayName = new Intl.DateTimeFormat(undefined, { weekday: 'short', timeZone: 'UTC' });
const fmtShort = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' });
const fmtLong = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const fmtMedium = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const fmtWhen = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const fmtMonth = new Intl.DateTimeFormat(undefined, { month: 'short', year: 'numeric', timeZone: 'UTC' });

export const dayName = (s: string): string => fmtDayName.format(toDate(s));
export const shortDate = (s: string): string => fmtShort.format(toDate(s));
export const longDate = (s: string): string => fmtLong.format(toDate(s));
/** A calendar date in full (due dates, report ranges): `Nov 30, 2026` / `30 nov. 2026`. */
export const mediumDate = (s: string): string => fmtMedium.format(toDate(s));
export const monthName = (s: string): string => fmtMonth.format(toDate(s));

/** A wire datetime (`2024-03-05T00:00:00Z`) in the user's locale and time zone. */
export function when(dt: string | null | undefined): string {
  if (!dt) return '';
  const d = new Date(dt);
  if (Number.isNaN(d.getTime())) return dt;
  return fmtWhen.format(d);
}

/** Hours as text: at most two decimals, no trailing zeros (`1.5`, `0.25`, `2`). */
export const hoursText = (h: number): string => String(Math.round(h * 100) / 100);
