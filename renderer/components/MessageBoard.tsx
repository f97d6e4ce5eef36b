import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { Post, PostInput } from '../../shared/client.ts';
import { when } from '../lib/dates.ts';
import { useMessages } from '../stores/messages.ts';
import { formatHash, useSession } from '../stores/session.ts';
import { useNewRequest, useReconnect, useUi } from '../stores/ui.ts';
import { useDraft } from '../stores/drafts.ts';
import { useLiveChange } from '../stores/live.ts';
import { Icon } from './Icon.tsx';
import { MilestoneSelect } from './MilestoneSelect.tsx';
import { Textile } from './Textile.tsx';
import { plainText } from '../../shared/textile.ts';

/** Plain-text body as paragraphs (two or more newlines split; single newlines are line breaks). */
export function Paragraphs({ text }: { text: string }) {
  const paras = text.replace(/\r\n/g, '\n').replace(/^\n+|\n+$/g, '').split(/\n{2,}/).filter((p) => p !== '');
  return <>{paras.map((p, i) => <p key={i} className="pre">{p}</p>)}</>;
}

/** Open a message (or the list) of the board, keeping the category filter. */
function toMessages(postId: number | null = null): void {
  const s = useSession.getState();
  s.go('messages', postId, s.categoryId);
}

export function MessageBoard({ projectId }: { projectId: number }) {
  const m = useMessages();
  const postId = useSession((s) => s.postId);
  const [composing, setComposing] = useState(false);

  const categoryId = useSession((s) => s.categoryId);
  useEffect(() => {
    const m = useMessages.getState();
    void m.load(projectId).then(() => { if (useMessages.getState().categoryId !== useSession.getState().categoryId) void m.setCategory(useSession.getState().categoryId); });
  }, [projectId]);
  // The category filter follows the URL (a reload or the back button keeps it).
  useEffect(() => {
    const m = useMessages.getState();
    if (m.projectId === projectId && m.loaded && m.categoryId !== categoryId) void m.setCategory(categoryId);
  }, [categoryId, projectId]);
  useEffect(() => { void useMessages.getState().open(postId); setComposing(false); }, [postId]);
  useNewRequest(() => { toMessages(); setComposing(true); });
  useReconnect(() => { void useMessages.getState().load(projectId); });
  useLiveChange(projectId, ['posts', 'comments', 'categories'], () => {
    void useMessages.getState().load(projectId);
    const open = useSession.getState().postId;
    if (open) void useMessages.getState().open(open);
  });

  return (
    <section className="board messages" aria-labelledby="messages-title">
      <Categories />
      <div className="message-main">
        {postId ? <MessageView postId={postId} /> : (
          <>
            <div className="toolbar">
              <h1 id="messages-title">Messages{m.categoryId ? `: ${m.categories.find((c) => c.id === m.categoryId)?.name ?? ''}` : ''}</h1>
              <div className="segmented" role="group" aria-label="Message view">
                <button type="button" aria-pressed={m.mode === 'recent'} onClick={() => void m.setMode('recent')}>Recent</button>
                <button type="button" aria-pressed={m.mode === 'archive'} onClick={() => void m.setMode('archive')}>Archive</button>
              </div>
              <div className="spacer" />
              {!composing && <button type="button" className="primary" onClick={() => setComposing(true)} title="New message (n)">New message</button>}
            </div>
            {composing && (
              <PostForm title="New message" submitLabel="Post message" onCancel={() => setComposing(false)} draft={`post:new:${projectId}`}
                initial={{ title: '', body: '', category_id: m.categoryId, milestone_id: null, private: false }}
                onSubmit={async (input) => {
                  const p = await m.createPost(input);
                  if (p) { setComposing(false); toMessages(p.id); }
                  return p !== null;
                }} />
            )}
            {m.mode === 'archive' ? <Archive /> : <Recent onCompose={() => setComposing(true)} />}
          </>
        )}
      </div>
    </section>
  );
}

