// Issue #25, the network side, over real sockets: the Host rule (loopback names on any port or none,
// through a real TCP port-forward; --allow-host with and without a port), the first-run setup and the
// demo account of a server that serves a network, behind a real reverse proxy (node:http) that forwards
// a public client address.

import { spawn, spawnSync } from 'node:child_process';
import { request as httpRequest, createServer as createHttpServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, connect, type Server as NetServer, type Socket } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBind, serve, StartError, type Running } from '../../../electron/server.ts';
import { buildApp } from '../../../electron/http/app.ts';
import { SqliteStore } from '../../../electron/store/sqlite.ts';
import { DEMO_ACCOUNT } from '../../../electron/service/demo.ts';
import { FIXTURE, FIXTURE_PATH } from '../../support/helpers.ts';
import { freshDatabase, pgSkipReason } from '../../support/pg.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const cli = join(root, 'electron', 'cli.ts');
const ada = FIXTURE.people.find((p) => p.key === 'ada')!;
const basic = (user: string, pw: string) => `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}`;
const ADA = basic(ada['user-name'], ada.password);

let tmp: string;
let n = 0;
beforeAll(() => { tmp = mkdtempSync(join(tmpdir(), 'bivouac-net-')); });
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const dir = () => join(tmp, String(++n));

interface Answer { status: number; headers: IncomingHttpHeaders; body: string }
/** One request with exactly these headers (Node sends `host` as given, port or none). */
function send(port: number, path: string, headers: Record<string, string>, o: { method?: string; body?: string; localAddress?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const r = httpRequest({ host: '127.0.0.1', port, path, method: o.method ?? 'GET', headers, localAddress: o.localAddress, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    r.on('error', reject);
    r.end(o.body);
  });
}

const portOf = (url: string) => Number(new URL(url).port);

/** A TCP port-forward (what `ssh -L`, `docker -p` or a TCP proxy does): bytes piped both ways, Host untouched. */
async function portForward(target: number): Promise<{ port: number; close: () => Promise<void> }> {
  const open = new Set<Socket>();
  const server: NetServer = createNetServer((down) => {
    const up = connect(target, '127.0.0.1');
    open.add(down).add(up);
    down.pipe(up).pipe(down);
    const end = () => { down.destroy(); up.destroy(); open.delete(down); open.delete(up); };
    down.on('error', end).on('close', end);
    up.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { port, close: () => new Promise<void>((r) => { for (const s of open) s.destroy(); server.close(() => r()); }) };
}

/** `bivouac serve …` as a child process: its URL once it listens, and a stop that waits for its exit. */
function startCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ url: string; stdout: () => string; stop: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /running at (http:\/\/\S+?)\//.exec(out);
      if (m) resolve({ url: m[1], stdout: () => out, stop: () => new Promise<void>((done) => { if (child.exitCode !== null) done(); else { child.once('exit', () => done()); child.kill('SIGTERM'); } }) });
    });
    child.stderr.on('data', (b: Buffer) => { err += b.toString(); });
    child.on('exit', (code) => reject(new Error(`serve exited ${code} before listening: ${err}`)));
  });
}

