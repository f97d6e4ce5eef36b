// UI-wide state: toasts (errors and notices), the progress counter, overlays, connection status.

import { useEffect, useRef } from 'react';
import { create } from 'zustand';
import { api, ApiError, errorMessages } from '../api.ts';

export interface Toast {
  id: number; kind: 'error' | 'info'; title: string; lines: string[];
  /** A failure to reach the service: closed as soon as the service answers again. */
  offline?: boolean;
  /** A button on the toast (e.g. Undo). */
  action?: { label: string; run: () => void };
}
/** `people` / `projects`: the administrators' People area on that tab; `account`: My account. */
export type Overlay = 'help' | 'search' | 'sync' | 'settings' | 'people' | 'projects' | 'account' | null;

interface UiState {
  toasts: Toast[];
  busy: number;
  overlay: Overlay;
  /** 'online': the local service answers; 'offline': the last request could not reach it (retrying). */
  connection: 'online' | 'offline';
  /** Bumped each time the service answers again after being unreachable: boards refetch what they show. */
  reconnectSeq: number;
  notify(kind: Toast['kind'], title: string, lines?: string[], extra?: Pick<Toast, 'offline' | 'action'>): number;
  fail(title: string, e: unknown): void;
  dismiss(id: number): void;
  setOverlay(o: Overlay): void;
  /** The latest polite announcement for screen readers (a live region shows it). */
  announcement: { id: number; text: string } | null;
  announce(text: string): void;
  /** Bumped by the `n` shortcut: the board on screen starts a new thing (list, message, row). */
  newSeq: number;
  requestNew(): void;
  /** Run something slow with the progress bar; marks the connection online/offline. */
  track<T>(p: Promise<T>): Promise<T>;
  /** The service could not be reached: say so and retry by itself until it answers. */
  wentOffline(): void;
  /** The service answered: close the "cannot reach" toasts and let the boards refresh. */
  cameBack(): void;
}

let nextId = 1;
export const TOAST_INFO_MS = 4000;
export const TOAST_ERROR_MS = 10_000;
/** A toast with an action (Undo) stays this long. */
export const UNDO_TOAST_MS = 8000;
/** Retry delays while the service cannot be reached (the last one repeats). */
export const RETRY_MS = [1000, 2000, 3000, 5000];
/** Fired when the server stops accepting the credentials (password or token changed). */
export const UNAUTHORIZED = 'bivouac:unauthorized';

let retryTimer: ReturnType<typeof setTimeout> | null = null;
let retryCount = 0;

const unreachable = (e: unknown): boolean => e instanceof ApiError && e.status === 0;

export const useUi = create<UiState>((set, get) => ({
  toasts: [],
  busy: 0,
  overlay: null,
  connection: 'online',
  reconnectSeq: 0,
  notify(kind, title, lines = [], extra = {}) {
    const id = nextId++;
    // The same message twice is one toast (shown again with a fresh timer), not two.
    // While the service is unreachable, one toast says so (the latest failure), not one per request.
    const same = (t: Toast) => (extra.offline && t.offline) || (t.kind === kind && t.title === title && t.lines.join('\n') === lines.join('\n'));
    set((s) => ({ toasts: [...s.toasts.filter((t) => !same(t)).slice(-3), { id, kind, title, lines, ...extra }] }));
    // Toasts close by themselves: notices soon, errors after time to read them (or with ×).
    setTimeout(() => get().dismiss(id), extra.action ? UNDO_TOAST_MS : kind === 'info' ? TOAST_INFO_MS : TOAST_ERROR_MS);
    return id;
  },
  fail(title, e) {
    if (unreachable(e)) {
      get().wentOffline();
      get().notify('error', title, ['The local service does not answer; Bivouac retries by itself and refreshes when it is back.'], { offline: true });
      return;
    }
    get().notify('error', title, errorMessages(e));
  },
  dismiss(id) { set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })); },
  setOverlay(overlay) { set({ overlay }); },
  announcement: null,
  announce(text) { set({ announcement: { id: nextId++, text } }); },
  newSeq: 0,
  requestNew() { set((s) => ({ newSeq: s.newSeq + 1 })); },
  wentOffline() {
    if (get().connection !== 'offline') { set({ connection: 'offline' }); retryCount = 0; }
    if (retryTimer !== null) return;
    const probe = () => {
      retryTimer = setTimeout(() => {
        // Any answer (even 401) means the service is back; only a network failure keeps retrying.
        api.me().then(() => true, (e: unknown) => !unreachable(e)).then((back) => {
          retryTimer = null;
          if (back) get().cameBack();
          else if (get().connection === 'offline') probe();
        });
      }, RETRY_MS[Math.min(retryCount++, RETRY_MS.length - 1)]);
    };
    probe();
  },
  cameBack() {
    if (retryTimer !== null) { clearTimeout(retryTimer); retryTimer = null; }
    if (get().connection === 'online') return;
    set((s) => ({ connection: 'online', toasts: s.toasts.filter((t) => !t.offline), reconnectSeq: s.reconnectSeq + 1 }));
  },
  async track(p) {
    set((s) => ({ busy: s.busy + 1 }));
    try {
      const v = await p;
      get().cameBack();
      return v;
    } catch (e) {
      if (unreachable(e)) get().wentOffline();
      else if (e instanceof ApiError && e.status === 401 && typeof window !== 'undefined') window.dispatchEvent(new Event(UNAUTHORIZED));
      else if (e instanceof ApiError) get().cameBack();
      throw e;
    } finally {
      set((s) => ({ busy: s.busy - 1 }));
    }
  },
}));

/** Shorthand for stores: track a request. */
export const track = <T>(p: Promise<T>): Promise<T> => useUi.getState().track(p);
export const fail = (title: string, e: unknown): void => useUi.getState().fail(title, e);
/** Say something to screen-reader users (moves, results), politely. */
export const announce = (text: string): void => useUi.getState().announce(text);

/** Call `cb` whenever a counter of the UI store moves (not on mount). */
function useCounter(pick: (s: UiState) => number, cb: () => void): void {
  const seen = useRef(pick(useUi.getState()));
  const fn = useRef(cb);
  fn.current = cb;
  const pickRef = useRef(pick);
  useEffect(() => useUi.subscribe((s) => {
    const v = pickRef.current(s);
    if (v !== seen.current) { seen.current = v; fn.current(); }
  }), []);
}

/** Run `onNew` when the user asks the board on screen for a new thing (shortcut `n`); not on mount. */
export function useNewRequest(onNew: () => void): void { useCounter((s) => s.newSeq, onNew); }

/** Run `refresh` when the service answers again after being unreachable (refetch what the board shows). */
export function useReconnect(refresh: () => void): void { useCounter((s) => s.reconnectSeq, refresh); }
