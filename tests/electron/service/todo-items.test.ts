import { describe, expect, it } from 'vitest';
import { defaultEngine, freshAccount, harnessOver, ids, locId, text, type Harness, type Who, type Account } from '../../support/helpers.ts';
import pg from 'pg';
import { PgStore } from '../../../electron/store/postgres.ts';
import type { XNode } from '../../../shared/codec/in.ts';

let h: Harness;
let f: Account['f'];
let pid: number;
freshAccount((a) => { ({ h, f, pid } = a); });

const el = (n: XNode, name: string) => n.children.find((c) => c.name === name);
async function list(fields: Record<string, string | number> = {}, project = pid): Promise<number> {
  const body = Object.entries({ name: 'L', ...fields }).map(([k, v]) => `<${k}>${v}</${k}>`).join('');
  return locId(await h.req('fran', 'POST', `/projects/${project}/todo_lists.xml`, `<todo-list>${body}</todo-list>`));
}
async function item(listId: number, fields: Record<string, string | number> = {}, who: Who = 'fran'): Promise<number> {
  const body = Object.entries({ content: 'I', ...fields }).map(([k, v]) => `<${k}>${v}</${k}>`).join('');
  const r = await h.req(who, 'POST', `/todo_lists/${listId}/todo_items.xml`, `<todo-item>${body}</todo-item>`);
  expect(r.status, r.body).toBe(201);
  return locId(r);
}
async function items(listId: number, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let k = 0; k < n; k++) out.push(await item(listId));
  return out;
}
const order = async (l: number) => {
  const x = (await h.req('fran', 'GET', `/todo_lists/${l}/todo_items.xml`)).xml();
  return { ids: ids(x), pos: x.children.map((c) => Number(text(c, 'position'))) };
};
const reorderBody = (xs: (number | string)[]) => `<todo-items type="array">${xs.map((x) => `<todo-item><id>${x}</id></todo-item>`).join('')}</todo-items>`;

