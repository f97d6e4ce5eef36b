import { describe, expect, it } from 'vitest';
import { freshAccount, ids, locId, text, type Harness, type Account } from '../../support/helpers.ts';
import { renderBody } from '../../../shared/render.ts';
import type { XNode } from '../../../shared/codec/in.ts';

let h: Harness;
let f: Account['f'];
let pid: number;
freshAccount((a) => { ({ h, f, pid } = a); });

const el = (n: XNode, name: string) => n.children.find((c) => c.name === name);
async function post(fields: Record<string, string | number> = {}, who: 'fran' | 'cleo' | 'ada' | 'finn' = 'fran', project = pid): Promise<number> {
  const body = Object.entries({ title: 'T', ...fields }).map(([k, v]) => `<${k}>${v}</${k}>`).join('');
  const r = await h.req(who, 'POST', `/projects/${project}/posts.xml`, `<request><post>${body}</post><notify>1</notify></request>`);
  expect(r.status, r.body).toBe(201);
  return locId(r);
}
async function category(type = 'post', project = pid): Promise<number> {
  return locId(await h.req('fran', 'POST', `/projects/${project}/categories.xml`, `<category><name>C</name><type>${type}</type></category>`));
}
/** Milestones belong to another engineer's routes: insert one directly. */
function milestone(project: number, priv = false): Promise<number> {
  return h.store.write((w) => w.insert('milestones', {
    project_id: project, title: 'M', deadline: '2030-01-01', private: priv ? 1 : 0, completed: 0, wants_notification: 0,
    created_on: w.now, creator_id: f.person.fran,
  }, project));
}

describe('display-body rendering', () => {
  it('follows §8.5 exactly', () => {
    expect(renderBody('')).toBe('');
    expect(renderBody('Fish & chips\n\nline one\nline two')).toBe('<p>Fish &amp; chips</p>\n\n<p>line one<br />line two</p>');
    expect(renderBody('\r\n\r\na\r\nb\r\n\r\n\r\nc "q" <x>\n\n')).toBe('<p>a<br />b</p>\n\n<p>c &quot;q&quot; &lt;x&gt;</p>');
    expect(renderBody("it's")).toBe("<p>it's</p>");
  });

  it('is rendered on the wire, display-extended-body nil when empty', async () => {
    const id = await post({ body: 'A &amp; B\n\nC' });
    const p = (await h.req('fran', 'GET', `/posts/${id}.xml`)).xml();
    expect(text(p, 'display-body')).toBe('<p>A &amp; B</p>\n\n<p>C</p>');
    expect(el(p, 'display-extended-body')!.nil).toBe(true);
    await h.req('fran', 'PUT', `/posts/${id}.xml`, '<post><extended-body>x\ny</extended-body><body></body></post>');
    const q = (await h.req('fran', 'GET', `/posts/${id}.xml`)).xml();
    expect(text(q, 'display-extended-body')).toBe('<p>x<br />y</p>');
    expect(text(q, 'display-body')).toBe('');
  });
});

