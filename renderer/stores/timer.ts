// The running timer (issue #28, D282): one at a time per browser, kept in localStorage so that a reload or a
// restart of the app finds it running; stopping it opens the "Save the time" dialog (a draft entry).

import { create } from 'zustand';
import { readTimer, ROUNDINGS, type Rounding, type RunningTimer } from '../lib/timer.ts';

const KEY = 'bivouac.timer';
const ROUND_KEY = 'bivouac.timer.rounding';
const store = (): Storage | null => { try { return window.localStorage; } catch { return null; } };

export interface StoppedTimer extends RunningTimer { stoppedAt: number }

interface TimerState {
  running: RunningTimer | null;
  /** Stopped and not yet saved or discarded: the dialog shows it. */
  stopped: StoppedTimer | null;
  rounding: Rounding;
  start(t: Omit<RunningTimer, 'startedAt'>): void;
  stop(): void;
  /** Saved or discarded: the timer is gone. */
  clear(): void;
  /** Back to running (the dialog's "Keep running"). */
  resume(): void;
  setRounding(r: Rounding): void;
  /** Read what another tab or a previous run saved. */
  load(): void;
}

const savedRounding = (): Rounding => {
  const v = store()?.getItem(ROUND_KEY);
  const n = v ? Number(v) : NaN;
  return (ROUNDINGS as readonly number[]).includes(n) ? (n as Rounding) : 15;
};

export const useTimer = create<TimerState>((set, get) => ({
  running: null,
  stopped: null,
  rounding: savedRounding(),
  start(t) {
    const running = { ...t, startedAt: Date.now() };
    store()?.setItem(KEY, JSON.stringify(running));
    set({ running, stopped: null });
  },
  stop() {
    const r = get().running;
    if (!r) return;
    // still kept until saved or discarded: a reload while the dialog is open loses nothing
    set({ running: null, stopped: { ...r, stoppedAt: Date.now() } });
  },
  clear() { store()?.removeItem(KEY); set({ running: null, stopped: null }); },
  resume() { const s = get().stopped; if (s) { const { stoppedAt: _, ...r } = s; set({ running: r, stopped: null }); } },
  setRounding(r) { store()?.setItem(ROUND_KEY, String(r)); set({ rounding: r }); },
  load() { set({ running: readTimer(store()?.getItem(KEY) ?? null), stopped: null }); },
}));

if (typeof window !== 'undefined') {
  useTimer.getState().load();
  // another tab started or stopped it
  window.addEventListener('storage', (e) => { if (e.key === KEY || e.key === null) useTimer.getState().load(); });
}
