// The command line (contract §9.1), run as a user runs it: `node electron/cli.ts …` in a child process.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultDataDir, DEFAULT_PORT } from '../../electron/cli.ts';
import { DB_FILE } from '../../electron/server.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'electron', 'cli.ts');
const fixturePath = join(root, 'tests', 'fixtures', 'account.json');
const fixture = JSON.parse(readFileSync(fixturePath, 'utf8')) as { companies: Record<string, unknown>[]; projects: Record<string, unknown>[] };
const ADA_TOKEN = 'fd57e8cb0afbace0e492146cb264fba6a0b04a78';

let tmp: string;
beforeAll(() => { tmp = mkdtempSync(join(tmpdir(), 'bivouac-cli-')); });
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const scratch = (name: string) => join(tmp, `${++n}-${name}`);
const writeJson = (name: string, data: unknown) => {
  const f = scratch(name);
  writeFileSync(f, typeof data === 'string' ? data : JSON.stringify(data));
  return f;
};

interface Done { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

/** Run the CLI to completion (stdin closed). */
function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Done> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (b: Buffer) => { stdout += b.toString(); });
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

interface Server { child: ChildProcess; url: string; stdout: () => string; stop(): Promise<Done> }

/** Start `serve`, wait for the line that gives the URL. */
function start(args: string[]): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    const exited = new Promise<Done>((res) => child.on('close', (code, signal) => res({ code, signal, stdout, stderr })));
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`no URL after 15 s\n${stdout}\n${stderr}`)); }, 15_000);
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      const m = /running at (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1], stdout: () => stdout, stop: () => { child.kill('SIGTERM'); return exited; } });
      }
    });
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    void exited.then((d) => { clearTimeout(timer); reject(new Error(`serve exited (${d.code}) before listening: ${d.stderr}`)); });
  });
}

const basic = (user: string, pass = 'X') => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
async function get(url: string, auth = basic(ADA_TOKEN)): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { headers: { Authorization: auth } });
  return { status: res.status, body: await res.text() };
}

