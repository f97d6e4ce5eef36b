// The team server as a user runs it: `bivouac serve --store postgres://…` in child processes, on
// the run's PostgreSQL cluster (and, for the restart test, on a cluster of its own that the test
// stops and starts under the running server).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freshDatabase, pgSkipReason } from '../support/pg.ts';
import { startProxy } from '../support/proxy.ts';
import { PgStore } from '../../electron/store/postgres.ts';
import { hashPassword } from '../../electron/service/auth.ts';
// @ts-expect-error: a plain ES module without types
import { startCluster } from '../../scripts/pg-cluster.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'electron', 'cli.ts');
const fixturePath = join(root, 'tests', 'fixtures', 'account.json');
const fixture = JSON.parse(readFileSync(fixturePath, 'utf8')) as { companies: unknown[]; people: { key: string; 'user-name': string; password: string }[] };
const ada = fixture.people.find((p) => p.key === 'ada')!;
const auth = { authorization: `Basic ${Buffer.from(`${ada['user-name']}:${ada.password}`).toString('base64')}` };

let tmp: string;
beforeAll(() => { tmp = mkdtempSync(join(tmpdir(), 'bivouac-team-')); });
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const dir = () => join(tmp, String(++n));

interface Done { code: number | null; stdout: string; stderr: string }
function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Done> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (b: Buffer) => { stdout += b.toString(); });
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface Server { child: ChildProcess; url: string; stop(): Promise<void> }
function start(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dir(), ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    const exited = new Promise<void>((res) => child.on('close', () => res()));
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`no URL after 20 s\n${stdout}\n${stderr}`)); }, 20_000);
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    child.on('close', (code) => { clearTimeout(timer); reject(new Error(`exited ${code}: ${stderr}`)); });
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      const m = /running at (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1], stop: () => { child.kill('SIGTERM'); return exited; } });
      }
    });
  });
}

const get = (base: string, path: string) => fetch(`${base}${path}`, { headers: auth });

