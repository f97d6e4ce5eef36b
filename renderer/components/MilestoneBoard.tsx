// The Milestones board (issue #27): a project's milestones by due date, late ones first and marked,
// then upcoming ones (with the days left), then completed ones; create, edit, complete / reopen,
// delete with undo; comments; the todo lists and messages linked to each milestone.

import { useEffect, useState, type FormEvent, type MouseEvent } from 'react';
import type { Milestone, MilestoneInput } from '../../shared/client.ts';
import { daysBetween, dueWords, groupMilestones, laterOpen, linkedTo, moveWords, partyValue, type MilestoneGroup } from '../lib/milestones.ts';
import { mediumDate, today, when } from '../lib/dates.ts';
import { formatHash, useSession } from '../stores/session.ts';
import { useMilestones } from '../stores/milestones.ts';
import { useNewRequest, useReconnect, useUi } from '../stores/ui.ts';
import { useLiveChange } from '../stores/live.ts';
import { useDraft } from '../stores/drafts.ts';
import { PartySelect } from './PartySelect.tsx';
import { offLabel, usePeople } from '../stores/people.ts';
import { Icon } from './Icon.tsx';

const GROUPS: { key: MilestoneGroup; title: string; empty: string }[] = [
  { key: 'late', title: 'Late', empty: '' },
  { key: 'upcoming', title: 'Upcoming', empty: 'Nothing upcoming: every milestone is late or completed.' },
  { key: 'completed', title: 'Completed', empty: 'None completed yet.' },
];

export function MilestoneBoard({ projectId }: { projectId: number }) {
  const m = useMilestones();
  const [adding, setAdding] = useState(false);
  const offline = useUi((s) => s.connection === 'offline');

  useEffect(() => { void useMilestones.getState().load(projectId); }, [projectId]);
  useNewRequest(() => setAdding(true));
  useReconnect(() => { void useMilestones.getState().load(projectId, true); });
  // Changes from another tab, the API or sync: refetch in place (what is typed stays).
  useLiveChange(projectId, ['milestones', 'comments', 'todo_lists', 'posts'], (c) => {
    const s = useMilestones.getState();
    void s.load(projectId, true);
    if (c.resources.includes('comments')) for (const id of s.open) if (id > 0) void s.loadComments(id);
  });

  const now = today();
  const g = groupMilestones(m.milestones, now);

  return (
    <section className="board milestones" aria-labelledby="milestones-title">
      <div className="toolbar">
        <h1 id="milestones-title">Milestones</h1>
        {m.loaded && m.milestones.length > 0 && (
          <span className="muted" data-milestone-summary>{g.late.length} late · {g.upcoming.length} upcoming · {g.completed.length} completed</span>
        )}
        <div className="spacer" />
        {!adding && <button type="button" className="primary" data-new-milestone onClick={() => setAdding(true)} title="New milestone (n)">New milestone</button>}
      </div>
      {adding && (
        <MilestoneForm label="New milestone" submitLabel="Create milestone" draft={`milestone:new:${projectId}`}
          initial={{ title: '', deadline: '', party: '', private: false }}
          onCancel={() => { setAdding(false); requestAnimationFrame(() => document.querySelector<HTMLElement>('[data-new-milestone]')?.focus()); }}
          onSave={async (input) => {
            const id = await useMilestones.getState().create(input);
            if (id === null) return false;
            setAdding(false);
            // attention goes to the new milestone (its checkbox), unless the user went somewhere else meanwhile
            requestAnimationFrame(() => {
              const a = document.activeElement;
              if (a && a !== document.body && !a.closest('.milestone-form')) return;
              document.querySelector<HTMLElement>(`.milestone[data-milestone-id="${id}"] input[type="checkbox"]`)?.focus();
            });
            return true;
          }} />
      )}
      {offline && !m.loaded ? <p className="unreachable" role="status">Can’t reach the service, so the milestones are not loaded. It is retried by itself.</p>
        : m.loading && !m.loaded ? <p className="muted" role="status" aria-busy="true">Loading the milestones…</p>
          : m.loaded && m.milestones.length === 0 && !adding ? (
            <div className="empty big">
              <h2>No milestones yet</h2>
              <p>Milestones are the dates this project must meet: “Permit filed”, “Base camp set up”, “Summit window”.
                Give each a due date and someone responsible; link todo lists and messages to it from their editors.</p>
              <button type="button" className="primary" onClick={() => setAdding(true)}>Create the first milestone</button>
            </div>
          ) : m.loaded && (
            <div className="milestone-groups">
              {GROUPS.map((grp) => {
                const ms = g[grp.key];
                if (grp.key === 'late' && ms.length === 0) return null;
                return (
                  <section key={grp.key} className={`milestone-group ${grp.key}`} aria-labelledby={`ms-${grp.key}`}>
                    <h2 id={`ms-${grp.key}`}>{grp.key === 'late' && <span aria-hidden="true">⚠ </span>}{grp.title} <span className="count">{ms.length}</span></h2>
                    {ms.length === 0 ? <p className="empty small">{grp.empty}</p> : (
                      <ul className="milestone-list" aria-label={`${grp.title} milestones`}>
                        {ms.map((x) => <MilestoneCard key={x.id} m={x} group={grp.key} now={now} projectId={projectId} />)}
                      </ul>
                    )}
                  </section>
                );
              })}
            </div>
          )}
    </section>
  );
}

