import { useEffect, useState, type FormEvent } from 'react';
import { when } from '../lib/dates.ts';
import { useSession } from '../stores/session.ts';
import { useTodos } from '../stores/todos.ts';
import { PartySelect } from './PartySelect.tsx';

/** Side panel of one todo item: edit it, delete it, read and write its comments. */
export function ItemPanel({ itemId }: { itemId: number }) {
  const { lists, openItem, updateItem, deleteItem, toggleItem, comments, addComment } = useTodos();
  const firm = useSession((s) => s.firm);
  const item = lists.flatMap((l) => l.items).find((i) => i.id === itemId);
  const list = lists.find((l) => l.id === item?.todo_list_id);
  const party = item?.responsible_party_id !== undefined ? `${item.responsible_party_type === 'Company' ? 'c' : ''}${item.responsible_party_id}` : '';
  const [content, setContent] = useState(item?.content ?? '');
  const [resp, setResp] = useState(party);
  const [due, setDue] = useState(item?.due_at?.slice(0, 10) ?? '');
  const [body, setBody] = useState('');
  const [priv, setPriv] = useState(false);
  const [confirm, setConfirm] = useState(false);

  useEffect(() => {
    setContent(item?.content ?? ''); setResp(party); setDue(item?.due_at?.slice(0, 10) ?? ''); setConfirm(false);
  }, [itemId, item?.updated_at]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => { if (e.key === 'Escape') { openItem(null); document.querySelector<HTMLElement>(`[data-item-id="${itemId}"]`)?.focus(); } };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [itemId, openItem]);

  if (!item) return null;
  const cs = comments[itemId];
  const dirty = content !== item.content || resp !== party || due !== (item.due_at?.slice(0, 10) ?? '');

  const save = (e: FormEvent) => {
    e.preventDefault();
    if (!content.trim()) return;
    const input: { content?: string; responsible_party?: string; due_at?: string } = {};
    if (content !== item.content) input.content = content;
    if (resp !== party) input.responsible_party = resp;
    if (due !== (item.due_at?.slice(0, 10) ?? '')) input.due_at = due;
    void updateItem(itemId, input);
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
          <h2>{item.content}</h2>
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
      <form className="stack" onSubmit={save} aria-label="Edit the item">
        <label>What needs doing<textarea value={content} onChange={(e) => setContent(e.target.value)} rows={2} required /></label>
        <label>Responsible<PartySelect label="Responsible" value={resp} onChange={setResp} /></label>
        <label>Due date<input type="date" value={due} onChange={(e) => setDue(e.target.value)} /></label>
        <div className="actions">
          <button type="submit" className="primary" disabled={!dirty}>Save changes</button>
          {confirm ? (
            <>
              <button type="button" className="danger" onClick={() => void deleteItem(itemId)}>Yes, delete it</button>
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
