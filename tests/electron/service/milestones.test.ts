import { describe, expect, it } from 'vitest';
import { freshAccount, ids, locId, text, type Harness, type Who, type Account } from '../../support/helpers.ts';
import { shiftDate } from '../../../electron/service/milestones.ts';
import type { XNode } from '../../../shared/codec/in.ts';

let h: Harness;
let f: Account['f'];
let pid: number;
freshAccount((a) => { ({ h, f, pid } = a); });

const el = (n: XNode, name: string) => n.children.find((c) => c.name === name);
const ms = (fields: Record<string, string | number>) =>
  `<milestone>${Object.entries({ title: 'M', deadline: '2099-06-01', ...fields }).map(([k, v]) => `<${k}>${v}</${k}>`).join('')}</milestone>`;
async function milestone(fields: Record<string, string | number> = {}, who: Who = 'fran', project = pid): Promise<number> {
  const r = await h.req(who, 'POST', `/projects/${project}/milestones/create`, `<request>${ms(fields)}</request>`);
  expect(r.status, r.body).toBe(201);
  return locId(r);
}
const listed = async (find?: string, who: Who = 'fran', project = pid) =>
  (await h.req(who, 'POST', `/projects/${project}/milestones/list`, find === undefined ? '<request/>' : `<request><find>${find}</find></request>`)).xml();
const byId = (x: XNode, id: number) => x.children.find((c) => Number(text(c, 'id')) === id)!;
async function newProject(): Promise<number> {
  return locId(await h.req('ada', 'POST', '/projects.xml', '<project><name>P</name></project>'));
}