type FormValues = { title: string; deadline: string; party: string; private: boolean };

type Move = { upcoming: boolean; offWeekends: boolean };

function MilestoneForm({ label, submitLabel, initial, draft: record, onSave, onCancel, editing }: {
  label: string; submitLabel: string; initial: FormValues; draft: string;
  onSave: (input: MilestoneInput, move?: Move) => Promise<boolean>; onCancel: () => void;
  /** The milestone edited (its id): a due date change offers to move the later ones. */
  editing?: number;
}) {
  const firm = useSession((s) => s.firm);
  // What is typed is a draft (D92): a board switch or a reload keeps it; Save or Cancel ends it.
  const [draft, setDraft] = useDraft<FormValues>(record);
  const v = draft ?? initial;
  const same = (a: FormValues) => a.title === initial.title && a.deadline === initial.deadline && a.party === initial.party && a.private === initial.private;
  const change = (patch: Partial<FormValues>) => { const next = { ...v, ...patch }; setDraft(same(next) ? null : next); };
  const [busy, setBusy] = useState(false);
  // "Move upcoming milestones" (§8.7, D333): offered when an edit changes the due date and later open ones exist.
  const all = useMilestones((s) => s.milestones);
  const [move, setMove] = useState<Move>({ upcoming: false, offWeekends: false });
  const shift = editing !== undefined && v.deadline && initial.deadline && v.deadline !== initial.deadline ? daysBetween(initial.deadline, v.deadline) : 0;
  const later = shift ? laterOpen(all, editing!, initial.deadline) : [];
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!v.title.trim() || !v.deadline) return;
    const input: MilestoneInput = {};
    if (v.title.trim() !== initial.title || !initial.title) input.title = v.title.trim();
    if (v.deadline !== initial.deadline || !initial.deadline) input.deadline = v.deadline;
    if (v.party !== initial.party || !initial.title) input.responsible_party = v.party;
    if (firm && (v.private !== initial.private || !initial.title)) input.private = v.private;
    setBusy(true);
    const ok = await onSave(input, later.length && move.upcoming ? move : undefined);
    setBusy(false);
    if (ok) setDraft(null);
  };
  return (
    <form className="card-form milestone-form" onSubmit={(e) => void submit(e)} aria-label={label}
      onKeyDown={(e) => { if (e.key === 'Escape') { e.stopPropagation(); onCancel(); } }}>
      <label>Title<input autoFocus value={v.title} onChange={(e) => change({ title: e.target.value })} maxLength={255} required placeholder="e.g. Permit filed" /></label>
      <label>Due date<input type="date" value={v.deadline} onChange={(e) => change({ deadline: e.target.value })} required /></label>
      {later.length > 0 && (
        <fieldset className="move-later">
          <legend className="sr-only">Later milestones</legend>
          <label className="check"><input type="checkbox" checked={move.upcoming} onChange={(e) => setMove({ ...move, upcoming: e.target.checked })} />
            <span>{moveWords(later.length, shift)}</span></label>
          {move.upcoming && (
            <label className="check"><input type="checkbox" checked={move.offWeekends} onChange={(e) => setMove({ ...move, offWeekends: e.target.checked })} />
              <span>Keep them off weekends <span className="muted small">(a Saturday or Sunday moves on to the Monday)</span></span></label>
          )}
        </fieldset>
      )}
      <label>Responsible<PartySelect label="Responsible" value={v.party} onChange={(party) => change({ party })} /></label>
      {firm && <label className="check"><input type="checkbox" checked={v.private} onChange={(e) => change({ private: e.target.checked })} /> Private (hidden from clients)</label>}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>{busy ? 'Saving…' : submitLabel}</button>
        <button type="button" onClick={() => { setDraft(null); onCancel(); }}>Cancel</button>
      </div>
    </form>
  );
}

