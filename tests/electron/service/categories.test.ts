import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fx, harness, ids, locId, text, type Harness } from '../../support/helpers.ts';

let h: Harness;
let pid: number;
beforeEach(async () => { h = await harness(); pid = (await fx(h)).project.alpha; });
afterEach(async () => { await h.close(); });

const cat = (name: string, type = 'post') => `<category><name>${name}</name><type>${type}</type></category>`;
async function make(name: string, type = 'post', project = pid): Promise<number> {
  const r = await h.req('fran', 'POST', `/projects/${project}/categories.xml`, cat(name, type));
  expect(r.status).toBe(201);
  return locId(r);
}

describe('categories', () => {
  it('creates with 201 and Location, and reads back with the exact element set', async () => {
    const r = await h.req('fran', 'POST', `/projects/${pid}/categories.xml`, cat('Status', 'attachment'));
    expect(r.status).toBe(201);
    const id = locId(r);
    expect(r.headers.location).toBe(`/categories/${id}.xml`);
    const c = (await h.req('cleo', 'GET', `/categories/${id}.xml`)).xml();
    expect(c.children.map((x) => x.name).sort()).toEqual(['elements-count', 'id', 'name', 'project-id', 'type']);
    expect([text(c, 'name'), text(c, 'type'), text(c, 'project-id'), text(c, 'elements-count')]).toEqual(['Status', 'attachment', String(pid), '0']);
  });

  it('orders by name case-insensitively, ties by creation; ?type filters; bad type is 400', async () => {
    const b2 = await make('banana');
    const a = await make('Apple', 'attachment');
    const b1 = await make('Banana');
    const c = await make('cherry');
    expect(ids((await h.req('fran', 'GET', `/projects/${pid}/categories.xml`)).xml())).toEqual([a, b2, b1, c]);
    expect(ids((await h.req('fran', 'GET', `/projects/${pid}/categories.xml?type=post`)).xml())).toEqual([b2, b1, c]);
    expect(ids((await h.req('fran', 'GET', `/projects/${pid}/categories.xml?type=attachment`)).xml())).toEqual([a]);
    expect(ids((await h.req('fran', 'GET', `/projects/${pid}/categories.xml?type=`)).xml())).toHaveLength(4);
    expect((await h.req('fran', 'GET', `/projects/${pid}/categories.xml?type=file`)).status).toBe(400);
    // 400 for the query form comes before 404 for the project (§4.5)
    expect((await h.req('fran', 'GET', '/projects/999999/categories.xml?type=file')).status).toBe(400);
    expect((await h.req('fran', 'GET', '/projects/999999/categories.xml')).status).toBe(404);
  });

  it('duplicate names are accepted (contract §8.4: "Duplicate names are allowed"; the UI refuses them, D263)', async () => {
    const a = await make('Status reports');
    const b = await make('Status reports');
    const c = await make('status reports ');
    expect(new Set([a, b, c]).size).toBe(3);
    const r = await h.req('fran', 'PUT', `/categories/${c}.xml`, '<category><name>Status reports</name></category>');
    expect(r.status).toBe(200);
  });

  it('legacy routes answer one kind with their own element names and no type', async () => {
    const p = await make('Posts');
    const a = await make('Files', 'attachment');
    for (const method of ['GET', 'POST']) {
      const x = (await h.req('cleo', method, `/projects/${pid}/post_categories`, '<request/>')).xml();
      expect(x.name).toBe('post-categories');
      expect(x.attrs.type).toBe('array');
      expect(x.children.map((c) => c.name)).toEqual(['post-category']);
      expect(ids(x)).toEqual([p]);
      expect(x.children[0].children.map((c) => c.name).sort()).toEqual(['elements-count', 'id', 'name', 'project-id']);
    }
    const y = (await h.req('fran', 'GET', `/projects/${pid}/attachment_categories`)).xml();
    expect([y.name, y.children[0].name, ids(y)]).toEqual(['attachment-categories', 'attachment-category', [a]]);
  });

  it('elements-count counts only posts the caller sees', async () => {
    const id = await make('Counted');
    await h.req('fran', 'POST', `/projects/${pid}/posts.xml`, `<post><title>a</title><category-id>${id}</category-id></post>`);
    await h.req('fran', 'POST', `/projects/${pid}/posts.xml`, `<post><title>b</title><category-id>${id}</category-id><private>true</private></post>`);
    expect(text((await h.req('fran', 'GET', `/categories/${id}.xml`)).xml(), 'elements-count')).toBe('2');
    expect(text((await h.req('cleo', 'GET', `/categories/${id}.xml`)).xml(), 'elements-count')).toBe('1');
  });

  it('update changes only the name, never the type', async () => {
    const id = await make('Old');
    const r = await h.req('fran', 'PUT', `/categories/${id}.xml`, cat('New', 'attachment'));
    expect(r.status).toBe(200);
    expect([text(r.xml(), 'name'), text(r.xml(), 'type')]).toEqual(['New', 'post']);
    expect((await h.req('fran', 'PUT', `/categories/${id}.xml`, '<category><name> </name></category>')).status).toBe(422);
  });

  it('validation: one error per problem', async () => {
    const r = await h.req('fran', 'POST', `/projects/${pid}/categories.xml`, '<category><name></name></category>');
    expect(r.status).toBe(422);
    expect(r.xml().children).toHaveLength(2);
    const t = await h.req('fran', 'POST', `/projects/${pid}/categories.xml`, `<category><name>${'n'.repeat(256)}</name><type>file</type></category>`);
    expect(t.xml().children).toHaveLength(2);
    expect((await h.req('fran', 'POST', `/projects/${pid}/categories.xml`, cat('n'.repeat(255)))).status).toBe(201);
  });

  it('clients get 403 on create, update and delete; outsiders 404', async () => {
    const id = await make('Firm only');
    expect((await h.req('cleo', 'POST', `/projects/${pid}/categories.xml`, cat('x'))).status).toBe(403);
    expect((await h.req('cleo', 'PUT', `/categories/${id}.xml`, cat('x'))).status).toBe(403);
    expect((await h.req('cleo', 'DELETE', `/categories/${id}.xml`)).status).toBe(403);
    // 403 comes before 422 (§4.5)
    expect((await h.req('cleo', 'POST', `/projects/${pid}/categories.xml`, '<category/>')).status).toBe(403);
    expect((await h.req('carl', 'GET', `/categories/${id}.xml`)).status).toBe(404);
    expect((await h.req('carl', 'DELETE', `/categories/${id}.xml`)).status).toBe(404);
    expect(text((await h.req('fran', 'GET', `/categories/${id}.xml`)).xml(), 'name')).toBe('Firm only');
  });

  it('DELETE answers an empty 200; with posts (even private) 409 and nothing deleted', async () => {
    const empty = await make('Empty');
    const d = await h.req('fran', 'DELETE', `/categories/${empty}.xml`, 'not xml at all');
    expect([d.status, d.body]).toEqual([200, '']);
    expect((await h.req('fran', 'GET', `/categories/${empty}.xml`)).status).toBe(404);
    const full = await make('Full');
    await h.req('fran', 'POST', `/projects/${pid}/posts.xml`, `<post><title>s</title><category-id>${full}</category-id><private>1</private></post>`);
    expect((await h.req('ada', 'DELETE', `/categories/${full}.xml`)).status).toBe(409);
    expect((await h.req('fran', 'GET', `/categories/${full}.xml`)).status).toBe(200);
  });

  it('bumps the project last-changed-on and answers JSON on the .json twin', async () => {
    const before = text((await h.req('ada', 'GET', `/projects/${pid}.xml`)).xml(), 'last-changed-on');
    await new Promise((r) => setTimeout(r, 1100));
    const id = await make('Json');
    expect(text((await h.req('ada', 'GET', `/projects/${pid}.xml`)).xml(), 'last-changed-on')).not.toBe(before);
    const j = await h.req('fran', 'GET', `/categories/${id}.json`);
    expect(j.json()).toEqual({ elements_count: 0, id, name: 'Json', project_id: pid, type: 'post' });
    const l = await h.req('fran', 'GET', `/projects/${pid}/categories.json`);
    expect((l.json() as { id: number }[]).map((c) => c.id)).toEqual([id]);
  });
});