function Recent({ onCompose }: { onCompose: () => void }) {
  const { posts, loaded, loading, hasMore, loadMore, categories, categoryId } = useMessages();
  const offline = useUi((s) => s.connection === 'offline');
  // Never "No messages" because the service did not answer: say what is going on instead.
  if (offline && (!loaded || posts.length === 0)) return <p className="unreachable" role="status">Can’t reach the service, so the messages are not loaded. It is retried by itself.</p>;
  if (!loaded && loading) return <p className="muted" role="status">Loading messages…</p>;
  if (loaded && posts.length === 0) {
    return (
      <div className="empty big">
        <h2>{categoryId ? 'No messages in this category' : 'No messages yet'}</h2>
        <p>The message board is where the project talks: announcements, weekly status, questions for the client.
          Write the first message and everyone on the project can read and comment on it.</p>
        <button type="button" className="primary" onClick={onCompose}>Write the first message</button>
      </div>
    );
  }
  return (
    <>
      <ol className="post-list" aria-label="Messages, newest first">
        {posts.map((p) => (
          <li key={p.id}>
            <a className="post-row" href={formatHash({ projectId: p.project_id, view: 'messages', postId: p.id })}
              onClick={(e) => { if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return; e.preventDefault(); toMessages(p.id); }}>
              <span className="post-title">{p.title}{p.private && <span className="badge private">Private</span>}</span>
              <span className="muted small">{p.author_name} · {when(p.posted_on)}
                {p.category_id ? ` · ${categories.find((c) => c.id === p.category_id)?.name ?? ''}` : ''}</span>
              {p.body && (() => {
                // The excerpt is text: Textile's marks are gone, links are their words (issue #28).
                const t = p.use_textile ? plainText(p.body) : p.body.replace(/\s+/g, ' ').trim();
                return t ? <span className="excerpt">{t.slice(0, 180)}{t.length > 180 ? '…' : ''}</span> : null;
              })()}
              <span className="comments small" aria-label={`${p.comments_count} comments`}><Icon name="comment" /> {p.comments_count}</span>
            </a>
          </li>
        ))}
      </ol>
      {hasMore && <button type="button" className="more" onClick={() => void loadMore()}>Older messages</button>}
    </>
  );
}

