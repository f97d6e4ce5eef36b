import { useEffect, useRef, useState, type DragEvent, type FormEvent, type KeyboardEvent } from 'react';
import type { TodoItem } from '../../shared/client.ts';
import { dropIndex } from '../lib/reorder.ts';
import { useSession } from '../stores/session.ts';
import { itemVisible, useTodos, type BoardList } from '../stores/todos.ts';
import { typing } from '../lib/keys.ts';
import { readFilters, writeFilters } from '../lib/url-filters.ts';
import { longDate, mediumDate, today } from '../lib/dates.ts';
import { parseDue } from '../lib/due-parse.ts';
import { announce, useNewRequest, useReconnect, useUi } from '../stores/ui.ts';
import { useLiveChange } from '../stores/live.ts';
import { ItemPanel } from './ItemPanel.tsx';
import { PartySelect } from './PartySelect.tsx';
import { Icon } from './Icon.tsx';
import { MilestoneSelect } from './MilestoneSelect.tsx';
import { useMilestones } from '../stores/milestones.ts';

/** What is being dragged (HTML5 drag data is unreadable during dragover). */
let dragging: { kind: 'item'; id: number } | { kind: 'list'; id: number } | null = null;

export function TodoBoard({ projectId }: { projectId: number }) {
  const t = useTodos();
  const firm = useSession((s) => s.firm);
  const [adding, setAdding] = useState(false);

  useEffect(() => { void useTodos.getState().load(projectId); }, [projectId]);
  // The filters follow the URL (issue #28): a link or a reload with ?status=…&party=… shows them;
  // without, the board's current filters are written into it.
  const [fromUrl, setFromUrl] = useState(false);
  useEffect(() => {
    const q = readFilters();
    const st = q.get('status');
    const party = q.get('party');
    if (st !== null || party !== null) {
      useTodos.getState().setFilter(st === 'pending' || st === 'finished' ? st : 'all');
      useTodos.getState().setParty(party && /^(c?[1-9]\d{0,15}|none)$/.test(party) ? party : '');
    }
    setFromUrl(true);
  }, [projectId]);
  useEffect(() => {
    if (fromUrl) writeFilters('todos', { status: t.filter === 'all' ? null : t.filter, party: t.party });
  }, [fromUrl, t.filter, t.party]);
  useNewRequest(() => setAdding(true));
  useReconnect(() => { void useTodos.getState().load(projectId, true); });
  // Changes from another tab, the API or sync: refetch in place (keys keep focus and what is typed).
  useLiveChange(projectId, ['todo_lists', 'todo_items', 'comments'], (c) => {
    const t = useTodos.getState();
    void t.load(projectId, true);
    if (c.resources.includes('comments') && t.openItemId !== null && t.openItemId > 0) void t.loadComments(t.openItemId);
  });
  // A list linked to a milestone says which (issue #27): the project's milestones are read when one is linked.
  const linksMilestones = t.lists.some((l) => l.milestone_id);
  useEffect(() => { if (linksMilestones) void useMilestones.getState().loadMilestones(projectId); }, [linksMilestones, projectId]);
  useLiveChange(projectId, ['milestones'], () => { if (linksMilestones) void useMilestones.getState().loadMilestones(projectId); });
  const offline = useUi((s) => s.connection === 'offline');

  const total = t.lists.reduce((a, l) => a + l.items.length, 0);
  const done = t.lists.reduce((a, l) => a + l.items.filter((i) => i.completed).length, 0);

  return (
    <section className={`board todos${t.openItemId !== null ? ' with-panel' : ''}`} aria-labelledby="todos-title">
      <div className="toolbar">
        <h1 id="todos-title">Todos</h1>
        {t.loaded && <span className="muted">{done} of {total} done</span>}
        <div className="segmented" role="group" aria-label="Show items">
          {(['all', 'pending', 'finished'] as const).map((f) => (
            <button key={f} type="button" aria-pressed={t.filter === f} onClick={() => t.setFilter(f)}>{f === 'all' ? 'All' : f === 'pending' ? 'Pending' : 'Finished'}</button>
          ))}
        </div>
        <label className="inline">Responsible <PartySelect label="Filter by responsible party" includeAny value={t.party} onChange={t.setParty} /></label>
        <div className="spacer" />
        {!adding && <button type="button" className="primary" data-new-list onClick={() => setAdding(true)} title="New list (n)">New list</button>}
      </div>
      {adding && <NewListForm firm={firm} onDone={() => setAdding(false)} />}
      {offline && !t.loaded ? <p className="unreachable" role="status">Can’t reach the service, so the todo lists are not loaded. It is retried by itself.</p>
        : t.loading && !t.loaded ? <BoardSkeleton /> : t.loaded && t.lists.length === 0 && !adding ? (
        <div className="empty big">
          <h2>No todo lists yet</h2>
          <p>Lists hold the work of this project, one column each: for example “Launch checklist” or “Site survey”.
            Create your first list, then add items to it, assign them and set due dates.</p>
          <button type="button" className="primary" onClick={() => setAdding(true)}>Create the first list</button>
        </div>
      ) : (
        <div className="columns" role="list" aria-label="Todo lists">
          {t.lists.map((l, i) => <Column key={l.id} list={l} index={i} />)}
        </div>
      )}
      {t.openItemId !== null && <ItemPanel itemId={t.openItemId} />}
    </section>
  );
}