describe('todo items: create, read, update, delete', () => {
  it('creates at the bottom with creator, times, Location /todo_items/{id}, and no optional elements', async () => {
    const l = await list();
    await items(l, 2);
    const r = await h.req('fran', 'POST', `/todo_lists/${l}/todo_items.xml`, '<todo-item><content>Third</content><notify>true</notify></todo-item>');
    expect(r.status).toBe(201);
    const id = locId(r);
    expect(r.headers.location).toBe(`/todo_items/${id}`);
    const x = r.xml();
    expect(x.children.map((c) => c.name).sort()).toEqual([
      'commented-at', 'comments-count', 'completed', 'content', 'created-at', 'created-on', 'creator-id', 'creator-name', 'id', 'position',
      'todo-list-id', 'updated-at',
    ]);
    expect(text(x, 'position')).toBe('3');
    expect(text(x, 'creator-name')).toBe('Fran Firm');
    expect(text(x, 'created-at')).toBe(text(x, 'created-on'));
    expect(el(x, 'commented-at')!.nil).toBe(true);
    const project = await h.store.get<{ project_id: number }>('SELECT project_id FROM todo_items WHERE id = ?', [id]);
    expect(project!.project_id).toBe(pid);
  });

  it('legacy create and update read <request> fields, <item> and sibling <responsible-party>', async () => {
    const l = await list();
    const c = await h.req('fran', 'POST', `/todos/create_item/${l}`, `<request><content>Flat</content><responsible-party>${f.person.finn}</responsible-party></request>`);
    expect(c.status).toBe(201);
    const id = locId(c);
    expect(text(c.xml(), 'responsible-party-name')).toBe('Finn Fellow');
    const u = await h.req('fran', 'POST', `/todos/update_item/${id}`, `<request><item><content>Changed</content></item><responsible-party>c${f.company.client}</responsible-party></request>`);
    expect([text(u.xml(), 'content'), text(u.xml(), 'responsible-party-type'), text(u.xml(), 'responsible-party-id')]).toEqual(['Changed', 'Company', String(f.company.client)]);
    expect(text((await h.req('fran', 'GET', `/todos/item/${id}`)).xml(), 'content')).toBe('Changed');
  });

  it('due-at: date, offset datetime, shown only when set, empty clears; validation 422 leaves the item unchanged', async () => {
    const l = await list();
    const id = await item(l, { 'due-at': '2030-05-01T10:00:00+02:00' });
    expect(text((await h.req('fran', 'GET', `/todo_items/${id}.xml`)).xml(), 'due-at')).toBe('2030-05-01T08:00:00Z');
    const bad = await h.req('fran', 'PUT', `/todo_items/${id}.xml`, '<todo-item><content></content><due-at>soon</due-at><responsible-party>nobody</responsible-party></todo-item>');
    expect(bad.status).toBe(422);
    expect(bad.xml().children).toHaveLength(3);
    expect(text((await h.req('fran', 'GET', `/todo_items/${id}`)).xml(), 'content')).toBe('I');
    await h.req('fran', 'PUT', `/todo_items/${id}.xml`, '<todo-item><due-at></due-at></todo-item>');
    expect(el((await h.req('fran', 'GET', `/todo_items/${id}.xml`)).xml(), 'due-at')).toBeUndefined();
  });

  it('responsible party must have access to the project (admins do), companies must be the project\'s', async () => {
    const l = await list({}, f.project.basecamp);
    const url = `/todo_lists/${l}/todo_items.xml`;
    for (const rp of [String(f.person.cleo), `c${f.company.client}`, '99999', 'c99999']) {
      expect((await h.req('fran', 'POST', url, `<todo-item><content>x</content><responsible-party>${rp}</responsible-party></todo-item>`)).status, rp).toBe(422);
    }
    const c = await h.req('fran', 'POST', url, `<todo-item><content>x</content><responsible-party>c${f.company.firm}</responsible-party></todo-item>`);
    expect(c.status).toBe(201);
    const crevasse = await list({}, f.project.crevasse);
    const a = await h.req('fran', 'POST', `/todo_lists/${crevasse}/todo_items.xml`, `<todo-item><content>x</content><responsible-party>${f.person.ada}</responsible-party></todo-item>`);
    expect(a.status).toBe(201);
    const un = await h.req('fran', 'PUT', `/todo_items/${locId(a)}.xml`, '<todo-item><responsible-party></responsible-party></todo-item>');
    expect(el(un.xml(), 'responsible-party-id')).toBeUndefined();
    expect(el(un.xml(), 'responsible-party-name')).toBeUndefined();
  });

  it('delete closes the gap, answers empty (resource) or the deleted item (action); comments go, time entries stay', async () => {
    const l = await list();
    const [a, b, c, d] = await items(l, 4);
    await h.store.write(async (w) => {
      await w.insert('comments', { body: 'c', commentable_type: 'TodoItem', commentable_id: b, author_id: f.person.fran, created_at: w.now, private: 0, project_id: pid }, pid);
      await w.insert('time_entries', { project_id: pid, person_id: f.person.fran, date: '2030-01-01', hours: 1, description: '', todo_item_id: b, private: 0 }, pid);
    });
    const r = await h.req('fran', 'DELETE', `/todo_items/${b}.xml`);
    expect([r.status, r.body]).toEqual([200, '']);
    expect(await order(l)).toEqual({ ids: [a, c, d], pos: [1, 2, 3] });
    expect(await h.store.get('SELECT id FROM comments WHERE commentable_id = ?', [b])).toBeUndefined();
    expect(await h.store.get('SELECT todo_item_id FROM time_entries WHERE project_id = ?', [pid])).toEqual({ todo_item_id: null });
    const act = await h.req('fran', 'GET', `/todos/delete_item/${c}`);
    expect(text(act.xml(), 'id')).toBe(String(c));
    expect(text(act.xml(), 'position')).toBe('2');
    expect(await order(l)).toEqual({ ids: [a, d], pos: [1, 2] });
    expect((await h.req('fran', 'GET', `/todos/delete_item/${c}`)).status).toBe(404);
  });
});

describe('todo items: completion', () => {
  it('complete sets the fields and keeps the position; again is a no-op; uncomplete clears; both styles', async () => {
    const l = await list();
    const [, b] = await items(l, 2);
    const c = (await h.req('fran', 'PUT', `/todo_items/${b}/complete.xml`, 'not xml at all')).xml();
    expect([text(c, 'completed'), text(c, 'completer-id'), text(c, 'completer-name'), text(c, 'position')]).toEqual(['true', String(f.person.fran), 'Fran Firm', '2']);
    expect(text(c, 'completed-at')).toBe(text(c, 'completed-on'));
    expect(text(c, 'updated-at')).toBe(text(c, 'completed-at'));
    const again = (await h.req('finn', 'GET', `/todos/complete_item/${b}`)).xml();
    expect(text(again, 'completer-id')).toBe(String(f.person.fran));
    const u = (await h.req('fran', 'PUT', `/todo_items/${b}/uncomplete.xml?responsible_party=4`)).xml();
    expect(text(u, 'completed')).toBe('false');
    for (const n of ['completed-at', 'completed-on', 'completer-id', 'completer-name']) expect(el(u, n)).toBeUndefined();
    expect((await h.req('fran', 'POST', `/todos/uncomplete_item/${b}`, '<request/>')).status).toBe(200);
    expect((await h.req('fran', 'GET', `/todo_items/${b}/complete.xml`)).status).toBe(405);
  });
});

