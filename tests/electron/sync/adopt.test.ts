// Connecting a data directory that already holds local work (issue #8, D150–D152): its work is
// pushed up (projects matched by name, created when the remote allows it) or the connect is refused
// with one message and nothing changes on either side; a disconnected replica resumes.

import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../../electron/http/app.ts';
import { SqliteStore } from '../../../electron/store/sqlite.ts';
import { importSeed } from '../../../electron/service/account.ts';
import { SyncEngine } from '../../../electron/sync/engine.ts';
import { parseXml } from '../../../shared/codec/in.ts';
import { dump, loc, password, startProxy, startRemote, startReplica, type Proxy, type Remote, type Replica, type Requester, type Res } from '../../support/sync-helpers.ts';

const XML = '<?xml version="1.0" encoding="UTF-8"?>\n';
const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => { for (const c of closers.splice(0).reverse()) await c(); });

const LOCAL_PASSWORD = 'local-pass-1';
const SEED = {
  format: 'bivouac-seed/1',
  account: { name: 'My own work' },
  companies: [{ key: 'firm', firm: true, name: 'Solo Firm' }],
  people: [
    { key: 'me', company: 'firm', 'first-name': 'Ada', 'last-name': 'Here', 'email-address': 'ada@home.example', 'user-name': 'ada', password: LOCAL_PASSWORD, administrator: true },
    { key: 'fran', company: 'firm', 'first-name': 'Fran', 'last-name': 'Here', 'email-address': 'fran@summit.example', 'user-name': 'franny', password: 'fran-pass-12' },
    // Matched by e-mail to the remote cleo, with the user name of the remote finn (no clash after the connect).
    { key: 'cleo', company: 'firm', 'first-name': 'Cleo', 'last-name': 'Here', 'email-address': 'cleo@valley.example', 'user-name': 'finn', password: 'cleo-pass-123' },
    { key: 'zed', company: 'firm', 'first-name': 'Zed', 'last-name': 'Nobody', 'email-address': 'zed@nowhere.example', 'user-name': 'zed', password: 'zed-pass-123' },
  ],
  projects: [
    { key: 'alpha', name: 'Alpha Ascent', members: ['me', 'fran', 'zed'] },
    { key: 'ridge', name: 'New Ridge', members: ['me'] },
  ],
};

interface Standalone { dir: string; store: SqliteStore; engine: SyncEngine; req: Requester; as(user: string, pass: string): Requester }

async function standalone(): Promise<Standalone> {
  const dir = mkdtempSync(join(tmpdir(), 'bivouac-adopt-'));
  const store = new SqliteStore(join(dir, 'bivouac.sqlite'));
  await importSeed(store, SEED);
  const engine = new SyncEngine({ store, dataDir: dir, intervalSec: 0, timeoutMs: 3000 });
  await engine.resume();
  const app = await buildApp({ store, sync: engine, responseCacheBytes: 0 });
  await app.ready();
  closers.push(async () => { engine.stop(); await engine.idle(); await app.close(); await store.close(); rmSync(dir, { recursive: true, force: true }); });
  const as = (user: string, pass: string): Requester => async (method, url, body) => {
    const r = await app.inject({ method: method as 'GET', url, payload: body, headers: { host: '127.0.0.1', authorization: basic(user, pass) } });
    return { status: r.statusCode, headers: r.headers as Res['headers'], body: r.body, xml: () => parseXml(r.body)! };
  };
  return { dir, store, engine, req: as('ada', LOCAL_PASSWORD), as };
}

const idOf = async (req: Requester, name: string) =>
  (await req('GET', '/projects.xml')).xml().children.find((p) => p.children.find((c) => c.name === 'name')?.text === name)!
    .children.find((c) => c.name === 'id')!.text;
const personId = async (s: Standalone, user: string) => (await s.store.get<{ id: number }>('SELECT id FROM people WHERE user_name = ?', [user]))!.id;

