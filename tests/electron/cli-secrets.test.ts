// The remote's secret on the command line (issue #25, D257): a password file, the environment or a
// prompt on a terminal leave nothing in the process's argv; the flag forms still work and warn.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promptSecret, remoteOption, type SecretSources } from '../../electron/cli.ts';
import { password, startRemote, type Remote } from '../support/sync-helpers.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'electron', 'cli.ts');

interface Served { code: number | null; stdout: string; stderr: string; connected: boolean }
/** `bivouac serve …` until it says it is connected (then stopped), or until it exits by itself. */
function serveUntilConnected(args: string[], env: Record<string, string> = {}): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--sync-interval', '0', ...args], {
      cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BIVOUAC_REMOTE_PASSWORD: '', BIVOUAC_REMOTE_TOKEN: '', ...env },
    });
    let stdout = '', stderr = '', connected = false;
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      if (!connected && /Connected to /.test(stdout)) { connected = true; child.kill('SIGTERM'); }
    });
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    child.on('error', reject);
    // Never left running: a service that never says it is connected is stopped when the test gives up.
    const guard = setTimeout(() => child.kill('SIGKILL'), 50_000);
    child.on('close', (code) => { clearTimeout(guard); resolve({ code, stdout, stderr, connected }); });
  });
}

let remote: Remote;
let tmp: string;
beforeAll(async () => {
  remote = await startRemote({ engine: 'sqlite' });
  tmp = mkdtempSync(join(tmpdir(), 'bivouac-secrets-'));
});
afterAll(async () => {
  await remote.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('the remote password and token, without the command line (D257)', () => {
  it('--remote-password-file FILE: connects, no warning', async () => {
    const file = join(tmp, 'pw');
    writeFileSync(file, `${password('ada')}\n`, { mode: 0o600 });
    const r = await serveUntilConnected(['--data-dir', join(tmp, 'a'), '--remote', remote.url, '--remote-user', 'ada', '--remote-password-file', file]);
    expect(r.connected, r.stderr).toBe(true);
    expect(r.stderr).not.toMatch(/warning/);
  }, 60_000);

  it('BIVOUAC_REMOTE_PASSWORD, and BIVOUAC_REMOTE_TOKEN without a user: connect, no warning', async () => {
    const pw = await serveUntilConnected(['--data-dir', join(tmp, 'b'), '--remote', remote.url, '--remote-user', 'ada'], { BIVOUAC_REMOTE_PASSWORD: password('ada') });
    expect(pw.connected, pw.stderr).toBe(true);
    expect(pw.stderr).not.toMatch(/warning/);
    const token = (await remote.as('ada')('GET', '/me.xml')).body.match(/<token>([^<]+)<\/token>/)![1];
    const tk = await serveUntilConnected(['--data-dir', join(tmp, 'c'), '--remote', remote.url], { BIVOUAC_REMOTE_TOKEN: token });
    expect(tk.connected, tk.stderr).toBe(true);
    expect(tk.stderr).not.toMatch(/warning/);
  }, 60_000);

  it('--remote-password P still works, with a warning on stderr', async () => {
    const r = await serveUntilConnected(['--data-dir', join(tmp, 'd'), '--remote', remote.url, '--remote-user', 'ada', '--remote-password', password('ada')]);
    expect(r.connected, r.stderr).toBe(true);
    expect(r.stderr).toMatch(/warning: --remote-password leaves the secret in this process's command line.*--remote-password-file FILE, BIVOUAC_REMOTE_PASSWORD or the prompt/);
  }, 60_000);

  it('no password from anywhere and no terminal: exit 2 naming the ways to give one; an unreadable file: exit 2', async () => {
    const none = await serveUntilConnected(['--data-dir', join(tmp, 'e'), '--remote', remote.url, '--remote-user', 'ada']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--remote-password-file FILE, BIVOUAC_REMOTE_PASSWORD, or run it on a terminal/);
    const missing = await serveUntilConnected(['--data-dir', join(tmp, 'e'), '--remote', remote.url, '--remote-user', 'ada', '--remote-password-file', join(tmp, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read --remote-password-file .*no such file/);
  }, 60_000);
});

/** A terminal's standard input the test types into. */
function fakeTty(): PassThrough & { isTTY: boolean; raw: boolean[]; setRawMode(on: boolean): void } {
  const s = new PassThrough() as PassThrough & { isTTY: boolean; raw: boolean[]; setRawMode(on: boolean): void };
  s.isTTY = true;
  s.raw = [];
  s.setRawMode = (on) => { s.raw.push(on); };
  return s;
}

describe('the prompt on a terminal', () => {
  it('reads one line without echoing it, in raw mode, with backspace', async () => {
    const input = fakeTty();
    let shown = '';
    const read = promptSecret('Password: ', input, { write: (x: string) => { shown += x; } });
    input.write('sekrx\u007ft-pass');
    input.write('\r');
    expect(await read).toBe('sekrt-pass');
    expect(shown).toBe('Password: \n');
    expect(input.raw).toEqual([true, false]);
  });

  it('is used only on a terminal and when nothing else gave the password', async () => {
    const input = fakeTty();
    let shown = '';
    const io: SecretSources = { env: {}, stdin: input, stderr: { write: (x: string) => { shown += x; } }, readFile: () => Promise.reject(new Error('no')) };
    const asked = remoteOption({ remote: 'http://127.0.0.1:9', 'remote-user': 'ada' }, io);
    input.write('typed-pass\n');
    expect(await asked).toEqual({ url: 'http://127.0.0.1:9', auth: { user: 'ada', password: 'typed-pass' } });
    expect(shown).toMatch(/^Password of ada at http:\/\/127\.0\.0\.1:9: /);
    const env = { BIVOUAC_REMOTE_PASSWORD: 'from-env' } as NodeJS.ProcessEnv;
    expect(await remoteOption({ remote: 'http://127.0.0.1:9', 'remote-user': 'ada' }, { ...io, env })).toMatchObject({ auth: { password: 'from-env' } });
    expect(env.BIVOUAC_REMOTE_PASSWORD).toBeUndefined(); // not handed down to child processes
  });
});
