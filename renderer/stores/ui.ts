// UI-wide state: toasts (errors and notices), the progress counter, overlays, connection status.

import { useEffect, useRef } from 'react';
import { create } from 'zustand';
import { ApiError, errorMessages } from '../api.ts';

export interface Toast { id: number; kind: 'error' | 'info'; title: string; lines: string[] }
export type Overlay = 'help' | 'search' | null;

interface UiState {
  toasts: Toast[];
  busy: number;
  overlay: Overlay;
  /** 'online': the local service answers; 'offline': the last request could not reach it. */
  connection: 'online' | 'offline';
  notify(kind: Toast['kind'], title: string, lines?: string[]): void;
  fail(title: string, e: unknown): void;
  dismiss(id: number): void;
  setOverlay(o: Overlay): void;
  /** Bumped by the `n` shortcut: the board on screen starts a new thing (list, message, row). */
  newSeq: number;
  requestNew(): void;
  /** Run something slow with the progress bar; marks the connection online/offline. */
  track<T>(p: Promise<T>): Promise<T>;
}

let nextId = 1;
export const TOAST_INFO_MS = 4000;
export const TOAST_ERROR_MS = 10_000;
/** Fired when the server stops accepting the credentials (password or token changed). */
export const UNAUTHORIZED = 'bivouac:unauthorized';

export const useUi = create<UiState>((set, get) => ({
  toasts: [],
  busy: 0,
  overlay: null,
  connection: 'online',
  notify(kind, title, lines = []) {
    const id = nextId++;
    // The same message twice is one toast (shown again with a fresh timer), not two.
    const same = (t: Toast) => t.kind === kind && t.title === title && t.lines.join('\n') === lines.join('\n');
    set((s) => ({ toasts: [...s.toasts.filter((t) => !same(t)).slice(-3), { id, kind, title, lines }] }));
    // Toasts close by themselves: notices soon, errors after time to read them (or with ×).
    setTimeout(() => get().dismiss(id), kind === 'info' ? TOAST_INFO_MS : TOAST_ERROR_MS);
  },
  fail(title, e) {
    if (e instanceof ApiError && e.status === 0) set({ connection: 'offline' });
    get().notify('error', title, errorMessages(e));
  },
  dismiss(id) { set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })); },
  setOverlay(overlay) { set({ overlay }); },
  newSeq: 0,
  requestNew() { set((s) => ({ newSeq: s.newSeq + 1 })); },
  async track(p) {
    set((s) => ({ busy: s.busy + 1 }));
    try {
      const v = await p;
      if (get().connection !== 'online') set({ connection: 'online' });
      return v;
    } catch (e) {
      if (e instanceof ApiError && e.status === 0) set({ connection: 'offline' });
      else if (e instanceof ApiError && e.status === 401 && typeof window !== 'undefined') window.dispatchEvent(new Event(UNAUTHORIZED));
      else if (e instanceof ApiError && get().connection !== 'online') set({ connection: 'online' });
      throw e;
    } finally {
      set((s) => ({ busy: s.busy - 1 }));
    }
  },
}));

/** Shorthand for stores: track a request. */
export const track = <T>(p: Promise<T>): Promise<T> => useUi.getState().track(p);
export const fail = (title: string, e: unknown): void => useUi.getState().fail(title, e);

/** Run `onNew` when the user asks the board on screen for a new thing (shortcut `n`); not on mount. */
export function useNewRequest(onNew: () => void): void {
  const seen = useRef(useUi.getState().newSeq);
  const cb = useRef(onNew);
  cb.current = onNew;
  useEffect(() => useUi.subscribe((s) => {
    if (s.newSeq !== seen.current) { seen.current = s.newSeq; cb.current(); }
  }), []);
}
