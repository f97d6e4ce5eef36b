// Records a client sees must not carry what the client cannot see (contract §5.2, §5.3; D32):
//   - the id of a private milestone (`milestone-id` of a post: 0, of a todo list: nil, as for "none");
//   - the name of a person or company the client cannot see (author-name, creator-name, completer-name,
//     responsible-party-name, person-name, a project's company name): '' (the id stays: it is what an
//     edit form sends back, and it answers 404 like any record the client cannot see).
// And an unchanged edit form (the record as shown, or edit.xml) can always be saved back, in XML and
// JSON, without losing the hidden link.

import { describe, expect, it, beforeEach, afterEach } from 'vitest';
import { FIXTURE, harness, locId, text, type Harness, type Res, type Who } from '../../support/helpers.ts';
import type { XNode } from '../../../shared/codec/in.ts';

/** The project fixture plus a second client company, Ridge Partners, whose Rita is a member of Alpha. */
const WITH_RIDGE = {
  ...FIXTURE,
  companies: [...(FIXTURE as unknown as { companies: unknown[] }).companies, { key: 'ridge', name: 'Ridge Partners', city: 'Annecy', country: 'France' }],
  people: [...FIXTURE.people, {
    key: 'rita', company: 'ridge', 'first-name': 'Rita', 'last-name': 'Ridge', title: 'Engineer', 'email-address': 'rita@ridge.example',
    'user-name': 'rita', password: 'rita-pass-6', token: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678', administrator: false,
  }],
  projects: [
    ...(FIXTURE as unknown as { projects: { key: string; members: string[] }[] }).projects.map((p) => (p.key === 'alpha' ? { ...p, members: [...p.members, 'rita'] } : p)),
    { key: 'ridgeline', name: 'Ridgeline Works', company: 'ridge', status: 'active', members: ['ada', 'cleo', 'rita'] },
  ],
};
const RITA = 'rita' as Who;

let h: Harness;
let pid: number;
let ids: { rita: number; ridge: number; fran: number };
beforeEach(async () => {
  h = await harness(WITH_RIDGE);
  const projects = (await h.req('ada', 'GET', '/projects.xml')).xml();
  pid = Number(text(projects.children.find((p) => text(p, 'name') === 'Alpha Ascent')!, 'id'));
  const people = (await h.req('ada', 'GET', '/people.xml')).xml().children;
  const person = (u: string) => Number(text(people.find((p) => text(p, 'user-name') === u)!, 'id'));
  const companies = (await h.req('ada', 'GET', '/companies.xml')).xml().children;
  ids = { rita: person('rita'), fran: person('fran'), ridge: Number(text(companies.find((c) => text(c, 'name') === 'Ridge Partners')!, 'id')) };
});
afterEach(async () => { await h.close(); });

const ok = (r: Res, status = 200) => { expect(r.status, r.body).toBe(status); return r; };
const xmlBody = (r: Res) => r.body; // the record exactly as shown
const jsonHeaders = { 'content-type': 'application/json', accept: 'application/json' };
const el = (n: XNode, name: string) => n.children.find((c) => c.name === name);

/** Milestones exist in the action style only (§8.7). */
async function milestone(who: Who, fields: string): Promise<number> {
  return locId(ok(await h.req(who, 'POST', `/projects/${pid}/milestones/create`, `<request><milestone>${fields}</milestone></request>`), 201));
}
const privateMilestone = () => milestone('fran', '<title>Secret launch</title><deadline>2031-05-01</deadline><private>true</private>');
const publicMilestone = () => milestone('fran', '<title>Open launch</title><deadline>2031-06-01</deadline>');
/** A project's milestones as `who` sees them. */
const milestones = async (who: Who) => (await h.req(who, 'GET', `/projects/${pid}/milestones/list`)).xml().children;