describe('milestones: create', () => {
  it('creates a batch in request order (201, Location of the first), with defaults', async () => {
    const r = await h.req('fran', 'POST', `/projects/${pid}/milestones/create`, `<request>${ms({ title: 'A', deadline: '20990701' })}${ms({ title: 'B', deadline: '2099-03-01T10:00' })}</request>`);
    expect(r.status).toBe(201);
    const x = r.xml();
    expect(x.name).toBe('milestones');
    expect(x.attrs.type).toBe('array');
    expect(x.children.map((c) => text(c, 'title'))).toEqual(['A', 'B']);
    expect(r.headers.location).toBe(`/milestones/${text(x.children[0], 'id')}`);
    const m = x.children[0];
    expect(m.children.map((c) => c.name).sort()).toEqual([
      'commented-at', 'comments-count', 'completed', 'created-on', 'creator-id', 'creator-name', 'deadline', 'id', 'private', 'project-id',
      'title', 'wants-notification',
    ]);
    expect(text(m, 'deadline')).toBe('2099-07-01');
    expect(text(m, 'created-on')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(el(m, 'created-on')!.attrs.type).toBe('datetime');
    expect([text(m, 'completed'), text(m, 'wants-notification'), text(m, 'comments-count'), text(m, 'creator-name')]).toEqual(['false', 'false', '0', 'Fran Firm']);
  });

  it('bare <milestone> root and flat <request> create one; notify is stored as wants-notification', async () => {
    const a = await h.req('fran', 'POST', `/projects/${pid}/milestones/create`, ms({ title: 'Bare', notify: 'true' }));
    expect(a.status).toBe(201);
    expect(text(a.xml().children[0], 'wants-notification')).toBe('true');
    const b = await h.req('fran', 'POST', `/projects/${pid}/milestones/create`, '<request><title>Flat</title><deadline>2099-01-01</deadline></request>');
    expect(b.xml().children.map((c) => text(c, 'title'))).toEqual(['Flat']);
  });

  it('an invalid batch creates nothing and reports the problems of all milestones', async () => {
    const r = await h.req('fran', 'POST', `/projects/${pid}/milestones/create`,
      `<request>${ms({ title: 'Good' })}<milestone><deadline>2099-02-30</deadline></milestone>${ms({ title: 'x'.repeat(256), 'responsible-party': 'someone', notify: 'maybe' })}</request>`);
    expect(r.status).toBe(422);
    expect(r.xml().children).toHaveLength(5);
    expect((await listed()).children).toHaveLength(0);
    expect((await h.req('fran', 'POST', `/projects/${pid}/milestones/create`, '')).xml().children).toHaveLength(2);
  });

  it('responsible party: person or company of the project, else 422', async () => {
    const p = await milestone({ 'responsible-party': f.person.finn });
    const c = await milestone({ 'responsible-party': `c${f.company.client}` });
    const x = await listed();
    expect([text(byId(x, p), 'responsible-party-type'), text(byId(x, p), 'responsible-party-name')]).toEqual(['Person', 'Finn Fellow']);
    expect([text(byId(x, c), 'responsible-party-type'), text(byId(x, c), 'responsible-party-name')]).toEqual(['Company', 'Valley Client Co']);
    const url = `/projects/${f.project.basecamp}/milestones/create`;
    expect((await h.req('fran', 'POST', url, ms({ 'responsible-party': f.person.cleo }))).status).toBe(422);
    expect((await h.req('fran', 'POST', url, ms({ 'responsible-party': `c${f.company.client}` }))).status).toBe(422);
  });
});

describe('milestones: list and find', () => {
  it('orders by deadline; find=all|late|upcoming|completed|complete, from body or query; other values 400', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const far = await milestone({ deadline: '2098-01-01' });
    const late = await milestone({ deadline: '2001-01-10' });
    const lateDone = await milestone({ deadline: '2001-01-11' });
    const now = await milestone({ deadline: today });
    expect((await h.req('fran', 'GET', `/milestones/complete/${lateDone}`)).status).toBe(200);
    expect(ids(await listed())).toEqual([late, lateDone, now, far]);
    expect(ids(await listed('all'))).toEqual([late, lateDone, now, far]);
    expect(ids(await listed('late'))).toEqual([late]);
    expect(ids(await listed('upcoming'))).toEqual([now, far]);
    expect(ids(await listed('completed'))).toEqual([lateDone]);
    expect(ids(await listed('complete'))).toEqual([lateDone]);
    expect(ids((await h.req('fran', 'GET', `/projects/${pid}/milestones/list?find=late`)).xml())).toEqual([late]);
    expect(ids((await h.req('fran', 'GET', `/projects/${pid}/milestones/list.xml?find=upcoming`)).xml())).toEqual([now, far]);
    expect(ids((await h.req('fran', 'POST', `/projects/${pid}/milestones/list.xml`, '<request><find>completed</find></request>')).xml())).toEqual([lateDone]);
    expect((await h.req('fran', 'POST', `/projects/${pid}/milestones/list`, '<request><find>someday</find></request>')).status).toBe(400);
    expect((await h.req('fran', 'GET', '/projects/999999/milestones/list?find=someday')).status).toBe(400);
    expect((await h.req('fran', 'GET', '/projects/999999/milestones/list')).status).toBe(404);
    expect((await h.req('fran', 'PUT', `/projects/${pid}/milestones/list.xml`)).status).toBe(405);
  });

  it('clients never see private milestones; their private input is ignored; no <private> for them', async () => {
    const secret = await milestone({ private: 'true' });
    const open = await milestone();
    const x = await listed(undefined, 'cleo');
    expect(ids(x)).toEqual([open]);
    expect(el(x.children[0], 'private')).toBeUndefined();
    for (const u of [`/milestones/complete/${secret}`, `/milestones/update/${secret}`, `/milestones/delete/${secret}`]) {
      expect((await h.req('cleo', 'GET', u)).status, u).toBe(404);
    }
    const mine = await milestone({ private: 'true' }, 'cleo');
    expect(text(byId(await listed(), mine), 'private')).toBe('false');
  });

  it('comments-count and commented-at count visible comments only', async () => {
    const m = await milestone();
    await h.store.write(async (w) => {
      await w.insert('comments', { body: 'a', commentable_type: 'Milestone', commentable_id: m, author_id: f.person.fran, created_at: '2030-01-01T00:00:00Z', private: 0, project_id: pid }, pid);
      await w.insert('comments', { body: 'b', commentable_type: 'Milestone', commentable_id: m, author_id: f.person.fran, created_at: '2030-03-01T00:00:00Z', private: 1, project_id: pid }, pid);
    });
    const c = byId(await listed(undefined, 'cleo'), m);
    expect([text(c, 'comments-count'), text(c, 'commented-at')]).toEqual(['1', '2030-01-01T00:00:00Z']);
    const fr = byId(await listed(), m);
    expect([text(fr, 'comments-count'), text(fr, 'commented-at')]).toEqual(['2', '2030-03-01T00:00:00Z']);
  });
});

