import { useEffect, useRef } from 'react';
import { useSession, VIEWS } from '../stores/session.ts';
import { useUi } from '../stores/ui.ts';
import { onControl, typing } from '../lib/keys.ts';
import { undoLast } from '../stores/undo.ts';
import { Header } from './Header.tsx';
import { Welcome } from './FirstRun.tsx';
import { Toasts } from './Toasts.tsx';
import { HelpOverlay } from './HelpOverlay.tsx';
import { SearchOverlay } from './SearchOverlay.tsx';
import { TodoBoard } from './TodoBoard.tsx';
import { MessageBoard } from './MessageBoard.tsx';
import { Timesheet } from './Timesheet.tsx';
import { MilestoneBoard } from './MilestoneBoard.tsx';
import { Report } from './Report.tsx';
import { MyWork } from './MyWork.tsx';
import { Overview } from './Overview.tsx';
import { TimerStopDialog } from './Timer.tsx';
import { DesktopShell } from './Desktop.tsx';
import { SyncPanel } from './SyncPanel.tsx';
import { SettingsOverlay } from './SettingsOverlay.tsx';
import { AccountOverlay, PeopleOverlay } from './People.tsx';
import { startSyncPolling, stopSyncPolling, useSync } from '../stores/sync.ts';
import { useLive } from '../stores/live.ts';

export function App() {
  const status = useSession((s) => s.status);
  const view = useSession((s) => s.view);
  const projectId = useSession((s) => s.projectId);
  const projects = useSession((s) => s.projects);
  const overlay = useUi((s) => s.overlay);
  const connection = useUi((s) => s.connection);

  // After a board switch, attention goes to the new board: its heading takes the focus when the focus
  // was lost with the old board (number keys, or a control that is gone).
  const shown = useRef<string | null>(null);
  useEffect(() => {
    const key = `${projectId}:${view}`;
    if (shown.current !== null && shown.current !== key) {
      requestAnimationFrame(() => {
        const a = document.activeElement;
        if (a && a !== document.body && document.contains(a) && !a.closest('#main')) return;
        const h = document.querySelector<HTMLElement>('#main h1');
        if (h) { h.tabIndex = -1; h.focus(); }
      });
    }
    shown.current = key;
  }, [view, projectId]);
  // The sync status: polled while signed in, and refreshed soon after every change on the live stream.
  useEffect(() => {
    if (status !== 'signedIn') return undefined;
    startSyncPolling();
    let t: ReturnType<typeof setTimeout> | null = null;
    const off = useLive.subscribe((l, prev) => {
      if (l.seq === prev.seq) return;
      if (t) clearTimeout(t);
      t = setTimeout(() => { void useSync.getState().refresh(); }, 400);
    });
    return () => { stopSyncPolling(); off(); if (t) clearTimeout(t); };
  }, [status]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (useSession.getState().status !== 'signedIn') return;
      const ui = useUi.getState();
      if (e.key === 'Escape' && ui.overlay) { ui.setOverlay(null); e.preventDefault(); return; }
      // Ctrl+Z undoes the last change, also from a checkbox or a button (focus stays there after a click);
      // in a text field it is the field's own.
      if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'z' && !typing(e.target) && !ui.overlay) {
        e.preventDefault();
        void undoLast();
        return;
      }
      // Single keys are shortcuts only on the page itself (a heading, a card, nothing focused): never in a
      // control that takes typing or activation, where the user may be typing text (issue #28).
      if (onControl(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      if (ui.overlay) return;
      if (e.key === '?') { ui.setOverlay('help'); e.preventDefault(); }
      else if (e.key === '/') { ui.setOverlay('search'); e.preventDefault(); }
      else if (['1', '2', '3', '4', '5', '6'].includes(e.key)) { useSession.getState().go(VIEWS[Number(e.key) - 1]); e.preventDefault(); }
      else if (e.key === '0') { useSession.getState().go('overview'); e.preventDefault(); }
      else if (e.key === 'n') { ui.requestNew(); e.preventDefault(); }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  if (status === 'checking') return <div className="splash" role="status">Connecting to the local service…</div>;
  if (status === 'signedOut') return <><Welcome /><Toasts /></>;

  return (
    <div className="app">
      <a className="skip" href="#main">Skip to content</a>
      <Header />
      {connection === 'offline' && (
        <div className="unreachable-banner" role="status">
          <strong>Can’t reach the local service.</strong> You see the last data loaded and what you type is kept; it reconnects by itself.
        </div>
      )}
      <main id="main" tabIndex={-1}>
        {view === 'overview' ? <Overview /> : view === 'mine' ? <MyWork /> : !projectId ? (
          <div className="empty big">
            <h1>No projects yet</h1>
            <p>{projects.length === 0 ? 'You are not a member of any project. Ask an administrator of your account to add you to one.' : 'Pick a project in the header.'}</p>
          </div>
        ) : view === 'todos' ? <TodoBoard key={projectId} projectId={projectId} />
          : view === 'messages' ? <MessageBoard key={projectId} projectId={projectId} />
            : view === 'milestones' ? <MilestoneBoard key={projectId} projectId={projectId} />
            : view === 'time' ? <Timesheet projectId={projectId} />
              : <Report projectId={projectId} />}
      </main>
      {overlay === 'help' && <HelpOverlay />}
      {overlay === 'search' && <SearchOverlay />}
      {overlay === 'sync' && <SyncPanel />}
      {overlay === 'settings' && <SettingsOverlay />}
      {(overlay === 'people' || overlay === 'projects') && <PeopleOverlay tab={overlay} />}
      {overlay === 'account' && <AccountOverlay />}
      <TimerStopDialog />
      <DesktopShell />
      <Toasts />
    </div>
  );
}
