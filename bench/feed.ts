// node bench/feed.ts — what a sync costs a client against a team server, side by side in one run:
// the change feed (/sync/changes.json) against the full scan a client of a plain server must do
// (every list route of every project, every post's comments, every list's items, every
// time-entry page). Both run through the real app (Fastify inject, no sockets, response cache off)
// over an in-memory store with the fixture plus a generated dataset, as a firm person (fran).
//   1. initial sync: every record, once;
//   2. incremental sync after 20 writes of different kinds (creates, updates, a delete).
// Prints requests, milliseconds and the ratio scan / feed. Not part of `npm test`.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../electron/http/app.ts';
import { SqliteStore } from '../electron/store/sqlite.ts';
import { importSeed } from '../electron/service/account.ts';
import { generateDataset } from '../electron/service/dataset.ts';

const FIXTURE = JSON.parse(readFileSync(fileURLToPath(new URL('../tests/fixtures/account.json', import.meta.url)), 'utf8'));
const SCALE = Number(process.env.SCALE ?? 1);
const store = new SqliteStore(':memory:');
await importSeed(store, FIXTURE);
const sizes = await generateDataset(store, {
  projects: 4, people: 6, posts: 400 * SCALE, comments: 1500 * SCALE, todoItems: 1500 * SCALE, timeEntries: 4000 * SCALE, seed: 7,
});
const app = await buildApp({ store, responseCacheBytes: 0 });
await app.ready();
const auth = `Basic ${Buffer.from('fran:fran-pass-2').toString('base64')}`;
let requests = 0;
async function get(url: string, method = 'GET', body?: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  requests++;
  const r = await app.inject({ method: method as 'GET', url, payload: body, headers: { host: '127.0.0.1', authorization: auth } });
  return { status: r.statusCode, body: r.body, headers: r.headers };
}
const json = async <T>(url: string): Promise<T> => JSON.parse((await get(url)).body) as T;
type Rec = { id: number };

/** Everything a client of a plain server must read to hold the account (counts records). */
async function scan(): Promise<number> {
  let n = 0;
  n += (await json<Rec[]>('/people.json')).length + (await json<Rec[]>('/companies.json')).length;
  const projects = await json<Rec[]>('/projects.json');
  n += projects.length;
  for (const p of projects) {
    n += (await json<Rec[]>(`/projects/${p.id}/categories.json`)).length;
    n += (await json<Rec[]>(`/projects/${p.id}/milestones/list.json`)).length;
    const posts: Rec[] = [];
    for (let off = 0; ; off += 25) {
      const page = await json<Rec[]>(`/projects/${p.id}/posts.json?n=${off}`);
      posts.push(...page);
      if (page.length < 25) break;
    }
    n += posts.length;
    for (const post of posts) n += (await json<Rec[]>(`/posts/${post.id}/comments.json`)).length;
    for (const l of await json<Rec[]>(`/projects/${p.id}/todo_lists.json`)) {
      const list = await json<{ todo_items?: Rec[] }>(`/todo_lists/${l.id}.json`);
      n += 1 + (list.todo_items?.length ?? 0);
      for (const it of list.todo_items ?? []) n += (await json<Rec[]>(`/todo_items/${it.id}/comments.json`)).length;
    }
    for (let page = 1; ; page++) {
      const r = await get(`/projects/${p.id}/time_entries.json?page=${page}`);
      const rows = JSON.parse(r.body) as Rec[];
      n += rows.length;
      if (page >= Number(r.headers['x-pages'])) break;
    }
  }
  return n;
}

async function feed(since: string): Promise<{ n: number; cursor: string }> {
  let n = 0, cursor = since;
  for (;;) {
    const f = await json<{ cursor: string; more: boolean; changes: unknown[] }>(`/sync/changes.json?since=${cursor}&limit=1000`);
    n += f.changes.length;
    cursor = f.cursor;
    if (!f.more) return { n, cursor };
  }
}

async function timed<T>(fn: () => Promise<T>): Promise<{ out: T; ms: number; requests: number }> {
  const r0 = requests, t0 = performance.now();
  const out = await fn();
  return { out, ms: performance.now() - t0, requests: requests - r0 };
}

const line = (label: string, s: { ms: number; requests: number }, extra: string) =>
  process.stdout.write(`${label.padEnd(34)} ${String(s.requests).padStart(6)} requests ${s.ms.toFixed(0).padStart(7)} ms  ${extra}\n`);

process.stdout.write(`dataset: ${JSON.stringify(sizes.counts)}\n`);
const initialFeed = await timed(() => feed('0'));
const initialScan = await timed(scan);
line('initial sync, change feed', initialFeed, `${initialFeed.out.n} entries`);
line('initial sync, full scan', initialScan, `${initialScan.out} records`);

// 20 writes of different kinds between two syncs.
const pid = (await json<Rec[]>('/projects.json'))[0].id;
const lists = (await json<Rec[]>(`/projects/${pid}/todo_lists.json`)).slice(0, 5);
const created: number[] = [];
for (let i = 0; i < 8; i++) {
  const r = await get(`/projects/${pid}/posts.xml`, 'POST', `<post><title>Bench ${i}</title><body>b</body></post>`);
  created.push(Number(/(\d+)\.xml$/.exec(String(r.headers.location))![1]));
}
for (let i = 0; i < 6; i++) await get(`/todo_lists/${lists[i % lists.length].id}/todo_items.xml`, 'POST', `<todo-item><content>Item ${i}</content></todo-item>`);
// Edits of records created before the first sync (fran may edit any todo list).
for (let i = 0; i < 5; i++) await get(`/todo_lists/${lists[i % lists.length].id}.xml`, 'PUT', `<todo-list><name>Edited ${i}</name></todo-list>`);
await get(`/posts/${created[0]}.xml`, 'DELETE');
const incFeed = await timed(() => feed(initialFeed.out.cursor));
const incScan = await timed(scan);
line('after 20 writes, change feed', incFeed, `${incFeed.out.n} entries`);
line('after 20 writes, full scan', incScan, `${incScan.out} records`);
process.stdout.write(`ratio scan/feed: initial ${(initialScan.ms / initialFeed.ms).toFixed(1)}x time, ${(initialScan.requests / initialFeed.requests).toFixed(0)}x requests; `
  + `incremental ${(incScan.ms / incFeed.ms).toFixed(0)}x time, ${(incScan.requests / incFeed.requests).toFixed(0)}x requests\n`);
await app.close();
await store.close();