function MilestoneCard({ m, group, now, projectId }: { m: Milestone; group: MilestoneGroup; now: string; projectId: number }) {
  const { lists, posts, open, toggle, update, remove, toggleComments } = useMilestones();
  const off = usePeople((s) => s.deactivated);
  const [editing, setEditing] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const temp = m.id < 0;
  const showComments = open.includes(m.id);
  const linkedLists = linkedTo(lists, m.id);
  const linkedPosts = linkedTo(posts, m.id);
  const words = dueWords(m, now);
  const go = (view: 'todos' | 'messages', postId: number | null = null) => (e: MouseEvent) => {
    e.preventDefault();
    useSession.getState().go(view, postId);
  };
  const del = async () => {
    setConfirm(false);
    // Focus goes to the next milestone (or the previous, or "New milestone").
    const cards = [...document.querySelectorAll<HTMLElement>('.milestone[data-milestone-id]')];
    const at = cards.findIndex((c) => c.dataset.milestoneId === String(m.id));
    const next = cards[at + 1] ?? cards[at - 1];
    await remove(m.id);
    (next ? document.querySelector<HTMLElement>(`.milestone[data-milestone-id="${next.dataset.milestoneId}"] input[type="checkbox"]`) : document.querySelector<HTMLElement>('[data-new-milestone]'))?.focus();
  };

  return (
    <li className={`milestone ${group}${temp ? ' pending' : ''}`} data-milestone-id={m.id} aria-labelledby={`ms-title-${m.id}`}>
      <div className="milestone-row">
        <input type="checkbox" checked={m.completed} disabled={temp} onChange={() => void toggle(m.id)}
          aria-label={`${m.completed ? 'Reopen' : 'Complete'} “${m.title}”`} />
        <div className="milestone-main">
          <h3 id={`ms-title-${m.id}`}>{m.title}{m.private && <span className="badge private">Private</span>}</h3>
          <p className="meta">
            {group === 'late' && <span className="late-mark"><span aria-hidden="true">⚠ </span>Late</span>}
            <span className={`due ${group}`}>Due <time dateTime={m.deadline}>{mediumDate(m.deadline)}</time>{words && <>, <span data-due-words>{words}</span></>}</span>
            {m.responsible_party_name && <span className={`party${m.responsible_party_type === 'Company' ? ' company' : ''}`}>
              {m.responsible_party_type === 'Company' ? m.responsible_party_name : offLabel(m.responsible_party_name, off.has(m.responsible_party_id ?? 0))}</span>}
            {m.completed && <span className="done-by">Completed{m.completer_name ? ` by ${m.completer_name}` : ''}{m.completed_at ? ` on ${when(m.completed_at)}` : ''}</span>}
          </p>
          {(linkedLists.length > 0 || linkedPosts.length > 0) && (
            <ul className="linked" aria-label={`Linked to ${m.title}`}>
              {linkedLists.map((l) => (
                <li key={`l${l.id}`}><span className="kind">Todo list</span> <a href={formatHash({ projectId, view: 'todos', postId: null })} onClick={go('todos')}>{l.name}</a></li>
              ))}
              {linkedPosts.map((p) => (
                <li key={`p${p.id}`}><span className="kind">Message</span> <a href={formatHash({ projectId, view: 'messages', postId: p.id })} onClick={go('messages', p.id)}>{p.title}</a></li>
              ))}
            </ul>
          )}
          <div className="list-actions">
            <button type="button" className="link" aria-expanded={showComments} onClick={() => toggleComments(m.id)} disabled={temp}
              aria-label={`Comments on ${m.title} (${m.comments_count})`}>
              <Icon name="comment" /> Comments ({m.comments_count})
            </button>
            <button type="button" className="link" onClick={() => setEditing(!editing)} disabled={temp} aria-expanded={editing} aria-label={`Edit milestone ${m.title}`}>Edit</button>
            {confirm ? (
              <>
                <button type="button" className="link danger" onClick={() => void del()} aria-label={`Confirm deleting milestone ${m.title}`}>
                  Delete it and its {m.comments_count} comment{m.comments_count === 1 ? '' : 's'}?
                </button>
                <button type="button" className="link" onClick={() => setConfirm(false)}>Keep</button>
              </>
            ) : (
              <button type="button" className="link" disabled={temp} aria-label={`Delete milestone ${m.title}`}
                onClick={() => { if (m.comments_count > 0) setConfirm(true); else void del(); }}>Delete</button>
            )}
          </div>
        </div>
      </div>
      {editing && (
        <MilestoneForm label={`Edit milestone ${m.title}`} submitLabel="Save" draft={`milestone:${m.id}`}
          initial={{ title: m.title, deadline: m.deadline, party: partyValue(m), private: m.private === true }}
          onCancel={() => setEditing(false)} editing={m.id}
          onSave={async (input, move) => { const ok = Object.keys(input).length === 0 || await update(m.id, input, move); if (ok) setEditing(false); return ok; }} />
      )}
      {showComments && <MilestoneComments m={m} />}
    </li>
  );
}

