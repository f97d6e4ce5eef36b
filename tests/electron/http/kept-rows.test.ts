// Lists read through the store's row cache and kept comment figures (store/queries/rows.ts, D185), and
// written from kept record texts (D219), follow every change at once: an edit, a new comment, a new post
// and its edit, a renamed person; and every fixture person's answer equals that of the same store keeping
// nothing, written by an app keeping no texts.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../electron/http/app.ts';
import type { MemoKey, Store, Writer } from '../../../electron/store/types.ts';
import { FIXTURE, freshAccount, fx, harness, text, type Harness } from '../../support/helpers.ts';

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
    const plain = await buildApp({ store: keepingNothing(h.store), responseCacheBytes: 0, recordTextBytes: 0 });
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

    expect(h.app.texts.hits, 'records written from kept texts').toBeGreaterThan(0);

    // JSON from kept rows as well
    for (let k = 0; k < 2; k++) {
      const j = (await h.req('ada', 'GET', `/todo_lists/${list}/todo_items.json`)).json() as { id: number; content: string; creator_name: string }[];
      expect(j.find((x) => x.id === id)).toMatchObject({ content: 'Rope checked', creator_name: after });
    }
  });
});

// On PostgreSQL a list's two statements (ids and versions under the caller's visibility, then the rows
// by id) run on two pooled connections; on SQLite a write between them ends the turn's read transaction.
// A record made private in between must not reach a client in that answer (D202).
describe('a record made private between a list\'s two statements (D202)', () => {
  let h: Harness;
  let f: Awaited<ReturnType<typeof fx>>;
  freshAccount((a) => { ({ h, f } = a); });

  /**
   * The store keeping nothing (so the rows are read by id, as on a server that has not read them yet), with
   * `change` run once right after the first statement whose SQL starts with `refs`. A row kept at the version
   * the first statement saw is the record as it was then: an answer from before the change, not a leak.
   */
  const racing = (store: Store, refs: string, change: () => Promise<void>, times = 1): Store => {
    let left = times;
    return new Proxy(store, {
      get(target, key) {
        if (key === 'memo') return (_key: string, compute: () => Promise<unknown>) => compute();
        if (key === 'all') {
          return async (sql: string, params?: unknown[]) => {
            const rows = await target.all(sql, params as never);
            if (left > 0 && sql.startsWith(refs)) { left--; await change(); }
            return rows;
          };
        }
        const v: unknown = Reflect.get(target, key, target);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  };

  for (const kind of ['time entry', 'post'] as const) {
    it(`a ${kind} made private then is not in a client's list, XML or JSON`, async () => {
      const alpha = f.project.alpha;
      const cleo = FIXTURE.people.find((p) => p.key === 'cleo')!;
      const authorization = `Basic ${Buffer.from(`${cleo['user-name']}:${cleo.password}`).toString('base64')}`;
      const table = kind === 'post' ? 'posts' : 'time_entries';
      const refs = kind === 'post' ? 'SELECT p.id, p.version' : 'SELECT te.id, te.version';
      const path = kind === 'post' ? `/projects/${alpha}/posts.xml` : `/projects/${alpha}/time_entries.xml`;
      for (const url of [path, path.replace('.xml', '.json')]) {
        // A record of its own for each format: the change below makes it private for good.
        const secret = `Soon secret ${url.slice(-4)}`;
        const made = kind === 'post'
          ? await h.req('ada', 'POST', `/projects/${alpha}/posts.xml`, `<post><title>${secret}</title><body>Plans</body></post>`)
          : await h.req('ada', 'POST', `/projects/${alpha}/time_entries.xml`, '<time-entry><person-id>' + f.person[FIXTURE.people.find((p) => p.key === 'ada')!['user-name']] + `</person-id><date>2026-01-05</date><hours>1.5</hours><description>${secret}</description></time-entry>`);
        expect(made.status).toBe(201);
        const id = Number(/(\d+)(?:\.xml)?$/.exec(String(made.headers.location))![1]);
        const before = await h.req('cleo', 'GET', url);
        expect(before.status).toBe(200);
        expect(before.body).toContain(secret); // the client sees it while it is not private
        const store = racing(h.store, refs, () => h.store.write((w) => w.update(table, id, { private: 1 }, alpha)));
        const app = await buildApp({ store, responseCacheBytes: 0 });
        try {
          const got = await app.inject({ method: 'GET', url, headers: { host: '127.0.0.1', authorization } });
          expect(got.statusCode).toBe(200);
          expect(got.body, url).not.toContain(secret);
        } finally {
          await app.close();
        }
      }
    });
  }

  it('a record changed between the two statements at every read is left out after three reads, the rest answered', async () => {
    const alpha = f.project.alpha;
    const made = await h.req('ada', 'POST', `/projects/${alpha}/posts.xml`, '<post><title>Restless</title><body>v0</body></post>');
    expect(made.status).toBe(201);
    const id = Number(/(\d+)(?:\.xml)?$/.exec(String(made.headers.location))![1]);
    const all = (await h.req('ada', 'GET', `/projects/${alpha}/posts.xml`)).xml().children.map((c) => Number(text(c, 'id')));
    expect(all).toContain(id);
    let n = 0;
    const store = racing(h.store, 'SELECT p.id, p.version', () => h.store.write((w) => w.update('posts', id, { body: `v${++n}` }, alpha)), 5);
    const app = await buildApp({ store, responseCacheBytes: 0 });
    try {
      const ada = FIXTURE.people.find((p) => p.key === 'ada')!;
      const authorization = `Basic ${Buffer.from(`${ada['user-name']}:${ada.password}`).toString('base64')}`;
      const got = await app.inject({ method: 'GET', url: `/projects/${alpha}/posts.json`, headers: { host: '127.0.0.1', authorization } });
      expect(got.statusCode).toBe(200);
      expect(n).toBe(3); // read three times, each time changed in between
      expect((got.json() as { id: number }[]).map((p) => p.id)).toEqual(all.filter((x) => x !== id));
    } finally {
      await app.close();
    }
  });

  /**
   * The store, with another request's write opened right after the first memo whose key starts with `prefix`
   * (between a list taking its kept cache and reading into it: awaits that other requests' work may fill):
   * `change` runs in it, then it waits; `rollBack()` lets it throw (D207).
   */
  function rollingBack(prefix: string, change: (w: Writer) => Promise<void>): { store: Store; rollBack: () => Promise<void> } {
    let release = (): void => undefined;
    const gate = new Promise<void>((r) => { release = r; });
    let failing: Promise<void> | undefined;
    let once = true;
    const store = new Proxy(h.store, {
      get(target, key) {
        if (key === 'memo') {
          return async (k: MemoKey, compute: () => Promise<unknown>, tables?: readonly string[]) => {
            const v = await target.memo(k, compute, tables);
            if (once && k.startsWith(prefix)) {
              once = false;
              let opened = (): void => undefined;
              const open = new Promise<void>((r) => { opened = r; });
              failing = h.store.write(async (w) => {
                await change(w);
                opened();
                await gate;
                throw new Error('rolled back');
              });
              await open;
            }
            return v;
          };
        }
        const v: unknown = Reflect.get(target, key, target);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    return { store, rollBack: async () => { release(); await expect(failing).rejects.toThrow('rolled back'); } };
  }

  /** A project's posts as JSON, asked for as the administrator of an app over `store` (no response cache). */
  async function postsOf(store: Store, project: number): Promise<{ list: () => Promise<Record<string, unknown>[]>; close: () => Promise<void> }> {
    const app = await buildApp({ store, responseCacheBytes: 0 });
    const ada = FIXTURE.people.find((p) => p.key === 'ada')!;
    const authorization = `Basic ${Buffer.from(`${ada['user-name']}:${ada.password}`).toString('base64')}`;
    return {
      list: async () => {
        const got = await app.inject({ method: 'GET', url: `/projects/${project}/posts.json`, headers: { host: '127.0.0.1', authorization } });
        expect(got.statusCode).toBe(200);
        return got.json() as Record<string, unknown>[];
      },
      close: () => app.close(),
    };
  }

  it('a row read inside another request\'s write that then rolls back is not kept (D207)', async () => {
    const alpha = f.project.alpha;
    const made = await h.req('ada', 'POST', `/projects/${alpha}/posts.xml`, '<post><title>Draft</title><body>v0</body></post>');
    expect(made.status).toBe(201);
    const id = Number(/(\d+)(?:\.xml)?$/.exec(String(made.headers.location))![1]);
    const { store, rollBack } = rollingBack('rows:posts', (w) => w.update('posts', id, { title: 'NEVER COMMITTED' }, alpha));
    const posts = await postsOf(store, alpha);
    try {
      const title = async () => (await posts.list()).find((p) => p.id === id)?.title;
      await title(); // read while the write is open
      await rollBack();
      // The next write is handed the same feed number, so the row gets the version the rolled-back one had.
      await h.store.write((w) => w.update('posts', id, { title: 'Committed' }, alpha));
      expect(await title()).toBe('Committed');
      expect(await title()).toBe('Committed');
    } finally {
      await posts.close();
    }
  });

  it('comment figures read inside another request\'s write that then rolls back are not kept (D207)', async () => {
    const alpha = f.project.alpha;
    const made = await h.req('ada', 'POST', `/projects/${alpha}/posts.xml`, '<post><title>Talk</title><body>v0</body></post>');
    const id = Number(/(\d+)(?:\.xml)?$/.exec(String(made.headers.location))![1]);
    for (const b of ['one', 'two']) expect((await h.req('ada', 'POST', `/posts/${id}/comments.xml`, `<comment><body>${b}</body></comment>`)).status).toBe(201);
    const first = (await h.store.get<{ id: number }>("SELECT id FROM comments WHERE commentable_type = 'Post' AND commentable_id = ? ORDER BY id LIMIT 1", [id]))!;
    // The write (deleting a comment) opens right after the list has the project's kept figures, before it reads them.
    const { store, rollBack } = rollingBack('comment-stats:Post:', (w) => w.remove('comments', Number(first.id), alpha));
    const posts = await postsOf(store, alpha);
    try {
      const count = async () => (await posts.list()).find((p) => p.id === id)?.comments_count;
      await count(); // read while the write is open
      await rollBack();
      expect(await count()).toBe(2);
    } finally {
      await posts.close();
    }
  });
});
