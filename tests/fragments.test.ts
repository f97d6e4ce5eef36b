// Rendered records kept for re-use in lists (electron/http/fragments.ts, D185). The property: as long
// as a record's stored fields change only together with its version (what the Writer guarantees), a
// list written from kept texts is exactly the list written afresh, for every resource, viewer and
// format, whatever the computed fields (counts, names, redacted references) do meanwhile.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { column, RESOURCES, type Field, type Resource } from '../shared/registry.ts';
import { jsonMany, xmlMany, xmlOne, type Row, type View } from '../shared/codec/out.ts';
import { rng, type Rng } from '../shared/sync/rng.ts';
import { FragmentCache } from '../electron/http/fragments.ts';
import { buildApp } from '../electron/http/app.ts';
import { FIXTURE, fx, harness, text, type Harness } from './helpers.ts';

const VIEWS: View[] = [
  { callerId: 1, firm: true, admin: true },
  { callerId: 2, firm: true, admin: false },
  { callerId: 3, firm: false, admin: false },
  { callerId: 4, firm: false, admin: false },
];
const STRINGS = ['', 'plain', 'A & B <c> "q"', 'é ü', 'nul\u0000here', '7', 'n7;', 's1:x'];

function value(g: Rng, f: Field): unknown {
  if (g.int(8) === 0) return null;
  switch (f.type) {
    case 'integer': return g.pick([0, 1, 42, 7, '7']);
    case 'float': return g.pick([0, 2, 1.5, 1.25]);
    case 'boolean': case 'untyped-boolean': return g.pick([0, 1, true, false]);
    case 'date': return g.pick(['2024-03-04', '2025-01-01']);
    case 'datetime': return g.pick(['2024-03-04T05:06:07Z', '2025-01-01T00:00:00Z']);
    default: return g.pick(STRINGS);
  }
}
const keepable = (r: Resource) => !r.fields.some((f) => f.type === 'array' || f.type === 'nested');
const volatile = (f: Field) => (!f.stored && !f.fromRow) || f.ref === 'milestone' || Boolean(f.nameOf);

