// The "Team server" settings and the sync lists (issue #8): connect / disconnect a remote, the
// conflicts as people read them (issue #26, D310: the record's title and place, the field's label,
// readable values, only the resolutions that can succeed) and the pushes the server refused.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useSync, syncLabel, progressText, type SyncTab } from '../stores/sync.ts';
import { useUi } from '../stores/ui.ts';
import { Modal } from './Modal.tsx';
import { inWords } from '../lib/errors.ts';
import { RESOURCE_NAMES } from '../../shared/registry.ts';

const when = (iso: string) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '');

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

type Conflict = ReturnType<typeof useSync.getState>['conflicts'][number];

/** A value as people read it: dates localised, nothing as "empty". */
function Value({ c, v }: { c: Conflict; v: string | null }) {
  if (v === null || v === '') return <em>empty</em>;
  if (c.format === 'date' && /^\d{4}-\d{2}-\d{2}/.test(v)) return <>{new Date(`${v.slice(0, 10)}T12:00:00`).toLocaleDateString(undefined, { dateStyle: 'medium' })}</>;
  if (c.format === 'datetime' && !Number.isNaN(Date.parse(v))) return <>{when(v)}</>;
  return <>{v}</>;
}

/** What happened, in words (D310). */
function story(c: Conflict): string {
  const them = c.by ?? 'someone on the team server';
  if (c.told) {
    // Told by the other side's replica (D329): this side lost.
    const after = c.outcome === 'restored' ? ` ${them} restored it with their work.` : c.outcome === 'dropped' ? ` ${them} left it deleted.` : '';
    switch (c.kind) {
      case 'field': return `${them} changed “${c.label}” after you, without seeing your change: theirs replaced yours.`;
      case 'edit-vs-delete': return `You changed “${c.label}”, but ${them} deleted it: your change went with it.`;
      case 'delete-vs-edit': return `You deleted it, but ${them} was working on it${c.field !== '*' ? `: they changed “${c.label}”` : c.theirsText ? ': they added this under it' : ''}.${after}`;
    }
  }
  switch (c.kind) {
    case 'field': return `${c.label} was changed here and by ${them} before either saw the other's change.`;
    case 'edit-vs-delete': return `You changed “${c.label}” here, but ${them} deleted it.`;
    case 'delete-vs-edit': return `You deleted it here, but ${them} had changed “${c.label}”.`;
    case 'parent-deleted': return `You added it here, but ${them} deleted what it belonged to.`;
    default: return 'It was changed here and on the team server.';
  }
}

type Action = Conflict['actions'][number];

const ACTION_LABEL = (c: Conflict, a: Action): string => {
  if (a === 'restore') return 'Restore with my changes';
  if (c.kind === 'field') return c.exists ? (a === 'mine' ? 'Keep mine' : 'Keep theirs') : 'Dismiss';
  if (c.kind === 'delete-vs-edit') return 'Keep it deleted';
  if (c.kind === 'parent-deleted') return 'Leave it out';
  return 'Leave it deleted';
};

const KEPT = (c: Conflict): string => (c.keep === 'restore' ? 'Restored with your changes: it is sent to the team server'
  : c.kind === 'field' ? (c.keep === 'mine' ? 'Kept mine' : 'Kept theirs') : 'Resolved');

function Conflicts() {
  const { conflicts, resolve } = useSync();
  const [err, setErr] = useState<string | null>(null);
  const open = conflicts.filter((c) => !c.resolved);
  if (!conflicts.length) return <p className="empty">No conflicts. When the same thing is changed here and by someone else, both values are kept here.</p>;
  const act = (c: Conflict, keep: Action) => {
    setErr(null);
    resolve(c.id, keep).then(
      () => { document.querySelector<HTMLElement>(`[data-conflict="${c.id}"]`)?.focus(); },
      (e: Error) => setErr(e.message),
    );
  };
  return (
    <>
      {err && <p className="form-error" role="alert">{err}</p>}
      <ul className="conflicts" aria-label="Conflicts">
        {[...open, ...conflicts.filter((c) => c.resolved)].map((c) => {
          const mineGone = c.kind === 'delete-vs-edit';
          const theirsGone = c.kind === 'edit-vs-delete' || c.kind === 'parent-deleted';
          return (
            <li key={c.id} className={`conflict${c.resolved ? ' resolved' : ''}`} data-conflict={c.id} tabIndex={-1} aria-labelledby={`conflict-${c.id}`}>
              <p className="conflict-kind">{RESOURCE_NAMES[c.resource as keyof typeof RESOURCE_NAMES] ?? 'Record'}{c.place.length ? <> in <span className="conflict-place">{c.place.join(' › ')}</span></> : null}</p>
              <h3 id={`conflict-${c.id}`}>{c.title || <em>untitled</em>}</h3>
              <p>{story(c)}</p>
              <dl className="conflict-values">
                <div className={c.keep === 'mine' ? 'kept' : ''}>
                  <dt>{c.kind === 'parent-deleted' ? 'What you added' : 'Yours'}</dt>
                  <dd>{mineGone ? <em>deleted</em> : <Value c={c} v={c.mineText} />}</dd>
                </div>
                <div className={c.keep === 'theirs' ? 'kept' : ''}>
                  <dt>{c.by ? `${c.by}'s` : 'Theirs'}</dt>
                  <dd>{theirsGone ? <em>deleted</em> : <Value c={c} v={c.theirsText} />}</dd>
                </div>
              </dl>
              <p className="hint">{when(c.at)}</p>
              {c.resolved ? <p className="conflict-done">{KEPT(c)}</p> : (
                <div className="row">
                  {c.actions.map((a) => (
                    <button key={a} type="button" className={a === 'mine' || a === 'restore' ? 'primary' : ''} aria-describedby={`conflict-${c.id}`} onClick={() => act(c, a)}>{ACTION_LABEL(c, a)}</button>
                  ))}
                </div>
              )}
            </li>
          );
        })}
      </ul>
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
            <td>{RESOURCE_NAMES[r.resource as keyof typeof RESOURCE_NAMES] ?? r.resource} #{r.recordId}</td>
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
