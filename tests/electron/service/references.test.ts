// The registry's reference rules (service/references.ts) across resources.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fx, harness, locId, type Harness } from '../../support/helpers.ts';

let h: Harness;
let ids: Awaited<ReturnType<typeof fx>>;
let other = 0, otto = 0;
beforeEach(async () => {
  h = await harness();
  ids = await fx(h);
  // a second client company with a member on alpha: one of alpha's companies, invisible to Cleo
  [other, otto] = await h.store.write(async (w) => {
    const c = await w.insert('companies', { name: 'Other Client', firm: 0 });
    const p = await w.insert('people', { company_id: c, first_name: 'Otto', last_name: 'Other', email_address: 'otto@x.example', user_name: 'otto', token: 'a'.repeat(40), title: '', time_zone_name: 'UTC', administrator: 0 });
    await w.run('INSERT INTO project_members (project_id, person_id) VALUES (?, ?)', [ids.project.alpha, p]);
    return [c, p];
  });
});
afterEach(async () => { await h.close(); });

describe('references', () => {
  it('responsible party: people and companies the caller can see, with access to the project', async () => {
    const list = locId(await h.req('fran', 'POST', `/projects/${ids.project.alpha}/todo_lists.xml`, '<todo-list><name>L</name></todo-list>'));
    const item = (party: string, who: 'fran' | 'cleo') => h.req(who, 'POST', `/todo_lists/${list}/todo_items.xml`, `<todo-item><content>x</content><responsible-party>${party}</responsible-party></todo-item>`);
    expect((await item(`c${other}`, 'fran')).status).toBe(201);
    expect((await item(String(otto), 'fran')).status).toBe(201);
    expect((await item(`c${other}`, 'cleo')).status).toBe(422);
    expect((await item(String(otto), 'cleo')).status).toBe(422);
    expect((await item(`c${ids.company.firm}`, 'cleo')).status).toBe(201);
    expect((await item(String(ids.person.carl), 'fran')).status).toBe(422); // no access to alpha
  });

  it('time entry person and todo item, post category and milestone: same project only', async () => {
    const a = ids.project.alpha, b = ids.project.basecamp;
    const cat = locId(await h.req('fran', 'POST', `/projects/${b}/categories.xml`, '<category><name>c</name><type>post</type></category>'));
    const att = locId(await h.req('fran', 'POST', `/projects/${a}/categories.xml`, '<category><name>a</name><type>attachment</type></category>'));
    const r = await h.req('fran', 'POST', `/projects/${a}/posts.xml`, `<post><title>t</title><category-id>${cat}</category-id><milestone-id>999</milestone-id></post>`);
    expect(r.status).toBe(422);
    expect(r.xml().children.map((c) => c.text)).toEqual(['Category is invalid', 'Milestone is invalid']);
    expect((await h.req('fran', 'POST', `/projects/${a}/posts.xml`, `<post><title>t</title><category-id>${att}</category-id></post>`)).status).toBe(422);
    const e = await h.req('fran', 'POST', `/projects/${b}/time_entries.xml`, `<time-entry><date>2024-01-01</date><hours>1</hours><person-id>${ids.person.cleo}</person-id></time-entry>`);
    expect(e.xml().children.map((c) => c.text)).toEqual(['Person is invalid']);
  });
});