describe('posts', () => {
  it('creates with defaults; milestone-id 0 when none; category-id nil', async () => {
    const r = await h.req('fran', 'POST', `/projects/${pid}/posts.xml`, '<post><title>Hello</title></post>');
    expect(r.status).toBe(201);
    const id = locId(r);
    expect(r.headers.location).toBe(`/posts/${id}.xml`);
    const p = r.xml();
    expect(p.children.map((c) => c.name).sort()).toEqual([
      'attachments-count', 'author-id', 'author-name', 'body', 'category-id', 'commented-at', 'comments-count', 'display-body',
      'display-extended-body', 'extended-body', 'id', 'milestone-id', 'posted-on', 'private', 'project-id', 'title', 'use-textile',
    ]);
    expect(text(p, 'milestone-id')).toBe('0');
    expect(el(p, 'milestone-id')!.nil).toBe(false);
    expect(el(p, 'category-id')!.nil).toBe(true);
    expect([text(p, 'author-name'), text(p, 'body'), text(p, 'private'), text(p, 'use-textile')]).toEqual(['Fran Firm', '', 'false', 'false']);
  });

  it('validates references: post category of this project, milestone of this project; one error each', async () => {
    const att = await category('attachment');
    const other = await category('post', f.project.basecamp);
    const ms = await milestone(f.project.basecamp);
    const mine = await milestone(pid);
    const good = await category();
    const url = `/projects/${pid}/posts.xml`;
    const errs = async (b: string) => { const r = await h.req('fran', 'POST', url, b); expect(r.status).toBe(422); return r.xml().children.length; };
    expect(await errs(`<post><title>x</title><category-id>${att}</category-id></post>`)).toBe(1);
    expect(await errs(`<post><title>x</title><category-id>${other}</category-id></post>`)).toBe(1);
    expect(await errs(`<post><title>x</title><category-id>abc</category-id></post>`)).toBe(1);
    expect(await errs(`<post><title></title><milestone-id>${ms}</milestone-id><category-id>${att}</category-id><use-textile>maybe</use-textile></post>`)).toBe(4);
    const id = await post({ 'category-id': good, 'milestone-id': mine });
    const p = (await h.req('fran', 'GET', `/posts/${id}.xml`)).xml();
    expect([text(p, 'category-id'), text(p, 'milestone-id')]).toEqual([String(good), String(mine)]);
    // 0 and empty mean none
    await h.req('fran', 'PUT', `/posts/${id}.xml`, '<post><category-id>0</category-id><milestone-id></milestone-id></post>');
    const q = (await h.req('fran', 'GET', `/posts/${id}.xml`)).xml();
    expect([el(q, 'category-id')!.nil, text(q, 'milestone-id')]).toEqual([true, '0']);
    // a private milestone is not a visible reference for a client
    const secret = await milestone(pid, true);
    expect((await h.req('cleo', 'POST', url, `<post><title>x</title><milestone-id>${secret}</milestone-id></post>`)).status).toBe(422);
  });

  it('lists 25 newest first with ?n= offset; bad n is 400', async () => {
    const made: number[] = [];
    for (let k = 0; k < 28; k++) made.push(await post({ title: `P${k}` }));
    const newest = [...made].reverse();
    const page1 = ids((await h.req('fran', 'GET', `/projects/${pid}/posts.xml`)).xml());
    expect(page1).toEqual(newest.slice(0, 25));
    expect(ids((await h.req('fran', 'GET', `/projects/${pid}/posts.xml?n=25`)).xml())).toEqual(newest.slice(25));
    expect(ids((await h.req('fran', 'GET', `/projects/${pid}/posts.xml?n=3&n=abc`)).xml())).toEqual(newest.slice(3, 28));
    expect(ids((await h.req('fran', 'GET', `/projects/${pid}/posts.xml?n=`)).xml())).toEqual(newest.slice(0, 25));
    expect((await h.req('fran', 'GET', `/projects/${pid}/posts.xml?n=99999999999999999999`)).xml().children).toHaveLength(0);
    for (const bad of ['-5', 'abc', '1.5']) expect((await h.req('fran', 'GET', `/projects/${pid}/posts.xml?n=${bad}`)).status).toBe(400);
    // archive: all posts, summary form
    expect(ids((await h.req('fran', 'GET', `/projects/${pid}/posts/archive.xml`)).xml())).toEqual(newest);
  });

  it('summary posts: exact fields, nested category with type PostCategory only when categorised', async () => {
    const cat = await category();
    const a = await post({ 'category-id': cat });
    const b = await post();
    const list = (await h.req('fran', 'GET', `/projects/${pid}/posts/archive.xml`)).xml();
    const [pb, pa] = list.children;
    expect(ids(list)).toEqual([b, a]);
    expect(pb.children.map((c) => c.name).sort()).toEqual(['attachments-count', 'author-name', 'commented-at', 'id', 'posted-on', 'title']);
    const c = el(pa, 'category')!;
    expect([text(c, 'id'), text(c, 'name'), text(c, 'type')]).toEqual([String(cat), 'C', 'PostCategory']);
    // category views
    expect(ids((await h.req('fran', 'GET', `/projects/${pid}/cat/${cat}/posts.xml`)).xml())).toEqual([a]);
    expect(ids((await h.req('fran', 'GET', `/projects/${pid}/cat/${cat}/posts/archive.xml`)).xml())).toEqual([a]);
    expect(ids((await h.req('fran', 'POST', `/projects/${pid}/msg/cat/${cat}/archive`, 'ignored <junk')).xml())).toEqual([a]);
    const other = await category('post', f.project.basecamp);
    expect((await h.req('fran', 'GET', `/projects/${pid}/cat/${other}/posts.xml`)).status).toBe(404);
    expect((await h.req('fran', 'GET', `/projects/${pid}/msg/cat/${other}/archive`)).status).toBe(404);
  });

  it('msg/archive: selector category-id from the body, else the query; unknown 404; bad form 400', async () => {
    const cat = await category();
    const a = await post({ 'category-id': cat });
    const b = await post();
    const url = `/projects/${pid}/msg/archive`;
    expect(ids((await h.req('fran', 'GET', url)).xml())).toEqual([b, a]);
    expect(ids((await h.req('fran', 'POST', url, `<request><project-id>${pid}</project-id><category-id>${cat}</category-id></request>`)).xml())).toEqual([a]);
    expect(ids((await h.req('fran', 'GET', `${url}?category_id=${cat}`)).xml())).toEqual([a]);
    expect(ids((await h.req('fran', 'POST', `${url}?category_id=999999`, `<request><category-id>${cat}</category-id></request>`)).xml())).toEqual([a]);
    expect((await h.req('fran', 'POST', url, '<request><category-id>999999</category-id></request>')).status).toBe(404);
    expect((await h.req('fran', 'POST', url, '<request><category-id>abc</category-id></request>')).status).toBe(400);
    expect((await h.req('fran', 'POST', url, '<request><category-id>')).status).toBe(400);
  });

  it('get-one-message routes: comma is 400; /msg/get answers a one-post array', async () => {
    const id = await post();
    expect((await h.req('fran', 'GET', `/posts/${id},${id}.xml`)).status).toBe(400);
    expect((await h.req('fran', 'GET', `/posts/${id},${id}`)).status).toBe(400);
    expect((await h.req('fran', 'POST', `/msg/get/${id},${id}`, '<request/>')).status).toBe(400);
    expect((await h.req('fran', 'GET', '/posts/abc.xml')).status).toBe(404);
    const g = (await h.req('fran', 'POST', `/msg/get/${id}`, 'garbage <')).xml();
    expect([g.name, g.attrs.type, ids(g)]).toEqual(['posts', 'array', [id]]);
    expect(text((await h.req('fran', 'GET', `/posts/${id}`)).xml(), 'id')).toBe(String(id));
  });

  it('private posts: hidden from clients everywhere, no <private> for clients, clients cannot set it', async () => {
    const cat = await category();
    const secret = await post({ private: 'true', 'category-id': cat });
    const open = await post({ 'category-id': cat });
    for (const url of [`/posts/${secret}.xml`, `/posts/${secret}`, `/msg/get/${secret}`, `/posts/${secret}/comments.xml`, `/msg/comments/${secret}`]) {
      expect((await h.req('cleo', 'GET', url)).status, url).toBe(404);
    }
    for (const url of [`/projects/${pid}/posts.xml`, `/projects/${pid}/posts/archive.xml`, `/projects/${pid}/msg/archive`, `/projects/${pid}/cat/${cat}/posts.xml`, `/projects/${pid}/cat/${cat}/posts/archive.xml`]) {
      expect(ids((await h.req('cleo', 'GET', url)).xml()), url).toEqual([open]);
      expect(ids((await h.req('finn', 'GET', url)).xml()), url).toEqual([open, secret]);
    }
    const p = (await h.req('cleo', 'GET', `/posts/${open}.xml`)).xml();
    expect(el(p, 'private')).toBeUndefined();
    const mine = await post({ private: 'true' }, 'cleo');
    expect(text((await h.req('fran', 'GET', `/posts/${mine}.xml`)).xml(), 'private')).toBe('false');
    expect((await h.req('carl', 'GET', `/posts/${open}.xml`)).status).toBe(404);
    expect((await h.req('carl', 'GET', `/projects/${pid}/posts.xml`)).status).toBe(404);
  });

  it('only the author or an administrator may update, delete or get edit.xml (403 before 422)', async () => {
    const id = await post({ title: 'Fran wrote' });
    expect((await h.req('finn', 'PUT', `/posts/${id}.xml`, '<post><title></title></post>')).status).toBe(403);
    expect((await h.req('finn', 'POST', `/msg/update/${id}`, '<post><title>x</title></post>')).status).toBe(403);
    expect((await h.req('finn', 'GET', `/posts/${id}/edit.xml`)).status).toBe(403);
    expect((await h.req('finn', 'DELETE', `/posts/${id}.xml`)).status).toBe(403);
    expect((await h.req('finn', 'GET', `/msg/delete/${id}`)).status).toBe(403);
    expect((await h.req('cleo', 'DELETE', `/posts/${id}.xml`)).status).toBe(403);
    expect((await h.req('ada', 'PUT', `/posts/${id}.xml`, '<post><title></title></post>')).status).toBe(422);
    const r = await h.req('ada', 'PUT', `/posts/${id}.xml`, '<post><body>moderated</body></post>');
    expect([r.status, text(r.xml(), 'title'), text(r.xml(), 'body')]).toEqual([200, 'Fran wrote', 'moderated']);
  });

  it('delete: resource answers empty, action answers the deleted post; comments go too', async () => {
    const a = await post({ title: 'A' });
    const c = locId(await h.req('fran', 'POST', `/posts/${a}/comments.xml`, '<comment><body>hi</body></comment>'));
    const d = await h.req('fran', 'DELETE', `/posts/${a}.xml`);
    expect([d.status, d.body]).toEqual([200, '']);
    expect((await h.req('fran', 'GET', `/comments/${c}.xml`)).status).toBe(404);
    expect(await h.store.get('SELECT id FROM comments WHERE id = ?', [c])).toBeUndefined();
    const b = await post({ title: 'B' });
    const r = await h.req('fran', 'POST', `/msg/delete/${b}`, '<request/>');
    expect([r.status, r.xml().name, text(r.xml(), 'title')]).toEqual([200, 'post', 'B']);
    expect((await h.req('fran', 'GET', `/posts/${b}.xml`)).status).toBe(404);
  });

  it('action create and update: 201 with Location, partial update', async () => {
    const r = await h.req('fran', 'POST', `/projects/${pid}/msg/create`, '<request><post><title>Legacy</title><use-textile>1</use-textile></post><notify>4</notify></request>');
    expect(r.status).toBe(201);
    const id = locId(r);
    expect(r.headers.location).toBe(`/posts/${id}.xml`);
    const u = await h.req('fran', 'GET', `/msg/update/${id}`, '<request><post><body>new</body></post></request>');
    expect([u.status, text(u.xml(), 'title'), text(u.xml(), 'body'), text(u.xml(), 'use-textile')]).toEqual([200, 'Legacy', 'new', 'true']);
  });

  it('comments-count and commented-at count only visible comments', async () => {
    const id = await post();
    const c1 = (await h.req('fran', 'POST', `/posts/${id}/comments.xml`, '<comment><body>1</body></comment>')).xml();
    await new Promise((r) => setTimeout(r, 1100));
    await h.req('fran', 'POST', `/posts/${id}/comments.xml`, '<comment><body>2</body><private>true</private></comment>');
    const firm = (await h.req('fran', 'GET', `/posts/${id}.xml`)).xml();
    const client = (await h.req('cleo', 'GET', `/posts/${id}.xml`)).xml();
    expect([text(firm, 'comments-count'), text(client, 'comments-count')]).toEqual(['2', '1']);
    expect(text(client, 'commented-at')).toBe(text(c1, 'created-at'));
    expect(text(firm, 'commented-at')).not.toBe(text(c1, 'created-at'));
    const sum = (await h.req('cleo', 'GET', `/projects/${pid}/posts/archive.xml`)).xml().children[0];
    expect(text(sum, 'commented-at')).toBe(text(c1, 'created-at'));
  });

  it('templates: new.xml blank with X-Create-Action, edit.xml filled with X-Update-Action; private for firm only', async () => {
    const n = await h.req('fran', 'GET', `/projects/${pid}/posts/new.xml`);
    expect(n.headers['x-create-action']).toBe(`POST /projects/${pid}/posts.xml`);
    const t = n.xml();
    expect(t.name).toBe('post');
    expect(t.children.map((c) => c.name).sort()).toEqual(['body', 'category-id', 'extended-body', 'milestone-id', 'private', 'title', 'use-textile']);
    expect(t.children.every((c) => c.nil)).toBe(true);
    expect(el(t, 'use-textile')!.attrs.type).toBe('boolean');
    expect(el(t, 'milestone-id')!.attrs.type).toBe('integer');
    const cn = (await h.req('cleo', 'GET', `/projects/${pid}/posts/new.xml`)).xml();
    expect(el(cn, 'private')).toBeUndefined();
    expect((await h.req('carl', 'GET', `/projects/${pid}/posts/new.xml`)).status).toBe(404);

    const id = await post({ title: 'Edit', body: 'B' });
    const e = await h.req('fran', 'GET', `/posts/${id}/edit.xml`);
    expect(e.headers['x-update-action']).toBe(`PUT /posts/${id}.xml`);
    const x = e.xml();
    expect([text(x, 'title'), text(x, 'body'), text(x, 'extended-body'), text(x, 'milestone-id'), text(x, 'private'), text(x, 'use-textile')])
      .toEqual(['Edit', 'B', '', '0', 'false', 'false']);
    expect(el(x, 'category-id')!.nil).toBe(true);
    expect(el(x, 'extended-body')!.nil).toBe(false);
    const j = await h.req('fran', 'GET', `/posts/${id}/edit.json`);
    expect(j.json()).toMatchObject({ title: 'Edit', milestone_id: 0, category_id: null, private: false });
    expect(j.headers['x-update-action']).toBe(`PUT /posts/${id}.xml`);
  });

  it('JSON twin: same record, Location keeps .xml', async () => {
    const r = await h.req('fran', 'POST', `/projects/${pid}/posts.json`, JSON.stringify({ post: { title: 'J', body: 'x' } }), { 'content-type': 'application/json' });
    expect(r.status).toBe(201);
    const id = locId(r);
    expect(r.headers.location).toBe(`/posts/${id}.xml`);
    expect(r.json()).toMatchObject({ id, title: 'J', display_body: '<p>x</p>', display_extended_body: null, milestone_id: 0, category_id: null });
    const l = await h.req('fran', 'GET', `/projects/${pid}/posts/archive.json`);
    expect(l.json()).toEqual([expect.objectContaining({ id, title: 'J', author_name: 'Fran Firm' })]);
  });
});