function MilestoneComments({ m }: { m: Milestone }) {
  const { comments, addComment } = useMilestones();
  const firm = useSession((s) => s.firm);
  const [draft, setDraft] = useDraft<string>(`comment:milestone:${m.id}`);
  const body = draft ?? '';
  const [priv, setPriv] = useState(false);
  const cs = comments[m.id];
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!body.trim()) return;
    if (await addComment(m.id, body, priv)) { setDraft(null); setPriv(false); }
  };
  return (
    <section className="comments-section" aria-label={`Comments on ${m.title}`}>
      {!cs ? <p className="muted">Loading…</p> : cs.length === 0 ? <p className="muted">No comments yet. Note what is left to do or ask the team.</p> : (
        <ol className="comment-list">
          {cs.map((c) => (
            <li key={c.id}><div className="comment-meta"><strong>{c.author_name}</strong> <span className="muted">{when(c.created_at)}</span>{c.private && <span className="badge private">Private</span>}</div>
              <p className="pre">{c.body}</p></li>
          ))}
        </ol>
      )}
      <form className="stack" onSubmit={(e) => void submit(e)} aria-label={`Add a comment on ${m.title}`}>
        <label>Comment<textarea value={body} onChange={(e) => setDraft(e.target.value === '' ? null : e.target.value)} rows={3} required
          onKeyDown={(e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); e.currentTarget.form?.requestSubmit(); } }} /></label>
        {firm && <label className="check"><input type="checkbox" checked={priv} onChange={(e) => setPriv(e.target.checked)} /> Private (firm only)</label>}
        <div className="actions"><button type="submit" className="primary">Add comment</button></div>
      </form>
    </section>
  );
}
