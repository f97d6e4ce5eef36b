import { useSession, type View } from '../stores/session.ts';
import { useUi } from '../stores/ui.ts';
import { Icon } from './Icon.tsx';
import { DesktopButton } from './Desktop.tsx';
import { HeaderTimer } from './Timer.tsx';
import { syncLabel, useSync, type SyncTab } from '../stores/sync.ts';
import { useEffect, useState } from 'react';

/** The project menu's last entry (administrators): opens the Projects area. */
const MANAGE = 'manage';

const TABS: { view: View; label: string; key: string }[] = [
  { view: 'overview', label: 'Overview', key: '0' },
  { view: 'todos', label: 'Todos', key: '1' },
  { view: 'messages', label: 'Messages', key: '2' },
  { view: 'milestones', label: 'Milestones', key: '3' },
  { view: 'time', label: 'Timesheet', key: '4' },
  { view: 'report', label: 'Time report', key: '5' },
  { view: 'mine', label: 'My work', key: '6' },
];

export function Header() {
  const s = useSession();
  const busy = useUi((u) => u.busy);
  const connection = useUi((u) => u.connection);
  const setOverlay = useUi((u) => u.setOverlay);
  const grouped = (['active', 'on_hold', 'archived'] as const).map((st) => [st, s.projects.filter((p) => p.status === st)] as const);
  const labels = { active: 'Active', on_hold: 'On hold', archived: 'Archived' };

  return (
    <header className="top">
      <div className={`progress${busy > 0 ? ' on' : ''}`} role="progressbar" aria-label="Loading" aria-hidden={busy === 0} aria-busy={busy > 0} />
      <div className="brand" role="img" aria-label="Bivouac">
        <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true"><path d="M2 20 L12 4 L22 20 Z M9 20 L12 14 L15 20" fill="none" stroke="currentColor" strokeWidth="2" strokeLinejoin="round" /></svg>
        <span>Bivouac</span>
      </div>
      <label className="project-switch">
        <span className="sr-only">Project</span>
        <select aria-label="Project" value={s.projectId ?? ''} disabled={!s.projects.length && !s.admin}
          onChange={(e) => { if (e.target.value === MANAGE) setOverlay('projects'); else if (e.target.value) s.selectProject(Number(e.target.value)); }}>
          {!s.projects.length && <option value="">No projects</option>}
          {grouped.filter(([, ps]) => ps.length).map(([st, ps]) => (
            <optgroup key={st} label={labels[st]}>
              {ps.map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
            </optgroup>
          ))}
          {s.admin && <option value={MANAGE}>Manage projects…</option>}
        </select>
      </label>
      <nav aria-label="Boards">
        {TABS.map((t) => t.view === 'overview' ? (
          // The Overview (issue #27): an icon below 1440 px, where the header has no room for one more word.
          <button key={t.view} type="button" className="tab tab-overview" aria-current={s.view === t.view ? 'page' : undefined}
            onClick={() => s.go(t.view)} title={`${t.label} (${t.key})`}><Icon name="home" /><span className="tab-label">{t.label}</span></button>
        ) : (
          <button key={t.view} type="button" className="tab" aria-current={s.view === t.view ? 'page' : undefined}
            onClick={() => s.go(t.view)} title={`${t.label} (${t.key})`} disabled={!s.projectId}>{t.label}</button>
        ))}
      </nav>
      <div className="spacer" />
      <HeaderTimer />
      <button type="button" className="search-btn" onClick={() => setOverlay('search')} disabled={!s.projectId} aria-label="Search (/)">
        <Icon name="search" /><span>Search</span><kbd>/</kbd>
      </button>
      {connection === 'online' ? <SyncStatusBadge /> : (
        <span className="sync offline" role="status" title="The local service does not answer. You see the last data loaded; it is retried by itself.">
          <span className="dot" aria-hidden="true" />Can’t reach the service
        </span>
      )}
      {s.mode === 'electron' && <DesktopButton />}
      <button type="button" className="icon-btn" onClick={() => setOverlay('settings')} aria-label="Settings" title="Settings (appearance)"><Icon name="gear" /></button>
      <button type="button" className="icon-btn" onClick={() => setOverlay('help')} aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)">?</button>
      <div className="who">
        {s.admin && <button type="button" className="icon-btn people-btn" onClick={() => setOverlay('people')} aria-label="People" title="People and projects (administrators)"><Icon name="people" /></button>}
        <button type="button" className="link me" title={`My account (${s.me?.email_address ?? ''})`} onClick={() => setOverlay('account')}
          aria-label={`My account: ${s.me ? `${s.me.first_name} ${s.me.last_name}` : ''}`}>
          <span className="me-full">{s.me ? `${s.me.first_name} ${s.me.last_name}` : ''}</span>
          <span className="me-short" aria-hidden="true" data-initials={s.me ? `${s.me.first_name.slice(0, 1)}${s.me.last_name.slice(0, 1)}` : ''} />
        </button>
        {!s.firm && <span className="badge client">client</span>}
        {s.mode === 'browser' && <button type="button" className="link" onClick={() => s.signOut()}>Sign out</button>}
      </div>
    </header>
  );
}

/** Sync state (offline / syncing n of m / synced, with a time), and links to the conflicts and refused pushes. */
function SyncStatusBadge() {
  const st = useSync((x) => x.status);
  const setTab = useSync((x) => x.setTab);
  const setOverlay = useUi((u) => u.setOverlay);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => { const t = setInterval(() => setNow(Date.now()), 30_000); return () => clearInterval(t); }, []);
  useEffect(() => { setNow(Date.now()); }, [st]);
  const label = syncLabel(st, now);
  const open = (t: SyncTab) => { setTab(t); setOverlay('sync'); };
  // Below 1280 px the conflicts / rejected buttons are hidden: the badge shows their total instead.
  const issues = (st?.conflicts ?? 0) + (st?.rejected ?? 0);
  return (
    <span className="sync-group">
      <button type="button" className={`sync ${label.tone}`} title={label.title} onClick={() => open(st && st.conflicts > 0 ? 'conflicts' : st && st.rejected > 0 ? 'rejected' : 'server')} aria-label={`Sync: ${label.text}. Team server settings`}>
        <span className="dot" aria-hidden="true" /><span role="status">{label.text}</span>
        {issues > 0 && <span className="sync-issues" aria-hidden="true">⚠ {issues}</span>}
      </button>
      {st && st.conflicts > 0 && <button type="button" className="sync attention sync-extra" onClick={() => open('conflicts')}>{st.conflicts} conflict{st.conflicts === 1 ? '' : 's'}</button>}
      {st && st.rejected > 0 && <button type="button" className="sync error sync-extra" onClick={() => open('rejected')}>{st.rejected} rejected</button>}
    </span>
  );
}