describe('the Host rule over real sockets', () => {
  let s: Running;
  let port: number;
  beforeAll(async () => {
    s = await serve({ dataDir: dir(), seed: FIXTURE_PATH, port: 0, logLevel: 'silent' });
    port = portOf(s.url);
  });
  afterAll(async () => { await s.close(); });

  it('a loopback name with another port or none is this server (/health, a resource GET, a write)', async () => {
    for (const host of ['127.0.0.1', 'localhost', '[::1]', '127.0.0.1:9000', 'localhost:1', '[::1]:8080', `127.0.0.1:${port + 1}`, '127.1.2.3', '127.255.255.254:4817', 'LOCALHOST:80']) {
      expect([host, (await send(port, '/health', { host })).status]).toEqual([host, 200]);
      expect([host, (await send(port, '/projects.xml', { host, authorization: ADA })).status]).toEqual([host, 200]);
    }
    const w = await send(port, '/projects.json', { host: '127.0.0.1', authorization: ADA, 'content-type': 'application/json' },
      { method: 'POST', body: JSON.stringify({ project: { name: 'Hostless' } }) });
    expect(w.status, w.body).toBe(201);
  });

  it('a Node client that sends `Host: 127.0.0.1` without a port works', async () => {
    // What a widely used Node client of the Basecamp API does: every call names the host without the port.
    const me = await send(port, '/me.xml', { host: '127.0.0.1', authorization: ADA, accept: 'application/xml' });
    expect(me.status).toBe(200);
    expect(me.body).toContain(`<user-name>${ada['user-name']}</user-name>`);
  });

  it('other names stay refused (DNS rebinding), whatever their port', async () => {
    for (const host of ['evil.example', `evil.example:${port}`, '127.0.0.1.evil.example', `localhost.evil.example:${port}`, '128.0.0.1',
      '127.0.0.256', '127.0.0', '[::2]', `[::1]evil:${port}`, '10.0.0.1', '0.0.0.0', `127.0.0.1:${port}:1`, '127.0.0.1:0']) {
      const r = await send(port, '/projects.xml', { host, authorization: ADA });
      expect([host, r.status]).toEqual([host, 403]);
      expect(r.body).toContain('Host not allowed');
      expect([host, (await send(port, '/health', { host })).status]).toEqual([host, 403]);
    }
  });

  it('the Origin must still be the origin the Host names', async () => {
    const get = (host: string, origin: string) => send(port, '/projects.xml', { host, origin, authorization: ADA });
    expect((await get('127.0.0.1:9000', 'http://127.0.0.1:9000')).status).toBe(200);
    expect((await get('127.0.0.1', 'http://127.0.0.1')).status).toBe(200);
    expect((await get('localhost:9000', 'http://localhost:9000')).status).toBe(200);
    // A page on another local port (same site, another origin) or another name is not this server's.
    for (const [host, origin] of [['127.0.0.1:9000', 'http://127.0.0.1:9001'], ['127.0.0.1:9000', 'http://127.0.0.1'], ['127.0.0.1', 'http://127.0.0.1:9000'],
      ['127.0.0.1:9000', 'http://localhost:9000'], ['127.0.0.1', 'http://evil.example'], ['127.0.0.1:9000', 'https://127.0.0.1:9000']]) {
      expect([host, origin, (await get(host, origin)).status]).toEqual([host, origin, 403]);
    }
  });

  it('through a real TCP port-forward an ordinary client works (reads, writes, the UI origin)', async () => {
    const fwd = await portForward(port);
    try {
      const base = `http://127.0.0.1:${fwd.port}`;
      const list = await fetch(`${base}/projects.json`, { headers: { authorization: ADA } });
      expect(list.status).toBe(200);
      expect(Array.isArray(await list.json())).toBe(true);
      const made = await fetch(`${base}/projects.json`, {
        method: 'POST', headers: { authorization: ADA, 'content-type': 'application/json', origin: base }, body: JSON.stringify({ project: { name: 'Forwarded' } }),
      });
      expect(made.status, await made.clone().text()).toBe(201);
      // The same through `localhost:PORT` (an SSH tunnel's usual name).
      expect((await send(fwd.port, '/me.json', { host: `localhost:${fwd.port}`, authorization: ADA })).status).toBe(200);
    } finally {
      await fwd.close();
    }
  });
});

