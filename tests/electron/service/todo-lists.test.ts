import { describe, expect, it } from 'vitest';
import { freshAccount, ids, locId, text, type Harness, type Who, type Account } from '../../support/helpers.ts';
import type { XNode } from '../../../shared/codec/in.ts';

let h: Harness;
let f: Account['f'];
let pid: number;
freshAccount((a) => { ({ h, f, pid } = a); });

const el = (n: XNode, name: string) => n.children.find((c) => c.name === name);
async function list(fields: Record<string, string | number> = {}, who: Who = 'fran', project = pid): Promise<number> {
  const body = Object.entries({ name: 'L', ...fields }).map(([k, v]) => `<${k}>${v}</${k}>`).join('');
  const r = await h.req(who, 'POST', `/projects/${project}/todo_lists.xml`, `<todo-list>${body}</todo-list>`);
  expect(r.status, r.body).toBe(201);
  return locId(r);
}
async function item(listId: number, fields: Record<string, string | number> = {}, who: Who = 'fran'): Promise<number> {
  const body = Object.entries({ content: 'I', ...fields }).map(([k, v]) => `<${k}>${v}</${k}>`).join('');
  const r = await h.req(who, 'POST', `/todo_lists/${listId}/todo_items.xml`, `<todo-item>${body}</todo-item>`);
  expect(r.status, r.body).toBe(201);
  return locId(r);
}
const listIds = async (project = pid, q = '', who: Who = 'fran') => ids((await h.req(who, 'GET', `/projects/${project}/todo_lists.xml${q}`)).xml());
const positions = async (project = pid) => (await h.req('ada', 'GET', `/projects/${project}/todo_lists.xml`)).xml().children.map((c) => Number(text(c, 'position')));
const complete = (id: number) => h.req('fran', 'PUT', `/todo_items/${id}/complete.xml`);
const idArray = (xs: (number | string)[]) => `<todo-lists type="array">${xs.map((x) => `<todo-list><id>${x}</id></todo-list>`).join('')}</todo-lists>`;

