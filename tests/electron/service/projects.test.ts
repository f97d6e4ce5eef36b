import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fx, harness, locId, text, type Harness } from '../../support/helpers.ts';

let h: Harness;
beforeEach(async () => { h = await harness(); });
afterEach(async () => { await h.close(); });

describe('projects', () => {
  it('lists only visible projects: a client sees its own', async () => {
    const ids = await fx(h);
    const r = await h.req('cleo', 'GET', '/projects.xml');
    expect(r.status).toBe(200);
    expect(r.xml().children.map((c) => Number(text(c, 'id')))).toEqual([ids.project.alpha]);
    expect((await h.req('cleo', 'GET', `/projects/${ids.project.basecamp}.xml`)).status).toBe(404);
  });

  it('admin creates and updates a project; others get 403; bad status 422 changes nothing', async () => {
    const r = await h.req('ada', 'POST', '/projects.xml', '<request><project><name>Dawn Patrol</name><status>on-hold</status></project></request>');
    expect(r.status).toBe(201);
    const id = locId(r);
    expect(r.headers.location).toBe(`/projects/${id}.xml`);
    expect(text(r.xml(), 'status')).toBe('on_hold');
    expect((await h.req('fran', 'PUT', `/projects/${id}.xml`, '<project><name>x</name></project>')).status).toBe(404);
    expect((await h.req('ada', 'PUT', `/projects/${id}.xml`, '<project><status>frozen</status><name></name></project>')).xml().children).toHaveLength(2);
    expect(text((await h.req('ada', 'GET', `/projects/${id}.xml`)).xml(), 'name')).toBe('Dawn Patrol');
  });

  it('counts visible projects by status', async () => {
    const c = (await h.req('fran', 'GET', '/projects/count.xml')).xml();
    expect([text(c, 'active'), text(c, 'on-hold'), text(c, 'archived')]).toEqual(['2', '1', '0']);
  });

  it('answers JSON on .json and on Accept: application/json', async () => {
    const ids = await fx(h);
    const a = await h.req('ada', 'GET', `/projects/${ids.project.alpha}.json`);
    expect(a.headers['content-type']).toMatch(/^application\/json/);
    expect(a.json()).toMatchObject({ id: ids.project.alpha, name: 'Alpha Ascent', company: { name: 'Valley Client Co' }, show_writeboards: false });
    const b = await h.req('ada', 'GET', '/projects.xml', undefined, { accept: 'application/json' });
    expect(Array.isArray(b.json())).toBe(true);
  });
});
