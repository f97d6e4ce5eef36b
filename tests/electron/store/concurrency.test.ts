// Many concurrent writers on the same list and project, through two apps ("processes": two
// connection pools) on one PostgreSQL database, then the invariants: dense positions 1..n, right
// counts, references that exist, no lost update, and no 5xx. The same scenarios run on SQLite
// (one app: writes queued in-process) as the reference behaviour.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { harness, harnessOver, fx, locId, ids, text, type Harness } from '../../support/helpers.ts';
import { PgStore } from '../../../electron/store/postgres.ts';
import { pgSkipReason } from '../../support/pg.ts';

// Many serialised write transactions: minutes on a loaded machine, not a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

const open: Harness[] = [];
afterEach(async () => { for (const h of open.splice(0)) await h.close(); });

async function pair(engine: 'sqlite' | 'postgres'): Promise<[Harness, Harness]> {
  const a = await harness({ engine });
  open.push(a);
  if (engine === 'sqlite') return [a, a];
  const b = await harnessOver(await PgStore.open((a.store as PgStore).url, { max: 6 }), 'postgres');
  open.push(b);
  return [a, b];
}

const reorderBody = (xs: number[], el = 'todo-item') => `<${el}s type="array">${xs.map((x) => `<${el}><id>${x}</id></${el}>`).join('')}</${el}s>`;
const shuffle = <T>(xs: T[], seed: number): T[] => {
  const out = [...xs];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
};

