import { useCallback, useEffect, useMemo, useState, type KeyboardEvent } from 'react';
import type { Post } from '../../shared/client.ts';
import { search, type Hit } from '../lib/search.ts';
import { useMessages } from '../stores/messages.ts';
import { useSession } from '../stores/session.ts';
import { useTodos } from '../stores/todos.ts';
import { useUi } from '../stores/ui.ts';
import { Modal } from './Modal.tsx';

/** The loaded posts and the search corpus, each post once (the loaded copy is the freshest). */
function mergePosts(loaded: readonly Post[], bodies: readonly Post[]): Post[] {
  const seen = new Set(loaded.map((p) => p.id));
  return [...loaded, ...bodies.filter((p) => !seen.has(p.id))];
}

/** Search the current project's messages (titles and texts of all of them, comments of the open one) and todos. */
export function SearchOverlay() {
  const setOverlay = useUi((s) => s.setOverlay);
  const { projectId, go } = useSession();
  const todos = useTodos();
  const msgs = useMessages();
  const [q, setQ] = useState('');
  const [sel, setSel] = useState(0);
  const close = useCallback(() => setOverlay(null), [setOverlay]);

  useEffect(() => {
    if (!projectId) return;
    if (todos.projectId !== projectId || !todos.loaded) void useTodos.getState().load(projectId, true);
    if (msgs.projectId !== projectId || !msgs.loaded) void useMessages.getState().load(projectId).then(() => useMessages.getState().loadBodies(projectId));
    else void useMessages.getState().loadBodies(projectId);
  // run once per opening
  }, []);

  const hits = useMemo(() => search(q, {
    lists: todos.projectId === projectId ? todos.lists : [],
    posts: msgs.projectId === projectId ? mergePosts(msgs.posts, msgs.bodiesFor === projectId ? msgs.bodies : []) : [],
    index: msgs.projectId === projectId ? msgs.index : [],
    comments: msgs.current ? { postId: msgs.current.id, comments: msgs.comments } : null,
  }), [q, todos.lists, todos.projectId, msgs.posts, msgs.bodies, msgs.bodiesFor, msgs.index, msgs.projectId, msgs.current, msgs.comments, projectId]);

  const open = (h: Hit) => {
    close();
    if (h.kind === 'todo') { go('todos'); useTodos.getState().openItem(h.id); }
    else if (h.kind === 'list') { go('todos'); setTimeout(() => document.querySelector<HTMLElement>(`[data-list-head="${h.id}"]`)?.focus(), 50); }
    else go('messages', h.id);
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown') { e.preventDefault(); setSel((s) => Math.min(s + 1, hits.length - 1)); }
    else if (e.key === 'ArrowUp') { e.preventDefault(); setSel((s) => Math.max(s - 1, 0)); }
    else if (e.key === 'Enter' && hits[sel]) { e.preventDefault(); open(hits[sel]); }
  };

  return (
    <Modal title="Search this project" onClose={close} className="search">
      <input type="search" role="combobox" aria-expanded={hits.length > 0} aria-controls="search-results" aria-activedescendant={hits[sel] ? `hit-${sel}` : undefined}
        aria-label="Search messages and todos" placeholder="Search messages and todos…" value={q} onChange={(e) => { setQ(e.target.value); setSel(0); }} onKeyDown={onKey} />
      <ul id="search-results" role="listbox" aria-label="Results" className="hits">
        {hits.map((h, i) => (
          <li key={`${h.kind}${h.id}`} id={`hit-${i}`} role="option" aria-selected={i === sel} className={i === sel ? 'sel' : ''}
            onMouseEnter={() => setSel(i)} onClick={() => open(h)}>
            <span className={`kind ${h.kind}`}>{h.kind === 'todo' ? 'Todo' : h.kind === 'list' ? 'List' : 'Message'}</span>
            <span className="hit-title">{h.title}</span>
            {h.context && <span className="muted small">{h.context}</span>}
          </li>
        ))}
      </ul>
      {q.trim() && hits.length === 0 && <p className="muted">Nothing matches “{q}” in this project.</p>}
      {!q.trim() && <p className="muted small">Type to search todo items, list names, message titles and texts. ↑ ↓ to choose, Enter to open.</p>}
    </Modal>
  );
}