describe('todo lists: create, read, positions', () => {
  it('creates with defaults, Location /todo_lists/{id}, no todo-items in the create answer', async () => {
    const r = await h.req('fran', 'POST', `/projects/${pid}/todo_lists.xml`, '<todo-list><name>Launch</name><position>9</position></todo-list>');
    expect(r.status).toBe(201);
    const id = locId(r);
    expect(r.headers.location).toBe(`/todo_lists/${id}`);
    const l = r.xml();
    expect(el(l, 'todo-items')).toBeUndefined();
    expect(text(l, 'position')).toBe('1');
    expect(text(l, 'description')).toBe('');
    expect(el(l, 'milestone-id')!.nil).toBe(true);
    expect(el(l, 'complete')!.attrs.type).toBeUndefined();
    expect(text(l, 'complete')).toBe('true');
    expect(text(l, 'completed')).toBe('true');
    const one = (await h.req('fran', 'GET', `/todo_lists/${id}.xml`)).xml();
    expect(el(one, 'todo-items')!.children).toHaveLength(0);
  });

  it('appends at n+1, closes gaps on delete, and the project list embeds no items', async () => {
    const [a, b, c] = [await list(), await list(), await list()];
    await item(b);
    expect(await listIds()).toEqual([a, b, c]);
    expect(await positions()).toEqual([1, 2, 3]);
    const del = await h.req('fran', 'DELETE', `/todo_lists/${b}`);
    expect(del.status).toBe(200);
    expect(del.body).toBe('');
    expect(await listIds()).toEqual([a, c]);
    expect(await positions()).toEqual([1, 2]);
    const d = await list();
    expect(await positions()).toEqual([1, 2, 3]);
    expect(await listIds()).toEqual([a, c, d]);
    for (const l of (await h.req('fran', 'GET', `/projects/${pid}/todo_lists.xml`)).xml().children) expect(el(l, 'todo-items')).toBeUndefined();
  });

  it('delete_list answers the deleted list with its items; items, comments go; time entries stay unlinked', async () => {
    const l = await list();
    const i1 = await item(l);
    await h.store.write(async (w) => {
      await w.insert('comments', { body: 'c', commentable_type: 'TodoItem', commentable_id: i1, author_id: f.person.fran, created_at: w.now, private: 0, project_id: pid }, pid);
      await w.insert('time_entries', { project_id: pid, person_id: f.person.fran, date: '2030-01-01', hours: 1, description: '', todo_item_id: i1, private: 0 }, pid);
    });
    const r = await h.req('fran', 'GET', `/todos/delete_list/${l}`);
    expect(r.status).toBe(200);
    expect(ids(el(r.xml(), 'todo-items')!)).toEqual([i1]);
    expect((await h.req('fran', 'GET', `/todo_items/${i1}.xml`)).status).toBe(404);
    expect(await h.store.get('SELECT id FROM comments WHERE commentable_id = ?', [i1])).toBeUndefined();
    expect(await h.store.get('SELECT todo_item_id FROM time_entries WHERE project_id = ?', [pid])).toEqual({ todo_item_id: null });
  });

  it('counts, complete and completed follow the items', async () => {
    const l = await list();
    const [a] = [await item(l), await item(l)];
    await complete(a);
    let x = (await h.req('fran', 'GET', `/todo_lists/${l}`)).xml();
    expect([text(x, 'completed-count'), text(x, 'uncompleted-count'), text(x, 'complete'), text(x, 'completed')]).toEqual(['1', '1', 'false', 'false']);
    await complete(ids(el(x, 'todo-items')!)[1]);
    x = (await h.req('fran', 'GET', `/todos/list/${l}`)).xml();
    expect([text(x, 'complete'), text(x, 'completed')]).toEqual(['true', 'true']);
  });

  it('validates: blank name, too long name, milestone of another project, bad boolean; nothing created', async () => {
    const other = await h.store.write((w) => w.insert('milestones', {
      project_id: f.project.basecamp, title: 'M', deadline: '2030-01-01', private: 0, completed: 0, wants_notification: 0, created_on: w.now, creator_id: f.person.fran,
    }, f.project.basecamp));
    const r = await h.req('fran', 'POST', `/projects/${pid}/todo_lists.xml`, `<todo-list><name>${'x'.repeat(256)}</name><milestone-id>${other}</milestone-id><tracked>maybe</tracked></todo-list>`);
    expect(r.status).toBe(422);
    expect(r.xml().children).toHaveLength(3);
    expect((await h.req('fran', 'POST', `/projects/${pid}/todo_lists.xml`, '<todo-list><description>x</description></todo-list>')).status).toBe(422);
    expect(await listIds()).toEqual([]);
  });

  it('updates partially, in both styles, flat legacy create', async () => {
    const l = await list({ description: 'Keep' });
    const u = await h.req('fran', 'PUT', `/todo_lists/${l}.xml`, '<todo-list><name>New</name></todo-list>');
    expect(text(u.xml(), 'name')).toBe('New');
    expect(text(u.xml(), 'description')).toBe('Keep');
    const a = await h.req('fran', 'POST', `/todos/update_list/${l}`, '<request><list><tracked>true</tracked></list></request>');
    expect(text(a.xml(), 'tracked')).toBe('true');
    const c = await h.req('fran', 'POST', `/projects/${pid}/todos/create_list`, '<request><name>Flat</name></request>');
    expect(c.status).toBe(201);
    expect(c.headers.location).toBe(`/todo_lists/${locId(c)}`);
    expect((await h.req('fran', 'PUT', `/todo_lists/${l}`, '<todo-list><name> </name></todo-list>')).status).toBe(422);
    expect(text((await h.req('fran', 'GET', `/todo_lists/${l}.xml`)).xml(), 'name')).toBe('New');
  });
});

