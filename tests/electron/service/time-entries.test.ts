import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fx, harness, ids, locId, text, type Harness, type Who } from '../../support/helpers.ts';

let h: Harness;
let f: Awaited<ReturnType<typeof fx>>;
beforeEach(async () => { h = await harness(); f = await fx(h); });
afterEach(async () => { await h.close(); });

const entryXml = (fields: Record<string, string | number>): string =>
  `<time-entry>${Object.entries(fields).map(([k, v]) => `<${k}>${v}</${k}>`).join('')}</time-entry>`;

/** Create an entry through the API; returns its id. */
async function entry(who: Who, projectId: number, fields: Record<string, string | number> = {}): Promise<number> {
  const r = await h.req(who, 'POST', `/projects/${projectId}/time_entries.xml`, entryXml({ date: '2031-01-15', hours: '1.5', ...fields }));
  expect(r.status, r.body).toBe(201);
  return locId(r);
}

/** A todo item in a new list of the project, written straight into the store (the todo routes are not under test here). */
async function todoItem(projectId: number, privateList = false): Promise<number> {
  return h.store.write(async (w) => {
    const list = await w.insert('todo_lists', {
      name: 'List', description: '', position: 1, private: privateList ? 1 : 0, project_id: projectId, tracked: 0,
    }, projectId);
    return w.insert('todo_items', {
      content: 'Item', completed: 0, position: 1, todo_list_id: list, project_id: projectId, creator_id: f.person.fran,
      created_at: w.now, updated_at: w.now,
    }, projectId);
  });
}

async function reportIds(who: Who, query: string): Promise<number[]> {
  const r = await h.req(who, 'GET', `/time_entries/report.xml${query}`);
  expect(r.status, r.body).toBe(200);
  expect(r.xml().name).toBe('time-entries');
  return ids(r.xml());
}

