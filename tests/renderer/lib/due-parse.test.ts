import { describe, expect, it } from 'vitest';
import { parseDue } from '../../../renderer/lib/due-parse.ts';

const SAT = '2026-11-28'; // a Saturday
const due = (t: string, today = SAT, loc: string[] = []) => parseDue(t, today, loc);

describe('parseDue', () => {
  it('reads today and tomorrow at the end', () => {
    expect(due('Call the hut tomorrow')).toEqual({ content: 'Call the hut', due: '2026-11-29', words: 'tomorrow' });
    expect(due('Pack today')?.due).toBe(SAT);
    expect(due('Pack Tmrw')?.due).toBe('2026-11-29');
  });
  it('reads English weekdays, short and long, as the next such day (today included); "next" never today', () => {
    expect(due('Buy gas fri')).toEqual({ content: 'Buy gas', due: '2026-12-04', words: 'fri' });
    expect(due('Buy gas Friday')?.due).toBe('2026-12-04');
    expect(due('Buy gas mon')?.due).toBe('2026-11-30');
    expect(due('Buy gas sat')?.due).toBe(SAT);
    expect(due('Buy gas next sat')).toEqual({ content: 'Buy gas', due: '2026-12-05', words: 'next sat' });
    expect(due('Pay the hut by thurs')).toEqual({ content: 'Pay the hut', due: '2026-12-03', words: 'by thurs' });
  });
  it('reads "in N days/weeks" and an ISO date', () => {
    expect(due('Book in 3 days')?.due).toBe('2026-12-01');
    expect(due('Book in 2 weeks')?.due).toBe('2026-12-12');
    expect(due('File the permit 2026-12-03')?.due).toBe('2026-12-03');
    expect(due('File the permit 2026-02-30')).toBeNull();
  });
  it('reads the locale’s weekday names (Intl), accents and a final dot optional', () => {
    expect(due('Appeler le refuge vendredi', SAT, ['fr'])?.due).toBe('2026-12-04');
    expect(due('Appeler le refuge ven.', SAT, ['fr'])?.due).toBe('2026-12-04');
    expect(due('Hütte anrufen Montag', SAT, ['de'])?.due).toBe('2026-11-30');
    expect(due('Llamar miércoles', SAT, ['es'])?.due).toBe('2026-12-02');
    expect(due('Appeler le refuge vendredi')).toBeNull(); // not without the locale
  });
  it('leaves the text alone when the date words are not at the end, or are all there is', () => {
    expect(due('Friday meeting notes')).toBeNull();
    expect(due('tomorrow')).toBeNull();
    expect(due('Read chapter 3 days')).toBeNull();
    expect(due('Sunday')).toBeNull();
    expect(due('Review the plan')).toBeNull();
  });
});