/** Work of every kind in both local projects. */
async function localWork(s: Standalone): Promise<void> {
  const r = s.req;
  const A = await idOf(r, 'Alpha Ascent');
  const N = await idOf(r, 'New Ridge');
  const zed = await personId(s, 'zed');
  const fran = await personId(s, 'franny');
  const cat = loc(await r('POST', `/projects/${A}/categories.xml`, `${XML}<category><name>Local cat</name><type>post</type></category>`));
  const ms = loc(await r('POST', `/projects/${A}/milestones/create`, `${XML}<request><milestone><title>Local summit</title><deadline>2026-12-01</deadline><responsible-party>${zed}</responsible-party></milestone></request>`));
  expect((await r('POST', `/milestones/complete/${ms}`)).status).toBe(200);
  const post = loc(await r('POST', `/projects/${A}/posts.xml`, `${XML}<post><title>Local post</title><body>written alone</body><category-id>${cat}</category-id><milestone-id>${ms}</milestone-id></post>`));
  loc(await r('POST', `/posts/${post}/comments.xml`, `${XML}<comment><body>a local comment</body></comment>`));
  const list = loc(await r('POST', `/projects/${A}/todo_lists.xml`, `${XML}<todo-list><name>Local list</name><milestone-id>${ms}</milestone-id></todo-list>`));
  const items: string[] = [];
  for (const c of ['first', 'second', 'third']) items.push(loc(await r('POST', `/todo_lists/${list}/todo_items.xml`, `${XML}<todo-item><content>${c}</content></todo-item>`)));
  expect((await r('PUT', `/todo_items/${items[1]}/complete.xml`)).status).toBe(200);
  expect((await r('PUT', `/todo_items/${items[2]}.xml`, `${XML}<todo-item><responsible-party>${zed}</responsible-party></todo-item>`)).status).toBe(200);
  expect((await r('POST', `/todo_lists/${list}/todo_items/reorder.xml`, `${XML}<todo-items><todo-item><id>${items[2]}</id></todo-item><todo-item><id>${items[0]}</id></todo-item><todo-item><id>${items[1]}</id></todo-item></todo-items>`)).status).toBe(200);
  loc(await r('POST', `/todo_items/${items[0]}/comments.xml`, `${XML}<comment><body>on an item</body></comment>`));
  loc(await r('POST', `/projects/${A}/time_entries.xml`, `${XML}<time-entry><date>2026-01-02</date><hours>2.5</hours><description>mine</description><todo-item-id>${items[0]}</todo-item-id></time-entry>`));
  loc(await r('POST', `/projects/${A}/time_entries.xml`, `${XML}<time-entry><date>2026-01-03</date><hours>1</hours><description>fran's</description><person-id>${fran}</person-id></time-entry>`));
  loc(await r('POST', `/projects/${N}/posts.xml`, `${XML}<post><title>Ridge plan</title><body>new project</body></post>`));
  const nl = loc(await r('POST', `/projects/${N}/todo_lists.xml`, `${XML}<todo-list><name>Ridge list</name></todo-list>`));
  loc(await r('POST', `/todo_lists/${nl}/todo_items.xml`, `${XML}<todo-item><content>ridge item</content></todo-item>`));
}

/** Every file of the directory, hashed. */
const files = (dir: string) => Object.fromEntries(readdirSync(dir).sort().map((f) => [f, createHash('sha256').update(readFileSync(join(dir, f))).digest('hex')]));

