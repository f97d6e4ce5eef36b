// Conflicts both people understand (issue #26, D310): two people's replicas and a team server in
// process. What GET /sync/conflicts says is for people: the record's title and where it lives, the
// field's label, readable values; bookkeeping columns never; only the resolutions that can succeed.

import { afterEach, describe, expect, it } from 'vitest';
import { defaultEngine } from '../../support/helpers.ts';
import { pgSkipReason } from '../../support/pg.ts';
import { closeAll, loc, settle, startProxy, startRemote, startReplica, type Proxy, type Remote, type Replica } from '../../support/sync-helpers.ts';

const XML = '<?xml version="1.0" encoding="UTF-8"?>\n';
const engine = defaultEngine();
const skip = engine === 'postgres' ? pgSkipReason() : '';

interface View {
  id: number; kind: string; field: string; resource: string; title: string; place: string[]; label: string;
  mine: string | null; theirs: string | null; mineText: string | null; theirsText: string | null; by: string | null;
  actions: string[]; resolved: boolean; keep: string | null;
}

describe.skipIf(skip)(`conflicts for people, against a team server on ${engine}`, () => {
  let remote: Remote;
  let pa: Proxy;
  let pf: Proxy;
  const replicas: Replica[] = [];
  afterEach(async () => { await pf?.close(); await closeAll(replicas, pa, remote); });

  const idOf = async (r: Replica, path: string, field: string, value: string) => (await r.req('GET', path)).xml().children
    .find((p) => p.children.find((c) => c.name === field)?.text === value)!.children.find((c) => c.name === 'id')!.text;
  const conflicts = async (r: Replica) => JSON.parse((await r.req('GET', '/sync/conflicts')).body) as View[];

  /** Ada and Fran on their replicas, a list "Shared" with items "one" and "two" on both. */
  async function two() {
    remote = await startRemote();
    pa = await startProxy(remote.url);
    pf = await startProxy(remote.url);
    const a = await startReplica(pa.url, 'ada');
    replicas.push(a);
    const P = await idOf(a, '/projects.xml', 'name', 'Alpha Ascent');
    const L = loc(await a.req('POST', `/projects/${P}/todo_lists.xml`, `${XML}<todo-list><name>Shared</name></todo-list>`));
    const i1 = loc(await a.req('POST', `/todo_lists/${L}/todo_items.xml`, `${XML}<todo-item><content>one</content></todo-item>`));
    const i2 = loc(await a.req('POST', `/todo_lists/${L}/todo_items.xml`, `${XML}<todo-item><content>two</content></todo-item>`));
    await settle(a);
    const f = await startReplica(pf.url, 'fran');
    replicas.push(f);
    const fP = await idOf(f, '/projects.xml', 'name', 'Alpha Ascent');
    const fL = await idOf(f, `/projects/${fP}/todo_lists.xml`, 'name', 'Shared');
    const fi1 = await idOf(f, `/todo_lists/${fL}/todo_items.xml`, 'content', 'one');
    const fi2 = await idOf(f, `/todo_lists/${fL}/todo_items.xml`, 'content', 'two');
    return { a, f, L, i1, i2, fL, fi1, fi2 };
  }
  const offline = (down: boolean) => { pa.faults.down = down; pf.faults.down = down; };

  it('the same field on both sides: title, place, the label, readable values, both resolutions', async () => {
    const { a, f, i1, fi1 } = await two();
    offline(true);
    expect((await a.req('PUT', `/todo_items/${i1}.xml`, `${XML}<todo-item><content>one (ada)</content></todo-item>`)).status).toBe(200);
    expect((await f.req('PUT', `/todo_items/${fi1}.xml`, `${XML}<todo-item><content>one (fran)</content></todo-item>`)).status).toBe(200);
    offline(false);
    await settle(a);
    await settle(f);
    const list = await conflicts(f);
    expect(list).toMatchObject([{
      kind: 'field', resource: 'todoItem', field: 'content', label: 'To-do', title: 'one (fran)', place: ['Alpha Ascent', 'Shared'],
      mineText: 'one (fran)', theirsText: 'one (ada)', actions: ['mine', 'theirs'],
    }]);
  });

  it('edit and comment vs delete: the editor reads the to-do, its place and its values in words, never bookkeeping; only what can succeed', async () => {
    const { a, f, i2, fi2 } = await two();
    offline(true);
    expect((await a.req('DELETE', `/todo_items/${i2}.xml`)).status).toBe(200);
    expect((await f.req('PUT', `/todo_items/${fi2}/complete.xml`)).status).toBe(200);
    loc(await f.req('POST', `/todo_items/${fi2}/comments.xml`, `${XML}<comment><body>Bring the blue rope</body></comment>`));
    offline(false);
    await settle(a);
    await settle(f);
    const list = await conflicts(f);
    // Bookkeeping columns (updated_at, completed_at, completer_id, position) are never a conflict of their own.
    expect(list.map((c) => c.field).sort()).toEqual(['*', 'completed']);
    const done = list.find((c) => c.field === 'completed')!;
    expect(done).toMatchObject({ kind: 'edit-vs-delete', label: 'Done', title: 'two', place: ['Alpha Ascent', 'Shared'], mineText: 'Done', actions: ['restore', 'theirs'] });
    const comment = list.find((c) => c.field === '*')!;
    expect(comment).toMatchObject({ kind: 'parent-deleted', resource: 'comment', title: 'Bring the blue rope', mineText: 'Bring the blue rope',
      place: ['Alpha Ascent', 'Shared', 'two'], actions: ['restore', 'theirs'] });
    // What cannot succeed is not offered, and is refused in words.
    const refused = await f.req('POST', `/sync/conflicts/${comment.id}/resolve`, JSON.stringify({ keep: 'mine' }));
    expect(refused.status).toBe(422);
    expect((await f.req('POST', `/sync/conflicts/${done.id}/resolve`, JSON.stringify({ keep: 'theirs' }))).status).toBe(200);
    // Leaving the to-do deleted settles what was added under it too: nothing is left to restore.
    for (const c of await conflicts(f)) expect(c).toMatchObject({ resolved: true, keep: 'theirs', actions: [] });
  });
});

