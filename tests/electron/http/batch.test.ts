// One request for many writes (issue #26, docs/sync-protocol.md §5, D284): POST /sync/batch.json runs
// its mutations in order through the same routes as single requests, stops at the first failure,
// replays a whole batch by its own key and each mutation by its key, and refuses what it may not hold.
// Runs on both engines (project `pg` too).

import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../electron/http/app.ts';
import type { RateOptions } from '../../../electron/service/limits.ts';
import { FIXTURE, defaultEngine, seededStore, type Who } from '../../support/helpers.ts';
import { pgSkipReason } from '../../support/pg.ts';
import { Remote as SyncRemote } from '../../../electron/sync/remote.ts';
import { sendBatch } from '../../../electron/sync/push-batch.ts';
import { closeAll, dump, loc, settle, startProxy, startRemote, startReplica, type Proxy, type Remote, type Replica } from '../../support/sync-helpers.ts';

const basic = (who: Who) => {
  const p = FIXTURE.people.find((x) => x.key === who)!;
  return `Basic ${Buffer.from(`${p['user-name']}:${p.password}`).toString('base64')}`;
};

interface Result { status: number; location?: string; replayed?: boolean; body?: string; retryAfter?: string }

async function server(rateLimit?: RateOptions) {
  const store = await seededStore();
  const app = await buildApp({ store, rateLimit });
  await app.ready();
  const req = async (who: Who | null, method: string, url: string, body?: string, headers: Record<string, string> = {}) => {
    const r = await app.inject({ method: method as 'GET', url, payload: body, headers: { host: '127.0.0.1', ...(who ? { authorization: basic(who) } : {}), ...headers } });
    return { status: r.statusCode, headers: r.headers, body: r.body, json: () => JSON.parse(r.body) as { done: boolean; count: number; results: Result[] } };
  };
  const batch = (who: Who, mutations: unknown[], key?: string) =>
    req(who, 'POST', '/sync/batch.json', JSON.stringify({ mutations }), { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) });
  const pid = Number((await store.get<{ id: number }>("SELECT id FROM projects WHERE name = 'Alpha Ascent'"))!.id);
  const count = async (title: string) => Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM posts WHERE title = ?', [title]))!.n);
  const close = async () => { await app.close(); await store.close(); };
  return { store, app, req, batch, pid, count, close };
}