/** GET → PUT unchanged → GET as `who`, in XML (the record as shown) and JSON (the object as shown). */
async function roundTrip(who: Who, path: string): Promise<void> {
  const x = ok(await h.req(who, 'GET', `${path}.xml`));
  ok(await h.req(who, 'PUT', `${path}.xml`, xmlBody(x), { 'content-type': 'application/xml' }));
  expect(ok(await h.req(who, 'GET', `${path}.xml`)).body.replace(/<updated-at[^<]*<\/updated-at>/, '')).toBe(x.body.replace(/<updated-at[^<]*<\/updated-at>/, ''));
  const j = ok(await h.req(who, 'GET', `${path}.json`));
  ok(await h.req(who, 'PUT', `${path}.json`, j.body, jsonHeaders));
  const { updated_at: _a, ...after } = ok(await h.req(who, 'GET', `${path}.json`)).json() as Record<string, unknown>;
  const { updated_at: _b, ...before } = j.json() as Record<string, unknown>;
  expect(after).toEqual(before);
}
/** GET edit.xml → PUT it back unchanged. */
async function editFormRoundTrip(who: Who, path: string): Promise<XNode> {
  const form = ok(await h.req(who, 'GET', `${path}/edit.xml`));
  ok(await h.req(who, 'PUT', `${path}.xml`, form.body, { 'content-type': 'application/xml' }));
  return form.xml();
}

describe('milestone-id of a private milestone', () => {
  it('post: a client sees 0 (none), firm people the id; the client saves the post back unchanged (record, JSON, edit.xml) and the link stays', async () => {
    const m = await privateMilestone();
    const post = locId(ok(await h.req('cleo', 'POST', `/projects/${pid}/posts.xml`, '<post><title>By the client</title><body>b</body></post>'), 201));
    ok(await h.req('ada', 'PUT', `/posts/${post}.xml`, `<post><milestone-id>${m}</milestone-id></post>`));
    expect(text((await h.req('fran', 'GET', `/posts/${post}.xml`)).xml(), 'milestone-id')).toBe(String(m));

    expect(text((await h.req('cleo', 'GET', `/posts/${post}.xml`)).xml(), 'milestone-id')).toBe('0');
    expect(((await h.req('cleo', 'GET', `/posts/${post}.json`)).json() as { milestone_id: number }).milestone_id).toBe(0);
    const listed = (await h.req('cleo', 'GET', `/projects/${pid}/posts.xml`)).xml().children.find((p) => text(p, 'id') === String(post))!;
    expect(text(listed, 'milestone-id')).toBe('0');

    await roundTrip('cleo', `/posts/${post}`);
    expect(text(await editFormRoundTrip('cleo', `/posts/${post}`), 'milestone-id')).toBe('0');
    expect(text((await h.req('fran', 'GET', `/posts/${post}.xml`)).xml(), 'milestone-id')).toBe(String(m));

    // the client may still choose a milestone it sees, and clear it again
    const open = await publicMilestone();
    ok(await h.req('cleo', 'PUT', `/posts/${post}.xml`, `<post><milestone-id>${open}</milestone-id></post>`));
    expect(text((await h.req('fran', 'GET', `/posts/${post}.xml`)).xml(), 'milestone-id')).toBe(String(open));
    // the private milestone's id is not the client's to use (it does not exist for the client)
    expect((await h.req('cleo', 'PUT', `/posts/${post}.xml`, `<post><milestone-id>${m}</milestone-id></post>`)).status).toBe(422);
  });

  it('todo list: a client sees nil, firm people the id; an unchanged save keeps the link (record, JSON, edit.xml)', async () => {
    const m = await privateMilestone();
    const list = locId(ok(await h.req('fran', 'POST', `/projects/${pid}/todo_lists.xml`, `<todo-list><name>L</name><milestone-id>${m}</milestone-id></todo-list>`), 201));
    const shown = (await h.req('cleo', 'GET', `/todo_lists/${list}.xml`)).xml();
    expect(el(shown, 'milestone-id')!.nil).toBe(true);
    expect(((await h.req('cleo', 'GET', `/todo_lists/${list}.json`)).json() as { milestone_id: unknown }).milestone_id).toBeNull();
    const inList = (await h.req('cleo', 'GET', `/projects/${pid}/todo_lists.xml`)).xml().children.find((l) => text(l, 'id') === String(list))!;
    expect(el(inList, 'milestone-id')!.nil).toBe(true);

    await roundTrip('cleo', `/todo_lists/${list}`);
    expect(el(await editFormRoundTrip('cleo', `/todo_lists/${list}`), 'milestone-id')!.nil).toBe(true);
    expect(text((await h.req('fran', 'GET', `/todo_lists/${list}.xml`)).xml(), 'milestone-id')).toBe(String(m));
    // firm people's unchanged save keeps it too, and they may clear it
    await roundTrip('fran', `/todo_lists/${list}`);
    expect(text((await h.req('fran', 'GET', `/todo_lists/${list}.xml`)).xml(), 'milestone-id')).toBe(String(m));
    ok(await h.req('fran', 'PUT', `/todo_lists/${list}.xml`, '<todo-list><milestone-id></milestone-id></todo-list>'));
    expect(el((await h.req('fran', 'GET', `/todo_lists/${list}.xml`)).xml(), 'milestone-id')!.nil).toBe(true);
  });
});

