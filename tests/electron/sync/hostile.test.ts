// A replica against a hostile or broken remote (issue #25): whatever the remote answers, the pull stays
// bounded (pages, bytes), refuses what cannot be represented alone, never follows a redirect to
// another origin, keeps its data consistent, keeps answering its user, and recovers when the remote
// behaves again (unpushed local work goes up); a connect refused (401) half way through the clone leaves
// the data directory as it was; a remote busy (503) for a minute is not hammered. The remote:
// tests/support/hostile-remote.ts.

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { SyncEngine } from '../../../electron/sync/engine.ts';
import { dump, password, startRemote, startReplica, loc, wrap, type Remote, type Replica, type Requester, type Res } from '../../support/sync-helpers.ts';
import { startHostileRemote, startSideServer, type HostileRemote, type SideServer } from '../../support/hostile-remote.ts';
import * as q from '../../../electron/store/queries/replica.ts';
import { Remote as RemoteAdapter } from '../../../electron/sync/remote.ts';
import { serve, type Running } from '../../../electron/server.ts';
import { everything } from '../../support/store-tables.ts';
import { VirtualClock } from '../../support/virtual-clock.ts';

const XML = '<?xml version="1.0" encoding="UTF-8"?>\n';
const text = (r: Res, name: string) => r.xml().children.find((c) => c.name === name)?.text ?? '';

let remote: Remote;
let hostile: HostileRemote;
let side: SideServer | null = null;
const replicas: Replica[] = [];
const refused: string[] = [];

async function setup(o: { plain?: boolean; auto?: boolean; engine?: Record<string, unknown> } = {}): Promise<Replica> {
  remote = await startRemote({ engine: 'sqlite' });
  // A list with an item in each of ada's first two projects (the fixture has none).
  const ada = remote.as('ada');
  for (const p of (await ada('GET', '/projects.xml')).xml().children.slice(0, 2)) {
    const P = p.children.find((c) => c.name === 'id')!.text;
    const L = loc(await ada('POST', `/projects/${P}/todo_lists.xml`, `${XML}<todo-list><name>List of ${P}</name></todo-list>`));
    loc(await ada('POST', `/todo_lists/${L}/todo_items.xml`, `${XML}<todo-item><content>Item of ${P}</content></todo-item>`));
  }
  hostile = await startHostileRemote(remote.url);
  if (o.plain) hostile.mode.plain = true;
  const r = await startReplica(hostile.url, 'ada', { auto: o.auto, engine: { onRefused: (m: string) => refused.push(m), ...o.engine } });
  replicas.push(r);
  return r;
}

/** A project of ada's, by name, on the replica and on the remote. */
async function projectIds(r: Replica, name: string): Promise<{ local: string; remote: string }> {
  const find = (x: Res) => x.xml().children.find((p) => p.children.find((c) => c.name === 'name')?.text === name)!.children.find((c) => c.name === 'id')!.text;
  return { local: find(await r.req('GET', '/projects.xml')), remote: find(await remote.as('ada')('GET', '/projects.xml')) };
}

/** Settles with the run's outcome, or with 'never' when `stop` comes first (a run that does not end). */
async function outcome(run: Promise<void>, stop: Promise<void>): Promise<'ok' | 'never' | Error> {
  return Promise.race([run.then(() => 'ok' as const, (e: Error) => e), stop.then(() => 'never' as const)]);
}

/** A local edit not yet pushed, and a check that it reached the remote. */
async function localWork(r: Replica): Promise<{ reachedRemote(): Promise<boolean> }> {
  const content = `offline ${Math.random()}`;
  const L = (await r.store.get<{ id: number }>('SELECT id FROM todo_lists ORDER BY id LIMIT 1'))!.id;
  loc(await r.req('POST', `/todo_lists/${L}/todo_items.xml`, `${XML}<todo-item><content>${content}</content></todo-item>`));
  return { reachedRemote: async () => (await remote.store.all('SELECT id FROM todo_items WHERE content = ?', [content])).length === 1 };
}

const services: { r: Running; dir: string }[] = [];

