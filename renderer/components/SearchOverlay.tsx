import { useCallback, useEffect, useMemo, useState, type KeyboardEvent } from 'react';
import type { Post } from '../../shared/client.ts';
import type { Corpus } from '../lib/search.ts';
import { fetchCorpora, heldCorpus, searchAll, type ProjectHit } from '../lib/search-all.ts';
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

type Scope = 'all' | 'project';
let lastScope: Scope = 'all';

/** Search messages (titles and texts, comments of the open one) and todos: of all the caller's projects
 *  (the others as last fetched, refreshed on opening; issue #28), or of the current one. */
export function SearchOverlay() {
  const setOverlay = useUi((s) => s.setOverlay);
  const { projectId, go, projects } = useSession();
  const todos = useTodos();
  const msgs = useMessages();
  const [q, setQ] = useState('');
  const [sel, setSel] = useState(0);
  const [scope, setScopeState] = useState<Scope>(lastScope);
  const setScope = (s: Scope) => { lastScope = s; setScopeState(s); setSel(0); };
  /** Bumped as the other projects arrive: the hits are computed again. */
  const [fetched, setFetched] = useState(0);
  const close = useCallback(() => setOverlay(null), [setOverlay]);
  useEffect(() => {
    const others = projects.filter((p) => p.id !== projectId).map((p) => p.id);
    void fetchCorpora(others, () => setFetched((n) => n + 1));
  // once per opening
  }, []);

  useEffect(() => {
    if (!projectId) return;
    if (todos.projectId !== projectId || !todos.loaded) void useTodos.getState().load(projectId, true);
    if (msgs.projectId !== projectId || !msgs.loaded) void useMessages.getState().load(projectId).then(() => useMessages.getState().loadBodies(projectId));
    else void useMessages.getState().loadBodies(projectId);
  // run once per opening
  }, []);

  const hits: ProjectHit[] = useMemo(() => {
    const name = (id: number) => projects.find((p) => p.id === id)?.name ?? `Project ${id}`;
    const here: Corpus = {
      lists: todos.projectId === projectId ? todos.lists : [],
      posts: msgs.projectId === projectId ? mergePosts(msgs.posts, msgs.bodiesFor === projectId ? msgs.bodies : []) : [],
      index: msgs.projectId === projectId ? msgs.index : [],
      comments: msgs.current ? { postId: msgs.current.id, comments: msgs.comments } : null,
    };
    const corpora = projectId ? [{ projectId, projectName: name(projectId), corpus: here }] : [];
    if (scope === 'all') {
      for (const p of projects) {
        const c = p.id === projectId ? null : heldCorpus(p.id);
        if (c) corpora.push({ projectId: p.id, projectName: p.name, corpus: c });
      }
    }
    return searchAll(q, corpora, projectId);
  }, [q, scope, fetched, projects, todos.lists, todos.projectId, msgs.posts, msgs.bodies, msgs.bodiesFor, msgs.index, msgs.projectId, msgs.current, msgs.comments, projectId]);

  const open = (h: ProjectHit) => {
    close();
    const s = useSession.getState();
    if (h.projectId !== s.projectId) {
      // another project: switch to it, then open the hit there
      s.selectProject(h.projectId);
      if (h.kind === 'todo') { go('todos'); void useTodos.getState().load(h.projectId).then(() => useTodos.getState().openItem(h.id)); return; }
    }
    if (h.kind === 'todo') { go('todos'); useTodos.getState().openItem(h.id); }
    else if (h.kind === 'list') { go('todos'); setTimeout(() => document.querySelector<HTMLElement>(`[data-list-head="${h.id}"]`)?.focus(), 300); }
    else go('messages', h.id);
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown') { e.preventDefault(); setSel((s) => Math.min(s + 1, hits.length - 1)); }
    else if (e.key === 'ArrowUp') { e.preventDefault(); setSel((s) => Math.max(s - 1, 0)); }
    else if (e.key === 'Enter' && hits[sel]) { e.preventDefault(); open(hits[sel]); }
  };

  return (
    <Modal title="Search" onClose={close} className="search">
      <div className="segmented" role="group" aria-label="Search in">
        <button type="button" aria-pressed={scope === 'all'} onClick={() => setScope('all')}>All my projects</button>
        <button type="button" aria-pressed={scope === 'project'} onClick={() => setScope('project')}>This project</button>
      </div>
      <input type="search" role="combobox" aria-expanded={hits.length > 0} aria-controls="search-results" aria-activedescendant={hits[sel] ? `hit-${sel}` : undefined}
        aria-label="Search messages and todos" placeholder="Search messages and todos…" value={q} onChange={(e) => { setQ(e.target.value); setSel(0); }} onKeyDown={onKey} />
      <ul id="search-results" role="listbox" aria-label="Results" className="hits">
        {hits.map((h, i) => (
          <li key={`${h.kind}${h.id}`} id={`hit-${i}`} role="option" aria-selected={i === sel} className={i === sel ? 'sel' : ''}
            onMouseEnter={() => setSel(i)} onClick={() => open(h)}>
            <span className={`kind kind-${h.kind}`}>{h.kind === 'todo' ? 'Todo' : h.kind === 'list' ? 'List' : 'Message'}</span>
            <span className="hit-title">{h.title}</span>
            <span className="muted small hit-where"><span className="hit-project">{h.projectName}</span>{h.context ? ` · ${h.context}` : ''}</span>
          </li>
        ))}
      </ul>
      {q.trim() && hits.length === 0 && <p className="muted">Nothing matches “{q}” {scope === 'all' ? 'in your projects' : 'in this project'}.</p>}
      {!q.trim() && <p className="muted small">Type to search todo items, list names, message titles and texts. ↑ ↓ to choose, Enter to open.</p>}
    </Modal>
  );
}