describe('todo lists: filters and selectors', () => {
  async function three() {
    const pending = await list();
    await item(pending);
    const finished = await list();
    await complete(await item(finished));
    const empty = await list();
    return { pending, finished, empty };
  }

  it('filter=all|pending|finished; empty value is all; other values 400 (before 404)', async () => {
    const { pending, finished, empty } = await three();
    expect(await listIds(pid, '?filter=pending')).toEqual([pending]);
    expect(await listIds(pid, '?filter=finished')).toEqual([finished, empty]);
    expect(await listIds(pid, '?filter=all')).toEqual([pending, finished, empty]);
    expect(await listIds(pid, '?filter=')).toEqual([pending, finished, empty]);
    expect((await h.req('fran', 'GET', `/projects/${pid}/todo_lists.xml?filter=done`)).status).toBe(400);
    expect((await h.req('fran', 'GET', '/projects/999999/todo_lists.xml?filter=done')).status).toBe(400);
    expect((await h.req('fran', 'GET', '/projects/999999/todo_lists.xml')).status).toBe(404);
  });

  it('todos/lists takes complete from the body, else the query', async () => {
    const { pending, finished, empty } = await three();
    const sel = async (body: string, q = '') => {
      const r = await h.req('fran', 'POST', `/projects/${pid}/todos/lists${q}`, body);
      return r.status === 200 ? ids(r.xml()) : r.status;
    };
    expect(await sel('<request><complete>true</complete></request>')).toEqual([finished, empty]);
    expect(await sel('<request><complete>0</complete></request>')).toEqual([pending]);
    expect(await sel('<request/>')).toEqual([pending, finished, empty]);
    expect(await sel('', '?complete=1')).toEqual([finished, empty]);
    expect(await sel('<request><complete>perhaps</complete></request>')).toBe(400);
    expect(await sel('', '?complete=yes')).toBe(400);
  });

  it('compatibility: /todo_lists.xml?project_id= GET (with filter) and POST', async () => {
    const { pending } = await three();
    expect(ids((await h.req('fran', 'GET', `/todo_lists.xml?project_id=${pid}&filter=pending`)).xml())).toEqual([pending]);
    const r = await h.req('fran', 'POST', `/todo_lists.xml?project_id=${pid}`, '<todo-list><name>Compat</name></todo-list>');
    expect(r.status).toBe(201);
    expect(text(r.xml(), 'project-id')).toBe(String(pid));
    expect((await h.req('fran', 'GET', '/todo_lists.xml?project_id=x')).status).toBe(400);
    expect((await h.req('cleo', 'GET', `/todo_lists.xml?project_id=${f.project.basecamp}`)).status).toBe(404);
  });
});

describe('todo lists: responsible-party view', () => {
  it('person, company, unassigned, default caller; counts describe the whole list; project then position order', async () => {
    const finn = f.person.finn;
    const b = await list({}, 'fran', f.project.basecamp);
    const a = await list();
    const mine = await item(a, { 'responsible-party': finn });
    await item(a, { 'responsible-party': f.person.fran });
    const done = await item(a, { 'responsible-party': finn });
    await complete(done);
    const free = await item(a);
    const co = await item(a, { 'responsible-party': `c${f.company.client}` });
    const other = await item(b, { 'responsible-party': finn });
    const view = (await h.req('fran', 'GET', `/todo_lists.xml?responsible_party=${finn}`)).xml();
    expect(ids(view)).toEqual(f.project.alpha < f.project.basecamp ? [a, b] : [b, a]);
    const la = view.children.find((c) => Number(text(c, 'id')) === a)!;
    expect(ids(el(la, 'todo-items')!)).toEqual([mine]);
    expect(text(la, 'uncompleted-count')).toBe('4');
    expect(ids(el(view.children.find((c) => Number(text(c, 'id')) === b)!, 'todo-items')!)).toEqual([other]);
    const finnOwn = (await h.req('finn', 'GET', '/todo_lists.xml')).xml();
    expect(ids(el(finnOwn.children[0], 'todo-items')!)).toEqual([mine]);
    const unassigned = (await h.req('fran', 'GET', '/todo_lists.xml?responsible_party=')).xml();
    expect(ids(el(unassigned.children.find((c) => Number(text(c, 'id')) === a)!, 'todo-items')!)).toEqual([free]);
    const company = (await h.req('fran', 'GET', `/todo_lists.xml?responsible_party=c${f.company.client}`)).xml();
    expect(ids(company)).toEqual([a]);
    expect(ids(el(company.children[0], 'todo-items')!)).toEqual([co]);
    expect((await h.req('fran', 'GET', '/todo_lists.xml?responsible_party=x4')).status).toBe(400);
    expect(ids((await h.req('fran', 'GET', '/todo_lists.xml?responsible_party=99999')).xml())).toEqual([]);
  });

  it('a client does not see private lists nor lists of projects they are not in', async () => {
    const secret = await list({ private: 'true' });
    await item(secret, { 'responsible-party': f.person.cleo });
    const open = await list();
    await item(open, { 'responsible-party': f.person.cleo });
    const elsewhere = await list({}, 'fran', f.project.basecamp);
    await item(elsewhere, { 'responsible-party': f.person.finn });
    expect(ids((await h.req('cleo', 'GET', '/todo_lists.xml')).xml())).toEqual([open]);
    expect(ids((await h.req('cleo', 'GET', `/todo_lists.xml?responsible_party=${f.person.finn}`)).xml())).toEqual([]);
  });
});