afterEach(async () => {
  for (const r of replicas.splice(0)) await r.close();
  for (const s of services.splice(0)) { await s.r.close(); rmSync(s.dir, { recursive: true, force: true }); }
  await hostile?.close();
  await side?.close();
  side = null;
  await remote?.close();
  refused.length = 0;
});

describe('a replica against a hostile remote', () => {
  it('an endless feed: a run reads a bounded number of pages, saving each with its cursor; the API answers meanwhile; sync recovers', async () => {
    const r = await setup({ engine: { maxPullPages: 20 } });
    const work = await localWork(r);
    hostile.mode.endlessFeed = true;
    const before = hostile.stats.feedPages;
    const run = r.engine.run();
    // The local API answers while the endless pull goes on.
    expect((await r.req('GET', '/projects.xml')).status).toBe(200);
    expect(await outcome(run, hostile.until(() => hostile.stats.feedPages - before >= 400, 120_000))).toBe('ok');
    expect(hostile.stats.feedPages - before).toBe(20);
    // Each page was saved with its cursor: the next run goes on from the last one (20 pages of 1000 further).
    const cursor = (await q.state(r.store)).get('cursor')!;
    expect(hostile.stats.seen.length).toBeGreaterThan(0);
    // Push went on (the pull is bounded, not stuck).
    expect(await work.reachedRemote()).toBe(true);
    expect(Number(cursor)).toBeGreaterThanOrEqual(20_000);
    hostile.behave();
    const remoteEdit = await remote.as('ada')('PUT', `/projects/${(await projectIds(r, 'Alpha Ascent')).remote}.xml`, `${XML}<project><announcement>after the storm</announcement></project>`);
    expect(remoteEdit.status).toBe(200);
    await r.engine.run();
    expect(text(await r.req('GET', `/projects/${(await projectIds(r, 'Alpha Ascent')).local}.xml`), 'announcement')).toBe('after the storm');
  }, 120_000);

  it('a clone in many small pages, cut by the run\'s bound and resumed by a new engine (a restart), equals the remote, without duplicates', async () => {
    remote = await startRemote({ engine: 'sqlite' });
    const ada = remote.as('ada');
    // Items, comments and a categorised post: their parents' entries come after them in the feed.
    for (const p of (await ada('GET', '/projects.xml')).xml().children.slice(0, 2)) {
      const P = p.children.find((c) => c.name === 'id')!.text;
      const cat = loc(await ada('POST', `/projects/${P}/categories.xml`, `${XML}<category><name>Cat ${P}</name><type>post</type></category>`));
      loc(await ada('POST', `/projects/${P}/posts.xml`, `${XML}<request><post><title>Post ${P}</title><body>b</body><category-id>${cat}</category-id></post></request>`));
      for (let k = 0; k < 3; k++) {
        const L = loc(await ada('POST', `/projects/${P}/todo_lists.xml`, `${XML}<todo-list><name>List ${P}.${k}</name></todo-list>`));
        for (let j = 0; j < 3; j++) {
          const I = loc(await ada('POST', `/todo_lists/${L}/todo_items.xml`, `${XML}<todo-item><content>Item ${P}.${k}.${j}</content></todo-item>`));
          loc(await ada('POST', `/todo_items/${I}/comments.xml`, `${XML}<comment><body>Note ${I}</body></comment>`));
        }
      }
    }
    hostile = await startHostileRemote(remote.url);
    hostile.mode.feedLimit = 4;
    const r = await startReplica(hostile.url, 'ada', { engine: { maxPullPages: 3 } });
    replicas.push(r);
    expect((await q.state(r.store)).get('resync')).toBeTruthy(); // the clone is not finished: 3 pages of it
    const pagesBefore = hostile.stats.feedPages;
    // A restart: a new engine on the same store goes on from the saved cursor.
    const again = new SyncEngine({ store: r.store, dataDir: r.dir, intervalSec: 0, timeoutMs: 2000, maxPullPages: 1000 });
    expect(await again.resume()).toBe(true);
    again.stop();
    await again.run();
    expect((await q.state(r.store)).get('resync')).toBeUndefined();
    expect(hostile.stats.feedPages - pagesBefore).toBeGreaterThan(3);
    expect(await dump(r.req)).toEqual(await dump(ada));
    const dup = await r.store.all('SELECT content, COUNT(*) AS n FROM todo_items GROUP BY content HAVING COUNT(*) > 1');
    expect(dup).toEqual([]);
    expect(await r.store.all("SELECT resource FROM sync_shadow WHERE resource LIKE '~%'")).toEqual([]);
    // Every shadow knows its project (its scope is where a full scan would read it).
    expect(await r.store.all("SELECT resource, scope FROM sync_shadow WHERE scope LIKE 'pNaN%' OR scope LIKE 'pnull%'")).toEqual([]);
  }, 120_000);

  it('a feed whose cursor does not move stops with a clear sync error', async () => {
    const r = await setup();
    hostile.mode.stuckCursor = true;
    const res = await outcome(r.engine.run(), hostile.until(() => hostile.stats.feedPages >= 200, 60_000));
    expect(res).toBeInstanceOf(Error);
    expect((res as Error).message).toMatch(/does not advance/);
    expect((await r.engine.status()).error).toMatch(/does not advance/);
    hostile.behave();
    await r.engine.run();
    expect((await r.engine.status()).state).toBe('idle');
  }, 60_000);

  it('a huge answer is cut at the cap (the connection closed), a clear error; nothing is held', async () => {
    const r = await setup({ engine: { maxAnswerMb: 2 } });
    const work = await localWork(r);
    hostile.mode.hugeAnswer = { path: /^\/sync\/changes\.json$/, bytes: 3 * 1024 ** 3 };
    const res = await outcome(r.engine.run(), hostile.until(() => hostile.stats.hugeBytes > 400 * 1024 ** 2, 120_000));
    expect(res).toBeInstanceOf(Error);
    expect((res as Error).message).toMatch(/larger than 2 MB/);
    // Each read closed at the cap: the page asked with a limit of 1000, then 100, 10 and 1 (D278).
    await hostile.until(() => hostile.stats.hugeAborted === 4);
    expect(hostile.stats.hugeBytes).toBeLessThan(100 * 1024 ** 2);
    hostile.behave();
    await r.engine.run();
    expect(await work.reachedRemote()).toBe(true);
  }, 120_000);

  it('a record whose id is 2^53 + 1 is refused alone; the rest is applied, local work goes up, and sync keeps working', async () => {
    const r = await setup();
    const work = await localWork(r);
    const P = await projectIds(r, 'Alpha Ascent');
    expect((await remote.as('ada')('PUT', `/projects/${P.remote}.xml`, `${XML}<project><announcement>big day</announcement></project>`)).status).toBe(200);
    hostile.mode.oversizedId = true;
    await r.engine.run();
    expect(refused.some((m) => /cannot be represented/.test(m))).toBe(true);
    expect(text(await r.req('GET', `/projects/${P.local}.xml`), 'announcement')).toBe('big day');
    expect(await work.reachedRemote()).toBe(true);
    expect((await r.req('GET', '/companies.xml')).body).not.toMatch(/Oversized/);
    await r.engine.run(); // again, with the remote still sending it
    hostile.behave();
    const again = await localWork(r);
    await r.engine.run();
    expect(await again.reachedRemote()).toBe(true);
  }, 60_000);

  it('a plain server listing a project whose id is 2^53 + 1: refused alone, the scan goes on', async () => {
    const r = await setup({ plain: true });
    hostile.mode.oversizedId = true;
    const work = await localWork(r);
    await r.engine.run();
    expect(refused.some((m) => /cannot be represented/.test(m))).toBe(true);
    expect(await work.reachedRemote()).toBe(true);
    expect((await r.req('GET', '/projects.xml')).body).not.toMatch(/Oversized/);
  }, 60_000);

  it('a redirect of a write to another host is not followed: an error, the local record kept, the third host never asked', async () => {
    const r = await setup();
    side = await startSideServer();
    const work = await localWork(r);
    hostile.mode.redirectWritesTo = side.url;
    await expect(r.engine.run()).rejects.toThrow(/redirect/);
    expect(side.seen).toEqual([]);
    expect(hostile.stats.redirected).toBeGreaterThan(0);
    expect((await r.engine.status()).pending).toBeGreaterThan(0);
    expect((await r.engine.rejected()).length).toBe(0);
    hostile.behave();
    await r.engine.run();
    expect(await work.reachedRemote()).toBe(true);
    expect((await r.engine.status()).pending).toBe(0);
  }, 60_000);

  it('a todo item moved into another project\'s list by the remote is refused: the local data stays consistent', async () => {
    const r = await setup();
    // An item the replica holds, and a list (that it holds too) of another project.
    const mine = new Set((await r.store.all<{ remote_id: number }>("SELECT remote_id FROM sync_ids WHERE resource = 'todoList'")).map((x) => Number(x.remote_id)));
    const item = (await remote.store.all<{ id: number; project_id: number; todo_list_id: number }>('SELECT i.id, l.project_id, i.todo_list_id FROM todo_items i JOIN todo_lists l ON l.id = i.todo_list_id ORDER BY i.id'))
      .find((x) => mine.has(Number(x.todo_list_id)))!;
    const other = (await remote.store.all<{ id: number; project_id: number }>('SELECT id, project_id FROM todo_lists WHERE project_id <> ? ORDER BY id', [item.project_id]))
      .find((x) => mine.has(Number(x.id)))!;
    expect(other && item).toBeTruthy();
    expect((await remote.as('ada')('PUT', `/todo_items/${item.id}.xml`, `${XML}<todo-item><content>moved away</content></todo-item>`)).status).toBe(200);
    hostile.mode.editFeed = (changes) => changes.map((c) => c.resource === 'todoItem' && c.id === item.id && c.record
      ? { ...c, record: { ...c.record, todo_list_id: other.id, 'todo-list-id': other.id } } : c);
    await r.engine.run();
    const rows = await r.store.all<{ p: number; lp: number }>('SELECT i.project_id AS p, l.project_id AS lp FROM todo_items i JOIN todo_lists l ON l.id = i.todo_list_id');
    for (const x of rows) expect(x.p).toBe(x.lp);
    expect(refused.some((m) => /another project/.test(m))).toBe(true);
  }, 60_000);
});

