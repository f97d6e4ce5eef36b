import { describe, expect, it } from 'vitest';
import { freshAccount, ids, locId, text, type Harness, type Account } from '../../support/helpers.ts';
import type { XNode } from '../../../shared/codec/in.ts';

let h: Harness;
let f: Account['f'];
let pid: number;
freshAccount((a) => { ({ h, f, pid } = a); });

const el = (n: XNode, name: string) => n.children.find((c) => c.name === name);
async function post(priv = false, who: 'fran' | 'cleo' = 'fran'): Promise<number> {
  return locId(await h.req(who, 'POST', `/projects/${pid}/posts.xml`, `<post><title>P</title><private>${priv}</private></post>`));
}
async function comment(kind: string, parent: number, body = 'c', who: 'fran' | 'cleo' | 'finn' | 'ada' = 'fran', priv = false): Promise<number> {
  const r = await h.req(who, 'POST', `/${kind}/${parent}/comments.xml`, `<comment><body>${body}</body><private>${priv}</private></comment>`);
  expect(r.status, r.body).toBe(201);
  return locId(r);
}
/** Milestones and todo items belong to another engineer's routes: insert them directly. */
function milestone(priv = false): Promise<number> {
  return h.store.write((w) => w.insert('milestones', {
    project_id: pid, title: 'M', deadline: '2030-01-01', private: priv ? 1 : 0, completed: 0, wants_notification: 0,
    created_on: w.now, creator_id: f.person.fran,
  }, pid));
}
function item(privateList = false): Promise<number> {
  return h.store.write(async (w) => {
    const list = await w.insert('todo_lists', { project_id: pid, name: 'L', description: '', private: privateList ? 1 : 0, tracked: 0, position: 1 }, pid);
    return w.insert('todo_items', {
      todo_list_id: list, project_id: pid, content: 'I', position: 1, completed: 0, created_at: w.now, updated_at: w.now, creator_id: f.person.fran,
    }, pid);
  });
}

