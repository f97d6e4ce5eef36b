// Desktop mode: what the page does when the Electron preload gave it `window.bivouac` (the typed
// bridge of shared/ipc.ts). The shell's events (links, menu commands, notices, sync state) drive the
// page; the desktop settings panel calls the shell's actions. In a plain browser none of this shows.

import { useEffect, useState, type FormEvent } from 'react';
import { create } from 'zustand';
import type { BivouacBridge, ShellCommand, ShellSettingsPatch, ShellState, SyncStatus } from '../../shared/ipc.ts';
import { progressRatio } from '../../shared/sync-status.ts';
import { useSession, type View } from '../stores/session.ts';
import { useUi } from '../stores/ui.ts';
import { Modal } from './Modal.tsx';

/** The bridge, when the page runs in the desktop app. */
export const desktopBridge = (): BivouacBridge | undefined => (typeof window !== 'undefined' ? window.bivouac : undefined);

interface DesktopState {
  open: boolean;
  sync: SyncStatus | null;
  setOpen(open: boolean): void;
  setSync(s: SyncStatus): void;
}

export const useDesktop = create<DesktopState>((set) => ({
  open: false,
  sync: null,
  setOpen: (open) => set({ open }),
  setSync: (sync) => set({ sync }),
}));

export function syncText(s: SyncStatus | null): string {
  if (!s) return '…';
  const waiting = s.pending > 0 ? `, ${s.pending} ${s.pending === 1 ? 'change' : 'changes'} waiting` : '';
  const conflicts = s.conflicts > 0 ? `, ${s.conflicts} ${s.conflicts === 1 ? 'conflict' : 'conflicts'}` : '';
  switch (s.state) {
    case 'local': return 'Local only: no team server';
    case 'syncing': {
      const r = progressRatio(s.progress);
      return `Syncing${r !== null ? ` ${Math.round(r * 100)}%` : ''}…${conflicts}`;
    }
    case 'connecting': return 'Connecting to the team server…';
    case 'offline': return `Offline${waiting}${conflicts}`;
    case 'error': return `Sync failed${s.message ? `: ${s.message}` : ''}${waiting}${conflicts}`;
    case 'idle': return `${s.pending > 0 ? `${s.pending} to sync` : 'Synced'}${conflicts}`;
  }
}

const VIEW_OF: Partial<Record<ShellCommand, View>> = { 'view:todos': 'todos', 'view:messages': 'messages', 'view:time': 'time', 'view:report': 'report' };

const closePanel = () => useDesktop.getState().setOpen(false);

/** Mounted once: follows the shell's events and shows the settings panel when asked. */
export function DesktopShell() {
  const open = useDesktop((d) => d.open);
  useEffect(() => {
    const b = desktopBridge();
    if (!b) return;
    const d = useDesktop.getState();
    const offs = [
      b.on('shell:sync-status', (s) => d.setSync(s)),
      // A bivouac:// link: the route changes like a back/forward (main.tsx follows popstate).
      b.on('shell:open-link', ({ hash }) => { if (window.location.hash !== hash) window.location.hash = hash; }),
      b.on('shell:notice', ({ title, text }) => useUi.getState().notify('info', title, [text])),
      b.on('shell:command', (c) => {
        const ui = useUi.getState();
        const view = VIEW_OF[c];
        if (view) useSession.getState().go(view);
        else if (c === 'settings') d.setOpen(true);
        else if (c === 'search' || c === 'help') ui.setOverlay(c);
        else if (c === 'new') ui.requestNew();
      }),
    ];
    b.invoke('sync:status').then((s) => d.setSync(s), () => undefined);
    return () => { for (const off of offs) off(); };
  }, []);
  return open ? <DesktopPanel onClose={closePanel} /> : null;
}

/** The header's entry to the desktop settings (desktop mode only). */
export function DesktopButton() {
  const sync = useDesktop((d) => d.sync);
  if (!desktopBridge()) return null;
  return (
    <button type="button" className="icon-btn desktop-btn" aria-label="Desktop settings" title={`Desktop settings — ${syncText(sync)}`}
      onClick={() => useDesktop.getState().setOpen(true)}>⚙</button>
  );
}