describe(`POST /sync/batch.json (${defaultEngine()})`, () => {
  let s: Awaited<ReturnType<typeof server>> | undefined;
  afterEach(async () => { await s?.close(); s = undefined; });

  const post = (pid: number, title: string, key: string | null) => ({ method: 'POST', path: `/projects/${pid}/posts.xml`, body: `<post><title>${title}</title></post>`, key });

  it('is advertised, runs in order with a Location per create, and the records are those of single requests', async () => {
    s = await server();
    expect((await s.req('fran', 'GET', '/sync/capabilities.json')).json()).toMatchObject({ batch: { max: 100, bytes: 1048576 } });
    const r = await s.batch('fran', [post(s.pid, 'B1', 'k1'), post(s.pid, 'B2', 'k2'), { method: 'PUT', path: `/projects/${s.pid}/posts.xml`, body: null, key: 'k3' }].slice(0, 2));
    expect(r.status).toBe(200);
    const j = r.json();
    expect(j.done).toBe(true);
    expect(j.results.map((x) => x.status)).toEqual([201, 201]);
    const id = /(\d+)\.xml$/.exec(j.results[0].location!)![1];
    const one = await s.req('fran', 'GET', `/posts/${id}.xml`);
    expect(one.body).toContain('<title>B1</title>');
    // A mutation's key is the same key as a single request's: sent alone afterwards, it replays.
    const alone = await s.req('fran', 'POST', `/projects/${s.pid}/posts.xml`, '<post><title>B1</title></post>', { 'idempotency-key': 'k1' });
    expect(alone.headers['idempotent-replayed']).toBe('true');
    expect(alone.headers.location).toBe(j.results[0].location);
    expect(await s.count('B1')).toBe(1);
  });

  it('a whole batch replayed after a lost answer executes nothing again; each mutation replays by its own key', async () => {
    s = await server();
    const muts = [post(s.pid, 'R1', 'r1'), post(s.pid, 'R2', 'r2'), post(s.pid, 'R3', 'r3')];
    const first = await s.batch('fran', muts, 'batch-1');
    expect(first.json().done).toBe(true);
    const again = await s.batch('fran', muts, 'batch-1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    // Regrouped under another batch key: the mutations replay one by one, with their first answers.
    const regrouped = await s.batch('fran', [muts[2], muts[0], post(s.pid, 'R4', 'r4')], 'batch-2');
    const rj = regrouped.json();
    expect(rj.results.map((x) => [x.status, x.replayed ?? false])).toEqual([[201, true], [201, true], [201, false]]);
    expect(rj.results[0].location).toBe(first.json().results[2].location);
    for (const t of ['R1', 'R2', 'R3', 'R4']) expect(await s.count(t)).toBe(1);
  });

  it('a batch that fails half way: what came before stays, the failing one has its error document, the rest never ran', async () => {
    s = await server();
    const r = await s.batch('fran', [post(s.pid, 'H1', 'h1'), { ...post(s.pid, '', 'h2') }, post(s.pid, 'H3', 'h3')]);
    expect(r.status).toBe(200);
    const j = r.json();
    expect(j.done).toBe(false);
    expect(j.count).toBe(3);
    expect(j.results.map((x) => x.status)).toEqual([201, 422]);
    expect(j.results[1].body).toContain('<error>');
    expect(await s.count('H1')).toBe(1);
    expect(await s.count('H3')).toBe(0);
    // The refused mutation kept no key (D244): corrected and sent again with it, it executes.
    const fixed = await s.batch('fran', [post(s.pid, 'H1', 'h1'), { ...post(s.pid, 'H2', 'h2') }, post(s.pid, 'H3', 'h3')]);
    expect(fixed.json().results.map((x) => [x.status, x.replayed ?? false])).toEqual([[201, true], [201, false], [201, false]]);
    expect(await s.count('H1')).toBe(1);
    // Visibility applies as for a single request: carl belongs to no project.
    const carl = await s.batch('carl', [post(s.pid, 'C1', 'c1')]);
    expect(carl.json().results[0].status).toBe(404);
    expect(await s.count('C1')).toBe(0);
  });

  it('each mutation claims its key with its own write (D340): answers kept for those that ran, nothing for the refused one or those not run', async () => {
    s = await server();
    const run = s.store.run.bind(s.store);
    const own: string[] = [];
    s.store.run = (async (sql: string, params?: Parameters<typeof run>[1]) => { if (/idempotency_keys/.test(sql)) own.push(sql.trim().split(/\s+/)[0]); return run(sql, params); }) as typeof s.store.run;
    const r = await s.batch('fran', [post(s.pid, 'K1', 'kk1'), post(s.pid, 'K2', 'kk2'), post(s.pid, '', 'kk3'), post(s.pid, 'K4', 'kk4')], 'kb-1');
    s.store.run = run;
    expect(r.json().results.map((x) => x.status)).toEqual([201, 201, 422]);
    // Statements of their own: each stored answer (two), and the batch's own key claimed, then its answer.
    expect(own).toEqual(['UPDATE', 'UPDATE', 'INSERT', 'UPDATE']);
    const keys = await s.store.all<{ idem_key: string; state: string }>("SELECT idem_key, state FROM idempotency_keys WHERE idem_key LIKE 'k%' ORDER BY idem_key");
    expect(keys.map((k) => [k.idem_key, k.state])).toEqual([['kb-1', 'done'], ['kk1', 'done'], ['kk2', 'done']]);
    const again = await s.batch('fran', [post(s.pid, 'K1', 'kk1'), post(s.pid, 'K2', 'kk2'), post(s.pid, '', 'kk3'), post(s.pid, 'K4', 'kk4')], 'kb-1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(r.body);
    for (const [t, n] of [['K1', 1], ['K2', 1], ['K4', 0]] as const) expect(await s.count(t)).toBe(n);
  });

  it('over the limits: more mutations than advertised, or more bytes, is 413 and nothing runs', async () => {
    s = await server();
    const many = Array.from({ length: 101 }, (_, i) => post(s!.pid, `M${i}`, `m${i}`));
    const r = await s.batch('fran', many);
    expect(r.status).toBe(413);
    expect(r.body).toContain('at most 100 mutations');
    expect(await s.count('M0')).toBe(0);
    const huge = await s.batch('fran', [post(s.pid, 'X'.repeat(1024 * 1024), 'big')]);
    expect(huge.status).toBe(413);
    expect(huge.body).toContain('too large');
  });

  it('refuses what a batch may not hold: itself, the feed, reads, bad keys and methods; nothing runs', async () => {
    s = await server();
    const bad: unknown[][] = [
      [post(s.pid, 'N1', 'n1'), { method: 'POST', path: '/sync/batch.json', body: '{"mutations":[]}', key: 'n2' }],
      [post(s.pid, 'N1', 'n1'), { method: 'GET', path: '/sync/changes.json', body: null, key: null }],
      [post(s.pid, 'N1', 'n1'), { method: 'POST', path: `/projects/${s.pid}/posts.xml`, body: '<post/>', key: 'has space' }],
      [post(s.pid, 'N1', 'n1'), { method: 'PATCH', path: `/projects/${s.pid}/posts.xml`, body: null, key: null }],
      [post(s.pid, 'N1', 'n1'), { method: 'POST', path: 'http://elsewhere.example/x', body: null, key: null }],
    ];
    for (const b of bad) {
      const r = await s.batch('fran', b);
      expect(r.status, JSON.stringify(b[1])).toBe(400);
    }
    expect(await s.count('N1')).toBe(0);
    // A read of a resource route runs as far as the route tells it is one: refused there, the batch stops.
    const read = await s.batch('fran', [post(s.pid, 'N2', 'n2'), { method: 'GET', path: `/projects/${s.pid}/posts.xml`, body: null, key: null }]);
    expect(read.json().results.map((x) => x.status)).toEqual([201, 400]);
    // The secret mark of a batch's own requests cannot be forged from outside.
    const forged = await s.req('fran', 'POST', `/projects/${s.pid}/posts.xml`, '<post><title>F</title></post>', { 'x-bivouac-batch-inner': 'guess' });
    expect(forged.status).toBe(400);
    expect((await s.req('fran', 'GET', '/sync/batch.json')).status).toBe(405);
    expect((await s.req(null, 'POST', '/sync/batch.json', '{}')).status).toBe(401);
  });

  it("another person's keys are never replayed: the same key names two requests", async () => {
    s = await server();
    const fran = await s.batch('fran', [post(s.pid, 'P1', 'shared')], 'same-batch');
    expect(fran.json().done).toBe(true);
    const finn = await s.batch('finn', [post(s.pid, 'P1', 'shared')], 'same-batch');
    expect(finn.headers['idempotent-replayed']).toBeUndefined();
    expect(finn.json().results[0].replayed).toBeUndefined();
    expect(finn.json().results[0].location).not.toBe(fran.json().results[0].location);
    expect(await s.count('P1')).toBe(2);
  });

  it('the rate limiter counts a batch as its writes', async () => {
    s = await server({ perMinute: 1, burst: 5 });
    const r = await s.batch('fran', Array.from({ length: 8 }, (_, i) => post(s!.pid, `L${i}`, `l${i}`)));
    const j = r.json();
    // The batch itself took one of the 5; four mutations ran, the fifth was refused with Retry-After.
    expect(j.results.map((x) => x.status)).toEqual([201, 201, 201, 201, 429]);
    expect(j.results[4].retryAfter).toBeDefined();
    expect(await s.count('L4')).toBe(0);
  });
});

// ---- the engine's push in batches (D285) -----------------------------------------------------------

const XML = '<?xml version="1.0" encoding="UTF-8"?>\n';
const skip = defaultEngine() === 'postgres' ? pgSkipReason() : '';

describe.skipIf(skip)(`the push in batches (${defaultEngine()})`, () => {
  let remote: Remote;
  let proxy: Proxy;
  const replicas: Replica[] = [];
  afterEach(() => closeAll(replicas, proxy, remote));
  const setup = async (plain = false) => {
    remote = await startRemote();
    proxy = await startProxy(remote.url, { plain });
    // A batch answers when all its mutations ran: longer than one write (a loaded PostgreSQL run takes seconds).
    const a = await startReplica(proxy.url, 'ada', { timeoutMs: 20_000 });
    replicas.push(a);
    const P = (await a.req('GET', '/projects.xml')).xml().children.find((p) => p.children.find((c) => c.name === 'name')?.text === 'Alpha Ascent')!
      .children.find((c) => c.name === 'id')!.text;
    return { a, P };
  };
  /** Offline: a new list with `n` items, `n / 4` of them edited, and a post with two comments. */
  const offline = async (a: Replica, P: string, n: number) => {
    proxy.faults.down = true;
    const L = loc(await a.req('POST', `/projects/${P}/todo_lists.xml`, `${XML}<todo-list><name>Batched</name></todo-list>`));
    const items: string[] = [];
    for (let k = 0; k < n; k++) items.push(loc(await a.req('POST', `/todo_lists/${L}/todo_items.xml`, `${XML}<todo-item><content>item ${String(k).padStart(3, '0')}</content></todo-item>`)));
    for (let k = 0; k < n; k += 4) expect((await a.req('PUT', `/todo_items/${items[k]}.xml`, `${XML}<todo-item><content>item ${k} edited</content></todo-item>`)).status).toBe(200);
    const post = loc(await a.req('POST', `/projects/${P}/posts.xml`, `${XML}<post><title>Batched post</title></post>`));
    for (const c of ['c1', 'c2']) loc(await a.req('POST', `/posts/${post}/comments.xml`, `${XML}<comment><body>${c}</body></comment>`));
    proxy.faults.down = false;
    proxy.seen.length = 0;
    return { L, items };
  };
  const writes = () => proxy.seen.filter((x) => x.method !== 'GET');

  it('a team server gets the outbox in a few batches; a plain server the same outbox one request per mutation', async () => {
    const team = await setup();
    await offline(team.a, team.P, 40); // 1 list + 40 items + 10 edits + 1 post + 2 comments = 54 mutations
    await team.a.engine.run();
    expect((await team.a.engine.status()).pending).toBe(0);
    const sent = writes();
    expect(sent.every((x) => x.path === '/sync/batch.json' && x.status === 200), JSON.stringify(sent)).toBe(true);
    // The items wait for their list's remote id, the edits for their items: a handful of batches, not 54 requests.
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.length).toBeLessThanOrEqual(4);
    expect(await dump(team.a.req)).toEqual(await dump(remote.as('ada')));
    const contents = (await remote.as('ada')('GET', `/todo_lists/${await remoteId(team.a, 'todoList', 'Batched')}/todo_items.xml`)).xml().children
      .map((it) => it.children.find((c) => c.name === 'content')!.text);
    expect(contents).toHaveLength(40);
    expect(contents[1]).toBe('item 001');
    for (const r of replicas.splice(0)) await r.close();
    await proxy.close();
    await remote.close();

    const plain = await setup(true);
    await offline(plain.a, plain.P, 40);
    await plain.a.engine.run();
    expect((await plain.a.engine.status()).pending).toBe(0);
    const one = writes();
    expect(one.some((x) => x.path.startsWith('/sync/'))).toBe(false);
    expect(one).toHaveLength(54);
    expect(await dump(plain.a.req)).toEqual(await dump(remote.as('ada')));
  });

  const remoteId = async (a: Replica, resource: string, name: string) => {
    const local = Number((await a.store.get<{ id: number }>('SELECT id FROM todo_lists WHERE name = ?', [name]))!.id);
    return Number((await a.store.get<{ id: number }>('SELECT remote_id AS id FROM sync_ids WHERE resource = ? AND local_id = ?', [resource, local]))!.id);
  };

  it('the answer of a whole batch is lost after the remote committed it: sent again, it replays; nothing is doubled', async () => {
    const { a, P } = await setup();
    await offline(a, P, 12);
    let lost = 0;
    proxy.faults.loseAnswer = (_m, path) => path === '/sync/batch.json' && lost++ < 2;
    await a.engine.run().catch(() => undefined);
    await settle(a);
    proxy.faults.loseAnswer = undefined;
    expect(lost).toBeGreaterThanOrEqual(2);
    // Every write went in batches, the lost ones included, and the remote holds each record once.
    expect(writes().every((x) => x.path === '/sync/batch.json')).toBe(true);
    const there = await dump(remote.as('ada'));
    expect(await dump(a.req)).toEqual(there);
    const lists = (await remote.store.all<{ n: number }>("SELECT COUNT(*) AS n FROM todo_lists WHERE name = 'Batched'"));
    expect(Number(lists[0].n)).toBe(1);
    expect(Number((await remote.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM todo_items WHERE content LIKE 'item %'"))!.n)).toBe(12);
    expect(Number((await remote.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM posts WHERE title = 'Batched post'"))!.n)).toBe(1);
  });

  it('a batch that fails half way: the refused mutation goes to the rejected list, those before stay, those after go in the next batch', async () => {
    const { a, P } = await setup();
    // Three items the remote has, then edited offline; one of them is deleted on the remote just before the push arrives.
    const L = loc(await a.req('POST', `/projects/${P}/todo_lists.xml`, `${XML}<todo-list><name>Half</name></todo-list>`));
    const items: string[] = [];
    for (const n of ['one', 'two', 'three']) items.push(loc(await a.req('POST', `/todo_lists/${L}/todo_items.xml`, `${XML}<todo-item><content>${n}</content></todo-item>`)));
    await a.engine.run();
    proxy.faults.down = true;
    for (const [k, id] of items.entries()) expect((await a.req('PUT', `/todo_items/${id}.xml`, `${XML}<todo-item><content>edited ${k}</content></todo-item>`)).status).toBe(200);
    proxy.faults.down = false;
    const victim = await remoteOf(a, 'todoItem', Number(items[1]));
    let first = true;
    proxy.faults.before = (m, path) => {
      if (m !== 'POST' || path !== '/sync/batch.json' || !first) return undefined;
      first = false;
      return remote.as('ada')('DELETE', `/todo_items/${victim}.xml`).then((r) => { expect(r.status).toBe(200); });
    };
    proxy.seen.length = 0;
    await a.engine.run();
    const batches = proxy.seen.filter((x) => x.path === '/sync/batch.json');
    expect(batches.length).toBe(2); // stopped at the refused one; the third went in the next batch
    const rejected = await a.engine.rejected();
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({ resource: 'todoItem', status: 404 });
    const there = (await remote.as('ada')('GET', `/todo_lists/${await remoteOf(a, 'todoList', Number(L))}/todo_items.xml`)).xml().children
      .map((it) => it.children.find((c) => c.name === 'content')!.text);
    expect(there).toEqual(['edited 0', 'edited 2']);
    await a.engine.run();
    expect(await dump(a.req)).toEqual(await dump(remote.as('ada')));
  });

  const remoteOf = async (a: Replica, resource: string, local: number) =>
    Number((await a.store.get<{ id: number }>('SELECT remote_id AS id FROM sync_ids WHERE resource = ? AND local_id = ?', [resource, local]))!.id);

  it('no batch over the advertised limit is sent; a batch the server refuses falls back to single requests, nothing rejected', async () => {
    const { a, P } = await setup();
    await offline(a, P, 30);
    // The remote advertises 100; the connection is told 7 (as a team server configured lower would say).
    const orig = a.engine['remote']!.capabilities.bind(a.engine['remote']!);
    a.engine['remote']!.capabilities = async () => { const c = await orig(); a.engine['remote']!.batch = { max: 7, bytes: 1 << 20 }; return c; };
    await a.engine.run();
    const sent = writes();
    expect(sent.every((x) => x.path === '/sync/batch.json')).toBe(true);
    expect(sent.length).toBeGreaterThanOrEqual(Math.ceil(43 / 7)); // 1 + 30 + 8 + 1 + 2 = 42 mutations, 7 at most each
    expect(await dump(a.req)).toEqual(await dump(remote.as('ada')));

    // A server that advertised batches but answers 413 to one: the push goes on one request per mutation.
    proxy.faults.down = true;
    for (let k = 0; k < 5; k++) loc(await a.req('POST', `/projects/${P}/posts.xml`, `${XML}<post><title>after ${k}</title></post>`));
    proxy.faults.down = false;
    proxy.seen.length = 0;
    a.engine['remote']!.capabilities = orig;
    const r = a.engine['remote']!;
    const send = r.request.bind(r);
    r.request = async (m, path, b, h) => (path === '/sync/batch.json'
      ? { status: 413, headers: new Headers(), body: `${XML}<errors><error>Request body is too large</error></errors>` }
      : send(m, path, b, h));
    await a.engine.run();
    expect(r.batchOff).toMatch(/413/);
    expect(await a.engine.rejected()).toEqual([]);
    expect(proxy.seen.filter((x) => x.method === 'POST' && x.path.endsWith('/posts.xml'))).toHaveLength(5);
    expect(await dump(a.req)).toEqual(await dump(remote.as('ada')));
  });
});

// ---- a batch answer from a hostile or broken remote (push-batch.ts) -------------------------------

describe('a batch answer that is not one', () => {
  const muts = [1, 2, 3].map((k) => ({ method: 'PUT', path: `/todo_items/${k}.xml`, body: '<todo-item/>', key: `c-${k}-0` }));
  const fake = (status: number, body: string) => {
    const r = new SyncRemote({ url: 'http://127.0.0.1:9', auth: { token: 't' } });
    r.batch = { max: 100, bytes: 1 << 20 };
    r.request = async () => ({ status, headers: new Headers({ date: new Date().toUTCString() }), body });
    return r;
  };
  it.each([
    ['another status', 404, '<errors><error>No such route</error></errors>'],
    ['not JSON', 200, '<html>'],
    ['no results', 200, '{"results":[]}'],
    ['more results than mutations', 200, JSON.stringify({ results: [{ status: 200 }, { status: 200 }, { status: 200 }, { status: 200 }] })],
    ['fewer results with no failure to stop at', 200, JSON.stringify({ results: [{ status: 200 }] })],
    ['results after a failure', 200, JSON.stringify({ results: [{ status: 404 }, { status: 200 }] })],
    ['a redirect as a result', 200, JSON.stringify({ results: [{ status: 302, location: 'http://elsewhere.example/' }] })],
    ['a status that is not one', 200, JSON.stringify({ results: [{ status: '201' }] })],
  ])('%s: batches off for the connection, nothing counted as answered', async (_n, status, body) => {
    const r = fake(status, body);
    const a = await sendBatch(r, 'c', muts);
    expect(a).toEqual([null, null, null]);
    expect(r.batch).toBeNull();
    expect(r.batchOff).toMatch(/batch\.json/);
  });
  it('busy (429, 503): every mutation gets that answer, to be retried with its key; batches stay on', async () => {
    const r = fake(429, '<errors><error>Slow down</error></errors>');
    const a = await sendBatch(r, 'c', muts);
    expect(a.map((x) => x?.status)).toEqual([429, 429, 429]);
    expect(r.batch).not.toBeNull();
  });
  it('a failure half way: the answers up to it, then not run', async () => {
    const r = fake(200, JSON.stringify({ results: [{ status: 200 }, { status: 422, body: '<errors><error>No</error></errors>' }] }));
    const a = await sendBatch(r, 'c', muts);
    expect(a.map((x) => x?.status ?? null)).toEqual([200, 422, null]);
    expect(a[1]!.body).toContain('No');
  });
});