function BoardSkeleton() {
  return <div className="columns" aria-busy="true" aria-label="Loading the lists">{[0, 1, 2].map((i) => <div key={i} className="column skeleton" />)}</div>;
}

function NewListForm({ firm, onDone }: { firm: boolean; onDone: () => void }) {
  const createList = useTodos((s) => s.createList);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [priv, setPriv] = useState(false);
  const [milestone, setMilestone] = useState<number | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return;
    const input = { name: name.trim(), description, ...(milestone ? { milestone_id: milestone } : {}), ...(firm && priv ? { private: true } : {}) };
    setName(''); setDescription(''); setPriv(false); setMilestone(null);
    onDone();
    // Attention goes to the new list: its "Add an item…" once it is saved (issue #28), unless the
    // user went somewhere else meanwhile.
    const id = await createList(input);
    if (id === null) return;
    requestAnimationFrame(() => {
      const a = document.activeElement;
      if (a && a !== document.body && a.closest('main') && !a.closest('.new-list')) return;
      document.querySelector<HTMLInputElement>(`.column[data-list-id="${id}"] .add-item input`)?.focus();
    });
  };
  return (
    <form className="new-list card-form" onSubmit={submit} aria-label="New todo list" onKeyDown={(e) => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      onDone();
      // focus goes back to where the form was asked for
      requestAnimationFrame(() => document.querySelector<HTMLElement>('[data-new-list]')?.focus());
    }}>
      <label>List name<input autoFocus value={name} onChange={(e) => setName(e.target.value)} maxLength={255} placeholder="e.g. Launch checklist" required /></label>
      <label>Description <span className="muted">(optional)</span><input value={description} onChange={(e) => setDescription(e.target.value)} /></label>
      <label>Milestone <span className="muted">(optional)</span><MilestoneSelect label="Milestone" value={milestone} onChange={setMilestone} /></label>
      {firm && <label className="check"><input type="checkbox" checked={priv} onChange={(e) => setPriv(e.target.checked)} /> Private (hidden from clients)</label>}
      <div className="actions"><button type="submit" className="primary">Create list</button><button type="button" onClick={onDone}>Cancel</button></div>
    </form>
  );
}