function Archive() {
  const { archive } = useMessages();
  if (!archive) return <p className="muted" role="status">Loading the archive…</p>;
  if (!archive.length) return <div className="empty"><p>The archive is empty: no messages here yet.</p></div>;
  return (
    <table className="archive" tabIndex={0}>
      <caption className="sr-only">All messages</caption>
      <thead><tr><th scope="col">Title</th><th scope="col">Category</th><th scope="col">Author</th><th scope="col">Posted</th><th scope="col">Last comment</th></tr></thead>
      <tbody>
        {archive.map((p) => (
          <tr key={p.id}>
            <td><button type="button" className="link" onClick={() => toMessages(p.id)}>{p.title}</button></td>
            <td>{p.category?.name ?? '—'}</td><td>{p.author_name}</td><td>{when(p.posted_on)}</td><td>{p.commented_at ? when(p.commented_at) : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Categories() {
  const { categories, categoryId, createCategory, renameCategory, deleteCategory, index, loaded } = useMessages();
  const firm = useSession((s) => s.firm);
  const go = useSession((s) => s.go);
  const [name, setName] = useState('');
  const [editing, setEditing] = useState<number | null>(null);
  const [editName, setEditName] = useState('');
  const [confirmCat, setConfirmCat] = useState<number | null>(null);
  /** Why the name typed cannot be used (a duplicate), shown under the field that holds it. */
  const [nameError, setNameError] = useState<{ at: 'add' | number; text: string } | null>(null);
  const pick = (id: number | null) => go('messages', null, id);
  /** A category name must be unique within the project (compared without case or surrounding spaces, issue #28, D263). */
  const taken = async (n: string, except: number | null): Promise<string | null> => {
    const key = n.trim().toLocaleLowerCase();
    const pid = useMessages.getState().projectId;
    // the freshest list: another person may have added one since this board loaded
    const list = pid ? await useMessages.getState().reloadCategories() : categories;
    return list.find((c) => c.id !== except && c.name.trim().toLocaleLowerCase() === key)?.name ?? null;
  };
  const add = async () => {
    const n = name.trim();
    if (!n) return;
    const dup = await taken(n, null);
    if (dup !== null) { setNameError({ at: 'add', text: `There is already a category named “${dup}”. Pick another name, or use that one.` }); return; }
    setNameError(null);
    setName('');
    void createCategory(n);
  };
  const rename = async (id: number) => {
    const n = editName.trim();
    if (!n) return;
    const dup = await taken(n, id);
    if (dup !== null) { setNameError({ at: id, text: `There is already a category named “${dup}”. Pick another name.` }); return; }
    setNameError(null);
    setEditing(null);
    void renameCategory(id, n);
  };
  return (
    <nav className="categories" aria-label="Categories">
      <h2>Categories</h2>
      <ul>
        <li><button type="button" className="cat" aria-pressed={categoryId === null} onClick={() => pick(null)}>All messages {loaded && <span className="count">{index.length}</span>}</button></li>
        {categories.map((c) => (
          <li key={c.id}>
            {editing === c.id ? (
              <form onSubmit={(e) => { e.preventDefault(); void rename(c.id); }} className="cat-edit">
                <div className="cat-edit-row">
                  <input aria-label={`New name for ${c.name}`} value={editName} onChange={(e) => { setEditName(e.target.value); setNameError(null); }} autoFocus maxLength={255}
                    aria-invalid={nameError?.at === c.id || undefined} aria-describedby={nameError?.at === c.id ? 'cat-name-error' : undefined}
                    onKeyDown={(e) => { if (e.key === 'Escape') { e.stopPropagation(); setEditing(null); setNameError(null); } }} />
                  <button type="submit" className="small primary">Save</button>
                </div>
                {nameError?.at === c.id && <p className="error small" id="cat-name-error" role="alert">{nameError.text}</p>}
              </form>
            ) : (
              <div className="cat-row">
                <button type="button" className="cat" aria-pressed={categoryId === c.id} onClick={() => pick(c.id)}>{c.name} <span className="count">{c.elements_count}</span></button>
                {firm && <>
                  <button type="button" className="icon-btn small" aria-label={`Rename category ${c.name}`} title="Rename" onClick={() => { setEditing(c.id); setEditName(c.name); setNameError(null); }}><Icon name="pencil" /></button>
                  {confirmCat === c.id ? (
                    <span className="confirm-inline">
                      <button type="button" className="link small danger" onClick={() => { setConfirmCat(null); void deleteCategory(c.id); }} aria-label={`Confirm deleting category ${c.name}`}>Delete?</button>
                      <button type="button" className="link small" onClick={() => setConfirmCat(null)}>Keep</button>
                    </span>
                  ) : <button type="button" className="icon-btn small" aria-label={`Delete category ${c.name}`} title="Delete" onClick={() => { if (c.elements_count > 0) void deleteCategory(c.id); else setConfirmCat(c.id); }}><Icon name="trash" /></button>}
                </>}
              </div>
            )}
          </li>
        ))}
      </ul>
      {loaded && categories.length === 0 && <p className="muted small">{firm ? 'No categories yet. Add one to sort messages (e.g. “Status reports”).' : 'No categories.'}</p>}
      {firm && (
        <form className="cat-add" onSubmit={(e) => { e.preventDefault(); void add(); }}>
          <div className="cat-edit-row">
            <input aria-label="New category name" placeholder="New category" value={name} onChange={(e) => { setName(e.target.value); if (nameError?.at === 'add') setNameError(null); }} maxLength={255}
              aria-invalid={nameError?.at === 'add' || undefined} aria-describedby={nameError?.at === 'add' ? 'cat-add-error' : undefined} />
            <button type="submit" className="small">Add</button>
          </div>
          {nameError?.at === 'add' && <p className="error small" id="cat-add-error" role="alert">{nameError.text}</p>}
        </form>
      )}
    </nav>
  );
}

/** `milestone_id`: null for none (older drafts have no such key: none too). */
type PostDraft = { title: string; body: string; category_id: number | null; milestone_id?: number | null; private?: boolean };

function PostForm({ title, initial, submitLabel, onSubmit, onCancel, draft: record }: {
  title: string; initial: PostDraft; draft: string;
  submitLabel: string; onSubmit: (i: PostInput) => Promise<boolean>; onCancel: () => void;
}) {
  const categories = useMessages((s) => s.categories);
  const firm = useSession((s) => s.firm);
  const [draft, setDraft] = useDraft<PostDraft>(record);
  const [restored] = useState(draft !== null);
  const v: PostDraft = draft ?? initial;
  const same = (a: PostDraft) => a.title === initial.title && a.body === initial.body && a.category_id === initial.category_id && (a.milestone_id ?? null) === (initial.milestone_id ?? null) && !!a.private === !!initial.private;
  const change = (patch: Partial<PostDraft>) => { const next = { ...v, ...patch }; setDraft(same(next) ? null : next); };
  const [busy, setBusy] = useState(false);
  const [preview, setPreview] = useState(false);
  const [bodyError, setBodyError] = useState(false);
  const bodyRef = useRef<HTMLTextAreaElement>(null);
  const hintId = useId();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!v.title.trim()) return;
    // A message needs a text (a title alone is what a stray Enter posts, issue #28).
    if (!v.body.trim()) { setPreview(false); setBodyError(true); requestAnimationFrame(() => bodyRef.current?.focus()); return; }
    setBusy(true);
    const ok = await onSubmit({ title: v.title, body: v.body, category_id: v.category_id ?? 0, milestone_id: v.milestone_id ?? 0, use_textile: true, ...(firm ? { private: v.private === true } : {}) });
    setBusy(false);
    if (ok) setDraft(null);
  };
  const t = v.title, body = v.body, cat = v.category_id, priv = v.private === true;
  const setT = (title: string) => change({ title });
  const setBody = (body: string) => change({ body });
  const setCat = (category_id: number | null) => change({ category_id });
  const setMilestone = (milestone_id: number | null) => change({ milestone_id });
  const setPriv = (p: boolean) => change({ private: p });
  return (
    <form className="post-form card-form" onSubmit={submit} aria-label={title} onKeyDown={(e) => { if (e.key === 'Escape') { e.stopPropagation(); onCancel(); } }}>
      <h2>{title}</h2>
      {restored && draft && <p className="draft-note" role="status">Your unsaved draft is back. Esc closes and keeps it.</p>}
      <label>Title<input value={t} onChange={(e) => setT(e.target.value)} required maxLength={255} autoFocus /></label>
      <label>Message<textarea ref={bodyRef} value={body} onChange={(e) => { setBody(e.target.value); if (bodyError) setBodyError(false); }} rows={8} hidden={preview}
        aria-required="true" aria-invalid={bodyError || undefined} aria-describedby={`${hintId}${bodyError ? ` ${hintId}-error` : ''}`}
        onKeyDown={(e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); e.currentTarget.form?.requestSubmit(); } }} /></label>
      {/* the hint describes the field; it is not part of its name (issue #28) */}
      <span className="hint" id={hintId}>*bold*, _italic_, "a link":https://…, lines starting with * or # make lists. Ctrl+Enter posts.</span>
      {bodyError && <p className="error" id={`${hintId}-error`} role="alert">Write the message’s text too: a message needs more than a title.</p>}
      {preview && <div className="preview message-body" aria-label="Preview">{body.trim() ? <Textile text={body} /> : <p className="muted">(Nothing to preview.)</p>}</div>}
      <button type="button" className="link small" aria-pressed={preview} onClick={() => setPreview(!preview)}>{preview ? 'Back to editing' : 'Preview'}</button>
      <div className="row">
        <label>Category
          <select value={cat ?? ''} onChange={(e) => setCat(e.target.value ? Number(e.target.value) : null)}>
            <option value="">No category</option>
            {categories.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
          </select>
        </label>
        <label>Milestone<MilestoneSelect label="Milestone" value={v.milestone_id ?? null} onChange={setMilestone} /></label>
        {firm && <label className="check"><input type="checkbox" checked={priv} onChange={(e) => setPriv(e.target.checked)} /> Private (only the firm sees it)</label>}
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>{busy ? 'Saving…' : submitLabel}</button>
        {draft ? <button type="button" onClick={() => { setDraft(null); onCancel(); }}>Discard draft</button> : <button type="button" onClick={onCancel}>Cancel</button>}
      </div>
    </form>
  );
}

function MessageView({ postId }: { postId: number }) {
  const { current, comments, updatePost, deletePost, addComment, updateComment, deleteComment, categories } = useMessages();
  const { me, admin, firm } = useSession();
  const [editing, setEditing] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const [bodyDraft, setBodyDraft] = useDraft<string>(`comment:post:${postId}`);
  const body = bodyDraft ?? '';
  const setBody = (b: string) => setBodyDraft(b === '' ? null : b);
  const [priv, setPriv] = useState(false);
  const [editC, setEditC] = useState<number | null>(null);
  /** A comment asked to be deleted: it cannot be undone, so it is confirmed first. */
  const [confirmC, setConfirmC] = useState<number | null>(null);
  const [editBody, setEditBody] = useState('');
  const [editDraft] = useDraft<PostDraft>(`post:${postId}`);
  // An unsaved edit of this message reopens the edit form (after a reload or a board switch).
  useEffect(() => { setEditing(editDraft !== null); setConfirm(false); }, [postId]);

  if (!current || current.id !== postId) return <p className="muted" role="status">Loading the message…</p>;
  const p: Post = current;
  const mine = admin || p.author_id === me?.id;
  const submitComment = async (e: FormEvent) => {
    e.preventDefault();
    if (!body.trim()) return;
    if (await addComment(body, priv)) { setBody(''); setPriv(false); }
  };

  return (
    <article className="message" aria-labelledby="message-title">
      <button type="button" className="link back" onClick={() => toMessages()}>← All messages</button>
      {editing ? (
        <PostForm title="Edit message" submitLabel="Save message" onCancel={() => setEditing(false)} draft={`post:${p.id}`}
          initial={{ title: p.title, body: p.body, category_id: p.category_id, milestone_id: p.milestone_id || null, private: p.private === true }}
          onSubmit={async (input) => { const ok = await updatePost(p.id, input); if (ok) setEditing(false); return ok; }} />
      ) : (
        <>
          <header>
            <h1 id="message-title">{p.title}{p.private && <span className="badge private">Private</span>}</h1>
            <p className="muted">{p.author_name} · {when(p.posted_on)}{p.category_id ? ` · ${categories.find((c) => c.id === p.category_id)?.name ?? ''}` : ''}</p>
          </header>
          <div className="message-body">{p.body ? (p.use_textile ? <Textile text={p.body} /> : <Paragraphs text={p.body} />) : <p className="muted">(No text.)</p>}</div>
          {mine && (
            <div className="actions">
              <button type="button" onClick={() => setEditing(true)}>Edit</button>
              {confirm ? (
                <>
                  <button type="button" className="danger" onClick={async () => { if (await deletePost(p.id)) toMessages(); }}>Yes, delete it and its comments</button>
                  <button type="button" onClick={() => setConfirm(false)}>Keep</button>
                </>
              ) : <button type="button" className="danger-outline" onClick={() => setConfirm(true)}>Delete</button>}
            </div>
          )}
        </>
      )}
      <section className="comments-section" aria-label="Comments">
        <h2>Comments ({comments.length})</h2>
        {comments.length === 0 && <p className="muted">No comments yet. Be the first to reply.</p>}
        <ol className="comment-list">
          {comments.map((c) => (
            <li key={c.id}>
              <div className="comment-meta"><strong>{c.author_name}</strong> <span className="muted">{when(c.created_at)}</span>{c.private && <span className="badge private">Private</span>}
                {(admin || c.author_id === me?.id) && editC !== c.id && (
                  <span className="comment-actions">
                    <button type="button" className="link small" onClick={() => { setEditC(c.id); setEditBody(c.body); }} aria-label="Edit comment">Edit</button>
                    {confirmC === c.id ? (
                      <>
                        <button type="button" className="link small danger" onClick={() => { setConfirmC(null); void deleteComment(c.id); }} aria-label="Confirm deleting the comment">Delete it for good?</button>
                        <button type="button" className="link small" onClick={() => setConfirmC(null)}>Keep</button>
                      </>
                    ) : <button type="button" className="link small danger" onClick={() => setConfirmC(c.id)} aria-label="Delete comment">Delete</button>}
                  </span>
                )}
              </div>
              {editC === c.id ? (
                <form className="stack" onSubmit={async (e) => { e.preventDefault(); if (editBody.trim() && await updateComment(c.id, editBody)) setEditC(null); }}>
                  <label>Edit comment<textarea value={editBody} onChange={(e) => setEditBody(e.target.value)} rows={3} autoFocus /></label>
                  <div className="actions"><button type="submit" className="primary small">Save</button><button type="button" className="small" onClick={() => setEditC(null)}>Cancel</button></div>
                </form>
              ) : <Textile text={c.body} />}
            </li>
          ))}
        </ol>
        <form className="stack" onSubmit={submitComment} aria-label="Add a comment">
          <label>Your comment<textarea value={body} onChange={(e) => setBody(e.target.value)} rows={3} required
            onKeyDown={(e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); e.currentTarget.form?.requestSubmit(); } }} /></label>
          {firm && <label className="check"><input type="checkbox" checked={priv} onChange={(e) => setPriv(e.target.checked)} /> Private (firm only)</label>}
          <div className="actions"><button type="submit" className="primary">Add comment</button></div>
        </form>
      </section>
    </article>
  );
}
