import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TOAST_ERROR_MS, TOAST_INFO_MS, useUi } from '../../../renderer/stores/ui.ts';

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

describe('unreachable service', () => {
  it('retries by itself, then closes the "cannot reach" toasts and asks the boards to refresh', async () => {
    const { api, ApiError } = await import('../../../renderer/api.ts');
    const me = vi.spyOn(api, 'me').mockRejectedValueOnce(new ApiError(0, ['down'])).mockResolvedValue({} as never);
    const ui = useUi.getState();
    const seq = ui.reconnectSeq;
    ui.fail('Could not load the week', new ApiError(0, ['down']));
    ui.fail('Could not load the messages', new ApiError(0, ['down']));
    ui.notify('error', 'Not allowed', ['403']);
    expect(useUi.getState().connection).toBe('offline');
    expect(useUi.getState().toasts.map((t) => t.title)).toEqual(['Could not load the messages', 'Not allowed']);
    await vi.advanceTimersByTimeAsync(1000); // first probe: still down
    expect(me).toHaveBeenCalledTimes(1);
    expect(useUi.getState().connection).toBe('offline');
    await vi.advanceTimersByTimeAsync(2000); // second probe: back
    expect(me).toHaveBeenCalledTimes(2);
    expect(useUi.getState().connection).toBe('online');
    expect(useUi.getState().reconnectSeq).toBe(seq + 1);
    expect(useUi.getState().toasts.map((t) => t.title)).toEqual(['Not allowed']);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(me).toHaveBeenCalledTimes(2); // no more probes once back
  });
});
