// A server people can put on a network: binding beyond loopback needs --allow-host; retention
// housekeeping (feed tombstones, idempotency keys) runs on the team server.

import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkBind, isLoopback, StartError } from '../../electron/server.ts';
import { maintain } from '../../electron/service/maintenance.ts';
import { freshAccount, locId, type Account } from '../support/helpers.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'electron', 'cli.ts');
const fixture = join(root, 'tests', 'fixtures', 'account.json');

function start(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; kill: () => void; url?: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, 'serve', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      const m = /running at (http:\/\/\S+?)\//.exec(stdout);
      if (m) resolve({ code: null, stdout, stderr, url: m[1], kill: () => child.kill('SIGTERM') });
    });
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    child.on('close', (code) => resolve({ code, stdout, stderr, kill: () => undefined }));
  });
}

describe('binding beyond loopback', () => {
  it('checkBind: loopback needs nothing, any other address needs --allow-host', () => {
    for (const h of ['127.0.0.1', 'localhost', '::1', '127.0.0.2']) expect(isLoopback(h)).toBe(true);
    expect(() => checkBind('127.0.0.1', [])).not.toThrow();
    expect(() => checkBind('0.0.0.0', [])).toThrow(StartError);
    expect(() => checkBind('::', [])).toThrow(/--allow-host/);
    expect(() => checkBind('192.168.1.20', [])).toThrow(StartError);
    expect(() => checkBind('0.0.0.0', ['team.example'])).not.toThrow();
  });

  it('the CLI refuses --host 0.0.0.0 without --allow-host (exit 2, clear message, nothing created), and serves with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bivouac-bind-'));
    try {
      const refused = await start(['--host', '0.0.0.0', '--port', '0', '--data-dir', join(dir, 'a'), '--seed', fixture]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/--allow-host NAME/);
      expect(refused.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(existsSync(join(dir, 'a', 'bivouac.sqlite'))).toBe(false);
      const ok = await start(['--host', '0.0.0.0', '--port', '0', '--data-dir', join(dir, 'b'), '--seed', fixture, '--allow-host', 'team.example']);
      expect(ok.url).toBeDefined();
      try {
        const port = new URL(ok.url!).port;
        const ask = (host: string) => new Promise<number>((res, rej) => {
          const r = request({ host: '127.0.0.1', port, path: '/health', headers: { host } }, (m) => { m.resume(); res(m.statusCode!); });
          r.on('error', rej);
          r.end();
        });
        expect(await ask('team.example')).toBe(200);
        expect(await ask(`127.0.0.1:${port}`)).toBe(200);
        expect(await ask('other.example')).toBe(403);
      } finally {
        ok.kill();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('behind a load balancer', () => {
  // A balancer keeps idle connections to its backends and reuses them (nginx upstream keepalive, a
  // cloud balancer's 60 s idle timeout). If the backend closes an idle connection first, a request the
  // balancer sends on it at that moment is lost (a 502 for the client): the backend's keep-alive must
  // outlive the balancer's (bench:team's 100-client run lost requests this way with 5 s).
  const keepAlive = (url: string) => new Promise<string | undefined>((res, rej) => {
    const u = new URL(url);
    const r = request({ host: u.hostname, port: u.port, path: '/health' }, (m) => { m.resume(); res(m.headers['keep-alive'] as string | undefined); });
    r.on('error', rej);
    r.end();
  });
  it('a team server (behind a proxy, or on the network) keeps idle connections longer than a balancer\'s 60 s; the local service keeps 5 s', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bivouac-keepalive-'));
    const team = await start(['--port', '0', '--data-dir', join(dir, 'a'), '--seed', fixture, '--trust-proxy', 'loopback']);
    const local = await start(['--port', '0', '--data-dir', join(dir, 'b'), '--seed', fixture]);
    try {
      expect(team.url).toBeDefined();
      const t = Number(/timeout=(\d+)/.exec((await keepAlive(team.url!)) ?? '')?.[1]);
      expect(t).toBeGreaterThan(60);
      expect(await keepAlive(local.url!)).toMatch(/timeout=5\b/);
    } finally {
      team.kill();
      local.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('housekeeping', () => {
  let a: Account;
  freshAccount((x) => { a = x; });

  it('drops tombstones older than the retention and expires the cursors before them; keeps live records', async () => {
    const id = locId(await a.h.req('fran', 'POST', `/projects/${a.pid}/posts.xml`, '<post><title>T</title></post>'));
    const cursor = JSON.parse((await a.h.req('fran', 'GET', '/sync/changes.json')).body).cursor as string;
    await a.h.req('fran', 'DELETE', `/posts/${id}.xml`);
    const live = Number((await a.h.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM changes WHERE op <> 'delete'"))!.n);
    expect((await maintain(a.h.store, { tombstoneDays: 90 })).tombstones).toBe(0);
    expect((await a.h.req('fran', 'GET', `/sync/changes.json?since=${cursor}`)).status).toBe(200);
    const later = new Date(Date.now() + 91 * 86_400_000);
    expect((await maintain(a.h.store, { tombstoneDays: 90 }, later)).tombstones).toBe(1);
    expect((await a.h.req('fran', 'GET', `/sync/changes.json?since=${cursor}`)).status).toBe(410);
    expect(Number((await a.h.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM changes WHERE op <> 'delete'"))!.n)).toBe(live);
  });
});