function Column({ list, index }: { list: BoardList; index: number }) {
  const { filter, party, moveList, moveItem, updateList, deleteList, lists } = useTodos();
  const firm = useSession((s) => s.firm);
  const [over, setOver] = useState<null | 'item' | 'before' | 'after'>(null);
  const [editing, setEditing] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const visible = list.items.filter((i) => itemVisible(i, filter, party));
  const hidden = list.items.length - visible.length;
  const temp = list.id < 0;
  const milestone = useMilestones((s) => (list.milestone_id && s.projectId === list.project_id ? s.milestones.find((m) => m.id === list.milestone_id) : undefined));

  const onDragOver = (e: DragEvent) => {
    if (!dragging || temp) return;
    if (dragging.kind === 'list' && dragging.id === list.id) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'move';
    if (dragging.kind === 'list') {
      const r = (e.currentTarget as HTMLElement).getBoundingClientRect();
      setOver(e.clientX < r.left + r.width / 2 ? 'before' : 'after');
    } else setOver('item');
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(null);
    const d = dragging;
    dragging = null;
    if (!d) return;
    if (d.kind === 'list') {
      const r = (e.currentTarget as HTMLElement).getBoundingClientRect();
      const after = e.clientX >= r.left + r.width / 2;
      const rest = lists.filter((l) => l.id !== d.id);
      const at = rest.findIndex((l) => l.id === list.id) + (after ? 1 : 0);
      void moveList(d.id, at);
    } else {
      void moveItem(d.id, list.id, dropIndex(list.items, d.id, null, false));
    }
  };
  const onHeadKey = (e: KeyboardEvent) => {
    if (e.altKey && (e.key === 'ArrowLeft' || e.key === 'ArrowRight')) {
      e.preventDefault();
      void moveList(list.id, index + (e.key === 'ArrowLeft' ? -1 : 1)).then(() => {
        document.querySelector<HTMLElement>(`[data-list-head="${list.id}"]`)?.focus();
      });
    }
  };

  return (
    <div role="listitem" className={`column${over ? ` over-${over}` : ''}${temp ? ' pending' : ''}`} data-list-id={list.id}
      aria-label={`List ${list.name}`}
      onDragOver={onDragOver} onDragLeave={(e) => { if (!e.currentTarget.contains(e.relatedTarget as Node)) setOver(null); }} onDrop={onDrop}>
      <div className="column-head" draggable={!temp && !editing} tabIndex={0} data-list-head={list.id}
        aria-label={`${list.name}: ${list.uncompleted_count} open, ${list.completed_count} done. Alt+Left or Right moves the list.`}
        onKeyDown={onHeadKey}
        onDragStart={(e) => { dragging = { kind: 'list', id: list.id }; e.dataTransfer.effectAllowed = 'move'; e.dataTransfer.setData('text/plain', `list:${list.id}`); }}
        onDragEnd={() => { dragging = null; }}>
        {editing ? (
          <ListEditForm list={list} firm={firm} onDone={() => setEditing(false)} onSave={(input) => updateList(list.id, input)} />
        ) : (
          <>
            <div className="title-row">
              <span className="grip" aria-hidden="true">⠿</span>
              <h2>{list.name}</h2>
              {list.private && <span className="badge private">Private</span>}
              <span className="count" title={`${list.completed_count} done, ${list.uncompleted_count} open`}>{list.completed_count}/{list.items.length}</span>
            </div>
            {list.description && <p className="desc">{list.description}</p>}
            {milestone && <p className="desc milestone-of">Milestone: {milestone.title}, due <time dateTime={milestone.deadline}>{mediumDate(milestone.deadline)}</time></p>}
            <div className="list-actions">
              <button type="button" className="link" onClick={() => setEditing(true)} disabled={temp} aria-label={`Edit list ${list.name}`}>Edit</button>
              {confirmDelete ? (
                <>
                  <button type="button" className="link danger" onClick={() => void deleteList(list.id)} aria-label={`Confirm deleting list ${list.name}`}>Delete {list.items.length} items too?</button>
                  <button type="button" className="link" onClick={() => setConfirmDelete(false)}>Keep</button>
                </>
              ) : <button type="button" className="link" onClick={() => setConfirmDelete(true)} disabled={temp} aria-label={`Delete list ${list.name}`}>Delete</button>}
            </div>
          </>
        )}
      </div>
      <ul className="cards" aria-label={`Items of ${list.name}`}>
        {visible.map((i) => <Card key={i.id} item={i} list={list} />)}
      </ul>
      {list.items.length === 0 ? <p className="empty small">No items yet. Add the first one below.</p>
        : visible.length === 0 ? <p className="empty small">{hidden} item{hidden === 1 ? '' : 's'} hidden by the filter.</p> : null}
      {!temp && <AddItem list={list} />}
    </div>
  );
}

