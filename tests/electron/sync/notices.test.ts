// The side that lost a conflict is told (issue #26, D312, D328–D330): two people's replicas, a bystander's,
// and a team server in process. The replica that detects a conflict sends a notice after its push; the
// other side records it as a conflict of its own only when it pushed the value overwritten (or the
// deletion) itself. The notices route takes input from any signed-in person: its refusals are tested too.

import { afterEach, describe, expect, it } from 'vitest';
import { defaultEngine } from '../../support/helpers.ts';
import { pgSkipReason } from '../../support/pg.ts';
import { closeAll, loc, settle, startProxy, startRemote, startReplica, type Proxy, type Remote, type Replica, type Requester } from '../../support/sync-helpers.ts';

const XML = '<?xml version="1.0" encoding="UTF-8"?>\n';
const engine = defaultEngine();
const skip = engine === 'postgres' ? pgSkipReason() : '';

interface View {
  id: number; kind: string; field: string; resource: string; title: string; place: string[]; label: string;
  mine: string | null; theirs: string | null; mineText: string | null; theirsText: string | null; by: string | null;
  actions: string[]; resolved: boolean; keep: string | null; told: boolean; outcome: string | null; exists: boolean;
}

const idOf = async (req: Requester, path: string, field: string, value: string) => (await req('GET', path)).xml().children
  .find((p) => p.children.find((c) => c.name === field)?.text === value)?.children.find((c) => c.name === 'id')?.text;
const conflicts = async (r: Replica) => JSON.parse((await r.req('GET', '/sync/conflicts')).body) as View[];
const textOf = async (req: Requester, path: string, field: string) => (await req('GET', path)).xml().children.find((c) => c.name === field)?.text;

