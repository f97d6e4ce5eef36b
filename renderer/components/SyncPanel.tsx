// The "Team server" settings and the sync lists (issue #8): connect / disconnect a remote, the
// conflicts (field, mine, theirs, when; keep mine / keep theirs) and the pushes the server refused.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useSync, syncLabel, progressText, type SyncTab } from '../stores/sync.ts';
import { useUi } from '../stores/ui.ts';
import { Modal } from './Modal.tsx';
import { inWords } from '../lib/errors.ts';

const when = (iso: string) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '');
const RESOURCE: Record<string, string> = {
  project: 'Project', category: 'Category', post: 'Message', comment: 'Comment', milestone: 'Milestone',
  todoList: 'Todo list', todoItem: 'Todo', timeEntry: 'Time entry', person: 'Person', company: 'Company',
};

export function TeamServer() {
  const s = useSync();
  const [url, setUrl] = useState('');
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const st = s.status;
  const connected = !!st?.remote && st.state !== 'local';
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (await s.connect({ url: url.trim(), user: user.trim(), password })) setPassword('');
  };
  const p = st?.state === 'syncing' ? st.progress : null;
  // While connecting (the clone runs inside PUT /sync/remote) follow its progress closely.
  const refresh = s.refresh;
  useEffect(() => {
    if (!s.connecting) return;
    const t = setInterval(() => { void refresh(); }, 400);
    return () => clearInterval(t);
  }, [s.connecting, refresh]);
  return (
    <section className="team-server" aria-label="Team server">
      {connected ? (
        <>
          <p>Connected to <strong>{st.remote!.url}</strong>{st.remote!.user ? <> as <strong>{st.remote!.user}</strong></> : null}.</p>
          <p className={`sync-now ${syncLabel(st, Date.now()).tone}`}>{syncLabel(st, Date.now()).text}{st.pending ? ` · ${st.pending} waiting to be sent` : ''}</p>
          {st.state === 'syncing' && (
            <div className="sync-progress">
              <progress aria-label="Sync progress" max={p && p.total > 0 ? p.total : undefined} value={p && p.total > 0 ? Math.min(p.done, p.total) : undefined} />
              {progressText(p) && <span>{progressText(p)}</span>}
            </div>
          )}
          {st.error && <p className="form-error" role="alert">{inWords(st.error)}</p>}
          <div className="row">
            <button type="button" className="primary" onClick={() => void s.syncNow()} disabled={st.state === 'syncing'}>Sync now</button>
            <button type="button" onClick={() => void s.disconnect()}>Disconnect</button>
          </div>
          <p className="hint">Disconnecting keeps your data on this computer; it stops syncing. Connecting again later sends what you did meanwhile.</p>
        </>
      ) : (
        <form onSubmit={(e) => void submit(e)} className="stack">
          <p>Work offline here and sync with your team's Bivouac (or Basecamp Classic) server. Your password is checked once and never stored. Work already on this computer is sent up to the server's projects of the same name; if it cannot all go, nothing is changed and you are told why.</p>
          <label>Server URL<input type="url" required value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://team.example.com" /></label>
          <label>User name<input required value={user} onChange={(e) => setUser(e.target.value)} autoComplete="username" /></label>
          <label>Password<input type="password" required value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="current-password" /></label>
          {s.connectError && <div className="form-error" role="alert">{s.connectError.map((m) => <p key={m}>{m}</p>)}</div>}
          {s.connecting && <div role="status" className="connecting"><progress aria-label="Connecting" /> Checking the server and copying your team's data…</div>}
          <div className="row"><button type="submit" className="primary" disabled={s.connecting}>Connect</button></div>
        </form>
      )}
    </section>
  );
}

function Conflicts() {
  const { conflicts, resolve } = useSync();
  const [err, setErr] = useState<string | null>(null);
  const open = conflicts.filter((c) => !c.resolved);
  if (!conflicts.length) return <p className="empty">No conflicts. When the same field is changed here and on the server, both values are kept here.</p>;
  return (
    <>
      {err && <p className="form-error" role="alert">{err}</p>}
      <table className="sync-table">
        <thead><tr><th>Record</th><th>Field</th><th>Mine</th><th>Theirs</th><th>When</th><th><span className="sr-only">Resolve</span></th></tr></thead>
        <tbody>
          {[...open, ...conflicts.filter((c) => c.resolved)].map((c) => (
            <tr key={c.id} className={c.resolved ? 'resolved' : ''} data-conflict={c.id}>
              <td>{RESOURCE[c.resource] ?? c.resource} #{c.recordId}{c.kind !== 'field' && <div className="hint">{c.kind.replace(/-/g, ' ')}</div>}</td>
              <td>{c.field === '*' ? 'everything' : c.field.replace(/_/g, ' ')}</td>
              <td className={c.keep === 'mine' ? 'kept' : ''}>{c.mine ?? <em>none</em>}</td>
              <td className={c.keep === 'theirs' ? 'kept' : ''}>{c.theirs ?? <em>none</em>}</td>
              <td>{when(c.at)}</td>
              <td>{c.resolved ? <span>Kept {c.keep}</span> : (
                <span className="row">
                  <button type="button" onClick={() => { setErr(null); resolve(c.id, 'mine').catch((e: Error) => setErr(e.message)); }}>Keep mine</button>
                  <button type="button" onClick={() => { setErr(null); resolve(c.id, 'theirs').catch((e: Error) => setErr(e.message)); }}>Keep theirs</button>
                </span>
              )}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function Rejected() {
  const rejected = useSync((s) => s.rejected);
  if (!rejected.length) return <p className="empty">The server accepted every change sent.</p>;
  return (
    <table className="sync-table">
      <thead><tr><th>Record</th><th>Change</th><th>The server said</th><th>When</th></tr></thead>
      <tbody>
        {rejected.map((r) => (
          <tr key={r.id}>
            <td>{RESOURCE[r.resource] ?? r.resource} #{r.recordId}</td>
            <td><code>{r.method} {r.path}</code></td>
            <td>{r.status} · {inWords(r.message)}</td>
            <td>{when(r.at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function SyncPanel() {
  const setOverlay = useUi((s) => s.setOverlay);
  const close = useCallback(() => setOverlay(null), [setOverlay]);
  const { tab, setTab, loadLists, status } = useSync();
  useEffect(() => { void loadLists(); }, [loadLists, status?.conflicts, status?.rejected, status?.lastSuccessAt]);
  const tabs: [SyncTab, string][] = [['server', 'Team server'], ['conflicts', `Conflicts${status?.conflicts ? ` (${status.conflicts})` : ''}`],
    ['rejected', `Rejected${status?.rejected ? ` (${status.rejected})` : ''}`]];
  return (
    <Modal title="Sync" onClose={close} className="sync-panel">
      <div role="tablist" className="sync-tabs">
        {tabs.map(([t, label]) => (
          <button key={t} type="button" role="tab" aria-selected={tab === t} className="tab" onClick={() => setTab(t)}>{label}</button>
        ))}
      </div>
      <div role="tabpanel">{tab === 'server' ? <TeamServer /> : tab === 'conflicts' ? <Conflicts /> : <Rejected />}</div>
    </Modal>
  );
}