describe.skipIf(skip).each([['team server', false], ['plain server', true]] as const)(`edit vs delete: "Restore with my changes", against a %s on ${engine}`, (_name, plain) => {
  let remote: Remote;
  let pa: Proxy;
  let pf: Proxy;
  const replicas: Replica[] = [];
  afterEach(async () => { await pf?.close(); await closeAll(replicas, pa, remote); });
  const idOf = async (r: Pick<Replica, 'req'>, path: string, field: string, value: string) => (await r.req('GET', path)).xml().children
    .find((p) => p.children.find((c) => c.name === field)?.text === value)?.children.find((c) => c.name === 'id')?.text;
  const conflicts = async (r: Replica) => JSON.parse((await r.req('GET', '/sync/conflicts')).body) as View[];

  it('the editor restores the to-do with its completion and the comment added meanwhile, once, on every replica and the team server', async () => {
    remote = await startRemote();
    pa = await startProxy(remote.url, { plain });
    pf = await startProxy(remote.url, { plain });
    const a = await startReplica(pa.url, 'ada');
    replicas.push(a);
    const P = (await idOf(a, '/projects.xml', 'name', 'Alpha Ascent'))!;
    const L = loc(await a.req('POST', `/projects/${P}/todo_lists.xml`, `${XML}<todo-list><name>Shared</name></todo-list>`));
    const i2 = loc(await a.req('POST', `/todo_lists/${L}/todo_items.xml`, `${XML}<todo-item><content>two</content></todo-item>`));
    await settle(a);
    const f = await startReplica(pf.url, 'fran');
    replicas.push(f);
    const fP = (await idOf(f, '/projects.xml', 'name', 'Alpha Ascent'))!;
    const fL = (await idOf(f, `/projects/${fP}/todo_lists.xml`, 'name', 'Shared'))!;
    const fi2 = (await idOf(f, `/todo_lists/${fL}/todo_items.xml`, 'content', 'two'))!;
    pa.faults.down = true;
    pf.faults.down = true;
    expect((await a.req('DELETE', `/todo_items/${i2}.xml`)).status).toBe(200);
    expect((await f.req('PUT', `/todo_items/${fi2}.xml`, `${XML}<todo-item><content>two (fran)</content></todo-item>`)).status).toBe(200);
    expect((await f.req('PUT', `/todo_items/${fi2}/complete.xml`)).status).toBe(200);
    loc(await f.req('POST', `/todo_items/${fi2}/comments.xml`, `${XML}<comment><body>Bring the blue rope</body></comment>`));
    pa.faults.down = false;
    pf.faults.down = false;
    await settle(a);
    await settle(f);
    const list = await conflicts(f);
    // Every conflict of that removal offers the restore (and only what can succeed).
    expect(list.length).toBeGreaterThan(0);
    for (const c of list) expect(c.actions).toEqual(['restore', 'theirs']);
    const res = await f.req('POST', `/sync/conflicts/${list[0].id}/resolve`, JSON.stringify({ keep: 'restore' }));
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ resolved: true, keep: 'restore' });
    // The whole removal is resolved at once; resolving again answers it as it is: nothing is doubled.
    for (const c of await conflicts(f)) expect(c).toMatchObject({ resolved: true, keep: 'restore' });
    expect((await f.req('POST', `/sync/conflicts/${list[1]?.id ?? list[0].id}/resolve`, JSON.stringify({ keep: 'restore' }))).status).toBe(200);
    await settle(f);
    await settle(a);
    await settle(f);
    const rP = (await idOf({ req: remote.as('ada') }, '/projects.xml', 'name', 'Alpha Ascent'))!;
    for (const [who, req, project] of [['team server', remote.as('ada'), rP], ['fran', f.req, fP], ['ada', a.req, P]] as const) {
      const lists = (await req('GET', `/projects/${project}/todo_lists.xml`)).xml().children;
      const shared = lists.find((l) => l.children.find((c) => c.name === 'name')?.text === 'Shared')!;
      const lid = shared.children.find((c) => c.name === 'id')!.text;
      const items = (await req('GET', `/todo_lists/${lid}/todo_items.xml`)).xml().children;
      const two = items.filter((it) => it.children.find((c) => c.name === 'content')?.text === 'two (fran)');
      expect(two, who).toHaveLength(1);
      expect(two[0].children.find((c) => c.name === 'completed')?.text, who).toBe('true');
      const id = two[0].children.find((c) => c.name === 'id')!.text;
      const comments = (await req('GET', `/todo_items/${id}/comments.xml`)).xml().children.map((c) => c.children.find((x) => x.name === 'body')?.text);
      expect(comments, who).toEqual(['Bring the blue rope']);
    }
    expect((await f.req('GET', '/sync/status')).body).toContain('"pending":0');
  });

  it('other people\'s comments and to-dos under the deleted record come back too, re-posted with a line that names their author (D342)', async () => {
    remote = await startRemote();
    pa = await startProxy(remote.url, { plain });
    pf = await startProxy(remote.url, { plain });
    const a = await startReplica(pa.url, 'ada');
    replicas.push(a);
    const P = (await idOf(a, '/projects.xml', 'name', 'Alpha Ascent'))!;
    const L = loc(await a.req('POST', `/projects/${P}/todo_lists.xml`, `${XML}<todo-list><name>Doomed</name></todo-list>`));
    const old = loc(await a.req('POST', `/todo_lists/${L}/todo_items.xml`, `${XML}<todo-item><content>older one</content></todo-item>`));
    loc(await a.req('POST', `/todo_items/${old}/comments.xml`, `${XML}<comment><body>Ada's note</body></comment>`));
    await settle(a);
    const f = await startReplica(pf.url, 'fran');
    replicas.push(f);
    const fP = (await idOf(f, '/projects.xml', 'name', 'Alpha Ascent'))!;
    const fL = (await idOf(f, `/projects/${fP}/todo_lists.xml`, 'name', 'Doomed'))!;
    const fOld = (await idOf(f, `/todo_lists/${fL}/todo_items.xml`, 'content', 'older one'))!;
    loc(await f.req('POST', `/todo_items/${fOld}/comments.xml`, `${XML}<comment><body>Fran's own, synced</body></comment>`));
    await settle(f);
    pa.faults.down = true;
    pf.faults.down = true;
    expect((await a.req('DELETE', `/todo_lists/${L}.xml`)).status).toBe(200);
    loc(await f.req('POST', `/todo_lists/${fL}/todo_items.xml`, `${XML}<todo-item><content>added meanwhile</content></todo-item>`));
    pa.faults.down = false;
    pf.faults.down = false;
    await settle(a);
    await settle(f);
    const list = await conflicts(f);
    expect((await f.req('POST', `/sync/conflicts/${list[0].id}/resolve`, JSON.stringify({ keep: 'restore' }))).status).toBe(200);
    await settle(f);
    await settle(a);
    await settle(f);
    const rP = (await idOf({ req: remote.as('ada') }, '/projects.xml', 'name', 'Alpha Ascent'))!;
    for (const [who, req, project] of [['team server', remote.as('ada'), rP], ['fran', f.req, fP], ['ada', a.req, P]] as const) {
      const lists = (await req('GET', `/projects/${project}/todo_lists.xml`)).xml().children.filter((l) => l.children.find((c) => c.name === 'name')?.text === 'Doomed');
      expect(lists, who).toHaveLength(1);
      const items = (await req('GET', `/todo_lists/${lists[0].children.find((c) => c.name === 'id')!.text}/todo_items.xml`)).xml().children;
      expect(items.map((it) => it.children.find((c) => c.name === 'content')?.text).sort(), who).toEqual(['added meanwhile', 'older one']);
      const oid = items.find((it) => it.children.find((c) => c.name === 'content')?.text === 'older one')!.children.find((c) => c.name === 'id')!.text;
      const comments = (await req('GET', `/todo_items/${oid}/comments.xml`)).xml().children;
      const bodies = comments.map((c) => c.children.find((x) => x.name === 'body')?.text ?? '').sort();
      // Ada's comment is re-posted by Fran (the server names the poster): its first line says whose words they are.
      expect(bodies, who).toHaveLength(2);
      expect(bodies[0], who).toMatch(/^Ada Admin wrote on \d{1,2} [A-Z][a-z]{2} \d{4}:\n\nAda's note$/);
      expect(bodies[1], who).toBe("Fran's own, synced");
    }
  });

  it('a to-do added to a list deleted meanwhile: the list comes back with it, once, everywhere', async () => {
    remote = await startRemote();
    pa = await startProxy(remote.url, { plain });
    pf = await startProxy(remote.url, { plain });
    const a = await startReplica(pa.url, 'ada');
    replicas.push(a);
    const P = (await idOf(a, '/projects.xml', 'name', 'Alpha Ascent'))!;
    const L = loc(await a.req('POST', `/projects/${P}/todo_lists.xml`, `${XML}<todo-list><name>Doomed</name></todo-list>`));
    await settle(a);
    const f = await startReplica(pf.url, 'fran');
    replicas.push(f);
    const fP = (await idOf(f, '/projects.xml', 'name', 'Alpha Ascent'))!;
    const fL = (await idOf(f, `/projects/${fP}/todo_lists.xml`, 'name', 'Doomed'))!;
    pa.faults.down = true;
    pf.faults.down = true;
    expect((await a.req('DELETE', `/todo_lists/${L}.xml`)).status).toBe(200);
    loc(await f.req('POST', `/todo_lists/${fL}/todo_items.xml`, `${XML}<todo-item><content>added meanwhile</content></todo-item>`));
    pa.faults.down = false;
    pf.faults.down = false;
    await settle(a);
    await settle(f);
    const list = await conflicts(f);
    expect(list).toMatchObject([{ kind: 'parent-deleted', resource: 'todoItem', title: 'added meanwhile', place: ['Alpha Ascent', 'Doomed'], actions: ['restore', 'theirs'] }]);
    expect((await f.req('POST', `/sync/conflicts/${list[0].id}/resolve`, JSON.stringify({ keep: 'restore' }))).status).toBe(200);
    await settle(f);
    await settle(a);
    const rP = (await idOf({ req: remote.as('ada') }, '/projects.xml', 'name', 'Alpha Ascent'))!;
    for (const [who, req, project] of [['team server', remote.as('ada'), rP], ['fran', f.req, fP], ['ada', a.req, P]] as const) {
      const lists = (await req('GET', `/projects/${project}/todo_lists.xml`)).xml().children.filter((l) => l.children.find((c) => c.name === 'name')?.text === 'Doomed');
      expect(lists, who).toHaveLength(1);
      const items = (await req('GET', `/todo_lists/${lists[0].children.find((c) => c.name === 'id')!.text}/todo_items.xml`)).xml().children;
      expect(items.map((it) => it.children.find((c) => c.name === 'content')?.text), who).toEqual(['added meanwhile']);
    }
  });
});
