import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TOAST_ERROR_MS, TOAST_INFO_MS, useUi } from './ui.ts';

beforeEach(() => { vi.useFakeTimers(); useUi.setState({ toasts: [], busy: 0, connection: 'online' }); });
afterEach(() => { vi.useRealTimers(); });

describe('toasts', () => {
  it('the same message twice is one toast', () => {
    const ui = useUi.getState();
    ui.notify('error', 'Could not save', ['The server refused']);
    ui.notify('error', 'Could not save', ['The server refused']);
    ui.notify('error', 'Could not save', ['Another reason']);
    expect(useUi.getState().toasts.map((t) => t.lines[0])).toEqual(['The server refused', 'Another reason']);
  });
  it('errors close by themselves too (later than notices)', () => {
    const ui = useUi.getState();
    ui.notify('info', 'Saved');
    ui.notify('error', 'Could not save');
    vi.advanceTimersByTime(TOAST_INFO_MS);
    expect(useUi.getState().toasts.map((t) => t.title)).toEqual(['Could not save']);
    vi.advanceTimersByTime(TOAST_ERROR_MS - TOAST_INFO_MS);
    expect(useUi.getState().toasts).toEqual([]);
  });
  it('the shortcut for "new" reaches subscribers as a counter, without a window event', () => {
    const seen: number[] = [];
    const before = useUi.getState().newSeq;
    const off = useUi.subscribe((s) => seen.push(s.newSeq));
    useUi.getState().requestNew();
    off();
    expect(seen).toEqual([before + 1]);
  });
});
