// Due dates typed in the quick add (issue #28): "Call the hut tomorrow", "Buy gas fri", "Pack by next monday",
// "Book the hut in 3 days", "File the permit 2026-12-03", and the user's locale's weekday names ("vendredi",
// "ven.") through Intl. Only the END of the text is read, so a word inside a title ("Friday meeting notes")
// stays text. Pure: the caller shows what was understood (a chip the user can remove) before saving.

import { addDays, toDate } from './dates.ts';

export interface DueGuess {
  /** The text without the date words. */
  content: string;
  /** YYYY-MM-DD. */
  due: string;
  /** The words that were read as the date (as typed). */
  words: string;
}

const EN_DAYS = [
  ['sunday', 'sun'], ['monday', 'mon'], ['tuesday', 'tue', 'tues'], ['wednesday', 'wed'],
  ['thursday', 'thu', 'thur', 'thurs'], ['friday', 'fri'], ['saturday', 'sat'],
];

const norm = (s: string): string => s.toLocaleLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/\.$/, '');

/** Weekday names (index 0 = Sunday) of English and of the given locales, long and short, normalized. */
const namesCache = new Map<string, Map<string, number>>();
export function weekdayNames(locales: readonly string[]): Map<string, number> {
  const key = locales.join(',');
  const hit = namesCache.get(key);
  if (hit) return hit;
  const m = new Map<string, number>();
  namesCache.set(key, m);
  EN_DAYS.forEach((names, i) => names.forEach((n) => m.set(n, i)));
  for (const loc of locales) {
    let long: Intl.DateTimeFormat, short: Intl.DateTimeFormat;
    try {
      long = new Intl.DateTimeFormat(loc, { weekday: 'long', timeZone: 'UTC' });
      short = new Intl.DateTimeFormat(loc, { weekday: 'short', timeZone: 'UTC' });
    } catch { continue; }
    for (let i = 0; i < 7; i++) {
      const d = new Date(Date.UTC(2023, 0, 1 + i)); // 2023-01-01 is a Sunday
      for (const f of [long, short]) {
        const n = norm(f.format(d));
        // a one-letter short name ("M") would eat the last word of too many titles
        if (n.length >= 2 && !m.has(n) && !/\s/.test(n)) m.set(n, i);
      }
    }
  }
  return m;
}

const RELATIVE: Record<string, number> = { today: 0, tonight: 0, tod: 0, tomorrow: 1, tmr: 1, tmrw: 1, tomorow: 1 };
const UNITS: Record<string, number> = { day: 1, days: 1, d: 1, week: 7, weeks: 7, w: 7, wk: 7, wks: 7 };

/**
 * Read a due date at the end of `text` (`today` is YYYY-MM-DD in the user's calendar). A weekday is its
 * next occurrence (today when today is that day); "next <weekday>" is never today. Null when the end of the
 * text names no date, or when nothing but the date was typed (then it is the item's text).
 */
export function parseDue(text: string, today: string, locales: readonly string[] = []): DueGuess | null {
  const words = text.trimEnd().split(/(\s+)/); // keeps the spaces: the content is given back as typed
  const tokens: { w: string; at: number }[] = [];
  for (let i = 0; i < words.length; i++) if (words[i].trim()) tokens.push({ w: words[i], at: i });
  if (tokens.length < 2) return null;
  const tok = (k: number): string => norm(tokens[tokens.length - k]?.w ?? '').replace(/[,;:!?]$/, '');
  const days = weekdayNames(locales);
  let due: string | null = null;
  let used = 0;
  const last = tok(1);
  if (last in RELATIVE) { due = addDays(today, RELATIVE[last]); used = 1; }
  else if (/^\d{4}-\d{2}-\d{2}$/.test(last) && !Number.isNaN(toDate(last).getTime()) && toDate(last).toISOString().slice(0, 10) === last) { due = last; used = 1; }
  else if (last in UNITS && /^\d{1,3}$/.test(tok(2)) && tok(3) === 'in') { due = addDays(today, Number(tok(2)) * UNITS[last]); used = 3; }
  else if (days.has(last)) {
    const want = days.get(last)!;
    const now = toDate(today).getUTCDay();
    let ahead = (want - now + 7) % 7;
    used = 1;
    if (tok(2) === 'next') { if (ahead === 0) ahead = 7; used = 2; }
    else if (tok(2) === 'this') used = 2;
    due = addDays(today, ahead);
  }
  if (!due) return null;
  // "due", "by", "on" before the date are part of it ("Pay the hut by fri")
  if (['by', 'on', 'due'].includes(tok(used + 1))) used += 1;
  if (tokens.length - used < 1) return null;
  const cut = tokens[tokens.length - used].at;
  const content = words.slice(0, cut).join('').trim();
  if (!content) return null;
  return { content, due, words: words.slice(cut).join('').trim() };
}