describe('--allow-host over real sockets', () => {
  it('an entry that is not NAME or NAME:PORT stops the start (it could never match)', () => {
    for (const bad of ['https://team.example', 'team.example/', 'team.example:99999', '*.example', 'user@team.example', '']) {
      expect(() => checkBind('127.0.0.1', [bad])).toThrow(StartError);
    }
    expect(() => checkBind('0.0.0.0', ['team.example', 'exact.example:8443', '[fd00::1]:80'])).not.toThrow();
  });

  it('NAME accepts that name on any port or none; NAME:PORT exactly that port; others stay refused', async () => {
    const srv = await startCli(['--data-dir', dir(), '--seed', FIXTURE_PATH, '--allow-host', 'team.example', '--allow-host', 'exact.example:8443']);
    try {
      const port = portOf(srv.url);
      const status = async (host: string) => (await send(port, '/projects.xml', { host, authorization: ADA })).status;
      for (const host of ['team.example', 'team.example:1234', `team.example:${port}`, 'TEAM.example:80', 'exact.example:8443', '127.0.0.1:5']) {
        expect([host, await status(host)]).toEqual([host, 200]);
      }
      for (const host of ['exact.example', 'exact.example:8444', `exact.example:${port}`, 'evil.example', 'team.example.evil', 'sub.team.example:1234']) {
        expect([host, await status(host)]).toEqual([host, 403]);
      }
    } finally {
      await srv.stop();
    }
  }, 30_000);
});

/**
 * A reverse proxy (node:http) as the README's nginx recipe configures it: the client's Host, address and
 * scheme go in X-Forwarded-*; X-Forwarded-For is replaced, never appended. `client` is the public address it
 * reports (a test cannot reach the internet: the address is set, as nginx would from $remote_addr).
 */