describe('names of people and companies a client cannot see', () => {
  it('author-name of posts and comments (full and summary forms)', async () => {
    const post = locId(ok(await h.req(RITA, 'POST', `/projects/${pid}/posts.xml`, '<post><title>From the partner</title><body>b</body></post>'), 201));
    const comment = locId(ok(await h.req(RITA, 'POST', `/posts/${post}/comments.xml`, '<comment><body>c</body></comment>'), 201));
    expect(text((await h.req('fran', 'GET', `/posts/${post}.xml`)).xml(), 'author-name')).toBe('Rita Ridge');
    expect(text((await h.req('fran', 'GET', `/comments/${comment}.xml`)).xml(), 'author-name')).toBe('Rita Ridge');

    const p = (await h.req('cleo', 'GET', `/posts/${post}.xml`)).xml();
    expect(text(p, 'author-name')).toBe('');
    expect(text(p, 'author-id')).toBe(String(ids.rita));
    expect(((await h.req('cleo', 'GET', `/posts/${post}.json`)).json() as { author_name: string }).author_name).toBe('');
    expect(text((await h.req('cleo', 'GET', `/comments/${comment}.xml`)).xml(), 'author-name')).toBe('');
    const comments = (await h.req('cleo', 'GET', `/posts/${post}/comments.xml`)).xml();
    expect(comments.children.map((c) => text(c, 'author-name'))).toEqual(['']);
    const archive = (await h.req('cleo', 'GET', `/projects/${pid}/posts/archive.xml`)).xml();
    expect(archive.children.map((c) => text(c, 'author-name'))).toEqual(['']);
    expect((await h.req('cleo', 'GET', `/projects/${pid}/posts.xml`)).body).not.toContain('Rita');
    // what the client does see stays named
    const own = locId(ok(await h.req('cleo', 'POST', `/projects/${pid}/posts.xml`, '<post><title>Own</title><body>b</body></post>'), 201));
    expect(text((await h.req('cleo', 'GET', `/posts/${own}.xml`)).xml(), 'author-name')).toBe('Cleo Client');
  });

  it('todo items: responsible party (person and company), creator and completer; an unchanged save keeps the party', async () => {
    const list = locId(ok(await h.req('fran', 'POST', `/projects/${pid}/todo_lists.xml`, '<todo-list><name>L</name></todo-list>'), 201));
    const byRita = locId(ok(await h.req(RITA, 'POST', `/todo_lists/${list}/todo_items.xml`, `<todo-item><content>R</content><responsible-party>${ids.rita}</responsible-party></todo-item>`), 201));
    ok(await h.req(RITA, 'PUT', `/todo_items/${byRita}/complete.xml`));
    const toRidge = locId(ok(await h.req('fran', 'POST', `/todo_lists/${list}/todo_items.xml`, `<todo-item><content>C</content><responsible-party>c${ids.ridge}</responsible-party></todo-item>`), 201));

    const firm = (await h.req('fran', 'GET', `/todo_items/${byRita}.xml`)).xml();
    expect([text(firm, 'creator-name'), text(firm, 'completer-name'), text(firm, 'responsible-party-name')]).toEqual(['Rita Ridge', 'Rita Ridge', 'Rita Ridge']);
    const a = (await h.req('cleo', 'GET', `/todo_items/${byRita}.xml`)).xml();
    expect([text(a, 'creator-name'), text(a, 'completer-name'), text(a, 'responsible-party-name')]).toEqual(['', '', '']);
    expect([text(a, 'responsible-party-id'), text(a, 'responsible-party-type')]).toEqual([String(ids.rita), 'Person']);
    const b = (await h.req('cleo', 'GET', `/todo_items/${toRidge}.xml`)).xml();
    expect([text(b, 'responsible-party-name'), text(b, 'responsible-party-type'), text(b, 'creator-name')]).toEqual(['', 'Company', 'Fran Firm']);
    expect(text((await h.req('fran', 'GET', `/todo_items/${toRidge}.xml`)).xml(), 'responsible-party-name')).toBe('Ridge Partners');
    // nested in the list, and in the responsible-party view of the firm company... as a client sees it
    const withItems = (await h.req('cleo', 'GET', `/todo_lists/${list}.xml`)).xml();
    expect(el(withItems, 'todo-items')!.children.map((i) => text(i, 'responsible-party-name'))).toEqual(['', '']);
    expect((await h.req('cleo', 'GET', `/todo_lists/${list}.json`)).body).not.toMatch(/Rita|Ridge/);

    for (const item of [byRita, toRidge]) {
      await roundTrip('cleo', `/todo_items/${item}`);
      const form = await editFormRoundTrip('cleo', `/todo_items/${item}`);
      expect(text(form, 'responsible-party')).toBe(item === byRita ? String(ids.rita) : `c${ids.ridge}`);
    }
    const after = (await h.req('fran', 'GET', `/todo_items/${toRidge}.xml`)).xml();
    expect([text(after, 'responsible-party-type'), text(after, 'responsible-party-id')]).toEqual(['Company', String(ids.ridge)]);
    expect(text((await h.req('fran', 'GET', `/todo_items/${byRita}.xml`)).xml(), 'responsible-party-id')).toBe(String(ids.rita));
  });

  it('milestones: responsible party and creator; an unchanged save keeps the party', async () => {
    const m = await milestone(RITA, `<title>Ridge</title><deadline>2031-07-01</deadline><responsible-party>c${ids.ridge}</responsible-party>`);
    const firm = (await milestones('fran')).find((x) => text(x, 'id') === String(m))!;
    expect([text(firm, 'creator-name'), text(firm, 'responsible-party-name')]).toEqual(['Rita Ridge', 'Ridge Partners']);
    const shown = (await milestones('cleo')).find((x) => text(x, 'id') === String(m))!;
    expect([text(shown, 'creator-name'), text(shown, 'responsible-party-name'), text(shown, 'responsible-party-id')]).toEqual(['', '', String(ids.ridge)]);
    const json = (await h.req('cleo', 'GET', `/projects/${pid}/milestones/list.json`)).json() as { id: number; responsible_party_name: string }[];
    expect(json.map((x) => x.responsible_party_name)).toEqual(['']);
    // the record as shown, sent back to the update action (XML, then JSON)
    const xml = (await h.req('cleo', 'GET', `/projects/${pid}/milestones/list`)).body;
    const record = /<milestone>[\s\S]*?<\/milestone>/.exec(xml)![0];
    ok(await h.req('cleo', 'POST', `/milestones/update/${m}`, `<request>${record}</request>`, { 'content-type': 'application/xml' }));
    ok(await h.req('cleo', 'POST', `/milestones/update/${m}`, JSON.stringify(json[0]), jsonHeaders));
    expect((await h.req('cleo', 'GET', `/projects/${pid}/milestones/list`)).body).toBe(xml);
    const after = (await milestones('fran')).find((x) => text(x, 'id') === String(m))!;
    expect([text(after, 'responsible-party-name'), text(after, 'responsible-party-type')]).toEqual(['Ridge Partners', 'Company']);
  });

  it('time entries: person-name; an unchanged save (record, JSON, edit.xml) keeps the person', async () => {
    const e = locId(ok(await h.req(RITA, 'POST', `/projects/${pid}/time_entries.xml`,
      '<time-entry><date>2031-01-10</date><hours>2</hours><description>Survey</description></time-entry>'), 201));
    expect(text((await h.req('fran', 'GET', `/time_entries/${e}.xml`)).xml(), 'person-name')).toBe('Rita Ridge');
    const shown = (await h.req('cleo', 'GET', `/time_entries/${e}.xml`)).xml();
    expect([text(shown, 'person-name'), text(shown, 'person-id')]).toEqual(['', String(ids.rita)]);
    const page = (await h.req('cleo', 'GET', `/projects/${pid}/time_entries.xml`)).xml();
    expect(page.children.map((x) => text(x, 'person-name'))).toEqual(['']);
    await roundTrip('cleo', `/time_entries/${e}`);
    const form = await editFormRoundTrip('cleo', `/time_entries/${e}`);
    expect(text(form, 'person-id')).toBe(String(ids.rita));
    const after = (await h.req('fran', 'GET', `/time_entries/${e}.xml`)).xml();
    expect([text(after, 'person-id'), text(after, 'person-name'), text(after, 'hours')]).toEqual([String(ids.rita), 'Rita Ridge', '2.0']);
  });

  it("a project's company: its name is hidden from a client of another company", async () => {
    const projects = (await h.req('cleo', 'GET', '/projects.xml')).xml().children;
    const ridgeline = projects.find((p) => text(p, 'name') === 'Ridgeline Works')!;
    expect(text(el(ridgeline, 'company')!, 'name')).toBe('');
    expect(text(el(ridgeline, 'company')!, 'id')).toBe(String(ids.ridge));
    const alpha = projects.find((p) => text(p, 'name') === 'Alpha Ascent')!;
    expect(text(el(alpha, 'company')!, 'name')).toBe('Valley Client Co');
    const asRita = (await h.req(RITA, 'GET', '/projects.xml')).xml().children.find((p) => text(p, 'name') === 'Ridgeline Works')!;
    expect(text(el(asRita, 'company')!, 'name')).toBe('Ridge Partners');
    expect(text(el((await h.req('fran', 'GET', '/projects.xml')).xml().children.find((p) => text(p, 'name') === 'Ridgeline Works') ?? ridgeline, 'company')!, 'name'))
      .toMatch(/^(Ridge Partners|)$/);
  });
});