describe('comments', () => {
  it('creates on posts, milestones and todo items with the exact element set', async () => {
    const p = await post();
    const r = await h.req('fran', 'POST', `/posts/${p}/comments.xml`, '<request><comment><body>Ship it.</body></comment></request>');
    expect(r.status).toBe(201);
    const id = locId(r);
    expect(r.headers.location).toBe(`/comments/${id}.xml`);
    const c = r.xml();
    expect(c.children.map((x) => x.name).sort()).toEqual([
      'attachments-count', 'author-id', 'author-name', 'body', 'commentable-id', 'commentable-type', 'created-at', 'emailed-from',
      'id', 'post-id', 'posted-on', 'private',
    ]);
    expect([text(c, 'commentable-type'), text(c, 'commentable-id'), text(c, 'post-id'), text(c, 'author-name')]).toEqual(['Post', String(p), String(p), 'Fran Firm']);
    expect(text(c, 'posted-on')).toBe(text(c, 'created-at'));
    expect(el(c, 'emailed-from')!.nil).toBe(true);
    for (const [kind, parent, type] of [['milestones', await milestone(), 'Milestone'], ['todo_items', await item(), 'TodoItem']] as const) {
      const cid = await comment(kind, parent);
      const x = (await h.req('fran', 'GET', `/comments/${cid}`)).xml();
      expect([text(x, 'commentable-type'), text(x, 'commentable-id'), el(x, 'post-id')]).toEqual([type, String(parent), undefined]);
      expect(ids((await h.req('fran', 'GET', `/${kind}/${parent}/comments.xml`)).xml())).toEqual([cid]);
    }
  });

  it('unknown parents and parent kinds answer 404; body blank is 422', async () => {
    const p = await post();
    expect((await h.req('fran', 'GET', '/posts/999999/comments.xml')).status).toBe(404);
    expect((await h.req('fran', 'POST', '/todo_items/999999/comments.xml', '<comment><body>x</body></comment>')).status).toBe(404);
    expect((await h.req('fran', 'GET', '/milestones/999999/comments/new.xml')).status).toBe(404);
    for (const kind of ['widgets', 'post', 'milestone']) expect((await h.req('fran', 'GET', `/${kind}/${p}/comments.xml`)).status).toBe(404);
    expect((await h.req('fran', 'POST', `/posts/${p}/comments.xml`, '')).xml().children).toHaveLength(1);
    expect((await h.req('fran', 'POST', `/posts/${p}/comments.xml`, '<comment><body> </body><private>perhaps</private></comment>')).xml().children).toHaveLength(2);
  });

  it('pages: 50 most recent oldest first, count, continued-at and threshold', async () => {
    const p = await post();
    const made: number[] = [];
    for (let k = 0; k < 120; k++) made.push(await comment('posts', p, `n${k}`));
    const first = (await h.req('fran', 'GET', `/posts/${p}/comments.xml`)).xml();
    expect(ids(first)).toEqual(made.slice(70));
    expect(first.attrs.count).toBe('120');
    expect(first.attrs['continued-at']).toBe(`/posts/${p}/comments.xml?threshold=${made[70]}`);
    const second = (await h.req('fran', 'GET', first.attrs['continued-at'])).xml();
    expect(ids(second)).toEqual(made.slice(20, 70));
    expect(second.attrs.count).toBe('120');
    const third = (await h.req('fran', 'GET', second.attrs['continued-at'])).xml();
    expect(ids(third)).toEqual(made.slice(0, 20));
    expect(third.attrs['continued-at']).toBeUndefined();
    const none = (await h.req('fran', 'GET', `/posts/${p}/comments.xml?threshold=${made[0]}`)).xml();
    expect([none.children.length, none.attrs.count, none.attrs['continued-at']]).toEqual([0, '120', undefined]);
    // threshold form and membership
    expect((await h.req('fran', 'GET', `/posts/${p}/comments.xml?threshold=abc`)).status).toBe(400);
    expect((await h.req('fran', 'GET', '/posts/999999/comments.xml?threshold=-1')).status).toBe(400);
    const other = await comment('posts', await post());
    expect((await h.req('fran', 'GET', `/posts/${p}/comments.xml?threshold=${other}`)).status).toBe(404);
    expect((await h.req('fran', 'GET', `/posts/${p}/comments.xml?threshold=0`)).status).toBe(404);
    // JSON: attributes move to headers
    const j = await h.req('fran', 'GET', `/posts/${p}/comments.json`);
    expect([j.headers['x-count'], j.headers['x-continued-at'], (j.json() as unknown[]).length]).toEqual(['120', `/posts/${p}/comments.xml?threshold=${made[70]}`, 50]);
    // the action route lists them all, without attributes
    const all = (await h.req('fran', 'POST', `/msg/comments/${p}`, '<request/>')).xml();
    expect([ids(all), all.attrs.count]).toEqual([made, undefined]);
  });

  it('a page of exactly 50 has no continued-at; one more comment adds it, and the count follows', async () => {
    const p = await post();
    const made: number[] = [];
    for (let k = 0; k < 50; k++) made.push(await comment('posts', p, `n${k}`));
    const full = (await h.req('fran', 'GET', `/posts/${p}/comments.xml`)).xml();
    expect([full.children.length, full.attrs.count, full.attrs['continued-at']]).toEqual([50, '50', undefined]);
    made.push(await comment('posts', p, 'one more'));
    const more = (await h.req('fran', 'GET', `/posts/${p}/comments.xml`)).xml();
    expect([more.children.length, more.attrs.count, more.attrs['continued-at']]).toEqual([50, '51', `/posts/${p}/comments.xml?threshold=${made[1]}`]);
  });

  it('small pages have count and no continued-at', async () => {
    const p = await post();
    const a = await comment('posts', p);
    const l = (await h.req('fran', 'GET', `/posts/${p}/comments.xml`)).xml();
    expect([ids(l), l.attrs.count, l.attrs['continued-at'], l.attrs.type]).toEqual([[a], '1', undefined, 'array']);
    const e = (await h.req('fran', 'GET', `/posts/${await post()}/comments.xml`)).xml();
    expect([e.name, e.children.length, e.attrs.count]).toEqual(['comments', 0, '0']);
  });

  it('clients: private comments and comments of private parents are hidden and not counted', async () => {
    const p = await post();
    const open = await comment('posts', p);
    const secret = await comment('posts', p, 's', 'fran', true);
    const l = (await h.req('cleo', 'GET', `/posts/${p}/comments.xml`)).xml();
    expect([ids(l), l.attrs.count]).toEqual([[open], '1']);
    expect(ids((await h.req('cleo', 'GET', `/msg/comments/${p}`)).xml())).toEqual([open]);
    expect((await h.req('cleo', 'GET', `/comments/${secret}.xml`)).status).toBe(404);
    expect((await h.req('cleo', 'GET', `/msg/comment/${secret}`)).status).toBe(404);
    expect(el((await h.req('cleo', 'GET', `/comments/${open}.xml`)).xml(), 'private')).toBeUndefined();
    expect(text((await h.req('finn', 'GET', `/comments/${secret}.xml`)).xml(), 'private')).toBe('true');
    // a client threshold on a private comment is not a comment of the parent for them
    expect((await h.req('cleo', 'GET', `/posts/${p}/comments.xml?threshold=${secret}`)).status).toBe(404);

    const pp = await post(true);
    const ms = await milestone(true);
    const it2 = await item(true);
    for (const [kind, parent] of [['posts', pp], ['milestones', ms], ['todo_items', it2]] as const) {
      const c = await comment(kind, parent);
      expect((await h.req('cleo', 'GET', `/comments/${c}.xml`)).status).toBe(404);
      expect((await h.req('cleo', 'GET', `/${kind}/${parent}/comments.xml`)).status).toBe(404);
      expect((await h.req('cleo', 'POST', `/${kind}/${parent}/comments.xml`, '<comment><body>x</body></comment>')).status).toBe(404);
      expect((await h.req('finn', 'GET', `/comments/${c}.xml`)).status).toBe(200);
    }
    expect((await h.req('carl', 'GET', `/comments/${open}.xml`)).status).toBe(404);
    // a client's private flag is ignored
    const mine = await comment('posts', p, 'mine', 'cleo', true);
    expect(text((await h.req('fran', 'GET', `/comments/${mine}.xml`)).xml(), 'private')).toBe('false');
  });

  it('only the author or an administrator may update, delete or get edit.xml', async () => {
    const p = await post();
    const id = await comment('posts', p, 'Fran said');
    expect((await h.req('finn', 'PUT', `/comments/${id}.xml`, '<comment><body></body></comment>')).status).toBe(403);
    expect((await h.req('finn', 'GET', `/comments/${id}/edit.xml`)).status).toBe(403);
    expect((await h.req('finn', 'DELETE', `/comments/${id}.xml`)).status).toBe(403);
    expect((await h.req('cleo', 'GET', `/msg/delete_comment/${id}`)).status).toBe(403);
    expect((await h.req('finn', 'POST', '/msg/update_comment', `<request><comment_id>${id}</comment_id><comment><body>x</body></comment></request>`)).status).toBe(403);
    expect((await h.req('ada', 'PUT', `/comments/${id}.xml`, '<comment><body> </body></comment>')).status).toBe(422);
    const r = await h.req('ada', 'PUT', `/comments/${id}.xml`, '<comment><body>Moderated</body></comment>');
    expect([r.status, text(r.xml(), 'body'), text(r.xml(), 'author-id')]).toEqual([200, 'Moderated', String(f.person.fran)]);
  });

  it('delete: resource empty 200, action answers the deleted comment', async () => {
    const p = await post();
    const a = await comment('posts', p, 'A');
    const b = await comment('posts', p, 'B');
    const d = await h.req('fran', 'DELETE', `/comments/${a}.xml`);
    expect([d.status, d.body]).toEqual([200, '']);
    const r = await h.req('fran', 'POST', `/msg/delete_comment/${b}`, '<request/>');
    expect([r.status, text(r.xml(), 'body')]).toEqual([200, 'B']);
    expect((await h.req('fran', 'GET', `/comments/${b}.xml`)).status).toBe(404);
    expect(text((await h.req('fran', 'GET', `/posts/${p}.xml`)).xml(), 'comments-count')).toBe('0');
  });

  it('legacy create_comment and update_comment: selecting ids (422 missing, 404 unknown/invisible)', async () => {
    const p = await post();
    const r = await h.req('fran', 'POST', '/msg/create_comment', `<request><comment><post-id>${p}</post-id><body>Ship</body></comment></request>`);
    expect(r.status).toBe(201);
    const id = locId(r);
    expect([r.headers.location, text(r.xml(), 'post-id')]).toEqual([`/comments/${id}.xml`, String(p)]);
    const s = await h.req('fran', 'GET', '/msg/create_comment', `<request><post_id>${p}</post_id><comment><body>Sibling</body></comment></request>`);
    expect(s.status).toBe(201);
    expect((await h.req('fran', 'POST', '/msg/create_comment', '<request><comment><body>x</body></comment></request>')).status).toBe(422);
    expect((await h.req('fran', 'POST', '/msg/create_comment', '<request><post-id></post-id><comment><body>x</body></comment></request>')).status).toBe(422);
    expect((await h.req('fran', 'POST', '/msg/create_comment', '<request><post-id>abc</post-id><comment><body>x</body></comment></request>')).status).toBe(404);
    expect((await h.req('fran', 'POST', '/msg/create_comment', '<request><post-id>999999</post-id><comment><body>x</body></comment></request>')).status).toBe(404);
    expect((await h.req('cleo', 'POST', '/msg/create_comment', `<request><post-id>${await post(true)}</post-id><comment><body>x</body></comment></request>`)).status).toBe(404);
    // 404 for the selecting id comes before 422 for the fields
    expect((await h.req('fran', 'POST', '/msg/create_comment', '<request><post-id>999999</post-id></request>')).status).toBe(404);
    expect((await h.req('fran', 'POST', '/msg/create_comment', `<request><post-id>${p}</post-id></request>`)).status).toBe(422);

    const u = await h.req('fran', 'POST', '/msg/update_comment', `<request><comment-id>${id}</comment-id><comment><body>After</body></comment></request>`);
    expect([u.status, text(u.xml(), 'body')]).toEqual([200, 'After']);
    const u2 = await h.req('fran', 'PUT', '/msg/update_comment', `<request><comment><comment_id>${id}</comment_id><body>Again</body></comment></request>`);
    expect([u2.status, text(u2.xml(), 'body')]).toEqual([200, 'Again']);
    expect((await h.req('fran', 'POST', '/msg/update_comment', '<request><comment><body>x</body></comment></request>')).status).toBe(422);
    expect((await h.req('fran', 'POST', '/msg/update_comment', '<request><comment-id>999999</comment-id><comment><body>x</body></comment></request>')).status).toBe(404);
    expect((await h.req('fran', 'POST', '/msg/update_comment', 'not xml')).status).toBe(400);
  });

  it('templates: new.xml for all kinds, edit.xml filled', async () => {
    const p = await post();
    for (const [kind, parent] of [['posts', p], ['milestones', await milestone()], ['todo_items', await item()]] as const) {
      const r = await h.req('fran', 'GET', `/${kind}/${parent}/comments/new.xml`);
      expect(r.headers['x-create-action']).toBe(`POST /${kind}/${parent}/comments.xml`);
      const t = r.xml();
      expect(t.name).toBe('comment');
      expect(t.children.map((c) => [c.name, c.nil, c.attrs.type])).toEqual([['body', true, undefined], ['private', true, 'boolean']]);
    }
    expect(((await h.req('cleo', 'GET', `/posts/${p}/comments/new.xml`)).xml()).children.map((c) => c.name)).toEqual(['body']);
    const id = await comment('posts', p, 'Edit me');
    const e = await h.req('fran', 'GET', `/comments/${id}/edit.xml`);
    expect(e.headers['x-update-action']).toBe(`PUT /comments/${id}.xml`);
    expect([text(e.xml(), 'body'), text(e.xml(), 'private')]).toEqual(['Edit me', 'false']);
  });

  it('creating a comment bumps the project last-changed-on', async () => {
    const p = await post();
    const before = text((await h.req('ada', 'GET', `/projects/${pid}.xml`)).xml(), 'last-changed-on');
    await new Promise((r) => setTimeout(r, 1100));
    await comment('posts', p);
    expect(text((await h.req('ada', 'GET', `/projects/${pid}.xml`)).xml(), 'last-changed-on')).not.toBe(before);
  });
});