async function reverseProxy(target: number, client = '203.0.113.7', name = 'bivouac.example.com'): Promise<{ port: number; close: () => Promise<void> }> {
  const server: HttpServer = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const up = httpRequest({
        host: '127.0.0.1', port: target, method: req.method, path: req.url, agent: false,
        headers: { ...req.headers, host: name, 'x-forwarded-for': client, 'x-forwarded-proto': 'https', 'x-forwarded-host': name },
      }, (r) => { res.writeHead(r.statusCode ?? 502, r.headers); r.pipe(res); });
      up.on('error', () => { if (!res.headersSent) res.writeHead(502); res.end(); });
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { port, close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

/** A remote that only counts the connections it gets (a first-run connect must never reach it on a team server). */
async function countingRemote(): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server = createNetServer((s) => { hits++; s.destroy(); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, hits: () => hits, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const FORMS = [
  { demo: true },
  { setup: { firm_name: 'Takeover Ltd', first_name: 'Eve', last_name: 'Mallory', user_name: 'eve', password: 'eve-owns-it-now' } },
];

describe('a team server behind the README recipe’s reverse proxy (--trust-proxy loopback)', () => {
  it('no demo account, nothing secret in GET /setup.json, the first run refused over HTTP from anywhere; `bivouac setup` on the machine works', async () => {
    const data = dir();
    // The README's flags as written, on a fresh directory.
    const srv = await startCli(['--host', '127.0.0.1', '--data-dir', data, '--allow-host', 'bivouac.example.com', '--trust-proxy', 'loopback']);
    const proxy = await reverseProxy(portOf(srv.url));
    const remote = await countingRemote();
    try {
      expect(srv.stdout()).not.toMatch(/demo account|bivouac\b.*\/ bivouac/);
      expect(srv.stdout()).toMatch(/bivouac setup/);
      const via = (path: string, o: { method?: string; body?: string } = {}) =>
        send(proxy.port, path, { host: 'bivouac.example.com', 'content-type': 'application/json' }, o);
      const st = await via('/setup.json');
      expect(st.status).toBe(200);
      expect(JSON.parse(st.body)).toEqual({ empty: true, demo: null, form: false });
      for (const body of [...FORMS, { remote: { url: remote.url, user: 'eve', password: 'x' } }]) {
        const r = await via('/setup.json', { method: 'POST', body: JSON.stringify(body) });
        expect([Object.keys(body)[0], r.status]).toEqual([Object.keys(body)[0], 403]);
        expect(JSON.parse(r.body).errors[0]).toMatch(/bivouac setup/);
        // A direct client on the machine's loopback, with or without a forged X-Forwarded-For: refused all the same.
        for (const xff of [undefined, '127.0.0.1']) {
          const d = await send(portOf(srv.url), '/setup.json', { host: '127.0.0.1', 'content-type': 'application/json', ...(xff ? { 'x-forwarded-for': xff } : {}) },
            { method: 'POST', body: JSON.stringify(body) });
          expect(d.status).toBe(403);
        }
      }
      expect(remote.hits()).toBe(0); // a remote URL is never requested
      expect(JSON.parse((await via('/setup.json')).body)).toEqual({ empty: true, demo: null, form: false });
      // Nobody signs in as the demo's administrator.
      expect((await via('/me.json', { })).status).toBe(401);
      const demoTry = await send(proxy.port, '/me.json', { host: 'bivouac.example.com', authorization: basic('alex', 'bivouac') });
      expect(demoTry.status).toBe(401);
      // The administrator makes the account on the machine; it is then used through the proxy.
      const made = spawnSync(process.execPath, [cli, 'setup', '--data-dir', data, '--firm', 'Col Guides', '--first-name', 'Ana', '--last-name', 'Ruiz', '--user', 'ana'],
        { cwd: root, env: { ...process.env, BIVOUAC_PASSWORD: 'rope-and-ice-2027' }, encoding: 'utf8', timeout: 30_000 });
      expect(made.status, made.stderr).toBe(0);
      const me = await send(proxy.port, '/me.json', { host: 'bivouac.example.com', authorization: basic('ana', 'rope-and-ice-2027') });
      expect(me.status, me.body).toBe(200);
      expect(JSON.parse((await via('/setup.json')).body)).toEqual({ empty: false, demo: null, form: false });
    } finally {
      await remote.close();
      await proxy.close();
      await srv.stop();
    }
  }, 60_000);

  it('`serve --demo` creates the demo when asked; GET /setup.json names its user, never a password', async () => {
    const srv = await startCli(['--data-dir', dir(), '--allow-host', 'bivouac.example.com', '--trust-proxy', 'loopback', '--demo']);
    const proxy = await reverseProxy(portOf(srv.url));
    try {
      const st = await send(proxy.port, '/setup.json', { host: 'bivouac.example.com' });
      expect(JSON.parse(st.body)).toEqual({ empty: false, demo: { user: 'alex' }, form: false });
      expect(st.body).not.toMatch(/password|bivouac"/);
    } finally {
      await proxy.close();
      await srv.stop();
    }
  }, 30_000);

  it('`serve --demo --no-demo` is a usage error', () => {
    const r = spawnSync(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dir(), '--demo', '--no-demo'], { cwd: root, encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--demo.*--no-demo|--no-demo.*--demo/);
  });
});

describe('which servers serve a network', () => {
  it.each([
    ['a non-loopback --host', { host: '0.0.0.0', allowedHosts: ['team.example'] }],
    ['--trust-proxy', { trustProxy: '127.0.0.1' }],
  ] as const)('%s: no demo on a new directory, the first run refused over HTTP', async (_name, o) => {
    const s = await serve({ dataDir: dir(), port: 0, logLevel: 'silent', ...o });
    try {
      expect(s.demoCreated).toBe(false);
      expect(await s.store.isEmpty()).toBe(true);
      const port = portOf(s.url.replace('0.0.0.0', '127.0.0.1'));
      const st = await send(port, '/setup.json', { host: '127.0.0.1' });
      expect(JSON.parse(st.body)).toEqual({ empty: true, demo: null, form: false });
      for (const body of FORMS) {
        const r = await send(port, '/setup.json', { host: '127.0.0.1', 'content-type': 'application/json' }, { method: 'POST', body: JSON.stringify(body) });
        expect(r.status).toBe(403);
      }
      expect(await s.store.isEmpty()).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('the desktop’s loopback-only service keeps its first run and its demo; no answer carries a password', async () => {
    const demo = await serve({ dataDir: dir(), port: 0, logLevel: 'silent' });
    try {
      expect(demo.demoCreated).toBe(true);
      const st = await send(portOf(demo.url), '/setup.json', { host: '127.0.0.1' });
      expect(JSON.parse(st.body)).toEqual({ empty: false, demo: { user: 'alex' }, form: true });
      expect(st.body).not.toMatch(/password/);
    } finally {
      await demo.close();
    }
    const empty = await serve({ dataDir: dir(), port: 0, logLevel: 'silent', demo: false });
    try {
      const port = portOf(empty.url);
      expect(JSON.parse((await send(port, '/setup.json', { host: 'localhost' })).body)).toEqual({ empty: true, demo: null, form: true });
      const r = await send(port, '/setup.json', { host: '127.0.0.1', 'content-type': 'application/json' }, { method: 'POST', body: JSON.stringify({ demo: true }) });
      expect(r.status).toBe(201);
      expect(JSON.parse(r.body)).toEqual({ empty: false, demo: { user: 'alex' }, form: true });
      expect(r.body).not.toMatch(/password/);
    } finally {
      await empty.close();
    }
  });

  it('behind a trusted proxy the setup judges the client address the proxy forwarded, never the socket’s; a forged header from elsewhere is ignored', async () => {
    // An app that trusts a loopback proxy but is not counted as serving a network (only buildApp can make
    // one): the address check alone must hold.
    const cases: [string, Record<string, string>, number][] = [
      ['127.0.0.1', { 'x-forwarded-for': '203.0.113.7' }, 403], // the proxy forwards a public client
      ['127.0.0.1', {}, 201], // the machine itself, no proxy involved
      ['192.0.2.5', { 'x-forwarded-for': '127.0.0.1' }, 403], // a direct client forging its address
    ];
    for (const [peer, headers, status] of cases) {
      const store = new SqliteStore(':memory:');
      const app = await buildApp({ store, trustProxy: 'loopback', network: false });
      try {
        const r = await app.inject({ method: 'POST', url: '/setup.json', remoteAddress: peer, payload: JSON.stringify({ demo: true }),
          headers: { host: '127.0.0.1', 'content-type': 'application/json', ...headers } });
        expect([peer, headers, r.statusCode]).toEqual([peer, headers, status]);
        expect(await store.isEmpty()).toBe(status !== 201);
      } finally {
        await app.close();
        await store.close();
      }
    }
  });

  it('the sign-in page’s demo password (renderer text) is the demo’s', () => {
    const signIn = readFileSync(join(root, 'renderer', 'components', 'SignIn.tsx'), 'utf8');
    const admin = DEMO_ACCOUNT.people.find((p) => p.administrator)!;
    expect(/DEMO_PASSWORD = '([^']*)'/.exec(signIn)?.[1]).toBe(admin.password);
  });
});

describe.skipIf(pgSkipReason())('a team server on PostgreSQL (--store)', () => {
  it('no demo account, the first run refused over HTTP; `bivouac setup --store` makes the account', async () => {
    const db = await freshDatabase();
    const srv = await startCli(['--data-dir', dir(), '--store', db]);
    try {
      const port = portOf(srv.url);
      expect(JSON.parse((await send(port, '/setup.json', { host: '127.0.0.1' })).body)).toEqual({ empty: true, demo: null, form: false });
      for (const body of FORMS) {
        const r = await send(port, '/setup.json', { host: '127.0.0.1', 'content-type': 'application/json' }, { method: 'POST', body: JSON.stringify(body) });
        expect(r.status).toBe(403);
      }
      const made = spawnSync(process.execPath, [cli, 'setup', '--data-dir', dir(), '--store', db, '--firm', 'Col Guides', '--first-name', 'Ana', '--last-name', 'Ruiz', '--user', 'ana'],
        { cwd: root, env: { ...process.env, BIVOUAC_PASSWORD: 'rope-and-ice-2027' }, encoding: 'utf8', timeout: 30_000 });
      expect(made.status, made.stderr).toBe(0);
      expect(made.stdout).not.toMatch(/rope-and-ice/);
      const me = await send(port, '/me.json', { host: '127.0.0.1', authorization: basic('ana', 'rope-and-ice-2027') });
      expect(me.status, me.body).toBe(200);
      // A second setup refuses: the database holds an account.
      const again = spawnSync(process.execPath, [cli, 'setup', '--store', db, '--demo'], { cwd: root, encoding: 'utf8', timeout: 30_000 });
      expect(again.status).toBe(2);
      expect(again.stderr).toMatch(/already holds an account/);
    } finally {
      await srv.stop();
    }
  }, 60_000);
});
