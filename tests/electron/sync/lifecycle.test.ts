// A replica's lifecycle (issue #25): the local service starts and answers whatever its remote does
// (the connect goes on in the background, D253); a server used by more than one person never becomes
// a replica, and the remote is not contacted (D254); a connect refused half way leaves the data
// directory exactly as it was (D256).

import { afterEach, describe, expect, it, vi } from 'vitest';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { serve, StartError, type Running } from '../../../electron/server.ts';
import { SqliteStore } from '../../../electron/store/sqlite.ts';
import { createOwn } from '../../../electron/service/setup.ts';
import { rememberAddress } from '../../../electron/store/queries/sync.ts';
import { password, startProxy, startRemote, type Remote } from '../../support/sync-helpers.ts';
import { startHostileRemote, type HostileRemote } from '../../support/hostile-remote.ts';
import { everything } from '../../support/store-tables.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => { for (const c of closers.splice(0).reverse()) await c(); });

const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
const LOCAL = { user: 'ada', password: 'local-pass-1' };

function tmp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bivouac-life-'));
  closers.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A data directory holding one person's own account (the first-run form), matching the fixture's ada and Alpha Ascent. */
async function ownAccount(dir: string, o: { otherSignedIn?: boolean } = {}): Promise<void> {
  const store = new SqliteStore(join(dir, 'bivouac.sqlite'));
  await createOwn(store, { firmName: 'Summit Firm Ltd', firstName: 'Ada', lastName: 'Here', userName: LOCAL.user, password: LOCAL.password, projectName: 'Alpha Ascent' });
  // Someone else signed in to this account from another address (the sign-in guard remembers it).
  if (o.otherSignedIn) await store.write(async (w) => { await rememberAddress(w, 'fran', '203.0.113.9', Date.now()); });
  await store.close();
}

