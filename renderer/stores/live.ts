// Live data (D94): while signed in, one streaming fetch of `GET /changes/stream` (with the API's
// Authorization header, which EventSource cannot send) tells which resources changed in which
// projects; the boards refetch what they show (`useLiveChange`). A hidden tab keeps the news and
// applies it when it is shown again. The stream reconnects by itself, resuming after the last event.

import { useEffect, useRef } from 'react';
import { create } from 'zustand';
import { sseParser } from '../../shared/sse.ts';
import { api } from '../api.ts';
import { useUi } from './ui.ts';

export interface Change { seq: number; resources: string[]; projects: number[] }

interface LiveState {
  /** Bumped for each change batch to apply (boards compare it). */
  seq: number;
  last: Change | null;
  connected: boolean;
}

export const useLive = create<LiveState>(() => ({ seq: 0, last: null, connected: false }));

let ctl: AbortController | null = null;
let held: Change | null = null;

const hidden = (): boolean => typeof document !== 'undefined' && document.visibilityState === 'hidden';

function publish(c: Change): void {
  if (hidden()) {
    // Hidden tab: merge and apply when visible (no refetching in the background).
    held = held ? { seq: c.seq, resources: [...new Set([...held.resources, ...c.resources])], projects: [...new Set([...held.projects, ...c.projects])] } : c;
    return;
  }
  useLive.setState((s) => ({ seq: s.seq + 1, last: c }));
}

if (typeof document !== 'undefined') {
  document.addEventListener('visibilitychange', () => {
    if (!hidden() && held) { const c = held; held = null; publish(c); }
  });
}

/** Start (or restart) the stream for the current credentials; stop with `stopLive`. */
export function startLive(): void {
  stopLive();
  const me = new AbortController();
  ctl = me;
  let since: string | null = null;
  let delay = 1000;
  const run = async () => {
    while (!me.signal.aborted) {
      try {
        const t = api.streamTarget(`/changes/stream${since ? `?since=${encodeURIComponent(since)}` : ''}`);
        const res = await fetch(t.url, { headers: t.headers, signal: me.signal, credentials: 'omit', cache: 'no-store' });
        if (res.status === 401 || res.status === 403) return; // signed out elsewhere: the next API call says so
        if (!res.ok || !res.body) throw new Error(`stream ${res.status}`);
        useLive.setState({ connected: true });
        delay = 1000;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        const p = sseParser((e) => {
          if (e.id) since = e.id;
          if (e.event === 'change') { try { publish(JSON.parse(e.data) as Change); } catch { /* ignore a bad event */ } }
        });
        // The stream being back after a failure means the service is back too.
        if (useUi.getState().connection === 'offline') useUi.getState().cameBack();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          p.push(value);
        }
      } catch { /* network error or abort: retry below */ }
      useLive.setState({ connected: false });
      if (me.signal.aborted) return;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 10_000);
    }
  };
  void run();
}

export function stopLive(): void {
  ctl?.abort();
  ctl = null;
  held = null;
}

/**
 * Run `refetch` when something changed that the board shows: one of `resources` in `projectId`
 * (a change of unknown project, a deletion, counts as possibly this one).
 */
export function useLiveChange(projectId: number | null, resources: readonly string[], refetch: (c: Change) => void): void {
  const seen = useRef(useLive.getState().seq);
  const cb = useRef(refetch);
  cb.current = refetch;
  const want = useRef({ projectId, resources });
  want.current = { projectId, resources };
  useEffect(() => useLive.subscribe((s) => {
    if (s.seq === seen.current || !s.last) return;
    seen.current = s.seq;
    const c = s.last;
    const w = want.current;
    if (!c.resources.some((r) => w.resources.includes(r))) return;
    if (w.projectId !== null && c.projects.length > 0 && !c.projects.includes(w.projectId)) {
      // a change elsewhere: only a deletion (no project known) could still concern this board
      return;
    }
    cb.current(c);
  }), []);
}