describe('todo items: reorder and move', () => {
  it('reorder: listed first, others after; repeated id counts at its first place; empty list unchanged', async () => {
    const l = await list();
    const [a, b, c, d] = await items(l, 4);
    const r = await h.req('fran', 'POST', `/todo_lists/${l}/todo_items/reorder.xml`, reorderBody([c, a, c]));
    expect(ids(r.xml())).toEqual([c, a, b, d]);
    expect(await order(l)).toEqual({ ids: [c, a, b, d], pos: [1, 2, 3, 4] });
    const e = await h.req('fran', 'POST', `/todo_lists/${l}/todo_items/reorder.xml`, '');
    expect(e.status).toBe(200);
    expect(ids(e.xml())).toEqual([c, a, b, d]);
    const j = await h.req('fran', 'POST', `/todo_lists/${l}/todo_items/reorder.json`, JSON.stringify([{ id: d }]), { 'content-type': 'application/json' });
    expect((j.json() as { id: number }[]).map((x) => x.id)).toEqual([d, c, a, b]);
  });

  it('reorder moves items of another list of the project in; the old list closes its gap', async () => {
    const l = await list();
    const [a, b] = await items(l, 2);
    const other = await list();
    const [x, y, z] = await items(other, 3);
    const r = await h.req('fran', 'POST', `/todo_lists/${l}/todo_items/reorder.xml`, `<request>${reorderBody([y, b])}</request>`);
    expect(r.status).toBe(200);
    expect(await order(l)).toEqual({ ids: [y, b, a], pos: [1, 2, 3] });
    expect(await order(other)).toEqual({ ids: [x, z], pos: [1, 2] });
    expect(text((await h.req('fran', 'GET', `/todo_items/${y}.xml`)).xml(), 'todo-list-id')).toBe(String(l));
    const lists = (await h.req('fran', 'GET', `/todo_lists/${other}.xml`)).xml();
    expect(text(lists, 'uncompleted-count')).toBe('2');
  });

  it('reorder with an item of another project, an unknown id, or (for a client) an item of a private list: 422, nothing changes', async () => {
    const l = await list();
    const [a, b] = await items(l, 2);
    const foreignList = await list({}, f.project.basecamp);
    const [foreign] = await items(foreignList, 1);
    const secret = await list({ private: 'true' });
    const [hidden] = await items(secret, 1);
    const url = `/todo_lists/${l}/todo_items/reorder.xml`;
    expect((await h.req('fran', 'POST', url, reorderBody([b, foreign]))).status).toBe(422);
    expect((await h.req('fran', 'POST', url, reorderBody([b, 999999]))).status).toBe(422);
    expect((await h.req('cleo', 'POST', url, reorderBody([b, hidden]))).status).toBe(422);
    expect((await h.req('fran', 'POST', url, reorderBody(['b']))).status).toBe(422);
    expect(await order(l)).toEqual({ ids: [a, b], pos: [1, 2] });
    expect(await order(secret)).toEqual({ ids: [hidden], pos: [1] });
    expect(await order(foreignList)).toEqual({ ids: [foreign], pos: [1] });
  });

  it('move_item clamps within the list; bad <to> 422', async () => {
    const l = await list();
    const [a, b, c] = await items(l, 3);
    const m = await h.req('fran', 'POST', `/todos/move_item/${c}`, '<request><to>1</to></request>');
    expect(text(m.xml(), 'position')).toBe('1');
    expect((await order(l)).ids).toEqual([c, a, b]);
    await h.req('fran', 'GET', `/todos/move_item/${c}`, '<request><to>50</to></request>');
    expect((await order(l)).ids).toEqual([a, b, c]);
    await h.req('fran', 'POST', `/todos/move_item/${b}`, '<request><to>0</to></request>');
    expect(await order(l)).toEqual({ ids: [b, a, c], pos: [1, 2, 3] });
    expect((await h.req('fran', 'POST', `/todos/move_item/${b}`, '')).status).toBe(422);
    expect((await h.req('fran', 'POST', `/todos/move_item/${b}`, '<request><to>1.5</to></request>')).status).toBe(422);
    expect((await order(l)).ids).toEqual([b, a, c]);
  });
});