describe.skipIf(skip)(`the side that lost a conflict is told, against a team server on ${engine}`, () => {
  let remote: Remote;
  const proxies: Proxy[] = [];
  const replicas: Replica[] = [];
  afterEach(async () => {
    for (const p of proxies.splice(1)) await p.close();
    await closeAll(replicas, proxies.pop(), remote);
  });

  /** Ada, Fran and Finn (a bystander who sees the project) on their replicas; a list "Shared" with "one" and "two"; a list "Doomed". */
  async function three() {
    remote = await startRemote();
    for (let i = 0; i < 3; i++) proxies.push(await startProxy(remote.url));
    const a = await startReplica(proxies[0].url, 'ada');
    replicas.push(a);
    const P = (await idOf(a.req, '/projects.xml', 'name', 'Alpha Ascent'))!;
    const L = loc(await a.req('POST', `/projects/${P}/todo_lists.xml`, `${XML}<todo-list><name>Shared</name></todo-list>`));
    const D = loc(await a.req('POST', `/projects/${P}/todo_lists.xml`, `${XML}<todo-list><name>Doomed</name></todo-list>`));
    const i1 = loc(await a.req('POST', `/todo_lists/${L}/todo_items.xml`, `${XML}<todo-item><content>one</content></todo-item>`));
    const i2 = loc(await a.req('POST', `/todo_lists/${L}/todo_items.xml`, `${XML}<todo-item><content>two</content></todo-item>`));
    await settle(a);
    const f = await startReplica(proxies[1].url, 'fran');
    const b = await startReplica(proxies[2].url, 'finn');
    replicas.push(f, b);
    const fP = (await idOf(f.req, '/projects.xml', 'name', 'Alpha Ascent'))!;
    const fL = (await idOf(f.req, `/projects/${fP}/todo_lists.xml`, 'name', 'Shared'))!;
    const fD = (await idOf(f.req, `/projects/${fP}/todo_lists.xml`, 'name', 'Doomed'))!;
    const fi1 = (await idOf(f.req, `/todo_lists/${fL}/todo_items.xml`, 'content', 'one'))!;
    const fi2 = (await idOf(f.req, `/todo_lists/${fL}/todo_items.xml`, 'content', 'two'))!;
    return { a, f, b, P, L, D, i1, i2, fP, fD, fi1, fi2 };
  }
  const offline = (down: boolean) => { for (const p of proxies) p.faults.down = down; };
  /** Everyone syncs: `first` pushes first, then the other, then each again (notices are sent after a push and read at the next sync). */
  async function syncAll(first: Replica, second: Replica, bystander: Replica) {
    await settle(first);
    await settle(second);
    await settle(first);
    await settle(bystander);
  }

  it('edit/edit on the same field: the overwritten side is told who won, and "bring mine back" writes it again; the bystander is not told', async () => {
    const { a, f, b, i1, fi1 } = await three();
    offline(true);
    expect((await a.req('PUT', `/todo_items/${i1}.xml`, `${XML}<todo-item><content>one (ada)</content></todo-item>`)).status).toBe(200);
    expect((await f.req('PUT', `/todo_items/${fi1}.xml`, `${XML}<todo-item><content>one (fran)</content></todo-item>`)).status).toBe(200);
    offline(false);
    await syncAll(a, f, b);
    // Fran's value won (she pushed last) and her replica detected it, as before.
    expect(await conflicts(f)).toMatchObject([{ kind: 'field', field: 'content', mineText: 'one (fran)', theirsText: 'one (ada)', told: false }]);
    // Ada is told: her value, the one that won, who.
    const told = await conflicts(a);
    expect(told).toMatchObject([{
      kind: 'field', resource: 'todoItem', field: 'content', label: 'To-do', place: ['Alpha Ascent', 'Shared'], told: true,
      mineText: 'one (ada)', theirsText: 'one (fran)', by: 'Fran Firm', actions: ['mine', 'theirs'], exists: true,
    }]);
    // The bystander pushed neither value: not told.
    expect(await conflicts(b)).toEqual([]);
    // "Bring mine back": written again, it reaches the team server and the others.
    expect((await a.req('POST', `/sync/conflicts/${told[0].id}/resolve`, JSON.stringify({ keep: 'mine' }))).status).toBe(200);
    await settle(a);
    expect(await textOf(remote.as('ada'), `/todo_items/${(await idOf(remote.as('ada'), `/todo_lists/${await idOf(remote.as('ada'), `/projects/${await idOf(remote.as('ada'), '/projects.xml', 'name', 'Alpha Ascent')}/todo_lists.xml`, 'name', 'Shared')}/todo_items.xml`, 'content', 'one (ada)'))!}.xml`, 'content')).toBe('one (ada)');
    await settle(f);
    expect(await textOf(f.req, `/todo_items/${fi1}.xml`, 'content')).toBe('one (ada)');
  });

  for (const order of ['deleter first', 'editor first'] as const) {
    it(`edit/delete (${order}): the deleter is told who was working on it and what they did; the editor is told it was deleted`, async () => {
      const { a, f, b, i2, fi2 } = await three();
      offline(true);
      expect((await a.req('DELETE', `/todo_items/${i2}.xml`)).status).toBe(200);
      expect((await f.req('PUT', `/todo_items/${fi2}/complete.xml`)).status).toBe(200);
      if (order === 'deleter first') loc(await f.req('POST', `/todo_items/${fi2}/comments.xml`, `${XML}<comment><body>Bring the blue rope</body></comment>`));
      offline(false);
      if (order === 'deleter first') await syncAll(a, f, b);
      else await syncAll(f, a, b);
      const deleter = await conflicts(a);
      const editor = await conflicts(f);
      // Each side has cards; exactly one side was told by a notice, the other detected it itself.
      const done = (l: View[]) => l.find((c) => c.field === 'completed');
      expect(done(deleter)).toMatchObject({ kind: 'delete-vs-edit', title: 'two', place: ['Alpha Ascent', 'Shared'], theirsText: 'Done', actions: ['mine'], told: order === 'deleter first' });
      expect(done(editor)).toMatchObject({ kind: 'edit-vs-delete', title: 'two', mineText: 'Done', told: order === 'editor first' });
      if (order === 'deleter first') {
        expect(done(deleter)!.by).toBe('Fran Firm');
        // What she said on it is told too, in her words.
        expect(deleter.find((c) => c.field === '*')).toMatchObject({ kind: 'delete-vs-edit', resource: 'comment', theirsText: 'Bring the blue rope', place: ['Alpha Ascent', 'Shared', 'two'], told: true, by: 'Fran Firm' });
        // Fran restores her work: Ada's cards say so.
        const card = editor.find((c) => c.actions.includes('restore'))!;
        expect((await f.req('POST', `/sync/conflicts/${card.id}/resolve`, JSON.stringify({ keep: 'restore' }))).status).toBe(200);
        await settle(f);
        await settle(a);
        for (const c of await conflicts(a)) expect(c).toMatchObject({ told: true, outcome: 'restored' });
        expect(await idOf(a.req, `/todo_lists/${(await idOf(a.req, `/projects/${(await idOf(a.req, '/projects.xml', 'name', 'Alpha Ascent'))!}/todo_lists.xml`, 'name', 'Shared'))!}/todo_items.xml`, 'content', 'two')).toBeDefined();
      } else {
        expect(done(editor)!.by).toBe('Ada Admin');
      }
      expect(await conflicts(b)).toEqual([]);
    });
  }

  it('a client who deleted a to-do is told of the work lost with it (its tombstone says clients saw it), never of a private comment\'s text (D328 amended)', async () => {
    const { f, b, fi2 } = await three();
    proxies.push(await startProxy(remote.url));
    const c = await startReplica(proxies[3].url, 'cleo'); // a client: Valley Client Co, member of Alpha Ascent
    replicas.push(c);
    const ci2 = (await idOf(c.req, `/todo_lists/${(await idOf(c.req, `/projects/${(await idOf(c.req, '/projects.xml', 'name', 'Alpha Ascent'))!}/todo_lists.xml`, 'name', 'Shared'))!}/todo_items.xml`, 'content', 'two'))!;
    offline(true);
    expect((await c.req('DELETE', `/todo_items/${ci2}.xml`)).status).toBe(200);
    expect((await f.req('PUT', `/todo_items/${fi2}/complete.xml`)).status).toBe(200);
    loc(await f.req('POST', `/todo_items/${fi2}/comments.xml`, `${XML}<comment><body>Bring the blue rope</body></comment>`));
    loc(await f.req('POST', `/todo_items/${fi2}/comments.xml`, `${XML}<comment><body>Secret route</body><private type="boolean">true</private></comment>`));
    offline(false);
    await syncAll(c, f, b);
    const told = await conflicts(c);
    expect(told.find((x) => x.field === 'completed')).toMatchObject({ kind: 'delete-vs-edit', title: 'two', theirsText: 'Done', told: true, by: 'Fran Firm' });
    expect(told.find((x) => x.theirsText === 'Bring the blue rope')).toMatchObject({ kind: 'delete-vs-edit', resource: 'comment', told: true });
    expect(JSON.stringify(told)).not.toContain('Secret route');
    expect(await conflicts(b)).toEqual([]);
  });

  it('a to-do added to a list deleted meanwhile: the deleter is told, and told that it was left deleted', async () => {
    const { a, f, b, D, fD } = await three();
    offline(true);
    expect((await a.req('DELETE', `/todo_lists/${D}.xml`)).status).toBe(200);
    loc(await f.req('POST', `/todo_lists/${fD}/todo_items.xml`, `${XML}<todo-item><content>added meanwhile</content></todo-item>`));
    offline(false);
    await syncAll(a, f, b);
    const editor = await conflicts(f);
    expect(editor).toMatchObject([{ kind: 'parent-deleted', resource: 'todoItem', title: 'added meanwhile', told: false }]);
    expect(await conflicts(a)).toMatchObject([{ kind: 'delete-vs-edit', resource: 'todoItem', field: '*', theirsText: 'added meanwhile', place: ['Alpha Ascent', 'Doomed'], told: true, by: 'Fran Firm', outcome: null }]);
    expect((await f.req('POST', `/sync/conflicts/${editor[0].id}/resolve`, JSON.stringify({ keep: 'theirs' }))).status).toBe(200);
    await settle(f);
    await settle(a);
    expect(await conflicts(a)).toMatchObject([{ told: true, outcome: 'dropped' }]);
    expect(await conflicts(b)).toEqual([]);
  });
});