/** A TCP server on loopback that accepts and never answers (or counts who came, when nothing should). */
async function hangingServer(): Promise<{ url: string; connections: number; connected: Promise<void>; cut(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let first!: () => void;
  const connected = new Promise<void>((r) => { first = r; });
  const s = {
    url: '', connections: 0, connected, hang: true,
    cut() { for (const x of sockets) x.destroy(); s.hang = false; },
    async close() { for (const x of sockets) x.destroy(); await new Promise<void>((r) => server.close(() => r())); },
  };
  const server = createTcpServer((sock) => {
    s.connections++;
    sockets.add(sock);
    sock.on('error', () => undefined);
    first();
    if (!s.hang) sock.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  s.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(() => s.close());
  return s;
}

async function start(o: Parameters<typeof serve>[0]): Promise<Running> {
  const r = await serve({ port: 0, logLevel: 'silent', syncIntervalSec: 0, ...o });
  closers.push(async () => { await r.close(); });
  return r;
}

const inject = (r: Running, method: string, url: string, auth: { user: string; password: string } | null, body?: unknown) => r.app.inject({
  method: method as 'GET', url, payload: body === undefined ? undefined : JSON.stringify(body),
  headers: { host: '127.0.0.1', 'content-type': 'application/json', ...(auth ? { authorization: basic(auth.user, auth.password) } : {}) },
});

/** The hostile remote (tests/support/hostile-remote.ts) in front of `target`, closed after the test. */
async function hostileRemote(target: Remote): Promise<HostileRemote> {
  const h = await startHostileRemote(target.url);
  closers.push(() => h.close());
  return h;
}
/** Requests the hostile remote refused (401). */
const refusedBy = (h: HostileRemote) => h.stats.seen.filter((x) => x.status === 401).length;

async function fixtureRemote(): Promise<Remote> {
  const remote = await startRemote({ engine: 'sqlite' });
  closers.push(() => remote.close());
  return remote;
}

describe('the local service starts and answers at once, whatever its remote does (D253)', () => {
  it('a --remote that hangs: the service answers, the status says connecting, and a cut connection shows the error in words', async () => {
    const dir = tmp();
    await ownAccount(dir);
    const hang = await hangingServer();
    const r = await start({ dataDir: dir, remote: { url: hang.url, auth: { user: 'ada', password: 'whatever' } } });
    await hang.connected; // the connect asked, and the remote holds the request unanswered
    const projects = await inject(r, 'GET', '/projects.xml', LOCAL);
    expect(projects.statusCode).toBe(200);
    expect(projects.body).toContain('Alpha Ascent');
    const st = JSON.parse((await inject(r, 'GET', '/sync/status', LOCAL)).body);
    expect(st).toMatchObject({ state: 'connecting', remote: { url: hang.url } });
    // Local writes go on meanwhile.
    const pid = /<id type="integer">(\d+)<\/id>/.exec(projects.body)![1];
    const write = await r.app.inject({ method: 'POST', url: `/projects/${pid}/todo_lists.xml`, payload: '<todo-list><name>Meanwhile</name></todo-list>',
      headers: { host: '127.0.0.1', 'content-type': 'application/xml', authorization: basic(LOCAL.user, LOCAL.password) } });
    expect(write.statusCode).toBe(201);
    // The remote cuts the connection: the failure is shown in words, and the connect is tried again later.
    hang.cut();
    let after: { state: string; error: string | null; nextAttemptAt: string | null } = st;
    while (!after.error) {
      await new Promise((res) => setTimeout(res, 20));
      after = JSON.parse((await inject(r, 'GET', '/sync/status', LOCAL)).body);
    }
    expect(after.state).toBe('connecting');
    expect(after.error).toMatch(/unreachable/);
    expect(after.nextAttemptAt).not.toBeNull();
    // "Sync now" tries at once.
    const before = hang.connections;
    expect((await inject(r, 'POST', '/sync/run?wait=true', LOCAL)).statusCode).toBe(502);
    expect(hang.connections).toBeGreaterThan(before);
    // The owner connects another remote meanwhile (the Team server panel): the background connect gives way,
    // without being taken for a refusal (the command line would exit).
    let settled = false;
    r.connecting!.then(() => { settled = true; }, () => { settled = true; });
    const remote = await fixtureRemote();
    const put = await inject(r, 'PUT', '/sync/remote', LOCAL, { url: remote.url, user: 'ada', password: password('ada') });
    expect(put.statusCode, put.body).toBe(200);
    expect(JSON.parse(put.body)).toMatchObject({ remote: { url: remote.url } });
    await r.sync.idle();
    expect(settled).toBe(false);
    const connections = hang.connections;
    await inject(r, 'POST', '/sync/run?wait=true', { user: 'ada', password: password('ada') });
    expect(hang.connections).toBe(connections);
  });

  it('an empty data directory: GET /setup.json shows the connect going on (the first-run page waits for it)', async () => {
    const hang = await hangingServer();
    const dir = tmp();
    const r = await start({ dataDir: dir, remote: { url: hang.url, auth: { user: 'ada', password: 'x' } } });
    await hang.connected;
    expect(JSON.parse((await inject(r, 'GET', '/setup.json', null)).body)).toMatchObject({ empty: true, connecting: { progress: null } });
  });

  it('a clone the remote interrupts (busy) finishes by itself, and the api-token file appears then', async () => {
    const remote = await fixtureRemote();
    let first = true;
    const proxy = await startProxy(remote.url, { busy: (_m, p) => (p === '/sync/changes.json' && first ? ((first = false), 0) : undefined) });
    closers.push(() => proxy.close());
    const dir = tmp();
    const r = await start({ dataDir: dir, remote: { url: proxy.url, auth: { user: 'ada', password: password('ada') } } });
    await r.connecting; // linked; the clone waits for the backoff
    expect(existsSync(join(dir, 'api-token'))).toBe(false);
    await vi.waitFor(() => expect(existsSync(join(dir, 'api-token'))).toBe(true), { timeout: 15_000, interval: 50 });
    expect(JSON.parse((await inject(r, 'GET', '/sync/status', { user: 'ada', password: password('ada') })).body)).toMatchObject({ state: 'idle', error: null });
  });

  it('a data directory tied to another remote: refused at once, without asking the new one anything; the old link stays', async () => {
    const remote = await fixtureRemote();
    const dir = tmp();
    const first = await start({ dataDir: dir, remote: { url: remote.url, auth: { user: 'ada', password: password('ada') } } });
    await first.connecting;
    await first.close();
    const hang = await hangingServer();
    const r = await start({ dataDir: dir, remote: { url: hang.url, auth: { user: 'ada', password: password('ada') } } });
    await expect(r.connecting).rejects.toThrow(/replica of http:\/\/127\.0\.0\.1:\d+: disconnect it first/);
    expect(hang.connections).toBe(0);
    const st = JSON.parse((await inject(r, 'GET', '/sync/status', { user: 'ada', password: password('ada') })).body);
    expect(st.remote.url).toBe(remote.url);
  });
});

describe('a server used by more than one person never becomes a replica (D254)', () => {
  it('--remote on a server behind a proxy, listening beyond loopback or answering other names: refused at start, nothing created, nobody contacted', async () => {
    const listening = await hangingServer();
    const dir = tmp();
    await expect(serve({ dataDir: dir, port: 0, logLevel: 'silent', trustProxy: 'loopback', remote: { url: listening.url, auth: { token: 't' } } }))
      .rejects.toThrow(StartError);
    await expect(serve({ dataDir: dir, port: 0, logLevel: 'silent', host: '0.0.0.0', allowedHosts: ['team.example'], remote: { url: listening.url, auth: { token: 't' } } }))
      .rejects.toThrow(/used by more than one person/);
    await expect(serve({ dataDir: dir, port: 0, logLevel: 'silent', allowedHosts: ['bivouac.tunnel.example'], remote: { url: listening.url, auth: { token: 't' } } }))
      .rejects.toThrow(/--allow-host/);
    expect(existsSync(join(dir, 'bivouac.sqlite'))).toBe(false);
    expect(listening.connections).toBe(0);
  });

  it('PUT /sync/remote by the administrator of a team server: 409, no request reaches the URL, nothing changes', async () => {
    const listening = await hangingServer();
    const dir = tmp();
    await ownAccount(dir);
    const r = await start({ dataDir: dir, trustProxy: 'loopback' });
    expect((await inject(r, 'GET', '/sync/status', LOCAL)).statusCode).toBe(200); // signed in once (the guard remembers it)
    const before = await everything(r.store);
    for (const body of [{ url: listening.url, user: 'ada', password: 'x' }, { url: listening.url, token: 'x' }, { url: 'http://127.0.0.1:1/', token: 'x' }]) {
      const res = await inject(r, 'PUT', '/sync/remote', LOCAL, body);
      expect(res.statusCode).toBe(409);
      expect(JSON.parse(res.body).errors[0]).toMatch(/used by more than one person \(it runs behind a reverse proxy.*the remote was not contacted/);
    }
    expect(listening.connections).toBe(0);
    expect(await everything(r.store)).toEqual(before);
    expect(existsSync(join(dir, 'remote-token'))).toBe(false);
  });

  it('a loopback server where someone else has signed in: 409, the URL never requested', async () => {
    const listening = await hangingServer();
    const dir = tmp();
    await ownAccount(dir, { otherSignedIn: true });
    const r = await start({ dataDir: dir });
    const res = await inject(r, 'PUT', '/sync/remote', LOCAL, { url: listening.url, user: 'ada', password: 'x' });
    expect(res.statusCode).toBe(409);
    expect(JSON.parse(res.body).errors[0]).toMatch(/another person has signed in/);
    expect(listening.connections).toBe(0);
  });

  it('the first-run connect (POST /setup.json) of a team server: refused, no request reaches the URL', async () => {
    const listening = await hangingServer();
    const dir = tmp();
    const r = await start({ dataDir: dir, trustProxy: 'loopback', demo: false });
    const res = await inject(r, 'POST', '/setup.json', null, { remote: { url: listening.url, user: 'ada', password: 'x' } });
    expect([403, 409]).toContain(res.statusCode);
    expect(listening.connections).toBe(0);
    expect(JSON.parse((await inject(r, 'GET', '/setup.json', null)).body)).toMatchObject({ empty: true });
  });
});

describe('a connect refused half way leaves the data directory exactly as it was (D256)', () => {
  it.each([['team server', 2], ['team server, later', 4], ['plain server', 3]] as const)('the first-run form (POST /setup.json): a clear error, no link, no token, no rows; a local account then made stays local (%s)', async (_n, n) => {
    const remote = await fixtureRemote();
    const dir = tmp();
    const r = await start({ dataDir: dir, demo: false });
    const before = await everything(r.store);
    // The remote accepts /me.xml, answers n more requests (a plain server: 404 to /sync/*), then 401 to everything.
    const hostile = await hostileRemote(remote);
    hostile.mode.plain = _n.startsWith('plain');
    hostile.mode.unauthorizedAfter = 1 + n;
    const res = await inject(r, 'POST', '/setup.json', null, { remote: { url: hostile.url, user: 'ada', password: password('ada') } });
    expect(refusedBy(hostile)).toBeGreaterThan(0);
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).not.toBe(500);
    expect(JSON.parse(res.body).errors[0]).toMatch(/refused the first sync.*left as it was/);
    expect(await everything(r.store)).toEqual(before);
    expect(existsSync(join(dir, 'remote-token'))).toBe(false);
    expect(JSON.parse((await inject(r, 'GET', '/setup.json', null)).body)).toMatchObject({ empty: true });
    // The local first-run form now makes a local account: nothing of it goes into an outbox for that remote.
    const own = await inject(r, 'POST', '/setup.json', null, { setup: { firm_name: 'Solo', first_name: 'A', last_name: 'B', user_name: 'solo', password: 'solo-pass-123' } });
    expect(own.statusCode).toBe(201);
    expect(await r.store.all('SELECT seq FROM sync_outbox')).toEqual([]);
    const st = JSON.parse((await inject(r, 'GET', '/sync/status', { user: 'solo', password: 'solo-pass-123' })).body);
    expect(st).toMatchObject({ state: 'local', remote: null, pending: 0 });
  });

  it('PUT /sync/remote of a directory with local work: refused during the first pull, everything put back (people, outbox, id map)', async () => {
    const remote = await fixtureRemote();
    const dir = tmp();
    await ownAccount(dir);
    const r = await start({ dataDir: dir });
    const before = await everything(r.store);
    // The check of the local work reads /companies.xml once; the clone (the feed, or a scan that reads it again) is refused.
    const hostile = await hostileRemote(remote);
    hostile.mode.unauthorizedWhen = (_m, p) => p === '/sync/changes.json' || (p === '/companies.xml' && hostile.stats.seen.some((x) => x.path === '/companies.xml'));
    const res = await inject(r, 'PUT', '/sync/remote', LOCAL, { url: hostile.url, user: 'ada', password: password('ada') });
    expect(refusedBy(hostile)).toBeGreaterThan(0);
    expect(res.statusCode).toBe(502);
    expect(JSON.parse(res.body).errors[0]).toMatch(/refused the first sync/);
    expect(await everything(r.store)).toEqual(before);
    expect(existsSync(join(dir, 'remote-token'))).toBe(false);
    // Still standalone: the owner signs in with the local password, and another remote may be connected.
    expect(JSON.parse((await inject(r, 'GET', '/sync/status', LOCAL)).body)).toMatchObject({ state: 'local', remote: null });
  });

  it('--remote at start: the connect is refused, the directory stays empty and unlinked', async () => {
    const remote = await fixtureRemote();
    const hostile = await hostileRemote(remote);
    hostile.mode.unauthorizedAfter = 3;
    const dir = tmp();
    const r = await start({ dataDir: dir, remote: { url: hostile.url, auth: { user: 'ada', password: password('ada') } } });
    await expect(r.connecting).rejects.toThrow(/refused the first sync/);
    expect(await r.store.all('SELECT * FROM sync_state')).toEqual([]);
    expect(await r.store.isEmpty()).toBe(true);
    expect(await r.store.all('SELECT * FROM sync_outbox')).toEqual([]);
    expect(existsSync(join(dir, 'remote-token'))).toBe(false);
    expect(r.sync.connected).toBe(false);
  });
});