describe('todo lists: reorder and move', () => {
  it('reorder: listed first, others after in old order; repeated ids count once; empty changes nothing', async () => {
    const project = (await h.req('ada', 'POST', '/projects.xml', '<project><name>P</name></project>'));
    const p = locId(project);
    const [a, b, c, d] = [await list({}, 'ada', p), await list({}, 'ada', p), await list({}, 'ada', p), await list({}, 'ada', p)];
    const r = await h.req('ada', 'POST', `/projects/${p}/todo_lists/reorder.xml`, idArray([c, a, c]));
    expect(r.status).toBe(200);
    expect(ids(r.xml())).toEqual([c, a, b, d]);
    expect(await positions(p)).toEqual([1, 2, 3, 4]);
    const e = await h.req('ada', 'POST', `/projects/${p}/todo_lists/reorder.xml`, '<todo-lists type="array"></todo-lists>');
    expect(e.status).toBe(200);
    expect(ids(e.xml())).toEqual([c, a, b, d]);
    const inRequest = await h.req('ada', 'POST', `/projects/${p}/todo_lists/reorder.xml`, `<request>${idArray([d])}</request>`);
    expect(ids(inRequest.xml())).toEqual([d, c, a, b]);
    const json = await h.req('ada', 'POST', `/projects/${p}/todo_lists/reorder.json`, JSON.stringify([{ id: b }]), { 'content-type': 'application/json' });
    expect((json.json() as { id: number }[]).map((x) => x.id)).toEqual([b, d, c, a]);
  });

  it('reorder with a foreign, unknown, private (for a client) or malformed id: 422 and nothing changes', async () => {
    const [a, b] = [await list(), await list()];
    const secret = await list({ private: 'true' });
    const foreign = await list({}, 'fran', f.project.basecamp);
    const url = `/projects/${pid}/todo_lists/reorder.xml`;
    expect((await h.req('fran', 'POST', url, idArray([b, foreign]))).status).toBe(422);
    expect((await h.req('fran', 'POST', url, idArray([b, 99999]))).status).toBe(422);
    expect((await h.req('fran', 'POST', url, idArray([b, 'x']))).status).toBe(422);
    expect((await h.req('cleo', 'POST', url, idArray([secret, b]))).status).toBe(422);
    expect(await listIds()).toEqual([a, b, secret]);
    const asCleo = await h.req('cleo', 'POST', url, idArray([b]));
    expect(ids(asCleo.xml())).toEqual([b, a]);
    expect(await listIds()).toEqual([b, a, secret]);
  });

  it('move_list clamps <to>; missing or non-integer is 422', async () => {
    const [a, b, c] = [await list(), await list(), await list()];
    const m = await h.req('fran', 'POST', `/todos/move_list/${c}`, '<request><to>1</to></request>');
    expect(text(m.xml(), 'position')).toBe('1');
    expect(el(m.xml(), 'todo-items')).toBeUndefined();
    expect(await listIds()).toEqual([c, a, b]);
    await h.req('fran', 'POST', `/todos/move_list/${c}`, '<request><to>99</to></request>');
    expect(await listIds()).toEqual([a, b, c]);
    await h.req('fran', 'POST', `/todos/move_list/${b}`, '<request><to>0</to></request>');
    expect(await listIds()).toEqual([b, a, c]);
    expect((await h.req('fran', 'POST', `/todos/move_list/${b}`, '<request/>')).status).toBe(422);
    expect((await h.req('fran', 'POST', `/todos/move_list/${b}`, '<request><to>top</to></request>')).status).toBe(422);
    expect((await h.req('fran', 'POST', '/todos/move_list/99999', '<request/>')).status).toBe(404);
    expect(await positions()).toEqual([1, 2, 3]);
  });
});