describe('milestones: update and shifting', () => {
  it('shiftDate moves Saturday and Sunday to Monday only when asked', () => {
    expect(shiftDate('2030-01-10', 2, false)).toBe('2030-01-12');
    expect(shiftDate('2030-01-10', 2, true)).toBe('2030-01-14');
    expect(shiftDate('2030-01-11', 2, true)).toBe('2030-01-14');
    expect(shiftDate('2030-01-14', -2, true)).toBe('2030-01-14');
    expect(shiftDate('2030-03-01', -1, false)).toBe('2030-02-28');
  });

  it('updates only the fields sent; validation 422 changes nothing', async () => {
    const m = await milestone({ title: 'Old', deadline: '2099-08-08' });
    const u = await h.req('fran', 'POST', `/milestones/update/${m}`, '<request><milestone><title>New</title></milestone></request>');
    expect([text(u.xml(), 'title'), text(u.xml(), 'deadline')]).toEqual(['New', '2099-08-08']);
    const bad = await h.req('fran', 'POST', `/milestones/update/${m}`, '<request><milestone><title></title><deadline>never</deadline></milestone><move-upcoming-milestones>perhaps</move-upcoming-milestones></request>');
    expect(bad.status).toBe(422);
    expect(bad.xml().children).toHaveLength(3);
    expect(text(byId(await listed(), m), 'title')).toBe('New');
  });

  it('move-upcoming-milestones shifts later open milestones by the same days; off weekends to Monday', async () => {
    const p = await newProject();
    const mk = (deadline: string) => milestone({ deadline }, 'ada', p);
    const m0 = await mk('2030-01-01');
    const m1 = await mk('2030-01-07');
    const m2 = await mk('2030-01-10');
    const m3 = await mk('2030-01-11');
    const done = await mk('2030-01-20');
    await h.req('ada', 'GET', `/milestones/complete/${done}`);
    const dl = async () => Object.fromEntries((await listed(undefined, 'ada', p)).children.map((c) => [Number(text(c, 'id')), text(c, 'deadline')]));
    // Without the flag nothing else moves.
    await h.req('ada', 'POST', `/milestones/update/${m1}`, '<request><milestone><deadline>2030-01-08</deadline></milestone></request>');
    expect(await dl()).toMatchObject({ [m2]: '2030-01-10', [m3]: '2030-01-11' });
    // +1 day, no weekend rule: Jan 10 (Thu) -> Jan 11, Jan 11 (Fri) -> Jan 12 (Sat).
    await h.req('ada', 'POST', `/milestones/update/${m1}`, '<request><milestone><deadline>2030-01-09</deadline></milestone><move-upcoming-milestones>true</move-upcoming-milestones></request>');
    expect(await dl()).toMatchObject({ [m0]: '2030-01-01', [m1]: '2030-01-09', [m2]: '2030-01-11', [m3]: '2030-01-12', [done]: '2030-01-20' });
    // +4 days, off weekends: Jan 11 -> Jan 15 (Tue), Jan 12 -> Jan 16; m1 lands on Sunday and keeps it.
    await h.req('ada', 'POST', `/milestones/update/${m1}`, '<request><milestone><deadline>2030-01-13</deadline></milestone><move-upcoming-milestones>1</move-upcoming-milestones><move-upcoming-milestones-off-weekends>1</move-upcoming-milestones-off-weekends></request>');
    expect(await dl()).toMatchObject({ [m0]: '2030-01-01', [m1]: '2030-01-13', [m2]: '2030-01-15', [m3]: '2030-01-16', [done]: '2030-01-20' });
    // -3 days with weekends: Jan 15 -> Jan 12 (Sat) -> Jan 14, Jan 16 -> Jan 13 (Sun) -> Jan 14.
    await h.req('ada', 'POST', `/milestones/update/${m1}`, '<request><milestone><deadline>2030-01-10</deadline></milestone><move-upcoming-milestones>true</move-upcoming-milestones><move-upcoming-milestones-off-weekends>true</move-upcoming-milestones-off-weekends></request>');
    expect(await dl()).toMatchObject({ [m1]: '2030-01-10', [m2]: '2030-01-14', [m3]: '2030-01-14' });
  });
});