describe('FragmentCache (D185)', () => {
  for (const r of Object.values(RESOURCES).filter(keepable)) {
    it(`lists of ${r.element} from kept texts equal lists written afresh, while computed fields change`, () => {
      const g = rng(r.element.length * 104_729 + 3);
      const cache = new FragmentCache(1 << 20);
      // A pool of records; each step changes some of them as the store can: stored fields only with a
      // new version, computed fields (counts, names) at any time.
      const pool: Row[] = Array.from({ length: 12 }, (_, k) => {
        const row: Row = { id: k + 1, version: 1, show_announcement: g.pick([0, 1]), firm: g.pick([0, 1]) };
        for (const f of r.fields) if (f.name !== 'id') row[column(f.name)] = value(g, f);
        return row;
      });
      for (let step = 0; step < 200; step++) {
        const row = g.pick(pool);
        const f = g.pick(r.fields.filter((x) => x.name !== 'id'));
        if (volatile(f)) row[column(f.name)] = value(g, f);
        else if (g.int(2) === 0) {
          row[column(f.name)] = value(g, f);
          row.version = Number(row.version) + 1;
        }
        const rows = pool.filter(() => g.int(3) > 0).map((x) => ({ ...x }));
        const view = g.pick(VIEWS);
        expect(cache.xmlMany(r, rows, view)).toBe(xmlMany(r, rows, view));
        expect(cache.jsonMany(r, rows, view)).toBe(JSON.stringify(jsonMany(r, rows, view)));
      }
      expect(cache.size.entries).toBeGreaterThan(0);
    });
  }

  it('a todo list holding its items writes them from kept texts, equal to writing them afresh', () => {
    const g = rng(77);
    const cache = new FragmentCache(1 << 20);
    const L = RESOURCES.todoList, I = RESOURCES.todoItem;
    const items: Row[] = Array.from({ length: 8 }, (_, k) => {
      const row: Row = { id: k + 1, version: 1 };
      for (const f of I.fields) if (f.name !== 'id') row[column(f.name)] = value(g, f);
      return row;
    });
    for (let step = 0; step < 150; step++) {
      const it = g.pick(items);
      const f = g.pick(I.fields.filter((x) => x.name !== 'id'));
      it[column(f.name)] = value(g, f);
      if (!volatile(f)) it.version = Number(it.version) + 1;
      const lists = [1, 2].map((id) => {
        const row: Row = { id, version: 1, todo_items: items.filter(() => g.int(2) === 0).map((x) => ({ ...x })) };
        for (const lf of L.fields) if (lf.type !== 'array' && lf.name !== 'id') row[column(lf.name)] = value(g, lf);
        return row;
      });
      const view = g.pick(VIEWS);
      expect(xmlOne(L, lists[0], view, L.fields, undefined, cache.records)).toBe(xmlOne(L, lists[0], view));
      expect(xmlMany(L, lists, view, { records: cache.records })).toBe(xmlMany(L, lists, view));
    }
    expect(cache.size.entries).toBeGreaterThan(0);
  });

  it('keeps nothing of rows without a version, nor of records holding other records', () => {
    const cache = new FragmentCache(1 << 20);
    const view = VIEWS[0];
    const item = { id: 1, content: 'x', comments_count: 0 };
    expect(cache.xmlMany(RESOURCES.todoItem, [item], view)).toBe(xmlMany(RESOURCES.todoItem, [item], view));
    expect(cache.size.entries).toBe(0);
    expect(cache.xmlMany(RESOURCES.todoList, [{ id: 1, version: 1, name: 'L', todo_items: [] }], view)).toBeUndefined();
    expect(new FragmentCache(0).xmlMany(RESOURCES.todoItem, [{ ...item, version: 1 }], view)).toBeUndefined();
  });

  it('stays within its byte budget', () => {
    const cache = new FragmentCache(64 * 1024);
    const view = VIEWS[0];
    for (let k = 0; k < 2000; k++) cache.xmlMany(RESOURCES.timeEntry, [{ id: k, version: 1, description: 'x'.repeat(200), hours: 1, date: '2024-01-01' }], view);
    expect(cache.size.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(cache.size.entries).toBeGreaterThan(50);
  });
});

describe('lists answered from kept records follow every change (D185)', () => {
  let h: Harness;
  let f: Awaited<ReturnType<typeof fx>>;
  beforeEach(async () => {
    h = await harness();
    f = await fx(h);
  });
  afterEach(async () => { await h.close(); });

  const items = async (who: 'ada' | 'cleo', list: number) => (await h.req(who, 'GET', `/todo_lists/${list}/todo_items.xml`)).xml().children;
  /** Every person's answers (XML and JSON, twice: afresh, then from kept texts) equal an app's that keeps nothing. */
  async function sameAsUncached(paths: string[]): Promise<void> {
    const plain = await buildApp({ store: h.store, fragmentCacheBytes: 0, responseCacheBytes: 0 });
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

  it('an edit, a new comment and a renamed creator show at once; every person gets what an app keeping nothing answers', async () => {
    const made = await h.req('ada', 'POST', `/projects/${f.project.alpha}/todo_lists.xml`, '<todo-list><name>Gear</name></todo-list>');
    expect(made.status).toBe(201);
    const list = Number(/(\d+)(?:\.xml)?$/.exec(String(made.headers.location))![1]);
    const created = await h.req('ada', 'POST', `/todo_lists/${list}/todo_items.xml`, '<todo-item><content>Rope check</content></todo-item>');
    expect(created.status).toBe(201);
    const id = Number(/(\d+)$/.exec(String(created.headers.location))![1]);
    const mine = async (who: 'ada' | 'cleo' = 'ada') => (await items(who, list)).find((c) => Number(text(c, 'id')) === id)!;
    for (let k = 0; k < 2; k++) expect(text(await mine(), 'content')).toBe('Rope check'); // the second from kept texts
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
