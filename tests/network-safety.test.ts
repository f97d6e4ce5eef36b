// Issue #25, the network side, over real sockets: the Host rule (loopback names on any port or none,
// through a real TCP port-forward; --allow-host with and without a port), the first-run setup and the
// demo account of a server that serves a network, behind a real reverse proxy (node:http) that forwards
// a public client address.

import { spawn } from 'node:child_process';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer as createNetServer, connect, type Server as NetServer, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBind, serve, StartError, type Running } from '../electron/server.ts';
import { FIXTURE, FIXTURE_PATH } from './helpers.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
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

  it('a loopback name with another port or none is this server (/health, a thin-path GET, a write)', async () => {
    for (const host of ['127.0.0.1', 'localhost', '[::1]', '127.0.0.1:9000', 'localhost:1', '[::1]:8080', `127.0.0.1:${port + 1}`, '127.1.2.3', '127.255.255.254:4817', 'LOCALHOST:80']) {
      expect([host, (await send(port, '/health', { host })).status]).toEqual([host, 200]);
      // GETs of resources take the thin path (http/fast.ts), other requests Fastify's: both apply the rule.
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