// ---- a change feed page is held to FEED_PAGE_MAX_BYTES (D278) -------------------------------------------

describe('a change feed page larger than 16 MB', () => {
  /** A feed whose pages are 20 KB per change (a company with a long name), `more: true`; the limits asked are recorded. */
  async function bigFeed(): Promise<{ url: string; limits: number[]; close(): Promise<void> }> {
    const limits: number[] = [];
    const server = createServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      const limit = Number(u.searchParams.get('limit'));
      limits.push(limit);
      const since = Number(u.searchParams.get('since'));
      const changes = Array.from({ length: limit }, (_, k) => ({ seq: since + k + 1, resource: 'company', id: since + k + 1, op: 'upsert', record: { id: since + k + 1, name: 'n'.repeat(20_000) } }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ cursor: String(since + limit), more: true, changes }));
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, limits,
      close: () => new Promise<void>((ok) => { server.closeAllConnections(); server.close(() => ok()); }),
    };
  }

  it('is not held: the same cursor is asked again in smaller pages, within the answer cap', async () => {
    const feed = await bigFeed();
    try {
      const r = new RemoteAdapter({ url: feed.url, auth: { token: 't' }, maxAnswerBytes: 64 * 1024 * 1024 });
      const page = await r.changes('0', 1000); // 1000 changes: ~20 MB, under the answer cap of 64 MB
      expect(feed.limits).toEqual([1000, 100]);
      expect(page.changes.length).toBe(100);
      expect(page.cursor).toBe('100');
      expect(String(page.changes[99].record?.name).length).toBe(20_000);
    } finally {
      await feed.close();
    }
  });

  it('with one change is a clear error (the answer cap when lower names it)', async () => {
    const feed = await bigFeed();
    try {
      const r = new RemoteAdapter({ url: feed.url, auth: { token: 't' }, maxAnswerBytes: 64 * 1024 * 1024 });
      const one = await r.changes('0', 1);
      expect(one.changes.length).toBe(1);
      const small = new RemoteAdapter({ url: feed.url, auth: { token: 't' }, maxAnswerBytes: 10_000 });
      await expect(small.changes('0', 1000)).rejects.toThrow(/larger than 0 MB|larger than 0\.0 MB|--sync-max-answer-mb/);
      expect(feed.limits.slice(-4)).toEqual([1000, 100, 10, 1]);
    } finally {
      await feed.close();
    }
  });
});

