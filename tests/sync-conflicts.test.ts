// Conflicts both people understand (issue #26, D310): two people's replicas and a team server in
// process. What GET /sync/conflicts says is for people: the record's title and where it lives, the
// field's label, readable values; bookkeeping columns never; only the resolutions that can succeed.

import { afterEach, describe, expect, it } from 'vitest';
import { defaultEngine } from './helpers.ts';
import { pgSkipReason } from './pg.ts';
import { closeAll, loc, settle, startProxy, startRemote, startReplica, type Proxy, type Remote, type Replica } from './sync-helpers.ts';

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
    expect(done).toMatchObject({ kind: 'edit-vs-delete', label: 'Done', title: 'two', place: ['Alpha Ascent', 'Shared'], mineText: 'Done', actions: ['theirs'] });
    const comment = list.find((c) => c.field === '*')!;
    expect(comment).toMatchObject({ kind: 'parent-deleted', resource: 'comment', title: 'Bring the blue rope', mineText: 'Bring the blue rope',
      place: ['Alpha Ascent', 'Shared', 'two'], actions: ['theirs'] });
    // What cannot succeed is not offered, and is refused in words.
    const refused = await f.req('POST', `/sync/conflicts/${comment.id}/resolve`, JSON.stringify({ keep: 'mine' }));
    expect(refused.status).toBe(422);
    expect((await f.req('POST', `/sync/conflicts/${done.id}/resolve`, JSON.stringify({ keep: 'theirs' }))).status).toBe(200);
    expect((await conflicts(f)).find((c) => c.id === done.id)).toMatchObject({ resolved: true, actions: [] });
  });
});