const skip = pgSkipReason();
describe.skipIf(skip)(`bivouac serve --store postgres://…${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('a bad URL, a server that is down, a newer schema: a clear message, exit 1, no stack trace, nothing listening', async () => {
    const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [['--store', 'mysql://x@h/db'], {}, /not a PostgreSQL URL: mysql:\/\/x@h\/db/],
      [['--store', 'postgres://nobody@127.0.0.1:1/db'], {}, /cannot use PostgreSQL at postgres:\/\/nobody@127\.0\.0\.1:1\/db: .*ECONNREFUSED/],
      [[], { BIVOUAC_STORE: 'postgres://u:secret@127.0.0.1:1/db' }, /cannot use PostgreSQL at postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/db/],
    ];
    const newer = await freshDatabase();
    expect((await run(['export', '--store', newer])).code).toBe(0); // migrates the empty database
    const c = new pg.Client({ connectionString: newer });
    await c.connect();
    await c.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 'x')");
    await c.end();
    cases.push([['--store', newer], {}, /schema version 99, newer than this Bivouac understands/]);
    for (const [args, env, message] of cases) {
      const r = await run(['serve', '--port', '0', '--data-dir', dir(), ...args], env);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stderr).not.toContain('secret');
      expect(r.stdout).not.toMatch(/running at/);
    }
  }, 90_000);

  it('two processes started together on one new database import the seed once and act as one server behind a proxy', async () => {
    const db = await freshDatabase();
    const behind = ['--store', db, '--seed', fixturePath, '--trust-proxy', '127.0.0.1'];
    const [a, b] = await Promise.all([start(behind), start(behind)]);
    const proxy = await startProxy([a.url, b.url]);
    try {
      const companies = await (await get(a.url, '/companies.json')).json() as unknown[];
      expect(companies.length).toBe(fixture.companies.length);
      const projects = await (await get(b.url, '/projects.json')).json() as { id: number; name: string }[];
      const pid = projects[0].id;
      // Warm both processes' response caches, then write on one and read on the other at once.
      for (let k = 0; k < 4; k++) await get(proxy.url, `/projects/${pid}.json`);
      for (let k = 0; k < 6; k++) {
        const name = `Renamed ${k}`;
        const w = await fetch(`${proxy.url}/projects/${pid}.json`, {
          method: 'PUT', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ project: { name } }),
        });
        expect(w.status, await w.clone().text()).toBeLessThan(300);
        const r = await (await get(proxy.url, `/projects/${pid}.json`)).json() as { name: string };
        expect(r.name).toBe(name);
      }
      // A password changed through another connection: both processes' credential caches forget the old one at once.
      const me = await (await get(a.url, '/me.json')).json() as { id: number };
      expect((await get(b.url, '/me.json')).status).toBe(200);
      const other = await PgStore.open(db, { max: 1 });
      const hash = await hashPassword('n3w-Passw0rd!');
      await other.write((w) => w.update('people', me.id, { password_hash: hash }));
      await other.close();
      expect((await get(a.url, '/me.json')).status).toBe(401);
      expect((await get(b.url, '/me.json')).status).toBe(401);
    } finally {
      await proxy.close();
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 90_000);

  it('export, then import into another database; new records continue after the restored ids', async () => {
    const db = await freshDatabase();
    expect((await run(['import', fixturePath, '--store', db])).code).toBe(0);
    const backup = join(tmp, `backup-${++n}.json`);
    const ex = await run(['export', '--out', backup], { BIVOUAC_STORE: db });
    expect(ex.code, ex.stderr).toBe(0);
    const copy = await freshDatabase();
    const im = await run(['import', backup, '--store', copy]);
    expect(im.code, im.stderr).toBe(0);
    expect(im.stdout).toContain('imported');
    const again = await run(['import', backup, '--store', copy]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already holds an account/);
    const s = await start(['--store', copy]);
    try {
      const projects = await (await get(s.url, '/projects.json')).json() as { id: number }[];
      const max = Math.max(...projects.map((p) => p.id));
      const r = await fetch(`${s.url}/projects.json`, {
        method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ project: { name: 'After restore' } }),
      });
      expect(r.status, await r.clone().text()).toBe(201);
      expect(Number(/(\d+)(?:\.\w+)?$/.exec(r.headers.get('location') ?? '')?.[1]), String(r.headers.get('location'))).toBeGreaterThan(max);
    } finally {
      await s.stop();
    }
  }, 90_000);

  it('keeps serving while PostgreSQL restarts: 503 with Retry-After and the error body, then recovers by itself', async () => {
    const cluster = await startCluster({ log: () => undefined });
    let s: Server | undefined;
    try {
      const db = await cluster.createDatabase('team');
      s = await start(['--store', db, '--seed', fixturePath]);
      expect((await get(s.url, '/projects.xml')).status).toBe(200);
      expect((await fetch(`${s.url}/health`)).status).toBe(200);
      cluster.pause();
      const down = await get(s.url, '/projects.xml');
      expect(down.status).toBe(503);
      expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await down.text()).toMatch(/<errors>\s*<error>The database is unavailable; retry later<\/error>\s*<\/errors>/);
      const json = await get(s.url, '/projects.json');
      expect(json.status).toBe(503);
      expect(await json.json()).toEqual({ errors: ['The database is unavailable; retry later'] });
      const health = await fetch(`${s.url}/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ status: 'unavailable' });
      await cluster.resume();
      let status = 0;
      for (let k = 0; k < 50 && status !== 200; k++) {
        status = (await get(s.url, '/projects.xml')).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).toBe(200);
      expect((await fetch(`${s.url}/health`)).status).toBe(200);
      expect(s.child.exitCode).toBeNull();
    } finally {
      await s?.stop();
      await cluster.stop();
    }
  }, 60_000);
});
