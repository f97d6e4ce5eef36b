// The mixed workload of bench:api (also used by bench/memory.ts): random records of every
// resource type, a different record each request, 60 % single-record reads, 30 % list reads and 10 %
// writes (updates, creates, completions), which change the store and so invalidate caches.

import { createRequire } from 'node:module';
import type { Queryable } from '../electron/store/types.ts';

const require = createRequire(import.meta.url);
export interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number; errors: number; timeouts: number;
}
interface CannonRequest { method?: string; path?: string; headers?: Record<string, string>; body?: string }
type Cannon = (o: { url: string; connections: number; duration: number; requests?: { setupRequest: (req: CannonRequest) => CannonRequest }[] }) => Promise<CannonResult>;

export type Pools = Record<'projects' | 'people' | 'companies' | 'categories' | 'posts' | 'comments' | 'lists' | 'items' | 'entries', number[]>;

/** Ids of records of every type (a random sample of up to 2,000 each), all visible to the admin. */
export async function mixedPools(store: Queryable): Promise<Pools> {
  const ids = async (table: string, where = '1 = 1') =>
    (await store.all<{ id: number }>(`SELECT id FROM ${table} WHERE ${where} ORDER BY random() LIMIT 2000`)).map((r) => Number(r.id));
  return {
    projects: await ids('projects', 'id IN (SELECT project_id FROM todo_lists)'), people: await ids('people'), companies: await ids('companies'),
    categories: await ids('categories'), posts: await ids('posts'), comments: await ids('comments'), lists: await ids('todo_lists'),
    items: await ids('todo_items'), entries: await ids('time_entries'),
  };
}

/** mixedPools of the store in a data directory (bench:api's dataset), opened for it and closed again. */
export async function mixedPoolsOf(dir: string): Promise<Pools> {
  const { DB_FILE } = await import('../electron/server.ts');
  const { SqliteStore } = await import('../electron/store/sqlite.ts');
  const store = new SqliteStore(`${dir}/${DB_FILE}`);
  try {
    return await mixedPools(store);
  } finally {
    await store.close();
  }
}

/**
 * One request of the mixed workload, by weight (of 100): 60 single-record reads, 30 list reads, 10 writes.
 * A seeded generator makes every run draw the same sequence.
 */
export function mixedRequests(pools: Pools, headers: Record<string, string>): (req: CannonRequest) => CannonRequest {
  let seed = 42;
  const rnd = () => { seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648; return seed / 2_147_483_648; };
  const any = (xs: number[]) => xs[Math.floor(rnd() * xs.length)];
  const get = (path: string): CannonRequest => ({ method: 'GET', path, headers });
  const send = (method: string, path: string, body: string): CannonRequest => ({ method, path, body, headers: { ...headers, 'content-type': 'application/xml' } });
  let n = 0;
  const table: [number, () => CannonRequest][] = [
    [12, () => get(`/todo_items/${any(pools.items)}.xml`)],
    [10, () => get(`/posts/${any(pools.posts)}.xml`)],
    [8, () => get(`/time_entries/${any(pools.entries)}.xml`)],
    [8, () => get(`/comments/${any(pools.comments)}.xml`)],
    [6, () => get(`/todo_lists/${any(pools.lists)}.xml`)],
    [5, () => get(`/people/${any(pools.people)}.xml`)],
    [5, () => get(`/projects/${any(pools.projects)}.xml`)],
    [3, () => get(`/companies/${any(pools.companies)}.xml`)],
    [3, () => get(`/categories/${any(pools.categories)}.xml`)],
    [8, () => get(`/todo_lists/${any(pools.lists)}/todo_items.xml`)],
    [5, () => get(`/projects/${any(pools.projects)}/time_entries.xml?page=${1 + Math.floor(rnd() * 5)}`)],
    [5, () => get(`/projects/${any(pools.projects)}/posts.xml`)],
    [4, () => get(`/posts/${any(pools.posts)}/comments.xml`)],
    [3, () => get(`/projects/${any(pools.projects)}/todo_lists.xml`)],
    [2, () => get(`/projects/${any(pools.projects)}/milestones/list.xml`)],
    [2, () => get(`/projects/${any(pools.projects)}/people.xml`)],
    [1, () => get(`/projects/${any(pools.projects)}/categories.xml`)],
    [4, () => send('PUT', `/todo_items/${any(pools.items)}.xml`, `<todo-item><content>Mixed load ${++n}</content></todo-item>`)],
    [3, () => send('POST', `/posts/${any(pools.posts)}/comments.xml`, `<comment><body>Mixed load ${++n}</body></comment>`)],
    [2, () => send('PUT', `/time_entries/${any(pools.entries)}.xml`, `<time-entry><hours>${1 + (++n % 8) / 4}</hours></time-entry>`)],
    [1, () => send('PUT', `/todo_items/${any(pools.items)}/${++n % 2 ? 'complete' : 'uncomplete'}.xml`, '')],
  ];
  const total = table.reduce((s, [w]) => s + w, 0);
  return (req) => {
    let x = rnd() * total;
    for (const [w, make] of table) {
      if ((x -= w) < 0) return { ...req, ...make() };
    }
    return { ...req, ...table[0][1]() };
  };
}

export function mixedRun(base: string, duration: number, pools: Pools, headers: Record<string, string>): Promise<CannonResult> {
  const autocannon = require('autocannon') as Cannon;
  return autocannon({ url: base, connections: 10, duration, requests: [{ setupRequest: mixedRequests(pools, headers) }] });
}