describe('milestones: complete, uncomplete, delete', () => {
  it('complete sets the completion, again is a no-op, uncomplete clears', async () => {
    const m = await milestone();
    const c = (await h.req('fran', 'POST', `/milestones/complete/${m}`, '<request/>')).xml();
    expect([text(c, 'completed'), text(c, 'completer-id'), text(c, 'completer-name')]).toEqual(['true', String(f.person.fran), 'Fran Firm']);
    expect(text(c, 'completed-at')).toBe(text(c, 'completed-on'));
    const again = (await h.req('finn', 'GET', `/milestones/complete/${m}`)).xml();
    expect(text(again, 'completer-id')).toBe(String(f.person.fran));
    const u = (await h.req('fran', 'PUT', `/milestones/uncomplete/${m}`)).xml();
    expect(text(u, 'completed')).toBe('false');
    for (const n of ['completed-at', 'completed-on', 'completer-id', 'completer-name']) expect(el(u, n)).toBeUndefined();
    expect((await h.req('fran', 'GET', `/milestones/uncomplete/${m}`)).status).toBe(200);
  });

  it('delete answers the milestone, removes its comments, unlinks posts (0) and lists (nil)', async () => {
    const m = await milestone({ title: 'Doomed' });
    const list = locId(await h.req('fran', 'POST', `/projects/${pid}/todo_lists.xml`, `<todo-list><name>L</name><milestone-id>${m}</milestone-id></todo-list>`));
    const post = await h.store.write((w) => w.insert('posts', { project_id: pid, title: 'P', body: '', extended_body: '', author_id: f.person.fran, posted_on: w.now, private: 0, use_textile: 0, milestone_id: m }, pid));
    await h.store.write((w) => w.insert('comments', { body: 'c', commentable_type: 'Milestone', commentable_id: m, author_id: f.person.fran, created_at: w.now, private: 0, project_id: pid }, pid));
    const d = await h.req('fran', 'GET', `/milestones/delete/${m}`);
    expect(text(d.xml(), 'title')).toBe('Doomed');
    expect(ids(await listed())).toEqual([]);
    expect(el((await h.req('fran', 'GET', `/todo_lists/${list}.xml`)).xml(), 'milestone-id')!.nil).toBe(true);
    expect(await h.store.get('SELECT milestone_id FROM posts WHERE id = ?', [post])).toEqual({ milestone_id: null });
    expect(await h.store.get('SELECT id FROM comments WHERE commentable_id = ? AND commentable_type = ?', [m, 'Milestone'])).toBeUndefined();
    expect((await h.req('fran', 'GET', `/milestones/delete/${m}`)).status).toBe(404);
  });

  it('answers JSON when asked; the batch keeps 201 and Location', async () => {
    const r = await h.req('fran', 'POST', `/projects/${pid}/milestones/create`, JSON.stringify({ milestone: [{ title: 'J1', deadline: '2099-01-01' }, { title: 'J2', deadline: '2099-01-02' }] }),
      { 'content-type': 'application/json', accept: 'application/json' });
    expect(r.status).toBe(201);
    const rows = r.json() as { id: number; title: string; completed: boolean }[];
    expect(rows.map((x) => x.title)).toEqual(['J1', 'J2']);
    expect(r.headers.location).toBe(`/milestones/${rows[0].id}`);
    const l = await h.req('fran', 'GET', `/projects/${pid}/milestones/list.json?find=upcoming`);
    expect((l.json() as unknown[]).length).toBe(2);
  });
});