describe('the change feed (sync extension) hides the same', () => {
  it("a client's feed carries no private milestone id and no hidden name, in JSON and XML", async () => {
    const m = await privateMilestone();
    const c0 = Number(((await h.req('cleo', 'GET', '/sync/changes.json')).json() as { cursor: string }).cursor);
    const list = locId(ok(await h.req('fran', 'POST', `/projects/${pid}/todo_lists.xml`, `<todo-list><name>Linked</name><milestone-id>${m}</milestone-id></todo-list>`), 201));
    const post = locId(ok(await h.req(RITA, 'POST', `/projects/${pid}/posts.xml`, '<post><title>From the partner</title><body>b</body></post>'), 201));
    const feed = (await h.req('cleo', 'GET', `/sync/changes.json?since=${c0}`)).json() as { changes: { resource: string; id: number; record?: Record<string, unknown> }[] };
    const rec = (resource: string, id: number) => feed.changes.find((c) => c.resource === resource && c.id === id)?.record;
    expect(rec('todoList', list)).toMatchObject({ name: 'Linked', milestone_id: null });
    expect(rec('post', post)).toMatchObject({ title: 'From the partner', author_name: '', author_id: ids.rita });
    const xml = (await h.req('cleo', 'GET', `/sync/changes.xml?since=${c0}`)).body;
    expect(xml).toContain('<title>From the partner</title>');
    expect(xml).not.toContain('Rita');
    expect(xml).toMatch(/<milestone-id type="integer" nil="true"><\/milestone-id>/);
    // firm people's feed is unchanged
    const firm = (await h.req('fran', 'GET', `/sync/changes.json?since=${c0}`)).json() as typeof feed;
    expect(firm.changes.find((c) => c.resource === 'post' && c.id === post)?.record).toMatchObject({ author_name: 'Rita Ridge' });
    expect(firm.changes.find((c) => c.resource === 'todoList' && c.id === list)?.record).toMatchObject({ milestone_id: m });
  });
});
