// The change feed (docs/sync-protocol.md, "Change feed"): paging, visibility per person kind,
// deletes, private toggles, membership changes, retention and cursor expiry.

import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../electron/store/sqlite.ts';
import { readFileSync } from 'node:fs';
import { addMember, purgeTombstones, removeMember } from '../../../electron/store/feed.ts';
import { exportAccount, importBackup } from '../../../electron/service/account.ts';
import { buildApp } from '../../../electron/http/app.ts';
import { freshAccount, locId, text, type Account, type Who } from '../../support/helpers.ts';

interface Change { seq: number; resource: string; id: number; op: string; record?: Record<string, unknown> }
interface Feed { cursor: string; more: boolean; clock: string; changes: Change[] }

describe('change feed', () => {
  let a: Account;
  freshAccount((x) => { a = x; });

  const feed = async (who: Who, since: string | number = 0, limit?: number): Promise<Feed> => {
    const r = await a.h.req(who, 'GET', `/sync/changes.json?since=${since}${limit ? `&limit=${limit}` : ''}`);
    expect(r.status, r.body).toBe(200);
    const f = r.json() as Feed;
    expect(r.headers['x-bivouac-cursor']).toBe(f.cursor);
    return f;
  };
  /** Everything after `since`, following `more`. */
  const all = async (who: Who, since: string | number = 0, limit = 1000): Promise<{ changes: Change[]; cursor: string; pages: number }> => {
    const out: Change[] = [];
    let cursor = String(since), pages = 0;
    for (;;) {
      const f = await feed(who, cursor, limit);
      out.push(...f.changes);
      cursor = f.cursor;
      pages++;
      if (!f.more) return { changes: out, cursor, pages };
    }
  };
  const newPost = async (who: Who, title: string, priv = false) =>
    locId(await a.h.req(who, 'POST', `/projects/${a.pid}/posts.xml`, `<post><title>${title}</title><body>b</body><private>${priv}</private></post>`));
  const of = (cs: Change[], resource: string, id: number) => cs.filter((c) => c.resource === resource && c.id === id);

  it('answers discovery', async () => {
    const r = await a.h.req('cleo', 'GET', '/sync/capabilities.json');
    expect(r.json()).toEqual({ protocol: 1, version: 3, feed: true, idempotency: true, batch: { max: 100, bytes: 1048576 }, notices: true, admin: true });
    expect((await a.h.req(null, 'GET', '/sync/capabilities.json')).status).toBe(401);
  });

  it('pages in commit order with a cursor; a page boundary loses and repeats nothing', async () => {
    for (let i = 0; i < 7; i++) await newPost('fran', `P${i}`);
    const whole = await all('fran', 0, 1000);
    expect(whole.pages).toBe(1);
    const paged = await all('fran', 0, 3);
    expect(paged.pages).toBeGreaterThan(3);
    expect(paged.changes).toEqual(whole.changes);
    const seqs = paged.changes.map((c) => c.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(paged.cursor).toBe(whole.cursor);
    // Nothing new: the same cursor comes back with no changes.
    const idle = await feed('fran', whole.cursor);
    expect(idle).toEqual({ cursor: whole.cursor, more: false, clock: whole.cursor, changes: [] });
    // A page's cursor is its last seq when more follows; `clock` is where the read ends (progress: cursor of clock).
    const first = await feed('fran', 0, 2);
    expect(first.more).toBe(true);
    expect(Number(first.clock)).toBeGreaterThanOrEqual(Number(whole.cursor));
    expect(first.cursor).toBe(String(first.changes[1].seq));
  });

  it('an upsert carries exactly what the record\'s own GET answers to the caller; a record has one entry', async () => {
    const start = (await feed('fran')).cursor;
    const id = await newPost('fran', 'First');
    await a.h.req('fran', 'PUT', `/posts/${id}.xml`, '<post><title>Second</title></post>');
    await a.h.req('fran', 'PUT', `/posts/${id}.xml`, '<post><title>Third</title></post>');
    for (const who of ['fran', 'cleo'] as const) {
      const f = await all(who, start);
      const mine = of(f.changes, 'post', id);
      expect(mine).toHaveLength(1); // superseded entries are compacted
      expect(mine[0].op).toBe('upsert');
      expect(mine[0].record).toEqual((await a.h.req(who, 'GET', `/posts/${id}.json`)).json());
    }
    expect('private' in of((await all('fran', start)).changes, 'post', id)[0].record!).toBe(true);
    expect('private' in of((await all('cleo', start)).changes, 'post', id)[0].record!).toBe(false);
  });

  it('a change carries the records whose computed fields it changes: parent counts, the list, the project', async () => {
    const post = await newPost('fran', 'Counted');
    const list = locId(await a.h.req('fran', 'POST', `/projects/${a.pid}/todo_lists.xml`, '<todo-list><name>Counts</name></todo-list>'));
    const item = locId(await a.h.req('fran', 'POST', `/todo_lists/${list}/todo_items.xml`, '<todo-item><content>I</content></todo-item>'));
    const c0 = (await feed('fran')).cursor;
    const cid = locId(await a.h.req('cleo', 'POST', `/posts/${post}/comments.xml`, '<comment><body>one</body></comment>'));
    await a.h.req('fran', 'PUT', `/todo_items/${item}/complete.xml`);
    const f = await all('fran', c0);
    const rec = (r: string, id: number) => of(f.changes, r, id)[0]?.record;
    expect(rec('post', post)).toEqual((await a.h.req('fran', 'GET', `/posts/${post}.json`)).json());
    expect(rec('post', post)!.comments_count).toBe(1);
    expect(rec('todoList', list)).toEqual((await a.h.req('fran', 'GET', `/todo_lists/${list}.json`)).json());
    expect(rec('todoList', list)!.completed_count).toBe(1);
    expect(rec('project', a.pid)).toEqual((await a.h.req('fran', 'GET', `/projects/${a.pid}.json`)).json());
    // Deleting the comment brings the post back to 0.
    const c1 = f.cursor;
    await a.h.req('cleo', 'DELETE', `/comments/${cid}.xml`);
    const g = await all('fran', c1);
    expect(of(g.changes, 'post', post)[0].record!.comments_count).toBe(0);
  });

  it('items=0: a todo list comes without its embedded items, everything else as its GET (D170)', async () => {
    const list = locId(await a.h.req('fran', 'POST', `/projects/${a.pid}/todo_lists.xml`, '<todo-list><name>Bare</name></todo-list>'));
    const c0 = (await feed('fran')).cursor;
    const items: number[] = [];
    for (const c of ['one', 'two']) items.push(locId(await a.h.req('fran', 'POST', `/todo_lists/${list}/todo_items.xml`, `<todo-item><content>${c}</content></todo-item>`)));
    const r = await a.h.req('fran', 'GET', `/sync/changes.json?since=${c0}&limit=1000&items=0`);
    expect(r.status, r.body).toBe(200);
    const bare = (r.json() as Feed).changes;
    const full = (await all('fran', c0)).changes;
    expect(bare.map((c) => [c.resource, c.id, c.op])).toEqual(full.map((c) => [c.resource, c.id, c.op]));
    const { todo_items: embedded, ...rest } = (await a.h.req('fran', 'GET', `/todo_lists/${list}.json`)).json() as Record<string, unknown>;
    expect((embedded as unknown[]).length).toBe(2);
    expect(of(full, 'todoList', list)[0].record!.todo_items).toEqual(embedded); // the default: as its GET
    expect(of(bare, 'todoList', list)[0].record).toEqual(rest);
    for (const id of items) expect(of(bare, 'todoItem', id)[0].record).toEqual((await a.h.req('fran', 'GET', `/todo_items/${id}.json`)).json());
    const x = (await a.h.req('fran', 'GET', `/sync/changes.xml?since=${c0}&items=0`)).xml();
    const listX = x.children.find((c) => text(c, 'resource') === 'todoList' && text(c, 'id') === String(list))!;
    const recX = listX.children.find((c) => c.name === 'record')!.children[0];
    expect(recX.name).toBe('todo-list');
    expect(recX.children.some((c) => c.name === 'todo-items')).toBe(false);
  });

  it('deletes are tombstones', async () => {
    const id = await newPost('fran', 'Doomed');
    const c = (await a.h.req('fran', 'POST', `/posts/${id}/comments.xml`, '<comment><body>c</body></comment>'));
    const cid = locId(c);
    const start = (await feed('fran')).cursor;
    expect((await a.h.req('fran', 'DELETE', `/posts/${id}.xml`)).status).toBe(200);
    const f = await all('cleo', start);
    expect(of(f.changes, 'post', id)).toEqual([{ seq: expect.any(Number), resource: 'post', id, op: 'delete' }]);
    expect(of(f.changes, 'comment', cid).map((x) => x.op)).toEqual(['delete']);
    // From the beginning, the tombstone is still there (until retention drops it).
    expect(of((await all('fran')).changes, 'post', id).map((x) => x.op)).toEqual(['delete']);
  });

  it('visibility per person kind: a client never sees a private record; projects without access are left out', async () => {
    const secret = await newPost('fran', 'Secret', true);
    const open = await newPost('cleo', 'Open');
    const fran = (await all('fran')).changes, cleo = (await all('cleo')).changes, carl = (await all('carl')).changes;
    expect(of(fran, 'post', secret)[0].op).toBe('upsert');
    expect(of(cleo, 'post', secret)).toEqual([]); // never visible to clients: not even a delete (D245)
    expect(JSON.stringify(cleo)).not.toContain('Secret');
    expect(of(cleo, 'post', open)[0].op).toBe('upsert');
    // carl is a member of no project: no project, and nothing inside one.
    expect(carl.filter((c) => !['company', 'person'].includes(c.resource))).toEqual([]);
    // cleo is not a member of basecamp or crevasse: nothing of them reaches her.
    const base = a.f.project.basecamp;
    expect(of(cleo, 'project', base)).toEqual([]);
    const baseId = locId(await a.h.req('fran', 'POST', `/projects/${base}/posts.xml`, '<post><title>Base</title></post>'));
    expect(of((await all('cleo')).changes, 'post', baseId)).toEqual([]);
    // People and companies follow §5.3: a client sees no person of another client company.
    const people = of(cleo, 'person', a.f.person.cleo);
    expect(people[0].op).toBe('upsert');
    // An administrator sees every project.
    expect(of((await all('ada')).changes, 'project', a.f.project.crevasse)[0].op).toBe('upsert');
    expect(of(fran, 'person', a.f.person.fran)[0].record).toEqual((await a.h.req('fran', 'GET', `/people/${a.f.person.fran}.json`)).json());
  });

  it('making a record private removes it and what is inside it for clients; making it public brings them back', async () => {
    const post = await newPost('fran', 'Toggle');
    const cid = locId(await a.h.req('cleo', 'POST', `/posts/${post}/comments.xml`, '<comment><body>hi</body></comment>'));
    const list = locId(await a.h.req('fran', 'POST', `/projects/${a.pid}/todo_lists.xml`, '<todo-list><name>L</name></todo-list>'));
    const item = locId(await a.h.req('fran', 'POST', `/todo_lists/${list}/todo_items.xml`, '<todo-item><content>I</content></todo-item>'));
    const entry = locId(await a.h.req('fran', 'POST', `/todo_items/${item}/time_entries.xml`,
      `<time-entry><person-id>${a.f.person.fran}</person-id><date>2026-11-02</date><hours>1.0</hours><description>d</description></time-entry>`));
    const c0 = (await feed('cleo')).cursor;
    await a.h.req('fran', 'PUT', `/posts/${post}.xml`, '<post><private>true</private></post>');
    await a.h.req('fran', 'PUT', `/todo_lists/${list}.xml`, '<todo-list><private>true</private></todo-list>');
    const hidden = await all('cleo', c0);
    expect(of(hidden.changes, 'post', post).map((c) => c.op)).toEqual(['delete']);
    expect(of(hidden.changes, 'comment', cid).map((c) => c.op)).toEqual(['delete']);
    expect(of(hidden.changes, 'todoList', list).map((c) => c.op)).toEqual(['delete']);
    expect(of(hidden.changes, 'todoItem', item).map((c) => c.op)).toEqual(['delete']);
    expect(of(hidden.changes, 'timeEntry', entry).map((c) => c.op)).toEqual(['delete']);
    // fran still sees them all, as upserts.
    const franView = await all('fran', c0);
    for (const [r, id] of [['post', post], ['comment', cid], ['todoItem', item], ['timeEntry', entry]] as const) {
      expect(of(franView.changes, r, id).map((c) => c.op)).toEqual(['upsert']);
    }
    await a.h.req('fran', 'PUT', `/posts/${post}.xml`, '<post><private>false</private></post>');
    await a.h.req('fran', 'PUT', `/todo_lists/${list}.xml`, '<todo-list><private>false</private></todo-list>');
    const back = await all('cleo', hidden.cursor);
    for (const [r, id] of [['post', post], ['comment', cid], ['todoList', list], ['todoItem', item], ['timeEntry', entry]] as const) {
      expect(of(back.changes, r, id).map((c) => c.op), `${r} ${id}`).toEqual(['upsert']);
    }
  });

  it('a todo item moved into a private list disappears for clients with its comments and time entries', async () => {
    const open = locId(await a.h.req('fran', 'POST', `/projects/${a.pid}/todo_lists.xml`, '<todo-list><name>Open</name></todo-list>'));
    const hidden = locId(await a.h.req('fran', 'POST', `/projects/${a.pid}/todo_lists.xml`, '<todo-list><name>Hidden</name><private>true</private></todo-list>'));
    const item = locId(await a.h.req('fran', 'POST', `/todo_lists/${open}/todo_items.xml`, '<todo-item><content>Moving</content></todo-item>'));
    const cid = locId(await a.h.req('fran', 'POST', `/todo_items/${item}/comments.xml`, '<comment><body>on the item</body></comment>'));
    const entry = locId(await a.h.req('fran', 'POST', `/todo_items/${item}/time_entries.xml`,
      `<time-entry><person-id>${a.f.person.fran}</person-id><date>2026-11-02</date><hours>1.0</hours></time-entry>`));
    const c0 = (await feed('cleo')).cursor;
    const moved = await a.h.req('fran', 'POST', `/todo_lists/${hidden}/todo_items/reorder.xml`, `<todo-items type="array"><todo-item><id>${item}</id></todo-item></todo-items>`);
    expect(moved.status, moved.body).toBe(200);
    const f = await all('cleo', c0);
    for (const [r, id] of [['todoItem', item], ['comment', cid], ['timeEntry', entry]] as const) {
      expect(of(f.changes, r, id).map((c) => c.op), `${r} ${id}`).toEqual(['delete']);
    }
  });

  it('membership: access added is a resync of the project, access removed a delete of it', async () => {
    const base = a.f.project.basecamp;
    const cleo = a.f.person.cleo;
    const c0 = (await feed('cleo')).cursor;
    await a.h.store.write((w) => addMember(w, base, cleo));
    const added = await all('cleo', c0);
    expect(added.changes.filter((c) => c.resource === 'project')).toEqual([{ seq: expect.any(Number), resource: 'project', id: base, op: 'resync' }]);
    // Records of the project changed from now on reach her.
    const pid = locId(await a.h.req('fran', 'POST', `/projects/${base}/posts.xml`, '<post><title>Now visible</title></post>'));
    const next = await all('cleo', added.cursor);
    expect(of(next.changes, 'post', pid)[0].op).toBe('upsert');
    await a.h.store.write((w) => removeMember(w, base, cleo));
    await a.h.req('fran', 'PUT', `/posts/${pid}.xml`, '<post><title>Gone for her</title></post>');
    const removed = await all('cleo', next.cursor);
    expect(removed.changes).toEqual([{ seq: expect.any(Number), resource: 'project', id: base, op: 'delete' }]);
    // Other people's membership changes are not in her feed; administrators need none.
    await a.h.store.write((w) => addMember(w, base, a.f.person.carl));
    expect((await all('cleo', removed.cursor)).changes).toEqual([]);
    expect((await all('ada', removed.cursor)).changes).toEqual([]);
    expect((await all('carl', removed.cursor)).changes).toEqual([{ seq: expect.any(Number), resource: 'project', id: base, op: 'resync' }]);
  });

  it('a project created through the API makes its creator a member through the feed', async () => {
    const r = await a.h.req('ada', 'POST', '/projects.xml', '<project><name>New</name></project>');
    const id = locId(r);
    const rows = await a.h.store.all<{ tbl: string; op: string }>('SELECT tbl, op FROM changes WHERE project_id = ? ORDER BY seq', [id]);
    expect(rows).toEqual([{ tbl: 'projects', op: 'insert' }, { tbl: 'project_members', op: 'insert' }]);
  });

  it('retention reads the old tombstones from their index, not the whole feed (D204)', async () => {
    // The statements of purgeTombstones (store/feed.ts), as it runs them.
    expect(readFileSync(new URL('../../../electron/store/feed.ts', import.meta.url), 'utf8')).toContain("SELECT MAX(+seq) AS s FROM changes WHERE op = 'delete' AND at < ?");
    if (a.h.store.dialect !== 'sqlite') return; // PostgreSQL's planner picks by the table's size and statistics
    const plan = (await a.h.store.all<{ detail: string }>("EXPLAIN QUERY PLAN SELECT MAX(+seq) AS s FROM changes WHERE op = 'delete' AND at < ?", ['2030-01-01T00:00:00Z'])).map((r) => r.detail).join(' | ');
    expect(plan).toContain('changes_deletes');
    const del = (await a.h.store.all<{ detail: string }>("EXPLAIN QUERY PLAN DELETE FROM changes WHERE op = 'delete' AND at < ?", ['2030-01-01T00:00:00Z'])).map((r) => r.detail).join(' | ');
    expect(del).toContain('changes_deletes');
  });

  it('retention: old tombstones are dropped and a cursor below the horizon answers 410; since=0 always works', async () => {
    const id = await newPost('fran', 'Short-lived');
    const c0 = (await feed('fran')).cursor;
    await a.h.req('fran', 'DELETE', `/posts/${id}.xml`);
    const c1 = (await feed('fran')).cursor;
    await newPost('fran', 'After');
    // Drop every tombstone older than tomorrow (a retention of 0 days, for the test).
    const dropped = await a.h.store.write((w) => purgeTombstones(w, new Date(Date.now() + 86_400_000).toISOString().slice(0, 19) + 'Z'));
    expect(dropped).toBeGreaterThan(0);
    const gone = await a.h.req('fran', 'GET', `/sync/changes.json?since=${c0}`);
    expect(gone.status).toBe(410);
    expect(gone.json()).toEqual({ errors: ['Cursor expired: resync in full'] });
    const xml = await a.h.req('fran', 'GET', `/sync/changes.xml?since=${c0}`);
    expect(xml.status).toBe(410);
    expect(xml.xml().name).toBe('errors');
    expect((await a.h.req('fran', 'GET', `/sync/changes.json?since=${c1}`)).status).toBe(200);
    const full = await all('fran', 0);
    expect(of(full.changes, 'post', id)).toEqual([]);
    // A cursor from the future (a store restored from an older backup) is expired too.
    expect((await a.h.req('fran', 'GET', `/sync/changes.json?since=${Number(full.cursor) + 100}`)).status).toBe(410);
  });

  it('refuses malformed parameters with 400', async () => {
    for (const q of ['since=abc', 'since=-1', 'limit=0', 'limit=1001', 'limit=x', 'items=2', 'items=no']) {
      const r = await a.h.req('fran', 'GET', `/sync/changes.json?${q}`);
      expect(r.status, q).toBe(400);
    }
    expect((await a.h.req('fran', 'POST', '/sync/changes.json')).status).toBe(405);
  });

  it('speaks XML too', async () => {
    const id = await newPost('fran', 'In XML');
    const f = await all('fran');
    const r = await a.h.req('fran', 'GET', '/sync/changes.xml?since=0&limit=1000');
    const x = r.xml();
    expect(x.name).toBe('changes');
    expect(x.attrs.cursor).toBe(f.cursor);
    expect(x.attrs.more).toBe('false');
    expect(x.children).toHaveLength(f.changes.length);
    const mine = x.children.find((c) => text(c, 'resource') === 'post' && text(c, 'id') === String(id))!;
    expect(text(mine, 'op')).toBe('upsert');
    const rec = mine.children.find((c) => c.name === 'record')!.children[0];
    expect(rec.name).toBe('post');
    expect(text(rec, 'title')).toBe('In XML');
  });

  it('a restored backup starts a new feed: every record once, old cursors expired', async () => {
    await newPost('fran', 'Kept');
    const old = (await feed('fran')).cursor;
    const backup = await exportAccount(a.h.store);
    const store = new SqliteStore(':memory:');
    await importBackup(store, backup);
    const app = await buildApp({ store });
    const basic = `Basic ${Buffer.from('fran:fran-pass-2').toString('base64')}`;
    const get = (url: string) => app.inject({ method: 'GET', url, headers: { host: '127.0.0.1', authorization: basic } });
    const f = JSON.parse((await get('/sync/changes.json?limit=1000')).body) as Feed;
    const before = (await all('fran')).changes.filter((c) => c.op === 'upsert').map((c) => `${c.resource}:${c.id}`).sort();
    expect(f.changes.filter((c) => c.op === 'upsert').map((c) => `${c.resource}:${c.id}`).sort()).toEqual(before);
    for (const c of [old, String(Number(old) - 1), '1']) expect((await get(`/sync/changes.json?since=${c}`)).statusCode, c).toBe(410);
    expect((await get(`/sync/changes.json?since=${f.cursor}`)).statusCode).toBe(200);
    await app.close();
    await store.close();
  });
});