describe('bivouac serve', () => {
  it('prints its URL, answers /health and the API, and stops on SIGTERM with exit 0', async () => {
    const dataDir = scratch('data');
    const s = await start(['--data-dir', dataDir, '--seed', fixturePath]);
    try {
      expect(s.stdout()).toContain(`data: ${dataDir}`);
      const health = await fetch(`${s.url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      const projects = await get(`${s.url}/projects.xml`);
      expect(projects.status).toBe(200);
      expect(projects.body).toContain('<name>Alpha Ascent</name>');
      // the token file next to the store (what `bivouac token` prints)
      expect(readFileSync(join(dataDir, 'api-token'), 'utf8').trim()).toBe(ADA_TOKEN);
    } finally {
      const done = await s.stop();
      expect(done.code).toBe(0);
    }
    expect(existsSync(join(dataDir, DB_FILE))).toBe(true);
  });

  it.each([
    ['two firms', { ...fixture, companies: fixture.companies.map((c) => ({ ...c, firm: true })) }, /firm/],
    ['broken JSON', '{"format": "bivouac-seed/1", "companies": [', /JSON/],
    ['another format', { format: 'something-else' }, /format/],
    ['a missing file', null, /no such file/],
  ])('refuses an invalid fixture (%s): non-zero exit, a message on stderr, no store', async (_name, data, message) => {
    const seed = data === null ? join(tmp, 'no-such-fixture.json') : writeJson('bad.json', data);
    const dataDir = scratch('data');
    const done = await run(['serve', '--port', '0', '--data-dir', dataDir, '--seed', seed]);
    expect(done.code).not.toBe(0);
    expect(done.code).not.toBeNull();
    expect(done.stderr).toMatch(message);
    expect(done.stdout).not.toContain('running at');
    expect(existsSync(join(dataDir, DB_FILE))).toBe(false);
    expect(existsSync(dataDir) ? readdirSync(dataDir) : []).toEqual([]);
  });

  it('ignores --seed when the data directory already holds a store', async () => {
    const dataDir = scratch('data');
    const first = await start(['--data-dir', dataDir, '--seed', fixturePath]);
    expect((await first.stop()).code).toBe(0);
    const other = writeJson('other.json', { ...fixture, projects: fixture.projects.map((p) => ({ ...p, name: `Other ${String(p.name)}` })) });
    for (const seed of [other, writeJson('broken.json', '{ not json')]) {
      const s = await start(['--data-dir', dataDir, '--seed', seed]);
      try {
        const projects = await get(`${s.url}/projects.xml`);
        expect(projects.body).toContain('<name>Alpha Ascent</name>');
        expect(projects.body).not.toContain('Other');
      } finally {
        expect((await s.stop()).code).toBe(0);
      }
    }
  });

  it('starts a new data directory with the demo account, or empty with --no-demo', async () => {
    const demoDir = scratch('demo');
    const s = await start(['--data-dir', demoDir]);
    try {
      expect(s.stdout()).toContain('Sign in as alex / bivouac');
      const me = await get(`${s.url}/me.xml`, basic('alex', 'bivouac'));
      expect(me.status).toBe(200);
      expect(me.body).toContain('<user-name>alex</user-name>');
    } finally {
      await s.stop();
    }
    const again = await start(['--data-dir', demoDir]);
    expect(again.stdout()).not.toContain('Sign in as');
    await again.stop();
    const emptyDir = scratch('empty');
    const e = await start(['--data-dir', emptyDir, '--no-demo']);
    try {
      expect((await get(`${e.url}/me.xml`, basic('alex', 'bivouac'))).status).toBe(401);
    } finally {
      await e.stop();
    }
  });

  it('rejects a bad port with a usage error (exit 2)', async () => {
    const done = await run(['serve', '--port', 'eighty', '--data-dir', scratch('data')]);
    expect(done.code).toBe(2);
    expect(done.stderr).toContain('--port');
  });

  it('--wal-checkpoint takes worker or sqlite (D180)', async () => {
    const done = await run(['serve', '--wal-checkpoint', 'never', '--data-dir', scratch('data')]);
    expect(done.code).toBe(2);
    expect(done.stderr).toContain('--wal-checkpoint takes worker or sqlite, got never');
  });
});

describe('bivouac token / export / import', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = scratch('seeded');
    const s = await start(['--data-dir', dataDir, '--seed', fixturePath]);
    // one record beyond the fixture, so that the round trip carries content too
    const res = await fetch(`${s.url}/projects/${/<id type="integer">(\d+)<\/id>/.exec((await get(`${s.url}/projects.xml`)).body)![1]}/posts.xml`, {
      method: 'POST', headers: { Authorization: basic(ADA_TOKEN), 'Content-Type': 'application/xml' },
      body: '<post><title>Round trip</title><body>Carried by export and import</body></post>',
    });
    expect(res.status).toBe(201);
    expect((await s.stop()).code).toBe(0);
  });

  it("token prints the administrator's token", async () => {
    const done = await run(['token', '--data-dir', dataDir]);
    expect(done.code).toBe(0);
    expect(done.stdout).toBe(`${ADA_TOKEN}\n`);
  });

  it('token without a store is a usage error', async () => {
    const done = await run(['token', '--data-dir', scratch('nothing')]);
    expect(done.code).toBe(2);
    expect(done.stderr).toContain('no store');
  });

  it('export then import into an empty directory round-trips the account', async () => {
    const backup = scratch('backup.json');
    const exported = await run(['export', '--data-dir', dataDir, '--out', backup]);
    expect(exported.code).toBe(0);
    expect(JSON.parse(readFileSync(backup, 'utf8')).format).toBe('bivouac-backup/1');
    // without --out the backup goes to stdout
    const toStdout = await run(['export', '--data-dir', dataDir]);
    expect(JSON.parse(toStdout.stdout).tables.people).toHaveLength(JSON.parse(readFileSync(backup, 'utf8')).tables.people.length);

    const copy = scratch('copy');
    const imported = await run(['import', backup, '--data-dir', copy]);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);

    const answers: string[][] = [];
    for (const dir of [dataDir, copy]) {
      const s = await start(['--data-dir', dir]);
      try {
        const projects = await get(`${s.url}/projects.xml`);
        const id = /<id type="integer">(\d+)<\/id>/.exec(projects.body)![1];
        const posts = await get(`${s.url}/projects/${id}/posts.xml`);
        answers.push([projects.body, posts.body, (await get(`${s.url}/people.xml`)).body]);
      } finally {
        await s.stop();
      }
    }
    expect(answers[0][0]).toContain('Alpha Ascent');
    expect(answers[0][1]).toContain('Round trip');
    expect(answers[1]).toEqual(answers[0]);
    expect((await run(['token', '--data-dir', copy])).stdout).toBe(`${ADA_TOKEN}\n`);
  }, 60_000); // three CLI processes in a row: slow on a busy machine

  it('import also takes a seed fixture', async () => {
    const dir = scratch('from-seed');
    const done = await run(['import', fixturePath, '--data-dir', dir]);
    expect(done.code).toBe(0);
    expect((await run(['token', '--data-dir', dir])).stdout).toBe(`${ADA_TOKEN}\n`);
  });

  it('import refuses a directory that already holds an account, and leaves it alone', async () => {
    const before = (await run(['export', '--data-dir', dataDir])).stdout;
    const done = await run(['import', fixturePath, '--data-dir', dataDir]);
    expect(done.code).not.toBe(0);
    expect(done.stderr).toMatch(/already holds an account/);
    const after = (await run(['export', '--data-dir', dataDir])).stdout;
    const strip = (s: string) => ({ ...JSON.parse(s), exportedAt: null });
    expect(strip(after)).toEqual(strip(before));
  });

  it('import of an invalid file fails without creating a store', async () => {
    const dir = scratch('bad-import');
    const done = await run(['import', writeJson('two-firms.json', { ...fixture, companies: fixture.companies.map((c) => ({ ...c, firm: true })) }), '--data-dir', dir]);
    expect(done.code).toBe(1);
    expect(done.stderr).toMatch(/firm/);
    expect(existsSync(join(dir, DB_FILE))).toBe(false);
  });
});

describe('command line errors', () => {
  it('an unknown command exits 2 with the usage', async () => {
    const done = await run(['frobnicate', '--data-dir', scratch('data')]);
    expect(done.code).toBe(2);
    expect(done.stderr).toContain("unknown command 'frobnicate'");
    expect(done.stderr).toContain('usage: bivouac');
  });

  it('an unknown flag exits 2', async () => {
    const done = await run(['serve', '--frobnicate']);
    expect(done.code).toBe(2);
    expect(done.stderr).toContain('usage: bivouac');
  });

  it('--help prints the usage and exits 0', async () => {
    const done = await run(['--help']);
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(`default ${DEFAULT_PORT}`);
  });
});

describe('default data directory', () => {
  it('honours BIVOUAC_DATA_DIR first, on every system', () => {
    for (const os of ['linux', 'darwin', 'win32'] as const) {
      expect(defaultDataDir({ BIVOUAC_DATA_DIR: '/srv/bivouac', XDG_DATA_HOME: '/x', APPDATA: 'C:\\A' }, os)).toBe('/srv/bivouac');
    }
  });

  it('follows XDG_DATA_HOME on Linux, else ~/.local/share', () => {
    expect(defaultDataDir({ XDG_DATA_HOME: '/home/u/.data' }, 'linux')).toBe(join('/home/u/.data', 'bivouac'));
    expect(defaultDataDir({}, 'linux')).toBe(join(homedir(), '.local', 'share', 'bivouac'));
  });

  it('uses Application Support on macOS and APPDATA on Windows', () => {
    expect(defaultDataDir({}, 'darwin')).toBe(join(homedir(), 'Library', 'Application Support', 'Bivouac'));
    expect(defaultDataDir({ APPDATA: '/appdata' }, 'win32')).toBe(join('/appdata', 'Bivouac'));
  });

  it('is what the CLI uses without --data-dir', async () => {
    const xdg = scratch('xdg');
    const done = await run(['token'], { XDG_DATA_HOME: xdg, BIVOUAC_DATA_DIR: '' });
    expect(done.code).toBe(2);
    expect(done.stderr).toContain(join(xdg, 'bivouac'));
    const viaEnv = scratch('env-dir');
    const done2 = await run(['token'], { BIVOUAC_DATA_DIR: viaEnv });
    expect(done2.stderr).toContain(viaEnv);
  });
});