// ---- a connect refused half way (401) and a remote busy for a minute (503) ----------------------------

describe('a connect refused half way through a clone (401)', () => {
  const ADA = { user: 'ada', password: '' };
  const OWN = { user: 'solo', password: 'solo-pass-123' };
  const basic = (a: { user: string; password: string }) => `Basic ${Buffer.from(`${a.user}:${a.password}`).toString('base64')}`;

  /** The replica's own local service (`serve`) on a fresh data directory, and a JSON call to it. */
  async function service(): Promise<{ r: Running; dir: string; call(method: string, url: string, as: typeof ADA | null, body?: unknown): Promise<{ status: number; body: string }> }> {
    const dir = mkdtempSync(join(tmpdir(), 'bivouac-hostile-'));
    const r = await serve({ dataDir: dir, port: 0, logLevel: 'silent', syncIntervalSec: 0, demo: false });
    services.push({ r, dir });
    return {
      r, dir,
      async call(method, url, as, body) {
        const res = await r.app.inject({ method: method as 'GET', url, payload: body === undefined ? undefined : JSON.stringify(body),
          headers: { host: '127.0.0.1', 'content-type': 'application/json', ...(as ? { authorization: basic(as) } : {}) } });
        return { status: res.statusCode, body: res.body };
      },
    };
  }

  it.each([
    ['the first-run form of an empty directory, refused at the second page of the feed', 'setup', 1],
    ['the first-run form of an empty directory, refused later in the clone', 'setup', 2],
    ['PUT /sync/remote of a directory holding only its own first-run account', 'put', 1],
  ] as const)('a 401 half way through a clone (%s): a clear error, the directory exactly as it was, the API answering; then a good remote connects', async (_name, how, n) => {
    ADA.password = password('ada');
    remote = await startRemote({ engine: 'sqlite' });
    hostile = await startHostileRemote(remote.url);
    const s = await service();
    if (how === 'put') {
      const own = await s.call('POST', '/setup.json', null, { setup: { firm_name: 'Solo', first_name: 'A', last_name: 'B', user_name: OWN.user, password: OWN.password } });
      expect(own.status, own.body).toBe(201);
    }
    const before = await everything(s.r.store);
    const apiToken = () => existsSync(join(s.dir, 'api-token')) ? readFileSync(join(s.dir, 'api-token'), 'utf8') : null;
    const apiTokenBefore = apiToken();
    // The remote accepts /me.xml (and the checks), serves the clone in small pages, and after `n` pages refuses every request.
    hostile.mode.feedLimit = 5;
    hostile.mode.unauthorizedAfterFeedPages = n;
    const connect = (url: string) => how === 'setup'
      ? s.call('POST', '/setup.json', null, { remote: { url, user: 'ada', password: ADA.password } })
      : s.call('PUT', '/sync/remote', OWN, { url, user: 'ada', password: ADA.password });
    const asked = connect(hostile.url);
    await hostile.until(() => hostile.stats.seen.some((x) => x.status === 401));
    // The local API answers while the connect is refused (the owner's own sign-in is adopted meanwhile: not checked here).
    expect((await s.call('GET', '/setup.json', null)).status).toBe(200);
    const res = await asked;
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).not.toBe(500);
    expect(JSON.parse(res.body).errors[0]).toMatch(/refused the first sync.*left as it was/);
    // Half way: /me.xml and a page of the clone were answered before the refusal; the connect stopped at the first 401.
    expect(hostile.stats.seen[0]).toMatchObject({ path: '/me.xml', status: 200 });
    expect(hostile.stats.seen.some((x) => x.path === '/sync/changes.json' && x.status === 200)).toBe(true);
    expect(hostile.stats.seen.filter((x) => x.status === 401)).toHaveLength(1);
    // Exactly as it was: every table, no remote token, the local api-token file as it was, no link, no outbox.
    expect(await everything(s.r.store)).toEqual(before);
    expect(existsSync(join(s.dir, 'remote-token'))).toBe(false);
    expect(apiToken()).toBe(apiTokenBefore);
    expect(await s.r.store.all('SELECT * FROM sync_outbox')).toEqual([]);
    if (how === 'setup') expect(JSON.parse((await s.call('GET', '/setup.json', null)).body)).toMatchObject({ empty: true });
    else expect(JSON.parse((await s.call('GET', '/sync/status', OWN)).body)).toMatchObject({ state: 'local', remote: null, pending: 0 });
    // A well-behaved remote then connects, and the replica holds what the remote holds.
    const good = await startHostileRemote(remote.url);
    try {
      const ok = await connect(good.url);
      expect(ok.status, ok.body).toBeLessThan(300);
      await s.r.sync.idle();
      expect(JSON.parse((await s.call('GET', '/sync/status', ADA)).body)).toMatchObject({ state: 'idle', remote: { url: good.url } });
      const asAda: Requester = async (method, path) => {
        const x = await s.r.app.inject({ method: method as 'GET', url: path, headers: { host: '127.0.0.1', authorization: basic(ADA) } });
        return wrap(x.statusCode, x.headers as Res['headers'], x.body);
      };
      expect(await dump(asAda)).toEqual(await dump(remote.as('ada')));
    } finally {
      await good.close();
    }
  }, 60_000);
});

