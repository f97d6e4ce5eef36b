// Search across the current project's todos and messages (client side, over cached data).

import type { Comment, Post, PostSummary, TodoItem } from '../../shared/client.ts';

export interface Hit { kind: 'todo' | 'list' | 'message'; id: number; title: string; context: string; score: number }
export interface Corpus {
  lists: readonly { id: number; name: string; description: string; items: readonly TodoItem[] }[];
  posts: readonly Post[];
  index: readonly PostSummary[];
  comments: { postId: number; comments: readonly Comment[] } | null;
}

/** Lower-case, accents removed: `Résumé` matches `resume`. */
export const fold = (s: string): string => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();

function snippet(text: string, at: number, len: number): string {
  const a = Math.max(0, at - 30);
  const b = Math.min(text.length, at + len + 50);
  return `${a > 0 ? '…' : ''}${text.slice(a, b).replace(/\s+/g, ' ')}${b < text.length ? '…' : ''}`;
}

export function search(query: string, c: Corpus, limit = 30): Hit[] {
  const words = fold(query).split(/\s+/).filter(Boolean);
  if (!words.length) return [];
  const match = (text: string): number => {
    const t = fold(text);
    let score = 0;
    for (const w of words) { const i = t.indexOf(w); if (i < 0) return 0; score += i === 0 ? 3 : 1; }
    return score;
  };
  const hits: Hit[] = [];
  for (const l of c.lists) {
    const s = match(`${l.name} ${l.description}`);
    if (s) hits.push({ kind: 'list', id: l.id, title: l.name, context: l.description, score: s + 1 });
    for (const i of l.items) {
      const si = match(i.content);
      if (si) hits.push({ kind: 'todo', id: i.id, title: i.content, context: `${l.name}${i.completed ? ' · done' : ''}`, score: si + 2 });
    }
  }
  const seen = new Set<number>();
  for (const p of c.posts) {
    const st = match(p.title);
    const sb = st ? 0 : match(p.body);
    if (st || sb) {
      seen.add(p.id);
      const at = sb ? fold(p.body).indexOf(words[0]) : -1;
      hits.push({ kind: 'message', id: p.id, title: p.title, context: sb ? snippet(p.body, at, words[0].length) : p.author_name, score: st ? st + 2 : sb });
    }
  }
  for (const p of c.index) {
    if (seen.has(p.id)) continue;
    const st = match(p.title);
    if (st) { seen.add(p.id); hits.push({ kind: 'message', id: p.id, title: p.title, context: p.author_name, score: st + 2 }); }
  }
  if (c.comments) {
    for (const cm of c.comments.comments) {
      if (seen.has(c.comments.postId)) break;
      if (match(cm.body)) {
        const post = c.posts.find((p) => p.id === c.comments!.postId) ?? c.index.find((p) => p.id === c.comments!.postId);
        hits.push({ kind: 'message', id: c.comments.postId, title: post?.title ?? 'Message', context: `Comment by ${cm.author_name}`, score: 1 });
        break;
      }
    }
  }
  return hits.sort((a, b) => b.score - a.score).slice(0, limit);
}