describe('todo items: visibility, compatibility routes, templates, JSON', () => {
  it('items of private lists answer 404 to clients; comments-count ignores private comments for clients', async () => {
    const secret = await list({ private: 'true' });
    const [hidden] = await items(secret, 1);
    for (const [m, u] of [['GET', `/todo_items/${hidden}.xml`], ['PUT', `/todo_items/${hidden}/complete.xml`], ['GET', `/todos/delete_item/${hidden}`], ['GET', `/todo_items/${hidden}/edit.xml`], ['GET', `/todo_lists/${secret}/todo_items/new.xml`]]) {
      expect((await h.req('cleo', m, u)).status, u).toBe(404);
    }
    const l = await list();
    const [i] = await items(l, 1);
    await h.store.write(async (w) => {
      await w.insert('comments', { body: 'pub', commentable_type: 'TodoItem', commentable_id: i, author_id: f.person.fran, created_at: '2030-01-01T00:00:00Z', private: 0, project_id: pid }, pid);
      await w.insert('comments', { body: 'priv', commentable_type: 'TodoItem', commentable_id: i, author_id: f.person.fran, created_at: '2030-02-01T00:00:00Z', private: 1, project_id: pid }, pid);
    });
    const asCleo = (await h.req('cleo', 'GET', `/todo_items/${i}.xml`)).xml();
    expect([text(asCleo, 'comments-count'), text(asCleo, 'commented-at')]).toEqual(['1', '2030-01-01T00:00:00Z']);
    const asFran = (await h.req('fran', 'GET', `/todo_items/${i}.xml`)).xml();
    expect([text(asFran, 'comments-count'), text(asFran, 'commented-at')]).toEqual(['2', '2030-02-01T00:00:00Z']);
  });

  it('compatibility aliases: /todo_items.xml?todo_list_id=, item routes under their list (404 in another list)', async () => {
    const l = await list();
    const other = await list();
    const [a] = await items(l, 1);
    expect(ids((await h.req('fran', 'GET', `/todo_items.xml?todo_list_id=${l}`)).xml())).toEqual([a]);
    const c = await h.req('fran', 'POST', `/todo_items.xml?todo_list_id=${l}`, '<todo-item><content>Compat</content></todo-item>');
    expect(c.status).toBe(201);
    expect((await h.req('fran', 'GET', '/todo_items.xml?todo_list_id=abc')).status).toBe(400);
    expect((await h.req('fran', 'GET', `/todo_lists/${l}/todo_items/${a}.xml`)).status).toBe(200);
    expect((await h.req('fran', 'GET', `/todo_lists/${other}/todo_items/${a}.xml`)).status).toBe(404);
    expect((await h.req('fran', 'PUT', `/todo_lists/${other}/todo_items/${a}/complete.xml`)).status).toBe(404);
    expect(text((await h.req('fran', 'PUT', `/todo_lists/${l}/todo_items/${a}/complete.xml`)).xml(), 'completed')).toBe('true');
    expect(text((await h.req('fran', 'PUT', `/todo_lists/${l}/todo_items/${a}/uncomplete.xml`)).xml(), 'completed')).toBe('false');
    expect(text((await h.req('fran', 'PUT', `/todo_lists/${l}/todo_items/${a}.xml`, '<todo-item><content>Z</content></todo-item>')).xml(), 'content')).toBe('Z');
    const d = await h.req('fran', 'DELETE', `/todo_lists/${l}/todo_items/${a}.xml`);
    expect([d.status, d.body]).toEqual([200, '']);
    expect(await order(l)).toEqual({ ids: [locId(c)], pos: [1] });
  });

  it('new.xml and edit.xml', async () => {
    const l = await list();
    const n = await h.req('fran', 'GET', `/todo_lists/${l}/todo_items/new.xml`);
    expect(n.headers['x-create-action']).toBe(`POST /todo_lists/${l}/todo_items.xml`);
    expect(n.xml().children.map((c) => [c.name, c.attrs.type, c.nil])).toEqual([
      ['content', undefined, true], ['due-at', 'datetime', true], ['responsible-party', undefined, true],
    ]);
    const id = await item(l, { 'responsible-party': f.person.finn });
    const e = await h.req('fran', 'GET', `/todo_items/${id}/edit.xml`);
    expect(e.headers['x-update-action']).toBe(`PUT /todo_items/${id}.xml`);
    expect(text(e.xml(), 'responsible-party')).toBe(String(f.person.finn));
    expect(el(e.xml(), 'due-at')!.nil).toBe(true);
  });

  it('JSON bodies and answers', async () => {
    const l = await list();
    const r = await h.req('fran', 'POST', `/todo_lists/${l}/todo_items.json`, JSON.stringify({ todo_item: { content: 'J', due_at: '2030-01-02', responsible_party: `c${f.company.client}` } }), { 'content-type': 'application/json' });
    expect(r.status).toBe(201);
    expect(r.headers.location).toMatch(/^\/todo_items\/\d+$/);
    expect(r.json()).toMatchObject({ content: 'J', due_at: '2030-01-02T00:00:00Z', responsible_party_type: 'Company', completed: false, position: 1 });
    const c = await h.req('fran', 'PUT', `/todo_items/${locId(r)}/complete.json`);
    expect(c.json()).toMatchObject({ completed: true, completer_id: f.person.fran });
  });
});