function ListEditForm({ list, firm, onDone, onSave }: { list: BoardList; firm: boolean; onDone: () => void; onSave: (i: { name: string; description: string; milestone_id?: number; private?: boolean }) => Promise<boolean> }) {
  const [name, setName] = useState(list.name);
  const [description, setDescription] = useState(list.description);
  const [priv, setPriv] = useState(list.private === true);
  const [milestone, setMilestone] = useState<number | null>(list.milestone_id || null);
  // the milestone is sent only when it changed (0: none)
  const picked = milestone !== (list.milestone_id || null) ? { milestone_id: milestone ?? 0 } : {};
  return (
    <form className="card-form" onSubmit={(e) => { e.preventDefault(); if (!name.trim()) return; onDone(); void onSave({ name: name.trim(), description, ...picked, ...(firm ? { private: priv } : {}) }); }}
      onKeyDown={(e) => { if (e.key === 'Escape') { e.stopPropagation(); onDone(); } }} aria-label={`Edit list ${list.name}`}>
      <label>Name<input autoFocus value={name} onChange={(e) => setName(e.target.value)} maxLength={255} required /></label>
      <label>Description<input value={description} onChange={(e) => setDescription(e.target.value)} /></label>
      <label>Milestone<MilestoneSelect label="Milestone" value={milestone} onChange={setMilestone} /></label>
      {firm && <label className="check"><input type="checkbox" checked={priv} onChange={(e) => setPriv(e.target.checked)} /> Private</label>}
      <div className="actions"><button type="submit" className="primary">Save</button><button type="button" onClick={onDone}>Cancel</button></div>
    </form>
  );
}

function AddItem({ list }: { list: BoardList }) {
  const createItem = useTodos((s) => s.createItem);
  const [content, setContent] = useState('');
  const [party, setParty] = useState('');
  const [due, setDue] = useState('');
  const [more, setMore] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  // What the end of the text says about the due date (lib/due-parse.ts); the user may remove it.
  const [ignored, setIgnored] = useState<string | null>(null);
  const parsed = parseDue(content, today(), typeof navigator !== 'undefined' ? navigator.languages ?? [navigator.language] : []);
  const guess = parsed && `${parsed.content}|${parsed.words}` !== ignored ? parsed : null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!content.trim()) return;
    const text = content;
    // a date typed at the end of the text (shown as a chip, removable) unless the date field says otherwise
    const item = guess && !due ? { content: guess.content, due_at: guess.due } : { content: content.trim(), ...(due ? { due_at: due } : {}) };
    setIgnored(null);
    void createItem(list.id, { ...item, ...(party ? { responsible_party: party } : {}) }).then((ok) => {
      // Not saved (e.g. the service is unreachable): what was typed comes back, unless something new was typed since.
      if (!ok) setContent((c) => (c === '' ? text : c));
    });
    setContent('');
    input.current?.focus();
  };
  return (
    <form className="add-item" onSubmit={submit} aria-label={`Add an item to ${list.name}`}>
      <div className="row">
        <input ref={input} value={content} onChange={(e) => setContent(e.target.value)} placeholder="Add an item…" aria-label={`New item in ${list.name}`} />
        <button type="submit" className="primary small" aria-label={`Add item to ${list.name}`}>Add</button>
      </div>
      <div className="due-guess" aria-live="polite">
        {guess && !due && (
          <span className="chip" data-due={guess.due}>
            <span>Due <time dateTime={guess.due}>{longDate(guess.due)}</time> <span className="muted">(“{guess.words}”)</span></span>
            <button type="button" className="icon-btn" aria-label={`Remove the due date; keep “${guess.words}” in the text`}
              onClick={() => { setIgnored(`${guess.content}|${guess.words}`); input.current?.focus(); }}>×</button>
          </span>
        )}
      </div>
      {more ? (
        <div className="row more">
          <PartySelect label="Responsible for the new item" value={party} onChange={setParty} />
          <input type="date" aria-label="Due date of the new item" value={due} onChange={(e) => setDue(e.target.value)} />
        </div>
      ) : <button type="button" className="link small" onClick={() => setMore(true)}>Assign, due date…</button>}
    </form>
  );
}

const dueState = (due: string | undefined, completed: boolean): string => {
  if (!due || completed) return '';
  const d = due.slice(0, 10);
  const now = new Date();
  const today = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
  return d < today ? ' overdue' : d === today ? ' today' : '';
};