describe.skipIf(skip)(`POST and GET /sync/notices.json on ${engine}: refusals, visibility, replays`, () => {
  let remote: Remote;
  afterEach(async () => { await remote?.close(); });

  const notice = (o: Record<string, unknown> = {}) => ({ key: 'k1', kind: 'field', project: 0, resource: 'todoItem', id: 0, field: 'content',
    overwritten: 'old', kept: 'new', title: 'one', place: ['Alpha Ascent', 'Shared'], ...o });
  const post = (req: Requester, notices: unknown[]) => req('POST', '/sync/notices.json', JSON.stringify({ notices }));

  async function setup() {
    remote = await startRemote();
    const ada = remote.as('ada');
    const P = (await idOf(ada, '/projects.xml', 'name', 'Alpha Ascent'))!;
    const L = loc(await ada('POST', `/projects/${P}/todo_lists.xml`, `${XML}<todo-list><name>Shared</name></todo-list>`));
    const I = loc(await ada('POST', `/todo_lists/${L}/todo_items.xml`, `${XML}<todo-item><content>one</content></todo-item>`));
    const fran = remote.as('fran');
    const C = (await idOf(fran, '/projects.xml', 'name', 'Crevasse Survey'))!;
    const CL = loc(await fran('POST', `/projects/${C}/todo_lists.xml`, `${XML}<todo-list><name>Secret</name></todo-list>`));
    const CI = loc(await fran('POST', `/todo_lists/${CL}/todo_items.xml`, `${XML}<todo-item><content>hidden</content></todo-item>`));
    return { ada, fran, P: Number(P), I: Number(I), C: Number(C), CI: Number(CI) };
  }

  it('the capabilities say notices and a version', async () => {
    remote = await startRemote();
    expect(JSON.parse((await remote.as('ada')('GET', '/sync/capabilities.json')).body)).toMatchObject({ protocol: 1, version: 3, notices: true });
  });

  it('refuses: without sign-in 401; another project\'s record, or a project not seen, 404; too many 413; bad fields 422', async () => {
    const { P, I, C, CI } = await setup();
    const finn = remote.as('finn'); // sees Alpha Ascent, not Crevasse Survey (Ada, an administrator, sees every project)
    const anon = await remote.app.inject({ method: 'POST', url: '/sync/notices.json', headers: { host: '127.0.0.1' }, payload: JSON.stringify({ notices: [notice({ project: P, id: I })] }) });
    expect(anon.statusCode).toBe(401);
    expect((await remote.app.inject({ method: 'GET', url: '/sync/notices.json', headers: { host: '127.0.0.1' } })).statusCode).toBe(401);
    // A project Finn does not see, and a record of it named under his project: 404, nothing stored.
    expect((await post(finn, [notice({ project: C, id: CI })])).status).toBe(404);
    expect((await post(finn, [notice({ project: P, id: CI })])).status).toBe(404);
    expect((await post(finn, [notice({ project: P, id: I + 1000 })])).status).toBe(404);
    const ada = remote.as('ada');
    expect((await post(ada, Array.from({ length: 101 }, (_, k) => notice({ key: `k${k}`, project: P, id: I })))).status).toBe(413);
    expect((await ada('POST', '/sync/notices.json', JSON.stringify({ notices: [notice({ project: P, id: I, title: 'x'.repeat(3 * 1024 * 1024) })] }))).status).toBe(413);
    for (const bad of [{ title: 'x'.repeat(201) }, { overwritten: 'x'.repeat(2001) }, { kind: 'boom' }, { field: 'updated_at' }, { resource: 'person' },
      { key: '' }, { place: ['a', 'b', 'c', 'd', 'e'] }, { id: -1 }, { overwritten: { a: 1 } }]) {
      const r = await post(ada, [notice({ project: P, id: I, ...bad })]);
      expect(r.status, JSON.stringify(bad)).toBe(422);
    }
    expect((await ada('POST', '/sync/notices.json', 'not json')).status).toBe(400);
    expect((await ada('PUT', '/sync/notices.json', '{}')).status).toBe(405);
    expect((await ada('GET', '/sync/notices.xml')).status).toBe(404);
    expect(JSON.parse((await ada('GET', '/sync/notices.json')).body)).toEqual({ cursor: 0, more: false, notices: [] });
  });

  it('a replayed key is stored once; only people who see the project read it, with the sender named by the server', async () => {
    const { ada, P, I, fran } = await setup();
    const first = await post(ada, [notice({ project: P, id: I, key: 'same' })]);
    expect(first.status, first.body).toBe(200);
    expect(JSON.parse(first.body)).toEqual({ accepted: 1, replayed: 0 });
    expect(JSON.parse((await post(ada, [notice({ project: P, id: I, key: 'same' })])).body)).toEqual({ accepted: 0, replayed: 1 });
    const read = JSON.parse((await fran('GET', '/sync/notices.json?since=0')).body) as { cursor: number; notices: { by: { name: string }; kind: string; id: number }[] };
    expect(read.notices).toHaveLength(1);
    expect(read.notices[0]).toMatchObject({ kind: 'field', id: I, by: { name: 'Ada Admin' } });
    expect(JSON.parse((await fran('GET', `/sync/notices.json?since=${read.cursor}`)).body).notices).toEqual([]);
    // Carl (a client, not in the project) reads nothing of it.
    expect(JSON.parse((await remote.as('carl')('GET', '/sync/notices.json')).body).notices).toEqual([]);
    expect((await fran('GET', '/sync/notices.json?since=abc')).status).toBe(400);
  });
});

