// Lists read through the store's row cache and kept comment figures (store/queries/rows.ts, D185) follow
// every change at once: an edit, a new comment, a new post and its edit, a renamed person; and every
// fixture person's answer equals that of the same store keeping nothing.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../electron/http/app.ts';
import type { Store } from '../electron/store/types.ts';
import { FIXTURE, fx, harness, text, type Harness } from './helpers.ts';

/** The same store keeping nothing: every memo is computed afresh (no kept rows, counts or names). */
const keepingNothing = (store: Store): Store => new Proxy(store, {
  get(target, key) {
    if (key === 'memo') return (_key: string, compute: () => Promise<unknown>) => compute();
    const v: unknown = Reflect.get(target, key, target);
    return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
  },
});

describe('lists from kept rows follow every change (D185)', () => {
  let h: Harness;
  let f: Awaited<ReturnType<typeof fx>>;
  beforeEach(async () => {
    h = await harness();
    f = await fx(h);
  });
  afterEach(async () => { await h.close(); });

  const items = async (who: 'ada' | 'cleo', list: number) => (await h.req(who, 'GET', `/todo_lists/${list}/todo_items.xml`)).xml().children;
  /** Every person's answers (XML and JSON, twice: the second from kept rows) equal those of an app keeping nothing. */
  async function sameAsUncached(paths: string[]): Promise<void> {
    const plain = await buildApp({ store: keepingNothing(h.store), responseCacheBytes: 0 });
    try {
      for (const p of FIXTURE.people) {
        const authorization = `Basic ${Buffer.from(`${p['user-name']}:${p.password}`).toString('base64')}`;
        for (const path of paths) {
          for (const url of [path, path.replace('.xml', '.json')]) {
            const want = await plain.inject({ method: 'GET', url, headers: { host: '127.0.0.1', authorization } });
            for (let k = 0; k < 2; k++) {
              const got = await h.app.inject({ method: 'GET', url, headers: { host: '127.0.0.1', authorization } });
              expect(`${got.statusCode} ${got.body}`, `${p.key} ${url}`).toBe(`${want.statusCode} ${want.body}`);
            }
          }
        }
      }
    } finally {
      await plain.close();
    }
  }

  it('an edit, a new comment and a renamed creator show at once; every person gets what the store keeping nothing answers', async () => {
    const made = await h.req('ada', 'POST', `/projects/${f.project.alpha}/todo_lists.xml`, '<todo-list><name>Gear</name></todo-list>');
    expect(made.status).toBe(201);
    const list = Number(/(\d+)(?:\.xml)?$/.exec(String(made.headers.location))![1]);
    const created = await h.req('ada', 'POST', `/todo_lists/${list}/todo_items.xml`, '<todo-item><content>Rope check</content></todo-item>');
    expect(created.status).toBe(201);
    const id = Number(/(\d+)$/.exec(String(created.headers.location))![1]);
    const mine = async (who: 'ada' | 'cleo' = 'ada') => (await items(who, list)).find((c) => Number(text(c, 'id')) === id)!;
    for (let k = 0; k < 2; k++) expect(text(await mine(), 'content')).toBe('Rope check'); // the second from kept rows
    const pages = [`/todo_lists/${list}/todo_items.xml`, `/todo_lists/${list}.xml`, `/projects/${f.project.alpha}/todo_lists.xml?include=items`,
      `/projects/${f.project.alpha}/time_entries.xml`, `/projects/${f.project.alpha}/posts.xml`];
    await sameAsUncached(pages);
    const post = await h.req('ada', 'POST', `/projects/${f.project.alpha}/posts.xml`, '<post><title>Weather</title><body>Storm\n\ncoming</body></post>');
    expect(post.status).toBe(201);
    const postId = Number(/(\d+)(?:\.xml)?$/.exec(String(post.headers.location))![1]);
    pages.push(`/posts/${postId}/comments.xml`);
    await sameAsUncached(pages);
    expect((await h.req('ada', 'PUT', `/posts/${postId}.xml`, '<post><body>Storm passed</body></post>')).status).toBe(200);
    expect((await h.req('ada', 'POST', `/posts/${postId}/comments.xml`, '<comment><body>Good</body></comment>')).status).toBe(201);
    await sameAsUncached(pages);

    expect((await h.req('ada', 'PUT', `/todo_items/${id}.xml`, '<todo-item><content>Rope checked</content></todo-item>')).status).toBe(200);
    expect(text(await mine(), 'content')).toBe('Rope checked');

    expect((await h.req('ada', 'POST', `/todo_items/${id}/comments.xml`, '<comment><body>Done</body></comment>')).status).toBe(201);
    expect(text(await mine(), 'comments-count')).toBe('1');
    await sameAsUncached(pages);

    const ada = f.person[FIXTURE.people.find((p) => p.key === 'ada')!['user-name']];
    const before = text(await mine(), 'creator-name');
    await h.store.write((w) => w.update('people', ada, { first_name: 'Augusta' })); // the interface has no route for it
    const after = text(await mine(), 'creator-name');
    expect(after).not.toBe(before);
    expect(after).toMatch(/^Augusta /);
    await sameAsUncached(pages);

    // JSON from kept texts as well
    for (let k = 0; k < 2; k++) {
      const j = (await h.req('ada', 'GET', `/todo_lists/${list}/todo_items.json`)).json() as { id: number; content: string; creator_name: string }[];
      expect(j.find((x) => x.id === id)).toMatchObject({ content: 'Rope checked', creator_name: after });
    }
  });
});