describe.skipIf(defaultEngine() !== 'postgres')('todo items on PostgreSQL: round trips of a read (issue #7)', () => {
  // What a GET costs in statements sent to PostgreSQL, counted by the store itself (PgStore.roundTrips).
  const trips = async (fn: () => Promise<unknown>): Promise<number> => {
    const s = h.store as PgStore;
    const before = s.roundTrips;
    await fn();
    return s.roundTrips - before;
  };
  it('an uncached GET of one item after a write by another process costs 2 round trips, and shows the write', async () => {
    // A second team-server process on the same database (D52: its writes are seen by this one's next request).
    const other = await harnessOver(await PgStore.open((h.store as PgStore).url, { max: 2 }), 'postgres');
    try {
      const l = await list();
      const [a, b] = await items(l, 2);
      expect((await h.req('fran', 'GET', `/todo_items/${a}.xml`)).status).toBe(200); // warm: names, credentials
      expect((await h.req('fran', 'GET', `/todo_items/${a}.xml`)).status).toBe(200);
      const r = await other.req('fran', 'PUT', `/todo_items/${b}.xml`, '<todo-item><content>Changed</content></todo-item>');
      expect(r.status).toBe(200);
      let got = '';
      const n = await trips(async () => { got = (await h.req('fran', 'GET', `/todo_items/${b}.xml`)).body; });
      expect(got).toContain('<content>Changed</content>');
      // The change token (which also serves the credential and names memos), then the item: 7 before D145.
      expect(n).toBeLessThanOrEqual(2);
      // A change of a person by the other process shows in this one's next answer (names are not stale).
      const me = (await h.req('fran', 'GET', '/me.xml')).xml();
      const fran = Number(text(me, 'id'));
      await other.store.write((w) => w.update('people', fran, { first_name: 'Franziska' }));
      const after = (await h.req('fran', 'GET', `/todo_items/${b}.xml`)).body;
      expect(after).toContain('Franziska');
    } finally {
      await other.close();
    }
  });

  it('a memo pinned to the request token sees the request\'s own write, and a commit by a Bivouac that does not count tables', async () => {
    const s = h.store as PgStore;
    const me = Number(text((await h.req('fran', 'GET', '/me.xml')).xml(), 'id'));
    const first = () => s.memo('test:first', async () => (await s.get<{ f: string }>('SELECT first_name AS f FROM people WHERE id = ?', [me]))!.f, ['people']);
    const token = await s.changeToken();
    const seen = await s.pin(token, async () => {
      const before = await first();
      await s.write((w) => w.update('people', me, { first_name: 'Own' }));
      return [before, await first()];
    });
    expect(seen[1]).toBe('Own');
    expect(seen[0]).not.toBe('Own');
    // An older Bivouac on the same database counts the commit but not its tables: every table memo is stale.
    const older = async (name: string) => {
      const c = new pg.Client({ connectionString: s.url });
      await c.connect();
      try {
        await c.query('BEGIN');
        await c.query('UPDATE people SET first_name = $1 WHERE id = $2', [name, me]);
        await c.query('UPDATE commit_counter SET n = n + 1 WHERE id = 1');
        await c.query('COMMIT');
      } finally {
        await c.end();
      }
    };
    await older('Old');
    expect(await first()).toBe('Old');
    // Inside a pin the memo answers for the pinned snapshot, without reading; unpinned, it reads again.
    const late = await s.pin(await s.changeToken(), async (unpin) => {
      await first();
      await older('Later');
      const pinnedView = await first();
      unpin();
      return [pinnedView, await first()];
    });
    expect(late).toEqual(['Old', 'Later']);
  });
});
