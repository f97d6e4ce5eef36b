// Sync with a team server as the renderer sees it (issue #8; docs/sync-client.md): the status from
// `GET /sync/status` (polled while signed in, refreshed after a local change on the live stream),
// the conflicts and refused pushes, and connecting / disconnecting a remote. All through shared/client.ts.

import { create } from 'zustand';
import type { RemoteCredentials, SyncConflict, SyncRejected, SyncStatus } from '../../shared/client.ts';
import { api, errorMessages } from '../api.ts';
import { inWords } from '../lib/errors.ts';

export const SYNC_POLL_MS = 3000;
/** While syncing (a clone shows its progress) the status is polled faster. */
export const SYNC_POLL_BUSY_MS = 700;

export interface SyncLabel { text: string; tone: 'local' | 'ok' | 'busy' | 'offline' | 'error' | 'attention'; title: string }

const ago = (iso: string, now: number, locale?: string): string => {
  const s = Math.round((Date.parse(iso) - now) / 1000);
  const rtf = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  const abs = Math.abs(s);
  if (abs < 45) return rtf.format(0, 'second');
  if (abs < 3600) return rtf.format(Math.round(s / 60), 'minute');
  if (abs < 86_400) return rtf.format(Math.round(s / 3600), 'hour');
  return rtf.format(Math.round(s / 86_400), 'day');
};

/** "n of m" for a known total (the header, the Team server panel, the first-run clone), else null. */
export function progressText(p: { done: number; total: number } | null | undefined): string | null {
  return p && p.total > 0 ? `${Math.min(p.done, p.total)} of ${p.total}` : null;
}

/** What the header says for a status (pure; `now` in ms). Null status: not known yet / not the owner. */
export function syncLabel(st: SyncStatus | null, now: number, locale?: string): SyncLabel {
  if (!st || st.state === 'local' || !st.remote) return { text: 'Local only', tone: 'local', title: 'Your data lives on this computer. No team server is connected.' };
  const where = st.remote.url;
  if (st.state === 'connecting') {
    return { text: 'Connecting…', tone: 'busy', title: `Connecting to ${where}${st.error ? `: ${st.error}. Trying again` : ''}` };
  }
  if (st.state === 'syncing') {
    const p = st.progress;
    return { text: progressText(p) ? `Syncing ${progressText(p)}` : 'Syncing…', tone: 'busy', title: `Syncing with ${where}` };
  }
  const waiting = `${st.pending} change${st.pending === 1 ? '' : 's'} waiting`;
  const pending = st.pending ? ` ${st.pending} change${st.pending === 1 ? '' : 's'} wait to be sent.` : '';
  if (st.state === 'offline') {
    return { text: st.offlineSince ? `Offline since ${clockTime(st.offlineSince, now, locale)}` : 'Offline', tone: 'offline', title: `${where} does not answer. You keep working here; it syncs when it is back.${pending}` };
  }
  if (st.state === 'error') return { text: 'Sync error', tone: 'error', title: `${st.error ? inWords(st.error).replace(/\.?$/, '.') : 'The team server answered an error.'}${pending}` };
  // Idle: what is true now (issue #26): changes still to send, else synced (the time in the title).
  const last = st.lastSuccessAt ? ` · last sync ${ago(st.lastSuccessAt, now, locale)} (${new Date(st.lastSuccessAt).toLocaleString(locale)})` : ' · not synced yet';
  const live = st.live ? ' Changes of your team arrive as they are made.' : '';
  if (st.pending > 0) return { text: waiting, tone: 'busy', title: `${where}${last}.${pending}` };
  if (!st.lastSuccessAt) return { text: 'Not synced yet', tone: 'ok', title: `${where}${last}.` };
  return { text: 'Synced', tone: 'ok', title: `${where}${last}.${live}` };
}

/** "10:42" (24-hour clock) for a time today, else the date and time: "Offline since 22 Nov, 18:05". */
function clockTime(iso: string, now: number, locale?: string): string {
  const d = new Date(iso);
  const hm = d.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  return d.toDateString() === new Date(now).toDateString() ? hm : `${d.toLocaleDateString(locale, { day: 'numeric', month: 'short' })}, ${hm}`;
}

export type SyncTab = 'server' | 'conflicts' | 'rejected';

interface SyncStoreState {
  status: SyncStatus | null;
  conflicts: SyncConflict[];
  rejected: SyncRejected[];
  /** The route's messages from the last failed connect (nothing was changed). */
  connectError: string[] | null;
  connecting: boolean;
  /** The section the sync panel shows. */
  tab: SyncTab;
  setTab(t: SyncTab): void;
  refresh(): Promise<void>;
  loadLists(): Promise<void>;
  connect(c: RemoteCredentials): Promise<boolean>;
  disconnect(): Promise<void>;
  resolve(id: number, keep: 'mine' | 'theirs' | 'restore'): Promise<void>;
  syncNow(): Promise<void>;
}

export const useSync = create<SyncStoreState>((set, get) => ({
  status: null, conflicts: [], rejected: [], connectError: null, connecting: false, tab: 'server',
  setTab(tab) { set({ tab }); },
  async refresh() {
    try { set({ status: await api.syncStatus() }); } catch { /* not the owner, or the service is away: keep the last */ }
  },
  async loadLists() {
    try {
      const [conflicts, rejected] = await Promise.all([api.syncConflicts(), api.syncRejected()]);
      set({ conflicts, rejected });
    } catch { /* keep the last */ }
  },
  async connect(c) {
    set({ connecting: true, connectError: null });
    try {
      const status = await api.connectRemote(c);
      set({ status, connecting: false });
      return true;
    } catch (e) {
      set({ connecting: false, connectError: errorMessages(e) });
      return false;
    }
  },
  async disconnect() {
    try { set({ status: await api.disconnectRemote(), connectError: null, conflicts: [], rejected: [] }); } catch (e) { set({ connectError: errorMessages(e) }); }
  },
  async resolve(id, keep) {
    const c = await api.resolveConflict(id, keep);
    set({ conflicts: get().conflicts.map((x) => (x.id === id ? c : x)) });
    await get().refresh();
    // A restore (or leaving a removal deleted) settles the other conflicts of that removal too (D311).
    if (keep === 'restore' || c.kind !== 'field') await get().loadLists();
  },
  async syncNow() {
    try { set({ status: await api.syncRun() }); } catch { /* the status says why */ }
  },
}));

let timer: ReturnType<typeof setTimeout> | null = null;

/**
 * The network came back (the browser's `online` event): a replica that could not reach its remote
 * tries at once instead of waiting for its backoff (D255).
 */
function onOnline(): void {
  const st = useSync.getState().status;
  if (st?.remote && st.state !== 'syncing' && st.state !== 'local') void useSync.getState().syncNow();
}

/** Poll the status while signed in (faster while a sync runs); sync at once when the network comes back. */
export function startSyncPolling(): void {
  stopSyncPolling();
  window.addEventListener('online', onOnline);
  const tick = async () => {
    await useSync.getState().refresh();
    const busy = useSync.getState().status?.state === 'syncing';
    timer = setTimeout(() => { void tick(); }, busy ? SYNC_POLL_BUSY_MS : SYNC_POLL_MS);
  };
  void tick();
}
export function stopSyncPolling(): void {
  window.removeEventListener('online', onOnline);
  if (timer) clearTimeout(timer);
  timer = null;
}