describe('connecting a directory that holds local work', () => {
  let remote: Remote;
  let proxy: Proxy;
  const start = async (plain: boolean) => {
    remote = await startRemote();
    proxy = await startProxy(remote.url, { plain });
    closers.push(async () => { await proxy.close(); await remote.close(); });
  };

  it('a team server: projects matched by name, the others created (administrator), everything pushed once', async () => {
    await start(false);
    const s = await standalone();
    await localWork(s);
    const put = await s.req('PUT', '/sync/remote', JSON.stringify({ url: proxy.url, user: 'ada', password: password('ada') }));
    expect(put.status, put.body).toBe(200);
    expect(JSON.parse(put.body)).toMatchObject({ pending: 0, rejected: 0, conflicts: 0, remote: { kind: 'team' } });
    // The owner signs in with the remote password now.
    const local = s.as('ada', password('ada'));
    const there = await dump(remote.as('ada')) as Record<string, { posts: { title: string; comments: string[]; category: string | null; milestone: string | null }[];
      lists: { name: string; items: { content: string; completed: string }[] }[]; milestones: { title: string; completed: string }[]; time: { description: string }[]; categories: string[] }>;
    expect(await dump(local)).toEqual(there);
    expect(Object.keys(there).sort()).toEqual(['Alpha Ascent', 'Base Camp Logistics', 'Crevasse Survey', 'New Ridge']);
    const a = there['Alpha Ascent'];
    expect(a.posts).toEqual([{ title: 'Local post', body: 'written alone', category: 'Local cat', milestone: 'Local summit', comments: ['a local comment'] }]);
    expect(a.milestones).toMatchObject([{ title: 'Local summit', completed: 'true' }]);
    expect(a.lists.map((l) => [l.name, l.items.map((i) => [i.content, i.completed])])).toEqual([['Local list', [['third', 'false'], ['first', 'false'], ['second', 'true']]]]);
    expect(a.time.map((t) => t.description).sort()).toEqual(["fran's", 'mine']);
    expect(there['New Ridge'].posts.map((p) => p.title)).toEqual(['Ridge plan']);
    expect(there['New Ridge'].lists[0].items.map((i) => i.content)).toEqual(['ridge item']);
    // A replica is one person: the other local people no longer sign in here.
    expect((await s.as('franny', 'fran-pass-12')('GET', '/me.xml')).status).toBe(401);
    expect((await s.req('GET', '/me.xml')).status).toBe(401);
    // Zed has no match: the responsible party is cleared, nothing else is lost. Fran's entry is Fran's.
    const zedItem = await remote.store.get<{ responsible_party_id: number | null }>("SELECT responsible_party_id FROM todo_items WHERE content = 'third'");
    expect(zedItem!.responsible_party_id).toBeNull();
    const franEntry = await remote.store.get<{ user_name: string }>("SELECT p.user_name FROM time_entries t JOIN people p ON p.id = t.person_id WHERE t.description = 'fran''s'");
    expect(franEntry!.user_name).toBe('fran');
    // It is a replica now: a second sync sends nothing again (no duplicates).
    await s.engine.run();
    expect(await remote.store.all("SELECT id FROM posts WHERE title = 'Local post'")).toHaveLength(1);
    expect(await remote.store.all("SELECT id FROM projects WHERE name = 'New Ridge'")).toHaveLength(1);
    expect(await remote.store.all("SELECT id FROM categories WHERE name = 'Local cat'")).toHaveLength(1);
    expect(await dump(local)).toEqual(await dump(remote.as('ada')));
    expect(JSON.parse((await local('GET', '/sync/status')).body)).toMatchObject({ state: 'idle', pending: 0, rejected: 0 });
  });

  it('a plain server (or a person who may not create projects): refused with one message, nothing changed on either side', async () => {
    await start(true);
    const s = await standalone();
    await localWork(s);
    const A = await idOf(s.req, 'Alpha Ascent');
    const zed = await personId(s, 'zed');
    loc(await s.req('POST', `/projects/${A}/time_entries.xml`, `${XML}<time-entry><date>2026-01-04</date><hours>3</hours><description>zed's</description><person-id>${zed}</person-id></time-entry>`));
    const before = files(s.dir);
    const remoteBefore = await dump(remote.as('ada'));
    const put = await s.req('PUT', '/sync/remote', JSON.stringify({ url: proxy.url, user: 'ada', password: password('ada') }));
    expect(put.status).toBe(409);
    const msg = (JSON.parse(put.body) as { errors: string[] }).errors[0];
    expect(msg).toMatch(/nothing was changed/);
    expect(msg).toMatch(/project "New Ridge": not on the remote/);
    expect(msg).toMatch(/1 time entry: Zed Nobody has no match on the remote/);
    expect(proxy.seen.filter((x) => x.method !== 'GET')).toEqual([]);
    expect(await dump(remote.as('ada'))).toEqual(remoteBefore);
    expect(JSON.parse((await s.req('GET', '/sync/status')).body)).toMatchObject({ state: 'local', remote: null, pending: 0 });
    expect(files(s.dir)).toEqual(before);
    // A team server where the person is no administrator refuses the new project the same way.
    const t = await startProxy(remote.url);
    closers.push(() => t.close());
    const fran = await s.req('PUT', '/sync/remote', JSON.stringify({ url: t.url, user: 'fran', password: password('fran') }));
    expect(fran.status).toBe(409);
    expect((JSON.parse(fran.body) as { errors: string[] }).errors[0]).toMatch(/project "New Ridge".*only administrators create projects/);
    expect(files(s.dir)).toEqual(before);
  });

  it('a local write while the work is being checked: refused, nothing changed', async () => {
    await start(false);
    const s = await standalone();
    await localWork(s);
    proxy.faults.delayMs = 150;
    const put = s.req('PUT', '/sync/remote', JSON.stringify({ url: proxy.url, user: 'ada', password: password('ada') }));
    for (let k = 0; k < 200 && !proxy.seen.some((x) => x.path === '/companies.xml'); k++) await new Promise((ok) => setTimeout(ok, 10));
    const N = await idOf(s.req, 'New Ridge');
    loc(await s.req('POST', `/projects/${N}/posts.xml`, `${XML}<post><title>Written meanwhile</title></post>`));
    const before = files(s.dir);
    const r = await put;
    expect(r.status).toBe(409);
    expect((JSON.parse(r.body) as { errors: string[] }).errors[0]).toMatch(/changed while it was being checked/);
    expect(files(s.dir)).toEqual(before);
    expect(proxy.seen.filter((x) => x.method !== 'GET')).toEqual([]);
    expect(JSON.parse((await s.req('GET', '/sync/status')).body)).toMatchObject({ state: 'local', remote: null, pending: 0 });
  });

  it('a plain server with every project matched: the work is pushed', async () => {
    await start(true);
    const s = await standalone();
    await localWork(s);
    const N = await idOf(s.req, 'New Ridge');
    expect((await s.req('PUT', `/projects/${N}.xml`, `${XML}<project><name>Base Camp Logistics</name></project>`)).status).toBe(200);
    const put = await s.req('PUT', '/sync/remote', JSON.stringify({ url: proxy.url, user: 'ada', password: password('ada') }));
    expect(put.status, put.body).toBe(200);
    expect(JSON.parse(put.body)).toMatchObject({ pending: 0, rejected: 0, remote: { kind: 'plain' } });
    const there = await dump(remote.as('ada')) as Record<string, { posts: { title: string }[] }>;
    expect(await dump(s.as('ada', password('ada')))).toEqual(there);
    expect(there['Base Camp Logistics'].posts.map((p) => p.title)).toEqual(['Ridge plan']);
    expect(proxy.seen.some((x) => x.method === 'POST' && x.path === '/projects.xml')).toBe(false);
  });

  it('answers lost and the remote killed during the push of adopted work: the connect stands, nothing lost or doubled', async () => {
    await start(true);
    const s = await standalone();
    await localWork(s);
    const N = await idOf(s.req, 'New Ridge');
    expect((await s.req('PUT', `/projects/${N}.xml`, `${XML}<project><name>Base Camp Logistics</name></project>`)).status).toBe(200);
    let writes = 0;
    proxy.faults.loseAnswer = (m) => m !== 'GET' && ++writes % 2 === 1;
    const kill = setInterval(() => { if (writes >= 7 && !proxy.faults.down) proxy.faults.down = true; }, 1);
    const put = await s.req('PUT', '/sync/remote', JSON.stringify({ url: proxy.url, user: 'ada', password: password('ada') }));
    clearInterval(kill);
    expect(put.status, put.body).toBe(200);
    expect(JSON.parse(put.body)).toMatchObject({ state: 'offline', remote: { url: proxy.url } });
    expect(JSON.parse(put.body).pending).toBeGreaterThan(0);
    proxy.faults.down = false;
    const status = async () => JSON.parse((await s.as('ada', password('ada'))('GET', '/sync/status')).body) as { pending: number };
    for (let k = 0; k < 10 && (await status()).pending > 0; k++) await s.engine.run().catch(() => undefined);
    proxy.faults.loseAnswer = undefined;
    await s.engine.run();
    const there = await dump(remote.as('ada')) as Record<string, { posts: { title: string; comments: string[] }[]; lists: { items: unknown[] }[]; time: unknown[] }>;
    expect(await dump(s.as('ada', password('ada')))).toEqual(there);
    expect(there['Alpha Ascent'].posts).toMatchObject([{ title: 'Local post', comments: ['a local comment'] }]);
    expect(there['Alpha Ascent'].lists[0].items).toHaveLength(3);
    expect(there['Alpha Ascent'].time).toHaveLength(2);
    expect(there['Base Camp Logistics'].posts.map((p) => p.title)).toEqual(['Ridge plan']);
    expect(writes).toBeGreaterThan(7);
    expect(await status()).toMatchObject({ pending: 0, rejected: 0 });
  });
});

