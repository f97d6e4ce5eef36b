// The data directory holds every API token and password hash: it is private to the user who runs
// Bivouac (directory 0700, files 0600), whatever the umask, and an older directory is repaired on start.
// The commands run as a user runs them (`node electron/cli.ts …`), under `umask 000` so that nothing
// depends on the umask.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DB_FILE } from '../../electron/server.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'electron', 'cli.ts');
const fixturePath = join(root, 'tests', 'fixtures', 'account.json');
const ADA = `Basic ${Buffer.from('fd57e8cb0afbace0e492146cb264fba6a0b04a78:X').toString('base64')}`;

let tmp: string;
beforeAll(() => { tmp = mkdtempSync(join(tmpdir(), 'bivouac-modes-')); });
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const scratch = (name: string) => join(tmp, `${++n}-${name}`);
const mode = (p: string) => statSync(p).mode & 0o777;
/** Mode of every entry of a directory, by name. */
const modes = (dir: string) => Object.fromEntries(readdirSync(dir).map((f) => [f, mode(join(dir, f))]));

const sh = (args: string[]) => `umask 000 && exec ${[process.execPath, cli, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')}`;

interface Done { code: number | null; stdout: string; stderr: string }
function run(args: string[]): Promise<Done> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', sh(args)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (b: Buffer) => { stdout += b.toString(); });
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Start `serve` under umask 000, call `during(url)` while it runs, then stop it. */
function withServer(args: string[], during: (url: string) => Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', sh(['serve', '--port', '0', ...args])], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '', started = false;
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`no URL after 15 s\n${stdout}\n${stderr}`)); }, 15_000);
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    child.on('close', (code) => { clearTimeout(timer); if (!started) reject(new Error(`serve exited (${code}): ${stderr}`)); });
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      const m = /running at (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout);
      if (!m || started) return;
      started = true;
      clearTimeout(timer);
      during(m[1]).then(
        () => { child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}: ${stderr}`)))); child.kill('SIGTERM'); },
        (e: unknown) => { child.kill('SIGKILL'); reject(e as Error); },
      );
    });
  });
}

/** A write through the API, so that the WAL and shared-memory files exist. */
async function write(url: string): Promise<void> {
  const projects = await (await fetch(`${url}/projects.xml`, { headers: { Authorization: ADA } })).text();
  const pid = /<id type="integer">(\d+)<\/id>/.exec(projects)![1];
  const res = await fetch(`${url}/projects/${pid}/posts.xml`, {
    method: 'POST', headers: { Authorization: ADA, 'Content-Type': 'application/xml' },
    body: '<post><title>Modes</title><body>written while the server runs</body></post>',
  });
  expect(res.status).toBe(201);
}

// Each test starts the CLI several times: on a loaded machine that takes longer than the default 20 s.
const SLOW = { timeout: 90_000 };

describe('the data directory is private to its user', SLOW, () => {
  it('serve creates the directory 0700 and every file in it 0600 (database, WAL, SHM, api-token), even under umask 000', async () => {
    const dataDir = join(scratch('parent'), 'nested', 'data');
    await withServer(['--data-dir', dataDir, '--seed', fixturePath], async (url) => {
      await write(url);
      const files = modes(dataDir);
      expect(Object.keys(files).sort()).toEqual(expect.arrayContaining([DB_FILE, `${DB_FILE}-shm`, `${DB_FILE}-wal`, 'api-token']));
      expect(files).toEqual(Object.fromEntries(Object.keys(files).map((f) => [f, 0o600])));
      expect(mode(dataDir)).toBe(0o700);
    });
    expect(mode(dataDir)).toBe(0o700);
    for (const [f, m] of Object.entries(modes(dataDir))) expect(m, f).toBe(0o600);
  });

  it('repairs an existing 0755 directory with 0644 files on start, and leaves no file readable by others', async () => {
    const dataDir = scratch('old');
    expect((await run(['import', fixturePath, '--data-dir', dataDir])).code).toBe(0);
    await withServer(['--data-dir', dataDir], async () => {}); // writes api-token
    writeFileSync(join(dataDir, 'notes.txt'), 'a stray file of the user');
    writeFileSync(join(dataDir, 'hook.sh'), '#!/bin/sh\n');
    mkdirSync(join(dataDir, 'old-backups'));
    // as an older Bivouac (or a permissive umask) left it
    chmodSync(dataDir, 0o755);
    for (const f of [DB_FILE, 'api-token', 'notes.txt']) chmodSync(join(dataDir, f), 0o644);
    chmodSync(join(dataDir, 'hook.sh'), 0o755);
    chmodSync(join(dataDir, 'old-backups'), 0o755);
    expect(mode(join(dataDir, DB_FILE))).toBe(0o644);

    await withServer(['--data-dir', dataDir], async (url) => {
      await write(url);
      expect(mode(dataDir)).toBe(0o700);
      for (const f of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`, 'api-token', 'notes.txt']) expect(mode(join(dataDir, f)), f).toBe(0o600);
      // nothing for group or others; the owner's own bits are kept (a script stays executable)
      expect(mode(join(dataDir, 'hook.sh'))).toBe(0o700);
      expect(mode(join(dataDir, 'old-backups'))).toBe(0o700);
    });
  });

  it('token and export repair the directory too (every command that opens the store)', async () => {
    const dataDir = scratch('cmd');
    expect((await run(['import', fixturePath, '--data-dir', dataDir])).code).toBe(0);
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(join(dataDir, DB_FILE))).toBe(0o600);
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, DB_FILE), 0o644);
    expect((await run(['token', '--data-dir', dataDir])).code).toBe(0);
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(join(dataDir, DB_FILE))).toBe(0o600);
  });
});

