// The command line of sync (issue #8): `serve --remote …` clones an empty data directory and keeps
// only the remote token (0600); `sync --data-dir` runs one sync and exits 0 once the outbox is empty.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatabaseSync } from 'node:sqlite';
import { progressBar } from '../../electron/cli.ts';
import { password, startProxy, startRemote, type Proxy, type Remote } from '../support/sync-helpers.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'electron', 'cli.ts');

interface Done { code: number | null; stdout: string; stderr: string }
function run(args: string[], env: Record<string, string> = {}): Promise<Done> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '', stderr = '';
    child.stdout.on('data', (b: Buffer) => { stdout += b.toString(); });
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
function start(args: string[]): Promise<{ url: string; stop(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    const closed = new Promise<void>((r) => child.on('close', () => r()));
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    child.on('close', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      const m = /running at (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout);
      // With --remote the connect goes on in the background (D253): wait until it is linked.
      if (m && (!args.includes('--remote') || /Connected to /.test(stdout))) resolve({ url: m[1], stop: () => { child.kill('SIGTERM'); return closed; } });
    });
  });
}

let remote: Remote;
let proxy: Proxy;
let tmp: string;
beforeAll(async () => {
  remote = await startRemote();
  proxy = await startProxy(remote.url, { plain: true });
  tmp = mkdtempSync(join(tmpdir(), 'bivouac-sync-cli-'));
});
afterAll(async () => {
  await proxy.close();
  await remote.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('bivouac serve --remote / bivouac sync', () => {
  it('clones, keeps only the token, works offline, and `sync` pushes the offline work', async () => {
    const dir = join(tmp, 'replica');
    const s = await start(['--data-dir', dir, '--remote', proxy.url, '--remote-user', 'ada', '--remote-password', password('ada'), '--sync-interval', '0']);
    try {
      const token = readFileSync(join(dir, 'api-token'), 'utf8').trim();
      const auth = { authorization: `Basic ${Buffer.from(`${token}:X`).toString('base64')}` };
      const projects = await (await fetch(`${s.url}/projects.xml`, { headers: auth })).text();
      expect(projects).toContain('Alpha Ascent');
      expect(projects).toContain('Crevasse Survey');
      // The remote token is kept 0600; the password is nowhere in the data directory.
      expect(statSync(join(dir, 'remote-token')).mode & 0o777).toBe(0o600);
      const db = new DatabaseSync(join(dir, 'bivouac.sqlite'));
      const state = JSON.stringify(db.prepare('SELECT * FROM sync_state').all());
      db.close();
      expect(state).not.toContain(password('ada'));
      // Offline: the write answers at once and waits in the outbox.
      proxy.faults.down = true;
      const pid = /<project>(?:(?!<\/project>)[^])*?<id type="integer">(\d+)<\/id>(?:(?!<\/project>)[^])*?<name>Alpha Ascent<\/name>/.exec(projects)![1];
      const r = await fetch(`${s.url}/projects/${pid}/todo_lists.xml`, { method: 'POST', headers: auth, body: '<todo-list><name>From the CLI</name></todo-list>' });
      expect(r.status).toBe(201);
      const status = await (await fetch(`${s.url}/sync/status`, { headers: auth })).json() as { pending: number };
      expect(status.pending).toBe(1);
    } finally {
      await s.stop();
    }
    const failed = await run(['sync', '--data-dir', dir]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/did not finish/);
    proxy.faults.down = false;
    const ok = await run(['sync', '--data-dir', dir]);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/synced with .*pending 0/);
    expect(await remote.store.all("SELECT name FROM todo_lists WHERE name = 'From the CLI'")).toHaveLength(1);
  }, 120_000);

  it('refuses a data directory with local work, and `sync` on a standalone directory', async () => {
    const dir = join(tmp, 'standalone');
    const s = await start(['--data-dir', dir]);
    await s.stop();
    const refused = await run(['serve', '--port', '0', '--data-dir', dir, '--remote', proxy.url, '--remote-token', 'whatever']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/cannot connect/);
    const bad = await run(['serve', '--port', '0', '--data-dir', join(tmp, 'x'), '--remote', proxy.url, '--remote-user', 'ada', '--remote-password', 'wrong']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/refused these credentials/);
    const ok = await run(['serve', '--port', '0', '--data-dir', dir, '--remote', proxy.url, '--remote-user', 'ada', '--remote-password', password('ada')]);
    expect(ok.code).toBe(1);
    expect(ok.stderr).toMatch(/holds the demo account/);
    const standalone = await run(['sync', '--data-dir', dir]);
    expect(standalone.code).toBe(2);
    expect(standalone.stderr).toMatch(/not connected/);
  }, 120_000);

  it('an own account (first-run setup): its project must be on the remote (a plain server cannot create one), then it connects', async () => {
    const own = (d: string, project: string) => run(['setup', '--data-dir', d, '--firm', 'Solo', '--first-name', 'Ada', '--last-name', 'Solo', '--user', 'ada', '--project', project], { BIVOUAC_PASSWORD: 'solo-pass-123' });
    const lonely = join(tmp, 'own-new');
    expect((await own(lonely, 'Brand new')).code).toBe(0);
    const refused = await run(['serve', '--port', '0', '--data-dir', lonely, '--remote', proxy.url, '--remote-user', 'ada', '--remote-password', password('ada')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/holds local work that cannot be pushed .*project "Brand new": not on the remote/);
    const matched = join(tmp, 'own-matched');
    expect((await own(matched, 'Alpha Ascent')).code).toBe(0);
    const s = await start(['--data-dir', matched, '--remote', proxy.url, '--remote-user', 'ada', '--remote-password', password('ada'), '--sync-interval', '0']);
    try {
      const token = readFileSync(join(matched, 'api-token'), 'utf8').trim();
      const projects = await (await fetch(`${s.url}/projects.xml`, { headers: { authorization: `Basic ${Buffer.from(`${token}:X`).toString('base64')}` } })).text();
      expect(projects.match(/<name>Alpha Ascent<\/name>/g)).toHaveLength(1);
      expect(projects).toContain('Base Camp Logistics');
    } finally {
      await s.stop();
    }
    expect(await remote.store.all("SELECT id FROM projects WHERE name = 'Alpha Ascent'")).toHaveLength(1);
  }, 120_000);
});

describe('the command line progress line', () => {
  it('shows a bar and "n of m" once the total is known, a count before', () => {
    expect(progressBar({ phase: 'pull', done: 2, total: 5 }, 10)).toBe('pulling [####......] 2 of 5');
    expect(progressBar({ phase: 'push', done: 5, total: 5 }, 10)).toBe('pushing [##########] 5 of 5');
    expect(progressBar({ phase: 'pull', done: 12, total: 0 }, 10)).toBe('pulling 12 read');
  });
});