export function DesktopPanel({ onClose }: { onClose: () => void }) {
  const b = desktopBridge();
  const sync = useDesktop((d) => d.sync);
  const [state, setState] = useState<ShellState | null>(null);
  const [port, setPort] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);

  useEffect(() => {
    // Escape closes the panel wherever the focus is (a button that got disabled leaves it on the body).
    const onKey = (e: KeyboardEvent) => { if (e.key === 'Escape') onClose(); };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  useEffect(() => {
    if (!b) return;
    b.invoke('shell:state').then((s) => { setState(s); setPort(String(s.settings.apiPort)); useDesktop.getState().setSync(s.sync); },
      (e: unknown) => setError(String(e)));
  }, [b]);
  if (!b) return null;

  /** Run an action of the shell; say it is done (or what the action says), or what went wrong. */
  const act = async (what: string, run: () => Promise<unknown>) => {
    setError(null);
    setDone(null);
    try {
      const said = await run();
      setDone(typeof said === 'string' ? said : `${what}: done`);
    } catch (e) {
      setError(`${what} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const save = async (patch: ShellSettingsPatch) => {
    setError(null);
    setDone(null);
    const r = await b.invoke('shell:set-settings', patch);
    if (r.ok) setState(r.state);
    else setError(r.error);
  };
  const savePort = (e: FormEvent) => {
    e.preventDefault();
    const n = Number(port);
    if (!Number.isInteger(n) || n < 1024 || n > 65535) { setError('The port must be a whole number from 1024 to 65535.'); return; }
    void save({ apiPort: n });
  };

  return (
    <Modal title="Desktop settings" onClose={onClose} className="desktop-panel">
      <section aria-label="Sync">
        <h3>Sync</h3>
        <p role="status" className="sync-line">{syncText(sync ?? state?.sync ?? null)}</p>
        <button type="button" disabled={!sync || sync.state === 'local' || sync.state === 'syncing'}
          onClick={() => void act('Sync', async () => { useDesktop.getState().setSync(await b.invoke('sync:run')); return 'Sync started'; })}>Sync now</button>
      </section>
      <section aria-label="Local API">
        <h3>Local API</h3>
        <p>Local tools reach Bivouac at <code>{state?.apiUrl ?? b.apiBase}</code> with your API token.</p>
        <button type="button" onClick={() => void act('Copy API URL and token', () => b.invoke('shell:copy-api-credentials'))}>Copy API URL and token</button>
        <form onSubmit={savePort} className="row">
          <label>Port <input type="number" min={1024} max={65535} value={port} onChange={(e) => setPort(e.target.value)} /></label>
          <button type="submit">Save port</button>
        </form>
        {state?.portMessage && <p className="note" role="note">{state.portMessage}</p>}
      </section>
      <section aria-label="Behaviour">
        <h3>When the window closes</h3>
        <label className="check"><input type="checkbox" checked={state?.settings.keepInTray ?? true} disabled={!state}
          onChange={(e) => void save({ keepInTray: e.target.checked })} /> Keep running in the tray (local tools and sync keep working)</label>
        <label className="check"><input type="checkbox" checked={state?.settings.startAtLogin ?? false} disabled={!state}
          onChange={(e) => void save({ startAtLogin: e.target.checked })} /> Start Bivouac when I log in</label>
      </section>
      <section aria-label="Data">
        <h3>Data</h3>
        <p>Stored in <code>{state?.dataDir ?? '…'}</code>{state && !state.secretsEncrypted ? '. This system offers no keyring: tokens are protected by file permissions only.' : ''}</p>
        <div className="row">
          <button type="button" onClick={() => void act('Open data folder', () => b.invoke('shell:open-data-folder'))}>Open data folder</button>
          <button type="button" onClick={() => void act('Export backup', async () => {
            const r = await b.invoke('shell:export-backup');
            return r.file ? `Backup saved to ${r.file}` : 'Export cancelled';
          })}>Export backup…</button>
          <button type="button" onClick={() => void act('Open log folder', () => b.invoke('shell:open-log-folder'))}>Open log folder</button>
        </div>
      </section>
      {error && <p role="alert" className="error">{error}</p>}
      {done && !error && <p role="status" className="done">{done}</p>}
      <p className="version">Bivouac {b.version}</p>
    </Modal>
  );
}