describe('todo lists: visibility, templates, JSON', () => {
  it('clients never see private lists; their private input is ignored; no <private> element for them', async () => {
    const secret = await list({ private: 'true' });
    const i = await item(secret);
    for (const url of [`/todo_lists/${secret}.xml`, `/todos/list/${secret}`, `/todo_lists/${secret}/edit.xml`, `/todo_lists/${secret}/todo_items.xml`, `/todo_items/${i}.xml`]) {
      expect((await h.req('cleo', 'GET', url)).status, url).toBe(404);
    }
    expect((await h.req('cleo', 'DELETE', `/todo_lists/${secret}.xml`)).status).toBe(404);
    expect(await listIds(pid, '', 'cleo')).toEqual([]);
    const mine = await list({ private: 'true' }, 'cleo');
    const r = (await h.req('cleo', 'GET', `/todo_lists/${mine}.xml`)).xml();
    expect(el(r, 'private')).toBeUndefined();
    expect(text((await h.req('fran', 'GET', `/todo_lists/${mine}.xml`)).xml(), 'private')).toBe('false');
  });

  it('new.xml and edit.xml with action headers; private only for firm people', async () => {
    const n = await h.req('fran', 'GET', `/projects/${pid}/todo_lists/new.xml`);
    expect(n.headers['x-create-action']).toBe(`POST /projects/${pid}/todo_lists.xml`);
    expect(n.xml().children.map((c) => c.name).sort()).toEqual(['description', 'milestone-id', 'name', 'private', 'tracked']);
    expect(n.xml().children.every((c) => c.nil)).toBe(true);
    const nc = await h.req('cleo', 'GET', `/projects/${pid}/todo_lists/new.xml`);
    expect(nc.xml().children.map((c) => c.name)).not.toContain('private');
    const l = await list({ name: 'Edit me', tracked: 'true' });
    const e = await h.req('fran', 'GET', `/todo_lists/${l}/edit.xml`);
    expect(e.headers['x-update-action']).toBe(`PUT /todo_lists/${l}.xml`);
    expect(text(e.xml(), 'name')).toBe('Edit me');
    expect(text(e.xml(), 'tracked')).toBe('true');
    expect(el(e.xml(), 'milestone-id')!.nil).toBe(true);
    expect((await h.req('cleo', 'GET', `/projects/${f.project.basecamp}/todo_lists/new.xml`)).status).toBe(404);
  });

  it('answers JSON on .json and Accept; todo_items only on the one-list routes', async () => {
    const l = await list();
    await item(l);
    const one = (await h.req('fran', 'GET', `/todo_lists/${l}.json`)).json() as Record<string, unknown>;
    expect(one).toMatchObject({ id: l, complete: false, completed: false, uncompleted_count: 1, milestone_id: null });
    expect((one.todo_items as unknown[]).length).toBe(1);
    const many = (await h.req('fran', 'GET', `/projects/${pid}/todos/lists`, undefined, { accept: 'application/json' })).json() as Record<string, unknown>[];
    expect(many[0].todo_items).toBeUndefined();
    const created = await h.req('fran', 'POST', `/projects/${pid}/todo_lists.json`, JSON.stringify({ todo_list: { name: 'J', tracked: true } }), { 'content-type': 'application/json' });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/todo_lists/${(created.json() as { id: number }).id}`);
  });
});

describe('board extension: GET /projects/{id}/todo_lists.xml?include=items (docs/api-extensions.md)', () => {
  /** An element without the indentation between its children (which depends on the nesting depth). */
  const norm = (n: XNode): XNode => ({ ...n, text: n.children.length || n.attrs.type === 'array' ? n.text.trim() && n.text : n.text, children: n.children.map(norm) });
  async function board(): Promise<{ pub: number; priv: number; empty: number }> {
    const pub = await list({ name: 'Public' });
    const priv = await list({ name: 'Secret', private: 'true' });
    const empty = await list({ name: 'Empty' });
    const a = await item(pub, { content: 'one' });
    await item(pub, { content: 'two' });
    await item(priv, { content: 'hidden item' });
    await complete(a);
    expect((await h.req('fran', 'POST', `/todo_items/${a}/comments.xml`, '<comment><body>c</body></comment>')).status).toBe(201);
    return { pub, priv, empty };
  }

  it.each(['ada', 'fran', 'finn', 'cleo'] as Who[])('%s gets exactly what the index and the single-list routes give, in XML and JSON, per filter', async (who) => {
    await board();
    for (const filter of ['', 'pending', 'finished']) {
      const q = filter ? `?filter=${filter}` : '';
      // XML: each <todo-list> of the board is the document GET /todo_lists/{id}.xml answers
      const index = (await h.req(who, 'GET', `/projects/${pid}/todo_lists.xml${q}`)).xml();
      const r = await h.req(who, 'GET', `/projects/${pid}/todo_lists.xml${q ? `${q}&` : '?'}include=items`);
      expect(r.status, r.body).toBe(200);
      const singles = await Promise.all(ids(index).map(async (id) => (await h.req(who, 'GET', `/todo_lists/${id}.xml`)).xml()));
      expect(r.xml().name).toBe('todo-lists');
      expect(r.xml().children.map(norm)).toEqual(singles.map(norm));
      // JSON twin
      const jIndex = (await h.req(who, 'GET', `/projects/${pid}/todo_lists.json${q}`)).json() as { id: number }[];
      const j = await h.req(who, 'GET', `/projects/${pid}/todo_lists.json${q ? `${q}&` : '?'}include=items`);
      expect(j.status).toBe(200);
      const jSingles = await Promise.all(jIndex.map(async (l) => (await h.req(who, 'GET', `/todo_lists/${l.id}.json`)).json()));
      expect(j.json()).toEqual(jSingles);
    }
  });

  it('a client sees neither private lists nor their items; the firm does', async () => {
    const { priv } = await board();
    const client = await h.req('cleo', 'GET', `/projects/${pid}/todo_lists.xml?include=items`);
    expect(ids(client.xml())).not.toContain(priv);
    expect(client.body).not.toContain('hidden item');
    const firm = await h.req('fran', 'GET', `/projects/${pid}/todo_lists.xml?include=items`);
    expect(ids(firm.xml())).toContain(priv);
    expect(firm.body).toContain('hidden item');
    // every list carries its items element, an empty list an empty array
    for (const l of firm.xml().children) expect(el(l, 'todo-items')?.attrs.type).toBe('array');
  });

  it('404 for a project the caller cannot see, 400 for another include, and the compatibility route takes it too', async () => {
    await board();
    expect((await h.req('carl', 'GET', `/projects/${pid}/todo_lists.xml?include=items`)).status).toBe(404);
    const bad = await h.req('fran', 'GET', `/projects/${pid}/todo_lists.xml?include=comments`);
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('<errors>');
    expect(bad.body).toContain('include must be items');
    const compat = await h.req('fran', 'GET', `/todo_lists.xml?project_id=${pid}&include=items`);
    const main = await h.req('fran', 'GET', `/projects/${pid}/todo_lists.xml?include=items`);
    expect(compat.status).toBe(200);
    expect(compat.body).toBe(main.body);
  });

  it('without include, no list carries items (unchanged)', async () => {
    await board();
    for (const l of (await h.req('fran', 'GET', `/projects/${pid}/todo_lists.xml`)).xml().children) expect(el(l, 'todo-items')).toBeUndefined();
  });
});