describe('disconnect and reconnect', () => {
  let remote: Remote;
  let proxy: Proxy;
  const replicas: Replica[] = [];
  afterEach(async () => { for (const r of replicas.splice(0)) await r.close(); await proxy?.close(); await remote?.close(); });

  it('the same person resumes: work pending at the disconnect and done while disconnected is pushed once', async () => {
    remote = await startRemote();
    proxy = await startProxy(remote.url, { plain: true });
    const a = await startReplica(proxy.url, 'ada');
    replicas.push(a);
    const P = await idOf(a.req, 'Alpha Ascent');
    const L = loc(await a.req('POST', `/projects/${P}/todo_lists.xml`, `${XML}<todo-list><name>Before the disconnect</name></todo-list>`));
    loc(await a.req('POST', `/todo_lists/${L}/todo_items.xml`, `${XML}<todo-item><content>pending</content></todo-item>`));
    await a.engine.disconnect();
    expect(JSON.parse((await a.req('GET', '/sync/status')).body)).toMatchObject({ state: 'local', remote: null, pending: 2 });
    loc(await a.req('POST', `/todo_lists/${L}/todo_items.xml`, `${XML}<todo-item><content>while disconnected</content></todo-item>`));
    expect(await remote.store.all("SELECT id FROM todo_lists WHERE name = 'Before the disconnect'")).toHaveLength(0);
    // Another person of the same remote: refused, nothing changed.
    const other = await a.engine.connect(proxy.url, { user: 'fran', password: password('fran') }).then(() => null, (e: Error) => e.message);
    expect(other).toMatch(/was a replica of .* as ada/);
    expect(JSON.parse((await a.req('GET', '/sync/status')).body)).toMatchObject({ remote: null, pending: 3 });
    await a.engine.connect(proxy.url, { user: 'ada', password: password('ada') });
    await a.engine.run();
    expect(await remote.store.all("SELECT id FROM todo_lists WHERE name = 'Before the disconnect'")).toHaveLength(1);
    expect((await remote.store.all<{ content: string }>('SELECT content FROM todo_items WHERE todo_list_id = (SELECT id FROM todo_lists WHERE name = ?) ORDER BY position', ['Before the disconnect'])).map((x) => x.content))
      .toEqual(['pending', 'while disconnected']);
    expect(await dump(a.req)).toEqual(await dump(remote.as('ada')));
    expect(JSON.parse((await a.req('GET', '/sync/status')).body)).toMatchObject({ pending: 0, rejected: 0 });
  });
});