describe('a shared directory is never taken over', () => {
  it('a data directory that is shared (sticky, like /tmp) is refused with a clear error, and nothing in it changes', async () => {
    const shared = scratch('shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    writeFileSync(join(shared, 'someone-else.txt'), 'not Bivouac\'s');
    chmodSync(join(shared, 'someone-else.txt'), 0o644);
    const r = await run(['import', fixturePath, '--data-dir', shared]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`${shared} is a shared directory`);
    expect(r.stderr).toContain(join(shared, 'bivouac'));
    expect(statSync(shared).mode & 0o7777).toBe(0o1777);
    expect(mode(join(shared, 'someone-else.txt'))).toBe(0o644);
    expect(existsSync(join(shared, DB_FILE))).toBe(false);
  });

  it('so is the home directory (HOME) and the root', async () => {
    const { securePrivateDir } = await import('../../electron/store/files.ts');
    const home = scratch('home');
    mkdirSync(home);
    chmodSync(home, 0o755);
    const before = process.env.HOME;
    process.env.HOME = home;
    try {
      expect(() => securePrivateDir(home)).toThrow(`${home} is a shared directory (your home directory)`);
      expect(() => securePrivateDir(`${home}/`)).toThrow('shared directory');
    } finally {
      process.env.HOME = before;
    }
    expect(mode(home)).toBe(0o755);
    expect(() => securePrivateDir('/')).toThrow('/ is a shared directory');
    // a directory of its own inside the home directory is fine
    securePrivateDir(join(home, 'bivouac'));
    expect(mode(join(home, 'bivouac'))).toBe(0o700);
  });
});

describe('export --out', SLOW, () => {
  it('writes the backup 0600 under umask 000, and makes an existing 0644 file 0600 before writing into it', async () => {
    const dataDir = scratch('exp');
    expect((await run(['import', fixturePath, '--data-dir', dataDir])).code).toBe(0);
    const out = scratch('backup.json');
    const done = await run(['export', '--data-dir', dataDir, '--out', out]);
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(mode(out)).toBe(0o600);

    const existing = scratch('existing.json');
    writeFileSync(existing, 'old');
    chmodSync(existing, 0o644);
    expect((await run(['export', '--data-dir', dataDir, '--out', existing])).code).toBe(0);
    expect(mode(existing)).toBe(0o600);
    expect(existsSync(existing)).toBe(true);
    expect(statSync(existing).size).toBe(statSync(out).size);
  });
});