const count = async (): Promise<number> => Number((await h.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM time_entries'))!.n);

describe('time entries: report filters (§8.10)', () => {
  it('from and to are inclusive, in both date forms; the order is date descending, later-created first', async () => {
    const a = f.project.alpha;
    const d09 = await entry('fran', a, { date: '2033-03-09' });
    const d10 = await entry('fran', a, { date: '2033-03-10' });
    const d12 = await entry('fran', a, { date: '2033-03-12' });
    const d12b = await entry('fran', a, { date: '2033-03-12' });
    const d14 = await entry('fran', a, { date: '2033-03-14' });
    await entry('fran', a, { date: '2033-03-15' });
    expect(await reportIds('fran', '?from=20330310&to=20330314')).toEqual([d14, d12b, d12, d10]);
    expect(await reportIds('fran', '?from=2033-03-10&to=2033-03-14')).toEqual([d14, d12b, d12, d10]);
    expect(await reportIds('fran', '?to=20330310')).toEqual([d10, d09]);
    expect((await reportIds('fran', '?from=20330315')).length).toBe(1);
    expect((await reportIds('fran', '')).length).toBe(6);
  });

  it('from after to gives an empty array', async () => {
    await entry('fran', f.project.alpha, { date: '2033-03-10' });
    const r = await h.req('fran', 'GET', '/time_entries/report.xml?from=20330311&to=20330309');
    expect(r.status).toBe(200);
    expect(r.body).toContain('<time-entries type="array">');
    expect(ids(r.xml())).toEqual([]);
  });

  it('each id filter selects its entries: subject_id, todo_item_id, filter_project_id, filter_company_id', async () => {
    const { alpha, basecamp } = f.project;
    const item = await todoItem(alpha);
    const finnA = await entry('fran', alpha, { 'person-id': f.person.finn, date: '2033-05-01' });
    const franA = await entry('fran', alpha, { date: '2033-05-01' });
    const finnB = await entry('fran', basecamp, { 'person-id': f.person.finn, date: '2033-05-01' });
    const onItem = (await h.req('fran', 'POST', `/todo_items/${item}/time_entries.xml`, entryXml({ date: '2033-05-02', hours: 1 })));
    expect(onItem.status).toBe(201);
    const itemEntry = locId(onItem);
    expect(await reportIds('fran', `?subject_id=${f.person.finn}`)).toEqual([finnB, finnA]);
    expect(await reportIds('fran', `?todo_item_id=${item}`)).toEqual([itemEntry]);
    expect(await reportIds('fran', `?filter_project_id=${basecamp}`)).toEqual([finnB]);
    expect(await reportIds('fran', `?filter_company_id=${f.company.client}`)).toEqual([itemEntry, franA, finnA]);
    expect(await reportIds('fran', `?filter_company_id=${f.company.firm}`)).toEqual([finnB]);
  });

  it('filters combine; 0 and empty mean not set; the first of repeated values counts', async () => {
    const { alpha, basecamp } = f.project;
    const finnA = await entry('fran', alpha, { 'person-id': f.person.finn, date: '2033-05-05' });
    const franA = await entry('fran', alpha, { date: '2033-05-05' });
    const finnB = await entry('fran', basecamp, { 'person-id': f.person.finn, date: '2033-05-05' });
    expect(await reportIds('fran', `?from=20330505&to=20330505&subject_id=${f.person.finn}&todo_item_id=0&filter_project_id=${alpha}&filter_company_id=`))
      .toEqual([finnA]);
    expect(await reportIds('fran', `?subject_id=${f.person.finn}&filter_company_id=${f.company.firm}`)).toEqual([finnB]);
    expect(await reportIds('fran', '?from=&to=&subject_id=0&todo_item_id=0&filter_project_id=0&filter_company_id=0'))
      .toEqual([finnB, franA, finnA]);
    expect(await reportIds('fran', `?subject_id=${f.person.fran}&subject_id=${f.person.finn}`)).toEqual([franA]);
  });

  it('ids that match nothing give an empty array, not 404', async () => {
    await entry('fran', f.project.alpha);
    for (const q of ['?subject_id=999999', '?todo_item_id=999999', '?filter_project_id=999999', '?filter_company_id=999999',
      '?subject_id=99999999999999999999', `?subject_id=${f.person.carl}`]) {
      expect(await reportIds('fran', q), q).toEqual([]);
    }
    // A project the caller does not see is "nothing" too.
    await entry('fran', f.project.crevasse);
    expect(await reportIds('finn', `?filter_project_id=${f.project.crevasse}`)).toEqual([]);
  });

  it('parameters in another form answer 400 with <errors>', async () => {
    for (const q of ['from=2033-13-01', 'to=yesterday', 'from=20330230', 'from=2033-3-1', 'to=203303011', 'subject_id=abc',
      'subject_id=-1', 'subject_id=%2B1', 'todo_item_id=1.5', 'filter_project_id=p1', 'filter_company_id=c1', 'filter_company_id=1,2']) {
      const r = await h.req('fran', 'GET', `/time_entries/report.xml?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.xml().name).toBe('errors');
    }
    expect((await h.req('fran', 'GET', '/time_entries/report.json?from=nope')).json()).toMatchObject({ errors: [expect.any(String)] });
  });
});

describe('time entries: legacy report path (§8.10)', () => {
  it('accepts every documented path form, GET and POST alike', async () => {
    const { alpha, basecamp } = f.project;
    const finn = f.person.finn;
    const hit = await entry('fran', alpha, { 'person-id': finn, date: '2034-01-10' });
    const otherPerson = await entry('fran', alpha, { date: '2034-01-10' });
    const otherProject = await entry('fran', basecamp, { 'person-id': finn, date: '2034-01-10' });
    const late = await entry('fran', alpha, { 'person-id': finn, date: '2034-01-12' });
    const all = [late, otherProject, otherPerson, hit];
    const cases: [string, number[]][] = [
      [`/time/report/${finn}/20340109/20340111/p${alpha}`, [hit]],
      [`/time/report/${finn}/2034-01-09/2034-01-11/p${alpha}`, [hit]],
      [`/time/report/0/20340110/20340110/c${f.company.firm}`, [otherProject]],
      [`/time/report/0/20340110/20340110/c${f.company.client}`, [otherPerson, hit]],
      ['/time/report/0/0/0', all],
      ['/time/report/0/0/0/', all],
      ['/time/report///', all],
      ['/time/report////', all],
      [`/time/report/${finn}//`, [late, otherProject, hit]],
      [`/time/report//20340111/`, [late]],
      [`/time/report///20340110/p${alpha}`, [otherPerson, hit]],
      ['/time/report/0/0/0/p0', all],
      ['/time/report/999999/0/0/', []],
      ['/time/report/0/20340112/20340110/', []],
    ];
    for (const [url, want] of cases) {
      for (const method of ['GET', 'POST', 'PUT']) {
        const r = await h.req('fran', method, url, method === 'POST' ? '<request></request>' : undefined);
        expect(r.status, `${method} ${url}`).toBe(200);
        expect(r.xml().name).toBe('time-entries');
        expect(ids(r.xml()), `${method} ${url}`).toEqual(want);
      }
    }
  });

  it('answers 400 for a segment in another form, and ignores any body', async () => {
    for (const url of ['/time/report/0/20340101/20340131/x7', '/time/report/0/yesterday/20340131/', '/time/report/me/20340101/20340131/',
      '/time/report/0/20341301/0/', '/time/report/0/0/2034013/', '/time/report/-1/0/0', '/time/report/0/0/0/p', '/time/report/0/0/0/pp1',
      '/time/report/0/0/0/P1', '/time/report/x/y/z/q']) {
      const r = await h.req('fran', 'GET', url);
      expect(r.status, url).toBe(400);
      expect(r.xml().name).toBe('errors');
    }
    expect((await h.req('fran', 'POST', '/time/report/0/0/0', 'this is <not xml')).status).toBe(200);
    expect((await h.req(null, 'GET', '/time/report/0/0/0')).status).toBe(401);
  });
});

describe('time entries: project list pagination (§6.3)', () => {
  it('serves 50 per page with X-Records, X-Pages and X-Page; past the end is empty with the same headers', async () => {
    const b = f.project.basecamp;
    await h.store.write(async (w) => {
      for (let i = 0; i < 101; i++) {
        await w.insert('time_entries', {
          project_id: b, person_id: f.person.fran, date: `2031-01-${String(1 + (i % 28)).padStart(2, '0')}`, hours: 1, description: `e${i}`,
          private: 0, todo_item_id: null,
        }, b);
      }
    });
    const pages: number[][] = [];
    for (const [q, n, page] of [['', 50, '1'], ['?page=0', 50, '1'], ['?page=2', 50, '2'], ['?page=3', 1, '3'], ['?page=4', 0, '4'], ['?page=', 50, '1'], ['?page=002', 50, '2']] as const) {
      const r = await h.req('fran', 'GET', `/projects/${b}/time_entries.xml${q}`);
      expect(r.status).toBe(200);
      expect([r.headers['x-records'], r.headers['x-pages'], r.headers['x-page']], q).toEqual(['101', '3', page]);
      expect(ids(r.xml()), q).toHaveLength(n);
      pages.push(ids(r.xml()));
    }
    const seen = [...pages[0], ...pages[2], ...pages[3]];
    expect(new Set(seen).size).toBe(101);
    // Order holds across pages: date descending, then id descending.
    const rows = await h.store.all<{ id: number }>('SELECT id FROM time_entries ORDER BY date DESC, id DESC');
    expect(seen).toEqual(rows.map((r) => r.id));
    expect((await h.req('fran', 'GET', `/projects/${b}/time_entries.xml?page=x`)).status).toBe(400);
    expect((await h.req('fran', 'GET', `/projects/${b}/time_entries.xml?page=-1`)).status).toBe(400);
    const j = await h.req('fran', 'GET', `/projects/${b}/time_entries.json?page=3`);
    expect(j.headers['x-records']).toBe('101');
    expect((j.json() as unknown[]).length).toBe(1);
  });

  it('an empty project has X-Pages 1; an invisible project is 404', async () => {
    const r = await h.req('ada', 'GET', `/projects/${f.project.basecamp}/time_entries.xml`);
    expect([r.headers['x-records'], r.headers['x-pages'], r.headers['x-page']]).toEqual(['0', '1', '1']);
    expect(r.body).toContain('<time-entries type="array">');
    expect((await h.req('cleo', 'GET', `/projects/${f.project.basecamp}/time_entries.xml`)).status).toBe(404);
    expect((await h.req('ada', 'GET', `/projects/${f.project.crevasse}/time_entries.xml`)).status).toBe(200);
  });
});

describe('time entries: visibility for clients (§5.2)', () => {
  it('private entries and entries of items in private lists are hidden from clients everywhere', async () => {
    const a = f.project.alpha;
    const secretList = await todoItem(a, true);
    const openItem = await todoItem(a, false);
    const open = await entry('fran', a, { date: '2035-01-10' });
    const secret = await entry('fran', a, { date: '2035-01-10', private: 'true' });
    const inPrivateList = await entry('fran', a, { date: '2035-01-10', 'todo-item-id': secretList });
    const onOpenItem = await entry('fran', a, { date: '2035-01-10', 'todo-item-id': openItem });

    for (const id of [secret, inPrivateList]) {
      expect((await h.req('cleo', 'GET', `/time_entries/${id}.xml`)).status).toBe(404);
      expect((await h.req('cleo', 'GET', `/time_entries/${id}`)).status).toBe(404);
      expect((await h.req('cleo', 'PUT', `/time_entries/${id}.xml`, entryXml({ hours: 9 }))).status).toBe(404);
      expect((await h.req('cleo', 'DELETE', `/time_entries/${id}.xml`)).status).toBe(404);
      expect((await h.req('cleo', 'GET', `/projects/${a}/time/delete_entry/${id}`)).status).toBe(404);
      expect((await h.req('cleo', 'GET', `/time_entries/${id}/edit.xml`)).status).toBe(404);
      expect((await h.req('fran', 'GET', `/time_entries/${id}.xml`)).status).toBe(200);
    }
    const visible = [onOpenItem, open];
    expect(await reportIds('cleo', '?from=20350110&to=20350110')).toEqual(visible);
    expect(ids((await h.req('cleo', 'GET', '/time/report/0/20350110/20350110/')).xml())).toEqual(visible);
    const list = await h.req('cleo', 'GET', `/projects/${a}/time_entries.xml`);
    expect(ids(list.xml())).toEqual(visible);
    expect(list.headers['x-records']).toBe('2');
    const firm = await h.req('finn', 'GET', `/projects/${a}/time_entries.xml`);
    expect(firm.headers['x-records']).toBe('4');
    expect(await reportIds('finn', '?from=20350110&to=20350110')).toEqual([onOpenItem, inPrivateList, secret, open]);
    // The item of a private list is invisible itself; its entries list is 404.
    expect((await h.req('cleo', 'GET', `/todo_items/${secretList}/time_entries.xml`)).status).toBe(404);
    expect(ids((await h.req('finn', 'GET', `/todo_items/${secretList}/time_entries.xml`)).xml())).toEqual([inPrivateList]);
    expect(ids((await h.req('cleo', 'GET', `/todo_items/${openItem}/time_entries.xml`)).xml())).toEqual([onOpenItem]);

    // Counts follow every change: the open item's list becomes private, an entry is deleted.
    const listOf = (await h.store.get<{ todo_list_id: number }>('SELECT todo_list_id FROM todo_items WHERE id = ?', [openItem]))!.todo_list_id;
    await h.store.write((w) => w.update('todo_lists', listOf, { private: 1 }, a));
    const after = await h.req('cleo', 'GET', `/projects/${a}/time_entries.xml`);
    expect([after.headers['x-records'], ids(after.xml())]).toEqual(['1', [open]]);
    expect((await h.req('fran', 'DELETE', `/time_entries/${secret}.xml`)).status).toBe(200);
    expect((await h.req('finn', 'GET', `/projects/${a}/time_entries.xml`)).headers['x-records']).toBe('3');
    expect((await h.req('cleo', 'GET', `/projects/${a}/time_entries.xml`)).headers['x-records']).toBe('1');
  });

  it('clients never see <private>; their private input is ignored; firm people always see it', async () => {
    const a = f.project.alpha;
    const mine = await entry('cleo', a, { private: 'true' });
    const r = await h.req('cleo', 'GET', `/time_entries/${mine}.xml`);
    expect(r.status).toBe(200);
    expect(r.body).not.toContain('<private');
    expect(text((await h.req('fran', 'GET', `/time_entries/${mine}.xml`)).xml(), 'private')).toBe('false');
    expect((await h.req('cleo', 'PUT', `/time_entries/${mine}.xml`, entryXml({ private: 'true' }))).status).toBe(200);
    expect(text((await h.req('fran', 'GET', `/time_entries/${mine}.xml`)).xml(), 'private')).toBe('false');
    expect((await h.req('cleo', 'PUT', `/time_entries/${mine}.xml`, entryXml({ private: 'maybe' }))).status).toBe(200);
    expect((await h.req('fran', 'PUT', `/time_entries/${mine}.xml`, entryXml({ private: 'maybe' }))).status).toBe(422);
    const tpl = await h.req('cleo', 'GET', `/projects/${a}/time_entries/new.xml`);
    expect(tpl.body).not.toContain('<private');
    expect((await h.req('fran', 'GET', `/projects/${a}/time_entries/new.xml`)).body).toContain('<private type="boolean" nil="true">');
  });

  it('people outside the project see nothing of it', async () => {
    const id = await entry('fran', f.project.basecamp);
    expect((await h.req('cleo', 'GET', `/time_entries/${id}.xml`)).status).toBe(404);
    expect((await h.req('carl', 'GET', `/time_entries/${id}.xml`)).status).toBe(404);
    expect(await reportIds('carl', '')).toEqual([]);
    expect((await h.req('carl', 'POST', `/projects/${f.project.alpha}/time_entries.xml`, entryXml({ date: '2031-01-01', hours: 1 }))).status).toBe(404);
    expect((await h.req('ada', 'GET', `/time_entries/${id}.xml`)).status).toBe(200);
  });
});

describe('time entries: validation (422) leaves the data unchanged', () => {
  it('reads every hours form and rounds to 2 decimals', async () => {
    const a = f.project.alpha;
    for (const [input, out] of [['1.5', '1.5'], ['.25', '0.25'], ['1:30', '1.5'], [':15', '0.25'], ['2', '2.0'], [' 3 ', '3.0'], ['1.234', '1.23'], ['0', '0.0'], ['0:05', '0.08']]) {
      const id = await entry('fran', a, { hours: input });
      expect(text((await h.req('fran', 'GET', `/time_entries/${id}.xml`)).xml(), 'hours'), input).toBe(out);
    }
  });

  it('refuses negative, non-numeric and blank hours, bad dates, one error per problem', async () => {
    const url = `/projects/${f.project.alpha}/time_entries.xml`;
    const before = await count();
    for (const [body, n] of [
      [entryXml({ date: '2031-01-01', hours: '-1' }), 1], [entryXml({ date: '2031-01-01', hours: '-0:30' }), 1],
      [entryXml({ date: '2031-01-01', hours: 'two' }), 1], [entryXml({ date: '2031-01-01', hours: '1:75' }), 1],
      [entryXml({ date: '2031-01-01', hours: '' }), 1], [entryXml({ date: '2031-02-30', hours: '1' }), 1],
      [entryXml({ date: 'soon', hours: 'x' }), 2], [entryXml({ description: 'nothing else' }), 2], ['', 2],
      [entryXml({ date: '2031-01-01', hours: '1', 'person-id': 'x', 'todo-item-id': 'y', private: 'perhaps' }), 3],
    ] as const) {
      const r = await h.req('fran', 'POST', url, body);
      expect(r.status, body).toBe(422);
      expect(r.xml().children.filter((c) => c.name === 'error'), body).toHaveLength(n);
    }
    expect(await count()).toBe(before);
  });

  it('person-id must be a person with access to the project (member or administrator)', async () => {
    const { alpha, basecamp, crevasse } = f.project;
    const before = await count();
    for (const [pid, person] of [[basecamp, f.person.cleo], [alpha, f.person.carl], [crevasse, f.person.finn], [alpha, 999999]] as const) {
      const r = await h.req('fran', 'POST', `/projects/${pid}/time_entries.xml`, entryXml({ date: '2031-01-01', hours: 1, 'person-id': person }));
      expect(r.status, `${pid}/${person}`).toBe(422);
      expect(r.xml().children).toHaveLength(1);
    }
    expect(await count()).toBe(before);
    // Ada is not a member of crevasse, but administrators have access to every project.
    const r = await h.req('fran', 'POST', `/projects/${crevasse}/time_entries.xml`, entryXml({ date: '2031-01-01', hours: 1, 'person-id': f.person.ada }));
    expect(r.status).toBe(201);
    expect(text(r.xml(), 'person-name')).toBe('Ada Admin');
    // Empty or 0 on create: the caller.
    const z = await h.req('finn', 'POST', `/projects/${alpha}/time_entries.xml`, entryXml({ date: '2031-01-01', hours: 1, 'person-id': 0 }));
    expect(text(z.xml(), 'person-id')).toBe(String(f.person.finn));
  });

  it('todo-item-id must be an item of this project that the caller sees; a failed update changes nothing', async () => {
    const { alpha, basecamp } = f.project;
    const foreign = await todoItem(basecamp);
    const own = await todoItem(alpha);
    const hidden = await todoItem(alpha, true);
    const id = await entry('fran', alpha, { date: '2031-06-01', hours: 1, description: 'Keep' });
    const before = (await h.req('fran', 'GET', `/time_entries/${id}.xml`)).body;
    for (const body of [entryXml({ 'todo-item-id': foreign }), entryXml({ 'todo-item-id': 999999, hours: 5 }), entryXml({ 'person-id': f.person.carl, description: 'Changed' }),
      entryXml({ hours: '-2', description: 'Changed' })]) {
      const r = await h.req('fran', 'PUT', `/time_entries/${id}.xml`, body);
      expect(r.status, body).toBe(422);
      expect(r.xml().children).toHaveLength(1);
      expect((await h.req('fran', 'GET', `/time_entries/${id}.xml`)).body).toBe(before);
    }
    expect((await h.req('cleo', 'PUT', `/time_entries/${id}.xml`, entryXml({ 'todo-item-id': hidden }))).status).toBe(422);
    const ok = await h.req('fran', 'PUT', `/time_entries/${id}.xml`, entryXml({ 'todo-item-id': own }));
    expect(text(ok.xml(), 'todo-item-id')).toBe(String(own));
    const cleared = await h.req('fran', 'PUT', `/time_entries/${id}.xml`, '<time-entry><todo-item-id>0</todo-item-id></time-entry>');
    expect(cleared.xml().children.find((c) => c.name === 'todo-item-id')!.nil).toBe(true);
    expect(text(cleared.xml(), 'description')).toBe('Keep');
  });

  it('the todo item route takes the item from the route and ignores todo-item-id in the body', async () => {
    const item = await todoItem(f.project.basecamp);
    const other = await todoItem(f.project.alpha);
    const r = await h.req('fran', 'POST', `/todo_items/${item}/time_entries.xml`, entryXml({ date: '2031-03-05', hours: '0.5', 'todo-item-id': other }));
    expect(r.status).toBe(201);
    expect(r.headers.location).toBe(`/time_entries/${locId(r)}`);
    expect([text(r.xml(), 'todo-item-id'), text(r.xml(), 'project-id')]).toEqual([String(item), String(f.project.basecamp)]);
    expect((await h.req('fran', 'POST', '/todo_items/999999/time_entries.xml', entryXml({ date: '2031-03-05', hours: 1 }))).status).toBe(404);
    expect((await h.req('fran', 'POST', '/todo_items/abc/time_entries.xml', entryXml({ date: '2031-03-05', hours: 1 }))).status).toBe(404);
  });
});

describe('time entries: legacy save_entry and delete_entry', () => {
  const req = (inner: string) => `<request><entry>${inner}</entry></request>`;

  it('POST /time/save_entry selects the project from project-id: missing 422, bad/unknown/invisible 404', async () => {
    const before = await count();
    const missing = await h.req('fran', 'POST', '/time/save_entry', req('<date>2031-08-01</date><hours>1</hours>'));
    expect(missing.status).toBe(422);
    const both = await h.req('fran', 'POST', '/time/save_entry', req('<hours>-1</hours>'));
    expect([both.status, both.xml().children.length]).toEqual([422, 3]);
    expect((await h.req('fran', 'POST', '/time/save_entry', req('<project-id></project-id><date>2031-08-01</date><hours>1</hours>'))).status).toBe(422);
    for (const pid of ['abc', '999999999', '-1', '0', String(f.project.basecamp)]) {
      const r = await h.req('cleo', 'POST', '/time/save_entry', req(`<project-id>${pid}</project-id><date>2031-08-01</date><hours>1</hours>`));
      expect(r.status, pid).toBe(404);
    }
    // A selecting id is checked before validation (§4.5).
    expect((await h.req('fran', 'POST', '/time/save_entry', req('<project-id>999999999</project-id><hours>x</hours>'))).status).toBe(404);
    expect(await count()).toBe(before);
    const ok = await h.req('fran', 'GET', '/time/save_entry',
      `<request><project_id>${f.project.alpha}</project_id><entry><person_id>${f.person.finn}</person_id><date>20310801</date><hours>1.25</hours></entry></request>`);
    expect(ok.status).toBe(201);
    expect(ok.headers.location).toBe(`/time_entries/${locId(ok)}`);
    expect([text(ok.xml(), 'project-id'), text(ok.xml(), 'person-id'), text(ok.xml(), 'date')]).toEqual([String(f.project.alpha), String(f.person.finn), '2031-08-01']);
  });

  it('POST /time/save_entry/{id} updates partially and ignores project-id', async () => {
    const id = await entry('fran', f.project.alpha, { hours: 1, description: 'Keep legacy' });
    const r = await h.req('fran', 'POST', `/time/save_entry/${id}`, req(`<project-id>${f.project.basecamp}</project-id><hours>4</hours>`));
    expect(r.status).toBe(200);
    expect([text(r.xml(), 'hours'), text(r.xml(), 'description'), text(r.xml(), 'project-id')]).toEqual(['4.0', 'Keep legacy', String(f.project.alpha)]);
    expect((await h.req('fran', 'POST', '/time/save_entry/999999', req('<hours>4</hours>'))).status).toBe(404);
  });

  it('deletes: the resource answers an empty 200, the action the deleted record (404 under another project)', async () => {
    const a = f.project.alpha;
    const x = await entry('fran', a, { description: 'Gone' });
    const del = await h.req('fran', 'DELETE', `/time_entries/${x}.xml`);
    expect([del.status, del.body]).toEqual([200, '']);
    expect((await h.req('fran', 'GET', `/time_entries/${x}.xml`)).status).toBe(404);
    expect((await h.req('fran', 'DELETE', `/time_entries/${x}.xml`)).status).toBe(404);
    const y = await entry('fran', a, { description: 'Legacy delete' });
    expect((await h.req('fran', 'GET', `/projects/${f.project.basecamp}/time/delete_entry/${y}`)).status).toBe(404);
    expect((await h.req('fran', 'GET', `/time_entries/${y}.xml`)).status).toBe(200);
    const r = await h.req('fran', 'POST', `/projects/${a}/time/delete_entry/${y}`, 'stale body');
    expect(r.status).toBe(200);
    expect(text(r.xml(), 'description')).toBe('Legacy delete');
    expect((await h.req('fran', 'GET', `/time_entries/${y}.xml`)).status).toBe(404);
    // The change feed recorded the delete.
    expect(await h.store.get("SELECT op FROM changes WHERE tbl = 'time_entries' AND record_id = ? AND op = 'delete'", [y])).toBeDefined();
  });
});

describe('time entries: templates and representation', () => {
  it('edit.xml is filled in the record\'s form with X-Update-Action; new.xml is blank with X-Create-Action', async () => {
    const a = f.project.alpha;
    const id = await entry('fran', a, { date: '2031-07-07', hours: '2.5', description: 'Edit entry' });
    const e = await h.req('fran', 'GET', `/time_entries/${id}/edit.xml`);
    expect(e.headers['x-update-action']).toBe(`PUT /time_entries/${id}.xml`);
    const t = e.xml();
    expect(t.children.map((c) => c.name).sort()).toEqual(['date', 'description', 'hours', 'person-id', 'private', 'todo-item-id']);
    expect([text(t, 'date'), text(t, 'hours'), text(t, 'person-id'), text(t, 'private')]).toEqual(['2031-07-07', '2.5', String(f.person.fran), 'false']);
    const n = await h.req('finn', 'GET', `/projects/${a}/time_entries/new.xml`);
    expect(n.headers['x-create-action']).toBe(`POST /projects/${a}/time_entries.xml`);
    expect(n.xml().children.every((c) => c.nil)).toBe(true);
    expect((await h.req('cleo', 'GET', `/projects/${f.project.basecamp}/time_entries/new.xml`)).status).toBe(404);
  });

  it('JSON twins answer the same records', async () => {
    const id = await entry('fran', f.project.alpha, { hours: '2', description: 'json' });
    const j = await h.req('fran', 'GET', `/time_entries/${id}.json`);
    expect(j.json()).toEqual({
      date: '2031-01-15', description: 'json', hours: 2, id, person_id: f.person.fran, person_name: 'Fran Firm',
      private: false, project_id: f.project.alpha, todo_item_id: null,
    });
    const c = await h.req('fran', 'POST', `/projects/${f.project.alpha}/time_entries.json`, JSON.stringify({ time_entry: { date: '2031-01-16', hours: '1:15' } }), { 'content-type': 'application/json' });
    expect(c.status).toBe(201);
    expect(c.headers.location).toMatch(/^\/time_entries\/\d+$/);
    expect((c.json() as { hours: number }).hours).toBe(1.25);
  });
});