describe('a remote busy (503, Retry-After) for a minute, on the engine\'s virtual clock', () => {
  it('the replica waits what Retry-After and the backoff allow, answers and keeps local writes meanwhile, then pushes them', async () => {
    const clock = new VirtualClock();
    const r = await setup({ auto: true, engine: { timers: clock, random: () => 0.5 } });
    expect(clock.pending()).toEqual([]); // synced; no interval: nothing armed
    const RETRY_AFTER_MS = 20_000;
    hostile.mode.busy = { retryAfterSec: RETRY_AFTER_MS / 1000 };
    const sent = hostile.stats.requests;
    const works = [await localWork(r)]; // a local write: a sync soon (250 ms), which meets the outage
    const start = clock.now();
    let attempts = 0;
    while (clock.now() - start < 60_000) {
      clock.fire();
      attempts++;
      await r.engine.idle();
      expect(hostile.stats.requests - sent).toBe(attempts); // one request an attempt
      // The user's service answers, and a write made meanwhile waits in the outbox.
      expect((await r.req('GET', '/projects.xml')).status).toBe(200);
      works.push(await localWork(r));
      expect((await r.engine.status()).pending).toBe(works.length);
      expect((await r.engine.status()).state).not.toBe('idle');
      // The next try waits at least the remote's Retry-After; the write did not bring it forward.
      expect(clock.pending()).toHaveLength(1);
      expect(clock.pending()[0]).toBeGreaterThanOrEqual(RETRY_AFTER_MS);
    }
    // A minute of outage: no more requests than one at the start and one each Retry-After.
    const outage = hostile.stats.seen.slice(-attempts);
    expect(outage.every((x) => x.status === 503)).toBe(true);
    expect(attempts).toBeLessThanOrEqual(1 + Math.ceil((clock.now() - start) / RETRY_AFTER_MS));
    // Back: the next attempt syncs, pushes every write made during the outage, and resets the backoff.
    hostile.behave();
    clock.fire();
    await r.engine.idle();
    expect(await r.engine.status()).toMatchObject({ state: 'idle', error: null, pending: 0 });
    expect(r.engine.failureCount).toBe(0);
    for (const w of works) expect(await w.reachedRemote()).toBe(true);
    expect(await dump(r.req)).toEqual(await dump(remote.as('ada')));
  }, 60_000);
});