describe('a disconnected replica still belongs to its person', () => {
  it('who is no administrator, and reconnects through the local API', async () => {
    const remote = await startRemote();
    closers.push(() => remote.close());
    const f = await startReplica(remote.url, 'fran');
    closers.push(() => f.close());
    const P = await idOf(f.req, 'Crevasse Survey');
    expect((await f.req('DELETE', '/sync/remote')).status).toBe(200);
    loc(await f.req('POST', `/projects/${P}/todo_lists.xml`, `${XML}<todo-list><name>Fran, disconnected</name></todo-list>`));
    const put = await f.req('PUT', '/sync/remote', JSON.stringify({ url: remote.url, user: 'fran', password: password('fran') }));
    expect(put.status, put.body).toBe(200);
    expect(JSON.parse(put.body)).toMatchObject({ pending: 0, remote: { user: 'fran' } });
    expect(await remote.store.all("SELECT id FROM todo_lists WHERE name = 'Fran, disconnected'")).toHaveLength(1);
  });
});

describe('connecting a replica to another remote', () => {
  it('its records are local work there: pushed once, the first remote untouched', async () => {
    const one = await startRemote();
    const two = await startRemote();
    closers.push(() => one.close(), () => two.close());
    const a = await startReplica(one.url, 'ada');
    closers.push(() => a.close());
    const P = await idOf(a.req, 'Alpha Ascent');
    const L = loc(await a.req('POST', `/projects/${P}/todo_lists.xml`, `${XML}<todo-list><name>Moved along</name></todo-list>`));
    loc(await a.req('POST', `/todo_lists/${L}/todo_items.xml`, `${XML}<todo-item><content>synced to one</content></todo-item>`));
    await a.engine.run();
    loc(await a.req('POST', `/todo_lists/${L}/todo_items.xml`, `${XML}<todo-item><content>pending for one</content></todo-item>`));
    await a.engine.disconnect();
    const oneBefore = await dump(one.as('ada'));
    await a.engine.connect(two.url, { user: 'ada', password: password('ada') });
    await a.engine.run();
    const there = await dump(two.as('ada')) as Record<string, { lists: { name: string; items: { content: string }[] }[] }>;
    expect(there['Alpha Ascent'].lists.map((l) => [l.name, l.items.map((i) => i.content)])).toEqual([['Moved along', ['synced to one', 'pending for one']]]);
    expect(await dump(a.req)).toEqual(there);
    expect(await dump(one.as('ada'))).toEqual(oneBefore);
    expect(JSON.parse((await a.req('GET', '/sync/status')).body)).toMatchObject({ pending: 0, rejected: 0, conflicts: 0, remote: { url: two.url } });
  });
});