describe('a replica reading notices from a hostile remote', () => {
  it('records only well-formed notices about its own pushed values, bounded, each once even when the cursor does not move', async () => {
    const { SqliteStore } = await import('../../../electron/store/sqlite.ts');
    const { exchangeNotices } = await import('../../../electron/sync/notices.ts');
    const store = new SqliteStore(':memory:');
    try {
      await store.write(async (w) => {
        w.outbox?.mute();
        await w.run('INSERT INTO sync_ids (resource, local_id, remote_id) VALUES (?, ?, ?)', ['todoItem', 5, 55]);
        await w.run('INSERT INTO sync_pushed (resource, remote_id, field, value) VALUES (?, ?, ?, ?)', ['todoItem', 55, 'content', 'mine']);
      });
      const n = (seq: number, o: Record<string, unknown> = {}) => ({ seq, at: '2026-11-28T08:00:00Z', by: { id: 2, name: 'Fran Firm' }, kind: 'field', project: 1,
        resource: 'todoItem', id: 55, field: 'content', child: null, overwritten: 'mine', kept: 'theirs', title: 'one', place: ['Alpha'], ...o });
      const page = { cursor: '4', more: true, notices: [
        n(1, { overwritten: 'someone else' }), // not the value pushed here: a bystander is not told
        n(2, { title: 'x'.repeat(10_000), place: Array(50).fill('p') }), // recorded, its texts bounded
        { seq: 3, kind: 'boom' }, n(3, { field: 'updated_at' }), n(3, { resource: 'nothing' }), n(3, { id: 2 ** 53 + 2 }), 'junk', null,
        n(4),
        n(9), // beyond the page's cursor: ignored
      ] };
      let reads = 0;
      const remote = { request: async () => { reads++; return { status: 200, headers: new Headers(), body: JSON.stringify(reads === 1 ? page : { ...page, cursor: '4' }) }; } };
      await exchangeNotices(store, remote as never);
      await exchangeNotices(store, remote as never); // the same page again, its cursor not moved: nothing twice
      const rows = await store.all<{ mine: string; theirs: string; context: string }>('SELECT mine, theirs, context FROM sync_conflicts ORDER BY id');
      expect(rows.map((r) => [r.mine, r.theirs])).toEqual([['mine', 'theirs'], ['mine', 'theirs']]);
      const ctx = JSON.parse(rows[0].context) as { title: string; place: string[]; by: string; told: boolean };
      expect(ctx.title.length).toBeLessThanOrEqual(200);
      expect(ctx.place.length).toBeLessThanOrEqual(4);
      expect(ctx).toMatchObject({ by: 'Fran Firm', told: true });
      expect(reads).toBeLessThanOrEqual(12);
    } finally {
      await store.close();
    }
  });
});