function Card({ item, list }: { item: TodoItem; list: BoardList }) {
  const { toggleItem, openItem, moveItem, moveItemByKey } = useTodos();
  const [over, setOver] = useState<null | 'before' | 'after'>(null);
  const temp = item.id < 0;

  const onKey = (e: KeyboardEvent<HTMLLIElement>) => {
    if (e.target !== e.currentTarget) return;
    const k = e.key;
    if (e.altKey && k.startsWith('Arrow')) {
      e.preventDefault();
      const dir = k === 'ArrowUp' ? 'up' : k === 'ArrowDown' ? 'down' : k === 'ArrowLeft' ? 'left' : 'right';
      void moveItemByKey(item.id, dir).then(() => {
        document.querySelector<HTMLElement>(`[data-item-id="${item.id}"]`)?.focus();
        const ls = useTodos.getState().lists;
        const l = ls.find((x) => x.items.some((i) => i.id === item.id));
        if (l) announce(`“${item.content}” is now in ${l.name}, position ${l.items.findIndex((i) => i.id === item.id) + 1} of ${l.items.length}.`);
      });
    } else if (!e.altKey && (k === 'ArrowUp' || k === 'ArrowDown')) {
      e.preventDefault();
      const cards = [...document.querySelectorAll<HTMLElement>('.card[data-item-id]')];
      const at = cards.indexOf(e.currentTarget);
      cards[at + (k === 'ArrowUp' ? -1 : 1)]?.focus();
    } else if ((k === 'x' || k === ' ') && !typing(e.target)) {
      e.preventDefault();
      void toggleItem(item.id);
    } else if (k === 'Enter') {
      e.preventDefault();
      openItem(item.id);
    }
  };
  const onDragOver = (e: DragEvent) => {
    if (!dragging || dragging.kind !== 'item' || dragging.id === item.id) return;
    e.preventDefault();
    e.stopPropagation();
    e.dataTransfer.dropEffect = 'move';
    const r = (e.currentTarget as HTMLElement).getBoundingClientRect();
    setOver(e.clientY < r.top + r.height / 2 ? 'before' : 'after');
  };
  const onDrop = (e: DragEvent) => {
    if (!dragging || dragging.kind !== 'item') return;
    e.preventDefault();
    e.stopPropagation();
    const r = (e.currentTarget as HTMLElement).getBoundingClientRect();
    const after = e.clientY >= r.top + r.height / 2;
    const d = dragging.id;
    dragging = null;
    setOver(null);
    if (d === item.id) return;
    void moveItem(d, list.id, dropIndex(list.items, d, item.id, after));
  };

  return (
    <li className={`card${item.completed ? ' done' : ''}${over ? ` over-${over}` : ''}${temp ? ' pending' : ''}`} data-item-id={item.id}
      tabIndex={0} draggable={!temp} onKeyDown={onKey} aria-label={`${item.content}${item.completed ? ' (done)' : dueState(item.due_at, false) === ' overdue' ? ' (overdue)' : ''}`}
      onDragStart={(e) => { e.stopPropagation(); dragging = { kind: 'item', id: item.id }; e.dataTransfer.effectAllowed = 'move'; e.dataTransfer.setData('text/plain', `item:${item.id}`); }}
      onDragEnd={() => { dragging = null; setOver(null); }}
      onDragOver={onDragOver} onDragLeave={() => setOver(null)} onDrop={onDrop}>
      <input type="checkbox" tabIndex={-1} checked={item.completed} disabled={temp} onChange={() => void toggleItem(item.id)}
        aria-label={`${item.completed ? "Reopen" : "Complete"} “${item.content}”`} />
      <div className="card-body">
        <button type="button" className="content" onClick={() => openItem(item.id)} disabled={temp} tabIndex={-1}>{item.content}</button>
        <div className="meta">
          {item.responsible_party_name && <span className={`party ${item.responsible_party_type === 'Company' ? 'company' : ''}`}>{item.responsible_party_name}</span>}
          {item.due_at && (() => {
            const st = dueState(item.due_at, item.completed);
            // Overdue is said in words and with a mark, not only by colour.
            return <span className={`due${st}`}>{st === ' overdue' ? <><span aria-hidden="true">⚠ </span>Overdue, due </> : st === ' today' ? 'Due today, ' : 'Due '}<time dateTime={item.due_at.slice(0, 10)}>{mediumDate(item.due_at.slice(0, 10))}</time></span>;
          })()}
          {item.comments_count > 0 && <span className="comments" aria-label={`${item.comments_count} comments`}><Icon name="comment" /> {item.comments_count}</span>}
        </div>
      </div>
    </li>
  );
}