describe.each([['team server', false], ['plain server', true]] as const)('a project created on a replica, against a %s', (_n, plain) => {
  let remote: Remote;
  let proxy: Proxy;
  let a: Replica | undefined;
  afterEach(async () => { await a?.close(); await proxy?.close(); await remote?.close(); });

  it(plain ? 'is refused at once, in words, with nothing queued (issue #27, D347); a rename too; other work goes on' : 'is created, with its work', async () => {
    remote = await startRemote();
    proxy = await startProxy(remote.url, { plain });
    a = await startReplica(proxy.url, 'ada');
    const P = await idOf(a.req, 'Alpha Ascent');
    if (plain) {
      const refused = await a.req('POST', '/projects.xml', `${XML}<project><name>Made on the replica</name></project>`);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatch(/is not a Bivouac team server: projects are created there/);
      const rename = await a.req('PUT', `/projects/${P}.xml`, `${XML}<project><name>Renamed here</name></project>`);
      expect(rename.status).toBe(409);
      expect((JSON.parse((await a.req('GET', '/sync/status')).body) as { pending: number }).pending).toBe(0);
      expect(await a.store.all("SELECT id FROM projects WHERE name IN ('Made on the replica', 'Renamed here')")).toHaveLength(0);
    } else {
      const N = loc(await a.req('POST', '/projects.xml', `${XML}<project><name>Made on the replica</name></project>`));
      loc(await a.req('POST', `/projects/${N}/todo_lists.xml`, `${XML}<todo-list><name>In the new project</name></todo-list>`));
    }
    loc(await a.req('POST', `/projects/${P}/todo_lists.xml`, `${XML}<todo-list><name>Elsewhere</name></todo-list>`));
    await a.engine.run();
    const status = JSON.parse((await a.req('GET', '/sync/status')).body) as { pending: number; rejected: number };
    expect(status.pending).toBe(0);
    expect(status.rejected).toBe(0);
    expect(await remote.store.all("SELECT id FROM todo_lists WHERE name = 'Elsewhere'")).toHaveLength(1);
    expect(await remote.store.all("SELECT id FROM projects WHERE name = 'Made on the replica'")).toHaveLength(plain ? 0 : 1);
    if (!plain) expect(await remote.store.all("SELECT id FROM todo_lists WHERE name = 'In the new project'")).toHaveLength(1);
    expect(await dump(a.req)).toEqual(await dump(remote.as('ada')));
  });
});
