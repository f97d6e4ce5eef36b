// Search across all the caller's projects (issue #28): the other projects' todo boards, newest messages
// (with their texts) and message titles, fetched when the search opens and kept for the next opening of
// this page, so that a second search (or one while the service is away) answers at once.

import type { Post, PostSummary, TodoList } from '../../shared/client.ts';
import { api } from '../api.ts';
import { search, type Corpus, type Hit } from './search.ts';

export interface ProjectHit extends Hit { projectId: number; projectName: string }

interface Held { lists: TodoList[]; posts: Post[]; index: PostSummary[] }
const held = new Map<number, Held>();

/** The corpus of a project as last fetched (empty when never). */
export function heldCorpus(projectId: number): Corpus | null {
  const h = held.get(projectId);
  if (!h) return null;
  return { lists: h.lists.map((l) => ({ id: l.id, name: l.name, description: l.description, items: l.todo_items ?? [] })), posts: h.posts, index: h.index, comments: null };
}

/** Fetch the projects' corpora (a few at a time); `onEach` after each project. Failures keep the last copy. */
export async function fetchCorpora(projectIds: readonly number[], onEach: () => void): Promise<void> {
  const queue = [...projectIds];
  const worker = async () => {
    for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
      try {
        const [lists, posts, index] = await Promise.all([api.todoBoard(pid), api.posts(pid), api.postsArchive(pid)]);
        held.set(pid, { lists, posts, index });
        onEach();
      } catch { /* unreachable or no longer visible: the last copy stays */ }
    }
  };
  await Promise.all([worker(), worker(), worker()]);
}

/** Search several corpora; hits carry their project. The best first; the current project wins ties. */
export function searchAll(q: string, corpora: readonly { projectId: number; projectName: string; corpus: Corpus }[], current: number | null, limit = 40): ProjectHit[] {
  const hits: ProjectHit[] = [];
  for (const c of corpora) for (const h of search(q, c.corpus, limit)) hits.push({ ...h, projectId: c.projectId, projectName: c.projectName });
  return hits.sort((a, b) => b.score - a.score || Number(b.projectId === current) - Number(a.projectId === current)).slice(0, limit);
}
