import { useEffect, useRef, useState, type FormEvent } from 'react';
import { when } from '../lib/dates.ts';
import { useSession } from '../stores/session.ts';
import { useTodos } from '../stores/todos.ts';
import { useDraft } from '../stores/drafts.ts';
import { PartySelect } from './PartySelect.tsx';
import { TimerButton } from './Timer.tsx';

/** Side panel of one todo item: edit it, delete it, read and write its comments. */
export function ItemPanel({ itemId }: { itemId: number }) {
  const projectId = useSession((s) => s.projectId) ?? 0;
  const { lists, openItem, updateItem, deleteItem, toggleItem, comments, addComment } = useTodos();
  const firm = useSession((s) => s.firm);
  const item = lists.flatMap((l) => l.items).find((i) => i.id === itemId);
  const list = lists.find((l) => l.id === item?.todo_list_id);
  const party = item?.responsible_party_id !== undefined ? `${item.responsible_party_type === 'Company' ? 'c' : ''}${item.responsible_party_id}` : '';
  // Unsaved edits and comments are drafts of this item (D92): opening another item, Esc, a board switch
  // or a reload keeps them; Save or "Discard changes" ends them.
  const saved = { content: item?.content ?? '', resp: party, due: item?.due_at?.slice(0, 10) ?? '' };
  const [edit, setEdit] = useDraft<typeof saved>(`item:${itemId}`);
  const cur = edit ?? saved;
  const change = (patch: Partial<typeof saved>) => {
    const next = { ...cur, ...patch };
    setEdit(next.content === saved.content && next.resp === saved.resp && next.due === saved.due ? null : next);
  };
  const { content, resp, due } = cur;
  const setContent = (v: string) => change({ content: v });
  const setResp = (v: string) => change({ resp: v });
  const setDue = (v: string) => change({ due: v });
  const [bodyDraft, setBodyDraft] = useDraft<string>(`comment:item:${itemId}`);
  const body = bodyDraft ?? '';
  const setBody = (b: string) => setBodyDraft(b === '' ? null : b);
  const [priv, setPriv] = useState(false);
  const [confirm, setConfirm] = useState(false);

  useEffect(() => { setConfirm(false); }, [itemId]);
  // Opening an item moves attention to its panel: focus goes to its heading (Esc returns to the card).
  const head = useRef<HTMLHeadingElement>(null);
  useEffect(() => { head.current?.focus(); }, [itemId]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => { if (e.key === 'Escape') { openItem(null); document.querySelector<HTMLElement>(`[data-item-id="${itemId}"]`)?.focus(); } };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [itemId, openItem]);

  if (!item) return null;
  const cs = comments[itemId];
  const dirty = edit !== null;

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!content.trim()) return;
    const input: { content?: string; responsible_party?: string; due_at?: string } = {};
    if (content !== item.content) input.content = content;
    if (resp !== party) input.responsible_party = resp;
    if (due !== (item.due_at?.slice(0, 10) ?? '')) input.due_at = due;
    if (await updateItem(itemId, input)) setEdit(null);
  };
  const comment = async (e: FormEvent) => {
    e.preventDefault();
    if (!body.trim()) return;
    if (await addComment(itemId, body, priv)) { setBody(''); setPriv(false); }
  };

  return (
    <aside className="panel" aria-label={`Todo item: ${item.content}`}>
      <div className="panel-head">
        <div>
          <p className="muted small">{list?.name}</p>
          <h2 ref={head} tabIndex={-1}>{item.content}</h2>
        </div>
        <button type="button" className="icon-btn" aria-label="Close the item" onClick={() => openItem(null)}>×</button>
      </div>
      <p className="muted small">
        Added by {item.creator_name || 'you'}{item.created_at && ` on ${when(item.created_at)}`}.
        {item.completed && item.completer_name && ` Completed by ${item.completer_name} on ${when(item.completed_at)}.`}
      </p>
      <button type="button" className={item.completed ? '' : 'primary'} onClick={() => void toggleItem(itemId)}>
        {item.completed ? 'Reopen' : 'Mark complete'}
      </button>
      {item.id > 0 && projectId > 0 && <TimerButton projectId={projectId} todoItemId={item.id} label={item.content} />}
      <form className="stack" onSubmit={(e) => void save(e)} aria-label="Edit the item">
        {dirty && <p className="draft-note" role="status">Unsaved changes (kept as a draft until you save or discard them).</p>}
        <label>What needs doing<textarea value={content} onChange={(e) => setContent(e.target.value)} rows={2} required /></label>
        <label>Responsible<PartySelect label="Responsible" value={resp} onChange={setResp} /></label>
        <label>Due date<input type="date" value={due} onChange={(e) => setDue(e.target.value)} /></label>
        <div className="actions">
          <button type="submit" className="primary" disabled={!dirty}>Save changes</button>
          {dirty && <button type="button" onClick={() => setEdit(null)}>Discard changes</button>}
          {confirm ? (
            <>
              <button type="button" className="danger" onClick={() => {
                // After the deletion focus goes to the next card of the list (or the previous, or the add field).
                const cards = [...document.querySelectorAll<HTMLElement>(`[data-list-id="${item.todo_list_id}"] .card[data-item-id]`)];
                const at = cards.findIndex((c) => c.dataset.itemId === String(itemId));
                const next = cards[at + 1] ?? cards[at - 1];
                const target = next ? `.card[data-item-id="${next.dataset.itemId}"]` : `[data-list-id="${item.todo_list_id}"] .add-item input`;
                void deleteItem(itemId).then(() => document.querySelector<HTMLElement>(target)?.focus());
                document.querySelector<HTMLElement>(target)?.focus();
              }}>Yes, delete it</button>
              <button type="button" onClick={() => setConfirm(false)}>Keep</button>
            </>
          ) : <button type="button" className="danger-outline" onClick={() => setConfirm(true)}>Delete item</button>}
        </div>
      </form>
      <section aria-label="Comments" className="comments-section">
        <h3>Comments {cs ? `(${cs.length})` : ''}</h3>
        {!cs ? <p className="muted">Loading…</p> : cs.length === 0 ? <p className="muted">No comments yet. Ask a question or leave a note for the team.</p> : (
          <ol className="comment-list">
            {cs.map((c) => (
              <li key={c.id}><div className="comment-meta"><strong>{c.author_name}</strong> <span className="muted">{when(c.created_at)}</span>{c.private && <span className="badge private">Private</span>}</div>
                <p className="pre">{c.body}</p></li>
            ))}
          </ol>
        )}
        <form className="stack" onSubmit={comment} aria-label="Add a comment">
          <label>Comment<textarea value={body} onChange={(e) => setBody(e.target.value)} rows={3} required /></label>
          {firm && <label className="check"><input type="checkbox" checked={priv} onChange={(e) => setPriv(e.target.checked)} /> Private (firm only)</label>}
          <div className="actions"><button type="submit" className="primary">Add comment</button></div>
        </form>
      </section>
    </aside>
  );
}