// ---- the replica as a child process (`bivouac serve`): its peak RSS, its answers, the flag --------------

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const cli = join(root, 'electron', 'bin.mjs');

/** Peak resident memory of a process (MiB), from /proc (Linux). */
export function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** `bivouac serve` on a replica's data directory; resolves with its URL once it listens. */
function serveReplica(dataDir: string, args: string[] = []): Promise<{ child: ChildProcess; url: string; stop(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dataDir, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    const exited = new Promise<void>((r) => child.on('close', () => r()));
    child.stderr.on('data', (b: Buffer) => { err += b.toString(); });
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /running at (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m) resolve({ child, url: m[1], stop: () => { child.kill('SIGKILL'); return exited; } });
    });
    void exited.then(() => reject(new Error(`serve exited before listening: ${err}`)));
  });
}

const auth = { authorization: `Basic ${Buffer.from(`ada:${password('ada')}`).toString('base64')}` };

describe.skipIf(process.platform !== 'linux')('the replica as a process against a hostile remote', () => {
  /** A replica's data directory, cloned and closed (kept on disk). */
  async function clonedDir(): Promise<string> {
    const r = await setup();
    replicas.splice(replicas.indexOf(r), 1);
    r.engine.stop();
    await r.app.close();
    await r.store.close();
    return r.dir;
  }

  it('a 401 half way through a clone asked by the first-run form: the process stays under 300 MB and answers; the directory stays empty', async () => {
    remote = await startRemote({ engine: 'sqlite' });
    hostile = await startHostileRemote(remote.url);
    hostile.mode.feedLimit = 5;
    hostile.mode.unauthorizedAfterFeedPages = 1;
    const dir = mkdtempSync(join(tmpdir(), 'bivouac-hostile-'));
    const s = await serveReplica(dir, ['--no-demo']);
    try {
      const res = await fetch(`${s.url}/setup.json`, { method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ remote: { url: hostile.url, user: 'ada', password: password('ada') } }) });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).not.toBe(500);
      expect(((await res.json()) as { errors: string[] }).errors[0]).toMatch(/refused the first sync/);
      expect(hostile.stats.seen.filter((x) => x.status === 401)).toHaveLength(1);
      expect(await (await fetch(`${s.url}/setup.json`)).json()).toMatchObject({ empty: true });
      expect(existsSync(join(dir, 'remote-token'))).toBe(false);
      expect(peakRssMb(s.child.pid!)).toBeLessThan(300);
    } finally {
      await s.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it.each([['an endless feed', 'endless'], ['a 3 GB answer', 'huge']] as const)('%s: the process stays under 300 MB, answers its user, then recovers', async (_name, kind) => {
    const dir = await clonedDir();
    if (kind === 'endless') hostile.mode.endlessFeed = true;
    else hostile.mode.hugeAnswer = { path: /^\/sync\/changes\.json$/, bytes: 3 * 1024 ** 3 };
    const s = await serveReplica(dir, kind === 'huge' ? ['--sync-max-answer-mb', '8'] : []);
    try {
      if (kind === 'endless') await hostile.until(() => hostile.stats.feedPages >= 300, 120_000);
      else await hostile.until(() => hostile.stats.hugeAborted >= 4, 60_000); // limits 1000, 100, 10, 1 (D278)
      // It answers its user meanwhile.
      const res = await fetch(`${s.url}/projects.xml`, { headers: auth });
      expect(res.status).toBe(200);
      expect(peakRssMb(s.child.pid!)).toBeLessThan(300);
      if (kind === 'huge') {
        const st = await (await fetch(`${s.url}/sync/status`, { headers: auth })).json() as { error: string | null };
        expect(st.error).toMatch(/larger than 8 MB/);
        expect(hostile.stats.hugeBytes).toBeLessThan(64 * 1024 ** 2);
      }
      hostile.behave();
      const run = await fetch(`${s.url}/sync/run`, { method: 'POST', headers: auth });
      expect(run.status).toBeLessThan(300);
      // The sync in flight ends, the next one finds the remote well: idle (each status read waits for the remote's next answer).
      let state = '';
      for (let k = 0; k < 200 && state !== 'idle'; k++) {
        const seen = hostile.stats.requests;
        state = ((await (await fetch(`${s.url}/sync/status`, { headers: auth })).json()) as { state: string }).state;
        if (state !== 'idle') {
          await hostile.until(() => hostile.stats.requests > seen, 5_000).catch(async () => {
            // No attempt soon (the run after the hostile one may have armed a backoff): ask for one, as "Sync now" does.
            await fetch(`${s.url}/sync/run`, { method: 'POST', headers: auth });
          });
        }
      }
      expect(state).toBe('idle');
    } finally {
      await s.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
