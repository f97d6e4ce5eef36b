import { describe, expect, it } from 'vitest';
import { elapsedText, readTimer, roundHours } from '../../../renderer/lib/timer.ts';

const min = (m: number) => m * 60_000;

describe('timer', () => {
  it('rounds up to the chosen step, at least one step', () => {
    expect(roundHours(min(1), 15)).toBe(0.25);
    expect(roundHours(min(15), 15)).toBe(0.25);
    expect(roundHours(min(16), 15)).toBe(0.5);
    expect(roundHours(min(61), 30)).toBe(1.5);
    expect(roundHours(min(7), 6)).toBe(0.2);
    expect(roundHours(min(90), 0)).toBe(1.5);
    expect(roundHours(1000, 0)).toBe(0.01);
    expect(roundHours(0, 15)).toBe(0);
  });
  it('shows elapsed time as h:mm:ss', () => {
    expect(elapsedText(min(61) + 5000)).toBe('1:01:05');
    expect(elapsedText(-5)).toBe('0:00:00');
  });
  it('reads back only a well-formed saved timer', () => {
    const ok = { personId: 1, projectId: 2, todoItemId: null, label: 'Hut', startedAt: 1_700_000_000_000 };
    expect(readTimer(JSON.stringify(ok))).toEqual(ok);
    expect(readTimer(JSON.stringify({ ...ok, todoItemId: 5 }))?.todoItemId).toBe(5);
    expect(readTimer('{')).toBeNull();
    expect(readTimer(JSON.stringify({ ...ok, projectId: '2' }))).toBeNull();
    expect(readTimer(JSON.stringify({ ...ok, todoItemId: -1 }))).toBeNull();
    expect(readTimer(null)).toBeNull();
  });
});