describe.each(['sqlite', 'postgres'] as const)('concurrent writers on %s', (engine) => {
  const skip = engine === 'postgres' ? pgSkipReason() : '';
  if (skip) {
    it.skip(`skipped: ${skip}`, () => undefined);
    return;
  }

  it('creates, reorders, moves and deletes on one list keep positions dense and counts right', async () => {
    const [a, b] = await pair(engine);
    const f = await fx(a);
    const pid = f.project.alpha;
    const mk = (h: Harness, name: string) => h.req('fran', 'POST', `/projects/${pid}/todo_lists.xml`, `<todo-list><name>${name}</name></todo-list>`);
    const l1 = locId(await mk(a, 'L1'));
    const l2 = locId(await mk(b, 'L2'));
    const seedItems: number[] = [];
    for (let k = 0; k < 6; k++) seedItems.push(locId(await a.req('fran', 'POST', `/todo_lists/${l1}/todo_items.xml`, `<todo-item><content>s${k}</content></todo-item>`)));
    for (let k = 0; k < 4; k++) locId(await b.req('fran', 'POST', `/todo_lists/${l2}/todo_items.xml`, `<todo-item><content>t${k}</content></todo-item>`));

    const ops: Promise<{ status: number; what: string }>[] = [];
    const go = (what: string, p: Promise<{ status: number }>) => ops.push(p.then((r) => ({ status: r.status, what })));
    for (let k = 0; k < 24; k++) {
      const h = k % 2 ? a : b;
      go('create', h.req('fran', 'POST', `/todo_lists/${l1}/todo_items.xml`, `<todo-item><content>c${k}</content></todo-item>`));
      if (k % 3 === 0) go('reorder', h.req('fran', 'POST', `/todo_lists/${l1}/todo_items/reorder.xml`, reorderBody(shuffle(seedItems, k + 1))));
      if (k % 8 === 0) go('delete', h.req('fran', 'DELETE', `/todo_items/${seedItems[k / 8]}.xml`));
      if (k % 8 === 4) go('move', h.req('fran', 'POST', `/todo_lists/${l2}/todo_items/reorder.xml`, reorderBody([seedItems[3 + (k - 4) / 8]])));
      if (k % 6 === 0) go('list create', h.req('fran', 'POST', `/projects/${pid}/todo_lists.xml`, `<todo-list><name>N${k}</name></todo-list>`));
    }
    const done = await Promise.all(ops);
    for (const d of done) expect(d.status, d.what).toBeLessThan(500);
    expect(done.filter((d) => d.what === 'create').every((d) => d.status === 201)).toBe(true);

    const positions = async (list: number) => (await a.req('fran', 'GET', `/todo_lists/${list}/todo_items.xml`)).xml().children.map((c) => Number(text(c, 'position')));
    const p1 = await positions(l1);
    const p2 = await positions(l2);
    expect(p1).toEqual(p1.map((_, i) => i + 1));
    expect(p2).toEqual(p2.map((_, i) => i + 1));
    // 6 + 4 seeded, 24 created, 3 deleted; moves (and reorders naming moved items) shift items
    // between the lists, never lose or duplicate one.
    const deleted = done.filter((d) => d.what === 'delete' && d.status === 200).length;
    expect(deleted).toBe(3);
    expect(p1.length + p2.length).toBe(6 + 4 + 24 - deleted);
    expect(p1.length).toBeGreaterThanOrEqual(24);
    // Lists of the project: dense too, and each counted once.
    const lists = (await b.req('fran', 'GET', `/projects/${pid}/todo_lists.xml`)).xml().children;
    expect(lists.map((c) => Number(text(c, 'position')))).toEqual(lists.map((_, i) => i + 1));
    expect(lists.filter((c) => /^N\d+$/.test(text(c, 'name') ?? '')).length).toBe(4);
    // Counts shown on the list agree with its items.
    const l1Row = (await b.req('fran', 'GET', `/todo_lists/${l1}.xml`)).xml();
    const count = Number(text(l1Row, 'uncompleted-count') ?? text(l1Row, 'todo-items-count') ?? p1.length);
    expect(count).toBe(p1.length);
  });

  it('a milestone deleted while lists and posts are created for it: no reference to a missing record, no 5xx', async () => {
    const [a, b] = await pair(engine);
    const f = await fx(a);
    const pid = f.project.alpha;
    for (let round = 0; round < 3; round++) {
      const m = await a.req('fran', 'POST', `/projects/${pid}/milestones/create`,
        `<request><milestone><title>M${round}</title><deadline type="date">2030-01-0${round + 1}</deadline><responsible-party>${f.person.fran}</responsible-party></milestone></request>`);
      expect(m.status).toBe(201);
      const mid = Number(text(m.xml().children[0], 'id'));
      const ops = [
        ...[0, 1, 2, 3, 4, 5].map((k) => (k % 2 ? a : b).req('fran', 'POST', `/projects/${pid}/todo_lists.xml`, `<todo-list><name>r${round}-${k}</name><milestone-id>${mid}</milestone-id></todo-list>`)),
        ...[0, 1, 2, 3].map((k) => (k % 2 ? b : a).req('fran', 'POST', `/projects/${pid}/posts.xml`, `<post><title>p${round}-${k}</title><body>x</body><milestone-id>${mid}</milestone-id></post>`)),
        b.req('fran', 'POST', `/milestones/delete/${mid}`, '<request/>'),
      ];
      const res = await Promise.all(ops);
      for (const r of res) expect(r.status, r.body).toBeLessThan(500);
      const listed = await a.req('fran', 'GET', `/projects/${pid}/milestones/list.xml`);
      expect(listed.status).toBe(200);
      const milestones = new Set(ids(listed.xml()));
      expect(milestones.has(mid)).toBe(false);
      const lists = (await a.req('fran', 'GET', `/projects/${pid}/todo_lists.xml`)).xml().children;
      for (const l of lists) {
        const ref = text(l, 'milestone-id');
        if (ref) expect(milestones.has(Number(ref)), `list ${text(l, 'name')} -> milestone ${ref}`).toBe(true);
      }
      const posts = (await b.req('fran', 'GET', `/projects/${pid}/posts.xml`)).xml().children;
      for (const p of posts) {
        const ref = text(p, 'milestone-id');
        if (ref && ref !== '0') expect(milestones.has(Number(ref)), `post ${text(p, 'title')} -> milestone ${ref}`).toBe(true);
      }
    }
  });

  it('no lost update: concurrent comments are all counted, concurrent edits of different fields both stay', async () => {
    const [a, b] = await pair(engine);
    const f = await fx(a);
    const pid = f.project.alpha;
    const post = locId(await a.req('fran', 'POST', `/projects/${pid}/posts.xml`, '<post><title>T</title><body>B</body></post>'));
    const res = await Promise.all([
      ...Array.from({ length: 20 }, (_, k) => (k % 2 ? a : b).req(k % 3 ? 'fran' : 'ada', 'POST', `/posts/${post}/comments.xml`, `<comment><body>c${k}</body></comment>`)),
      a.req('fran', 'PUT', `/posts/${post}.xml`, '<post><title>New title</title></post>'),
      b.req('fran', 'PUT', `/posts/${post}.xml`, '<post><body>New body</body></post>'),
    ]);
    for (const r of res) expect(r.status, r.body).toBeLessThan(300);
    const p = (await b.req('fran', 'GET', `/posts/${post}.xml`)).xml();
    expect(text(p, 'comments-count')).toBe('20');
    expect(text(p, 'title')).toBe('New title');
    expect(text(p, 'body')).toBe('New body');
    expect((await a.req('fran', 'GET', `/posts/${post}/comments.xml`)).xml().children.length).toBe(20);
  });

  it('a list or post deleted while items or comments are added to it: 404 or created-then-deleted, never an orphan or a 5xx', async () => {
    const [a, b] = await pair(engine);
    const f = await fx(a);
    const pid = f.project.alpha;
    for (let round = 0; round < 3; round++) {
      const list = locId(await a.req('fran', 'POST', `/projects/${pid}/todo_lists.xml`, `<todo-list><name>gone${round}</name></todo-list>`));
      const post = locId(await b.req('fran', 'POST', `/projects/${pid}/posts.xml`, `<post><title>gone${round}</title><body>x</body></post>`));
      const res = await Promise.all([
        ...[0, 1, 2, 3, 4].map((k) => (k % 2 ? a : b).req('fran', 'POST', `/todo_lists/${list}/todo_items.xml`, `<todo-item><content>i${k}</content></todo-item>`)),
        ...[0, 1, 2, 3, 4].map((k) => (k % 2 ? b : a).req('fran', 'POST', `/posts/${post}/comments.xml`, `<comment><body>c${k}</body></comment>`)),
        a.req('fran', 'DELETE', `/todo_lists/${list}.xml`),
        b.req('fran', 'DELETE', `/posts/${post}.xml`),
      ]);
      for (const r of res) expect([200, 201, 404], r.body).toContain(r.status);
      expect((await a.req('fran', 'GET', `/todo_lists/${list}.xml`)).status).toBe(404);
      expect((await a.req('fran', 'GET', `/posts/${post}.xml`)).status).toBe(404);
      expect(await a.store.all('SELECT id FROM todo_items WHERE todo_list_id = ?', [list])).toEqual([]);
      expect(await a.store.all("SELECT id FROM comments WHERE commentable_type = 'Post' AND commentable_id = ?", [post])).toEqual([]);
    }
  });
});
