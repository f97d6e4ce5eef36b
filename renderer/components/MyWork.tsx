// "My work" (issue #28): the open items assigned to me, or to my company, across all my projects —
// overdue first, then due soon, then the rest — each completed with one click (undo as on the board).
// One request (`GET /todo_lists.json?responsible_party=`), answered by the local service: it works offline.

import { useCallback, useEffect, useState } from 'react';
import type { TodoList } from '../../shared/client.ts';
import { api } from '../api.ts';
import { useSession } from '../stores/session.ts';
import { announce, fail, track, useReconnect } from '../stores/ui.ts';
import { offerUndo } from '../stores/undo.ts';
import { useLiveChange } from '../stores/live.ts';
import { groupMyWork, SOON_DAYS, type WorkItem } from '../lib/mywork.ts';
import { mediumDate, today } from '../lib/dates.ts';

type Whose = 'me' | 'company';

export function MyWork() {
  const me = useSession((s) => s.me);
  const projects = useSession((s) => s.projects);
  const companies = useSession((s) => s.companies);
  const selectProject = useSession((s) => s.selectProject);
  const go = useSession((s) => s.go);
  const [whose, setWhose] = useState<Whose>('me');
  const [lists, setLists] = useState<TodoList[] | null>(null);
  const [done, setDone] = useState<ReadonlySet<number>>(new Set());
  const party = me ? (whose === 'me' ? String(me.id) : `c${me.company_id}`) : null;

  const load = useCallback(async () => {
    if (!party) return;
    try { setLists(await track(api.assignedTodoLists(party))); setDone(new Set()); } catch (e) { fail('Could not load your work', e); }
  }, [party]);
  useEffect(() => { setLists(null); void load(); }, [load]);
  useLiveChange(null, ['todo_items', 'todo_lists'], () => { void load(); });
  useReconnect(() => { void load(); });

  const toggle = async (w: WorkItem, complete: boolean) => {
    setDone((d) => { const n = new Set(d); if (complete) n.add(w.item.id); else n.delete(w.item.id); return n; });
    try {
      await track(complete ? api.completeTodoItem(w.item.id) : api.uncompleteTodoItem(w.item.id));
      if (complete) offerUndo(`Completed “${w.item.content}”`, () => toggle(w, false));
      else announce(`Reopened “${w.item.content}”`);
    } catch (e) {
      setDone((d) => { const n = new Set(d); if (complete) n.delete(w.item.id); else n.add(w.item.id); return n; });
      fail(complete ? 'Could not complete the item' : 'Could not reopen the item', e);
    }
  };

  const projectName = (id: number) => projects.find((p) => p.id === id)?.name ?? `Project ${id}`;
  const company = companies.find((c) => c.id === me?.company_id)?.name ?? 'My company';
  const groups = lists ? groupMyWork(lists, today()) : null;
  const open = (w: WorkItem) => { selectProject(w.projectId); go('todos'); };
  const section = (title: string, id: string, rows: WorkItem[], tone: string) => rows.length > 0 && (
    <section className={`work-group ${tone}`} aria-labelledby={id}>
      <h2 id={id}>{title} <span className="count">{rows.length}</span></h2>
      <ul className="work-items">
        {rows.map((w) => {
          const isDone = done.has(w.item.id);
          return (
            <li key={w.item.id} className={`work-item${isDone ? ' done' : ''}`}>
              <input type="checkbox" checked={isDone} onChange={(e) => void toggle(w, e.target.checked)}
                aria-label={`Complete “${w.item.content}” (${projectName(w.projectId)})`} />
              <div className="work-body">
                <span className="content">{w.item.content}</span>
                <span className="meta">
                  <button type="button" className="link" onClick={() => open(w)}>{projectName(w.projectId)}</button>
                  <span aria-hidden="true">·</span><span>{w.list.name}</span>
                  {w.due && <span className={`due ${tone}`}>{tone === 'overdue' ? 'Overdue, due ' : 'Due '}<time dateTime={w.due}>{mediumDate(w.due)}</time></span>}
                </span>
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );

  return (
    <div className="board my-work">
      <div className="toolbar">
        <h1 id="mywork-title">My work</h1>
        <div className="segmented" role="group" aria-label="Assigned to">
          <button type="button" aria-pressed={whose === 'me'} onClick={() => setWhose('me')}>Me</button>
          <button type="button" aria-pressed={whose === 'company'} onClick={() => setWhose('company')}>{company}</button>
        </div>
      </div>
      {!groups ? <p className="muted" role="status">Loading…</p>
        : groups.overdue.length + groups.soon.length + groups.rest.length === 0 ? (
          <div className="empty big">
            <h2>Nothing assigned to {whose === 'me' ? 'you' : company}</h2>
            <p>Open items assigned {whose === 'me' ? 'to you' : 'to your company'} in any project show here, the overdue ones first.</p>
          </div>
        ) : (
          <>
            {section('Overdue', 'work-overdue', groups.overdue, 'overdue')}
            {section(`Due in the next ${SOON_DAYS} days`, 'work-soon', groups.soon, 'soon')}
            {section('Later or no due date', 'work-rest', groups.rest, 'rest')}
          </>
        )}
    </div>
  );
}
