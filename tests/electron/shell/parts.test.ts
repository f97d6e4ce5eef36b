// The desktop shell's parts that need no port: log redaction and rotation, window placement, the IPC
// contract's checks and links, the sync status source over HTTP (against the real service).

import { describe, it, expect, afterEach } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redact, RotatingLog } from '../../../electron/shell/log.ts';
import { restoreBounds, rememberBounds, parseWindowState, isReachable, EMPTY_WINDOW_STATE } from '../../../electron/shell/window-state.ts';
import { HttpSyncStatusSource, normalizeSyncStatus } from '../../../electron/shell/sync-source.ts';
import { syncLabel as trayLabel } from '../../../electron/shell/menus.ts';
import { serviceLog, serviceStarter } from '../../../electron/shell/service.ts';
import { appLinkHash, INVOKE_ARG_CHECKS, LOCAL_ONLY, isShellSession } from '../../../shared/ipc.ts';
import { externalUrl, mayNavigate, mayGrantPermission } from '../../../electron/shell/guards.ts';
import type { DisplayInfo } from '../../../electron/shell/port.ts';
import { Secrets } from '../../../electron/shell/secrets.ts';
import { MemoryTokenVault } from '../../../electron/sync/token-vault.ts';
import { DatabaseSync } from 'node:sqlite';

const dirs: string[] = [];
const tmp = () => { const d = mkdtempSync(join(tmpdir(), 'bivouac-shell-parts-')); dirs.push(d); return d; };
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

const TOKEN = '5aac8c4132687845b7119d564bfd9980c282a594';

describe('log redaction', () => {
  it.each([
    [`GET /me.xml Authorization: Basic ${Buffer.from(`${TOKEN}:X`).toString('base64')}`, 'GET /me.xml Authorization: [redacted]'],
    ['authorization=Bearer abc.def.ghi next', 'authorization=[redacted] next'],
    ['{"token":"s3cr3t-value","user":"ada"}', '{"token":"[redacted]","user":"ada"}'],
    ['password: hunter22 and more', 'password: [redacted] and more'],
    ['sync to https://ada:pa55word@team.example/api failed', 'sync to https://[redacted]@team.example/api failed'],
    ['GET /x?token=abcdef&limit=5', 'GET /x?token=[redacted]&limit=5'],
    [`a token ${TOKEN} in text`, 'a token [redacted] in text'],
    ['remoteToken = zzzzzzzz', 'remoteToken = [redacted]'],
  ])('%s', (line, expected) => {
    expect(redact(line)).toBe(expected);
  });

  it('known secret values are removed wherever they appear', () => {
    expect(redact('team token is Xy7-secret-Q, see?', ['Xy7-secret-Q'])).toBe('team token is [redacted], see?');
  });

  it('the log file holds no secret, and rotates by size keeping N files', () => {
    const dir = tmp();
    const log = new RotatingLog(join(dir, 'logs', 'bivouac.log'), { maxBytes: 2000, keep: 2, secrets: () => ['my-remote-secret'] });
    for (let i = 0; i < 80; i++) log.info(`line ${i} with my-remote-secret and ${TOKEN}`);
    log.error('failed', new Error(`401 for token=${TOKEN}`));
    const files = readdirSync(join(dir, 'logs')).sort();
    expect(files).toEqual(['bivouac.log', 'bivouac.log.1', 'bivouac.log.2']);
    const all = files.map((f) => readFileSync(join(dir, 'logs', f), 'utf8')).join('');
    expect(all).not.toContain('my-remote-secret');
    expect(all).not.toContain(TOKEN);
    expect(all).toContain('[redacted]');
    for (const f of files) expect(readFileSync(join(dir, 'logs', f)).length).toBeLessThanOrEqual(2000);
    expect(readFileSync(join(dir, 'logs', 'bivouac.log'), 'utf8')).toMatch(/ERROR failed Error: 401 for token=\[redacted\]/);
  });
});

describe('repeated lines in the log', () => {
  /** A log on a clock the test moves. */
  const clocked = (o: { maxBytes?: number; keep?: number; secrets?: () => readonly string[] } = {}) => {
    const dir = tmp();
    let t = Date.parse('2026-11-24T09:00:00Z');
    const log = new RotatingLog(join(dir, 'logs', 'bivouac.log'), { ...o, now: () => new Date(t) });
    const read = () => readdirSync(join(dir, 'logs')).sort().reverse().map((f) => readFileSync(join(dir, 'logs', f), 'utf8')).join('');
    return { log, read, tick: (ms: number) => { t += ms; } };
  };
  const failure = () => { const e = new Error('SQLITE_ERROR: no such table: changes'); e.stack = 'Error: x\n    at poll (feed.ts:12:3)'; return e; };

  it('a fault repeating every 400 ms for ten minutes writes its line once a minute with a count, and the start-up line stays', () => {
    const { log, read, tick } = clocked({ maxBytes: 8000 }); // 1,500 lines written would rotate the start-up line out
    log.info('starting Bivouac 1.0.0 (linux)');
    for (let i = 0; i < 1500; i++) { log.error('service: change stream failed', failure()); tick(400); }
    log.flush();
    const text = read();
    const lines = text.split('\n').filter(Boolean);
    expect(lines[0]).toMatch(/INFO {2}starting Bivouac/);
    const written = lines.filter((l) => / ERROR service: change stream failed Error: SQLITE_ERROR/.test(l)).length;
    const counts = [...text.matchAll(/ERROR repeated (\d+) more times? from \S+ to \S+: service: change stream failed Error: SQLITE_ERROR: no such table: changes\n/g)].map((m) => Number(m[1]));
    expect(written).toBe(10); // one a minute
    expect(counts).toHaveLength(10);
    expect(written + counts.reduce((a, b) => a + b, 0)).toBe(1500); // every occurrence is written or counted
    expect(Buffer.byteLength(text)).toBeLessThan(6000);
  });

  it('lines that differ are all written; each repeats on its own; a line that did not repeat leaves no count', () => {
    const { log, read, tick } = clocked();
    for (let i = 0; i < 5; i++) { log.warn('sync: team server unreachable'); log.warn(`pushed ${i} changes`); tick(1000); }
    log.info('once');
    tick(61_000);
    log.info('later'); // the minute is over: the counts are written before this line
    const lines = read().split('\n').filter(Boolean).map((l) => l.slice(25));
    expect(lines).toEqual([
      'WARN  sync: team server unreachable',
      'WARN  pushed 0 changes',
      'WARN  pushed 1 changes',
      'WARN  pushed 2 changes',
      'WARN  pushed 3 changes',
      'WARN  pushed 4 changes',
      'INFO  once',
      'WARN  repeated 4 more times from 2026-11-24T09:00:00.000Z to 2026-11-24T09:00:04.000Z: sync: team server unreachable',
      'INFO  later',
    ]);
  });

  it('flush writes the counts held back', () => {
    const { log, read } = clocked();
    log.warn('disk almost full');
    log.warn('disk almost full');
    expect(read()).not.toContain('repeated');
    log.flush();
    expect(read()).toMatch(/WARN {2}repeated 1 more time from \S+ to \S+: disk almost full\n$/);
  });

  it('a clock set back, by an hour or by less than a minute, holds no line back for the time it went', () => {
    const { log, read, tick } = clocked();
    log.warn('the clock');
    tick(-3_600_000);
    log.warn('the clock');
    expect(read().match(/WARN {2}the clock\n/g)).toHaveLength(2);
    log.warn('A');
    tick(30_000);
    log.warn('B');
    log.warn('B');
    tick(-20_000); // before B's first writing, A's minute still running
    log.warn('B');
    const lines = read().split('\n').filter(Boolean).map((l) => l.slice(25));
    expect(lines.slice(-4)).toEqual(['WARN  A', 'WARN  B', expect.stringMatching(/^WARN {2}repeated 1 more time from \S+ to \S+: B$/), 'WARN  B']);
  });

  it('set-backs under a second that add up to more than one hold no line back either', () => {
    const { log, read, tick } = clocked();
    log.warn('X');
    tick(-900);
    log.warn('Y');
    tick(-900); // 1.8 s before the latest time seen
    log.warn('X');
    expect(read().match(/WARN {2}X\n/g)).toHaveLength(2);
  });

  it('a long line (a server\'s error text) is counted as a short one is', () => {
    const { log, read, tick } = clocked();
    const long = `sync: the team server answered 422: ${'x'.repeat(20_000)}`;
    for (let i = 0; i < 150; i++) { log.warn(long); tick(400); }
    log.flush();
    const text = read();
    expect(text.match(/WARN {2}sync: the team server answered 422: x+\n/g)).toHaveLength(1);
    expect(text).toMatch(/WARN {2}repeated 149 more times from \S+ to \S+: sync: the team server answered 422: x{264}…\n$/);
    expect(Buffer.byteLength(text)).toBeLessThan(21_000);
  });

  it('past 256 distinct lines the oldest is settled early: its count is written, and its next repeat is a line again', () => {
    const { log, read } = clocked();
    log.info('line 0');
    log.info('line 0');
    for (let i = 1; i <= 256; i++) log.info(`line ${i}`);
    log.info('line 0');
    const lines = read().split('\n').filter(Boolean).map((l) => l.slice(25));
    expect(lines.slice(-3)).toEqual(['INFO  line 256', expect.stringMatching(/^INFO {2}repeated 1 more time from \S+ to \S+: line 0$/), 'INFO  line 0']);
  });

  it('a count line holds no secret: it is made of the line as redacted', () => {
    const { log, read } = clocked({ secrets: () => ['team-token-123456'] });
    for (let i = 0; i < 3; i++) log.error(`sync to team-token-123456 failed: Authorization: Bearer abc.def token=${TOKEN}`);
    log.flush();
    const text = read();
    expect(text).toMatch(/ERROR repeated 2 more times from \S+ to \S+: sync to \[redacted\] failed: Authorization: \[redacted\] token=\[redacted\]\n$/);
    expect(text).not.toContain('team-token-123456');
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('abc.def');
  });
});

describe('window placement', () => {
  const laptop: DisplayInfo = { id: 1, workArea: { x: 0, y: 25, width: 1440, height: 875 } };
  const monitor: DisplayInfo = { id: 7, workArea: { x: -2560, y: 0, width: 2560, height: 1440 } };

  it('restores the bounds of the display it was on last', () => {
    let s = rememberBounds(EMPTY_WINDOW_STATE, laptop, { x: 10, y: 40, width: 1200, height: 800 }, false);
    s = rememberBounds(s, monitor, { x: -2400, y: 100, width: 2000, height: 1200 }, true);
    expect(restoreBounds(s, [laptop, monitor], laptop)).toEqual({ bounds: { x: -2400, y: 100, width: 2000, height: 1200 }, maximized: true });
  });

  it('the monitor went away: the laptop bounds it had there', () => {
    let s = rememberBounds(EMPTY_WINDOW_STATE, laptop, { x: 10, y: 40, width: 1200, height: 800 }, false);
    s = rememberBounds(s, monitor, { x: -2400, y: 100, width: 2000, height: 1200 }, true);
    expect(restoreBounds(s, [laptop], laptop)).toEqual({ bounds: { x: 10, y: 40, width: 1200, height: 800 }, maximized: false });
  });

  it('only ever seen on a display that is gone: centred on the primary one, shrunk to fit', () => {
    const s = rememberBounds(EMPTY_WINDOW_STATE, monitor, { x: -2400, y: 100, width: 2000, height: 1200 }, false);
    const r = restoreBounds(s, [laptop], laptop);
    expect(r.bounds).toEqual({ x: 0, y: 25, width: 1440, height: 875 });
    expect(isReachable(r.bounds, [laptop])).toBe(true);
  });

  it('bounds saved for a display that is now elsewhere (rearranged) are not trusted when off screen', () => {
    const moved: DisplayInfo = { ...laptop, workArea: { ...laptop.workArea, x: 5000 } };
    const s = rememberBounds(EMPTY_WINDOW_STATE, laptop, { x: 10, y: 40, width: 1200, height: 800 }, false);
    const r = restoreBounds(s, [moved], moved);
    expect(r.bounds.x).toBeGreaterThanOrEqual(5000);
  });

  it('a broken or hostile state file is ignored', () => {
    expect(parseWindowState('nonsense')).toEqual(EMPTY_WINDOW_STATE);
    expect(parseWindowState({ displays: { a: { x: 'no' } }, last: 'a' })).toEqual(EMPTY_WINDOW_STATE);
    expect(restoreBounds(parseWindowState(null), [laptop], laptop).bounds).toEqual({ x: 80, y: 53, width: 1280, height: 820 });
  });
});

describe('the IPC contract', () => {
  it.each([
    ['bivouac://projects/7/messages/12', '#/projects/7/messages/12'],
    ['bivouac://projects/7', '#/projects/7'],
    ['BIVOUAC://projects/7/time', '#/projects/7/time'],
    ['bivouac://projects/7/report?x=1', '#/projects/7/report'],
    ['bivouac://', '#/'],
    ['bivouac://projects/7/todos/3', null],
    ['bivouac://projects/abc', null],
    ['bivouac://projects/7/../../x', null],
    ['https://projects/7', null],
    ['bivouac://javascript:alert(1)', null],
  ])('link %s → %s', (link, hash) => {
    expect(appLinkHash(link)).toBe(hash);
  });

  it('settings patches: only known keys with the right types', () => {
    const check = INVOKE_ARG_CHECKS['shell:set-settings'];
    expect(check([{ startAtLogin: true, keepInTray: false, apiPort: 4900 }])).toBeNull();
    expect(check([{}])).toBeNull();
    expect(check([{ apiPort: 4900.5 }])).toMatch(/apiPort/);
    expect(check([{ constructor: true }])).toMatch(/unknown setting/);
    expect(check([{}, {}])).toMatch(/one object/);
    expect(check([[]])).toMatch(/one object/);
  });

  it('a session must have every field of the bridge', () => {
    expect(isShellSession({ token: 't', apiBase: 'http://127.0.0.1:1', version: '1', platform: 'linux' })).toBe(true);
    expect(isShellSession({ token: 't', baseUrl: 'http://127.0.0.1:1', version: '1', platform: 'linux' })).toBe(false);
  });

  it('guards on plain values', () => {
    expect(mayNavigate('http://127.0.0.1:4817/x', 'http://127.0.0.1:4817')).toBe(true);
    expect(mayNavigate('http://localhost:4817/x', 'http://127.0.0.1:4817')).toBe(false);
    expect(mayNavigate('http://127.0.0.1:4817/x', '')).toBe(false);
    expect(externalUrl('HTTPS://Example.com/a b', 'http://127.0.0.1:4817')).toBe('https://example.com/a%20b');
    expect(externalUrl('data:text/html,hi', 'http://127.0.0.1:4817')).toBeNull();
    expect(mayGrantPermission('clipboard-sanitized-write', 'http://127.0.0.1:4817/#/x', 'http://127.0.0.1:4817')).toBe(true);
  });
});

describe('sync status source', () => {
  it('normalises what the route answers', () => {
    expect(normalizeSyncStatus({ state: 'syncing', pending: 3, conflicts: [{}, {}], progress: { done: 3, total: 4, phase: 'push' } })).toMatchObject(
      { state: 'syncing', pending: 3, conflicts: 2, progress: { done: 3, total: 4, phase: 'push' }, lastSyncedAt: null, message: null });
    expect(normalizeSyncStatus({ state: 'idle', pending: -1, progress: { done: 1, total: 2 }, last_synced_at: '2026-11-22T10:00:00Z' })).toMatchObject(
      { state: 'idle', pending: 0, conflicts: 0, progress: null, lastSyncedAt: '2026-11-22T10:00:00Z', message: null });
    // A number (the shape the shell once expected) is not the engine's progress.
    expect(normalizeSyncStatus({ state: 'syncing', progress: 0.5 }).progress).toBeNull();
    expect(normalizeSyncStatus({ state: 'exploded' })).toMatchObject({ state: 'error', message: 'unreadable sync status' });
  });

  it('the tray shows a sync\'s progress as the engine reports it ({done, total, phase}: issue #26)', () => {
    // What GET /sync/status answers while a clone reads its feed (the engine's SyncStatus, as JSON).
    const wire = JSON.parse(JSON.stringify({ ...LOCAL_ONLY, state: 'syncing', progress: { done: 300, total: 400, phase: 'pull' },
      remote: { url: 'http://127.0.0.1:9', user: 'ada', kind: 'team' } }));
    const s = normalizeSyncStatus(wire);
    expect(trayLabel(s)).toBe('Syncing… 75%');
    expect(trayLabel(normalizeSyncStatus({ ...wire, progress: { done: 5, total: 0 } }))).toBe('Syncing…');
    expect(trayLabel(normalizeSyncStatus({ ...wire, progress: { done: 900, total: 400 } }))).toBe('Syncing… 100%');
  });

  it('asks GET /sync/status and POST /sync/run with the token, as JSON', async () => {
    const calls: [string, RequestInit | undefined][] = [];
    const f = (async (url: string | URL | Request, init?: RequestInit) => {
      calls.push([String(url), init]);
      return new Response(JSON.stringify({ state: 'offline', pending: 2, conflicts: 1 }), { status: 200, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    const src = new HttpSyncStatusSource('http://127.0.0.1:4817', TOKEN, f);
    expect(await src.status()).toMatchObject({ state: 'offline', pending: 2, conflicts: 1 });
    await src.runNow();
    expect(calls.map(([u, i]) => `${i?.method} ${u}`)).toEqual(['GET http://127.0.0.1:4817/sync/status', 'POST http://127.0.0.1:4817/sync/run']);
    const h = calls[0][1]!.headers as Record<string, string>;
    expect(h.Accept).toBe('application/json');
    expect(Buffer.from(h.Authorization.replace('Basic ', ''), 'base64').toString()).toBe(`${TOKEN}:X`);
  });

  it('a service that does not answer is an error, not a crash', async () => {
    const src = new HttpSyncStatusSource('http://127.0.0.1:1', TOKEN, (async () => { throw new TypeError('fetch failed'); }) as typeof fetch);
    expect(await src.status()).toMatchObject({ state: 'error', message: 'the local service does not answer (fetch failed)' });
  });

  it('serviceLog: an error line with its cause, a warning line, and a line that is not JSON (D235)', () => {
    const got: [string, string, unknown][] = [];
    const sink = serviceLog({ warn: (m, d) => got.push(['warn', m, d]), error: (m, d) => got.push(['error', m, d]) });
    sink.write('{"level":50,"msg":"boom","err":{"type":"TypeError","message":"x is undefined","stack":"TypeError: x is undefined\\n    at f (a.ts:1:1)"}}\n');
    sink.write('{"level":40,"msg":"slow"}\nnot json at all\nnull\n');
    sink.write('{"level":50,"msg":"no such table: t","err":{"type":"Error","message":"no such table: t"}}\n');
    expect(got.map(([l, m]) => `${l} ${m}`)).toEqual(['error service: boom', 'warn service: slow', 'warn service: not json at all', 'warn service: null',
      'error service:']);
    expect((got[4][2] as Error).message).toBe('no such table: t'); // once, from the error (the log writes it after the message)
    const cause = got[0][2] as Error;
    expect([cause.name, cause.message, cause.stack]).toEqual(['TypeError', 'x is undefined', 'TypeError: x is undefined\n    at f (a.ts:1:1)']);
    expect(got[1][2]).toBeUndefined();
  });

  it('against the real service: its error lines go to the shell\'s log, not to stdout where a packaged app shows nothing (D235)', async () => {
    const dataDir = tmp();
    const lines: string[] = [];
    const log = { warn: (m: string, d?: unknown) => lines.push(`warn ${m}${d instanceof Error ? ` ${d.message}` : ''}`),
      error: (m: string, d?: unknown) => lines.push(`error ${m}${d instanceof Error ? ` ${d.message}` : ''}`) };
    const svc = await serviceStarter({ uiDir: null, demo: true })({ dataDir, port: 0, tokenVault: new MemoryTokenVault(), log });
    try {
      // A fault the service cannot answer for (a table gone under it): a 500, and its cause logged.
      const other = new DatabaseSync(join(dataDir, 'bivouac.sqlite'), { enableForeignKeyConstraints: false, timeout: 5000 });
      other.exec('DROP TABLE categories');
      other.close();
      const auth = `Basic ${Buffer.from(`${svc.token}:X`).toString('base64')}`;
      const projects = await (await fetch(`${svc.url}/projects.json`, { headers: { authorization: auth } })).json() as { id: number }[];
      const r = await fetch(`${svc.url}/projects/${projects[0].id}/categories.xml`, { headers: { authorization: auth } });
      expect(r.status).toBe(500);
      expect(lines.some((l) => l.startsWith('error service: ') && l.includes('no such table: categories'))).toBe(true);
    } finally {
      await svc.close({ graceMs: 1000 });
    }
  });

  it('against the real service: without sync routes (404) it is "local only"; the token file is not written', async () => {
    const dataDir = tmp();
    const svc = await serviceStarter({ uiDir: null, demo: true })({ dataDir, port: 0, tokenVault: new MemoryTokenVault() });
    try {
      expect(svc.token).toMatch(/^[0-9a-f]{40}$/);
      const src = new HttpSyncStatusSource(svc.url, svc.token);
      const s = await src.status();
      // When the sync engine's routes exist this becomes its real state; until then: local only.
      if (s.state === 'local') expect(s).toEqual(LOCAL_ONLY);
      else expect(['idle', 'syncing', 'offline', 'error']).toContain(s.state);
      expect(existsSync(join(dataDir, 'api-token'))).toBe(false);
      const backup = join(dataDir, 'backup.json');
      await svc.exportBackup(backup);
      expect(JSON.parse(readFileSync(backup, 'utf8')).format).toBe('bivouac-backup/1');
    } finally {
      await svc.close({ graceMs: 1000 });
    }
  });
});

describe('secrets', () => {
  const keyring = (available: { on: boolean }, decrypts: { n: number }) => ({
    isEncryptionAvailable: () => available.on,
    encryptString: (v: string) => new Uint8Array(Buffer.from(`k1:${Buffer.from(v).toString('base64')}`)),
    decryptString: (c: Uint8Array) => {
      decrypts.n++;
      const t = Buffer.from(c).toString();
      if (!t.startsWith('k1:')) throw new Error('another key');
      return Buffer.from(t.slice(3), 'base64').toString();
    },
  });

  it('round-trips encrypted, asks the keyring once per secret, and removes', () => {
    const file = join(tmp(), 'secrets.json');
    const decrypts = { n: 0 };
    const a = new Secrets(file, keyring({ on: true }, decrypts));
    a.set('remoteToken', 'team-token-123456');
    a.set('localToken', TOKEN);
    expect(readFileSync(file, 'utf8')).not.toContain('team-token-123456');
    const b = new Secrets(file, keyring({ on: true }, decrypts));
    expect(b.get('remoteToken')).toBe('team-token-123456');
    expect(b.get('remoteToken')).toBe('team-token-123456');
    expect(b.all().sort()).toEqual([TOKEN, 'team-token-123456'].sort());
    expect(decrypts.n).toBe(2); // b's two secrets, once each (a knew its own values)
    b.set('remoteToken', null);
    expect(new Secrets(file, keyring({ on: true }, decrypts)).get('remoteToken')).toBeNull();
  });

  // Electron's safeStorage answers "not available" on Windows and Linux until the app is ready; the log asks for
  // every secret (to redact them) on every line, and a line can come before that (a bad link in argv, a process
  // warning). A "nothing" remembered then was written back by the next `set`: the team server's token was lost.
  it('a secret asked for before the keyring is available is read again later, and the next write keeps it', () => {
    const file = join(tmp(), 'secrets.json');
    const available = { on: true };
    new Secrets(file, keyring(available, { n: 0 })).set('remoteToken', 'team-token-123456');
    available.on = false; // the next start, before the app is ready
    const s = new Secrets(file, keyring(available, { n: 0 }));
    expect(s.all()).toEqual([]);
    available.on = true; // ready
    expect(s.get('remoteToken')).toBe('team-token-123456');
    s.set('localToken', TOKEN);
    expect(new Secrets(file, keyring(available, { n: 0 })).get('remoteToken')).toBe('team-token-123456');
  });

  it('a write made while the keyring is unavailable keeps the secrets it cannot read', () => {
    const file = join(tmp(), 'secrets.json');
    const available = { on: true };
    new Secrets(file, keyring(available, { n: 0 })).set('remoteToken', 'team-token-123456');
    const cipher = JSON.parse(readFileSync(file, 'utf8')).values.remoteToken;
    available.on = false;
    new Secrets(file, keyring(available, { n: 0 })).set('localToken', TOKEN);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ encrypted: false, values: { localToken: TOKEN }, sealed: { remoteToken: cipher } });
    available.on = true;
    const s = new Secrets(file, keyring(available, { n: 0 }));
    expect(s.get('remoteToken')).toBe('team-token-123456');
    expect(s.get('localToken')).toBe(TOKEN);
    s.set('localToken', TOKEN); // with the keyring: every secret encrypted again, nothing sealed left
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored.encrypted).toBe(true);
    expect(stored.sealed).toBeUndefined();
    expect(Object.keys(stored.values).sort()).toEqual(['localToken', 'remoteToken']);
    expect(new Secrets(file, keyring(available, { n: 0 })).get('remoteToken')).toBe('team-token-123456');
  });

  it('a secret of another keyring reads as nothing but survives writes, and reads again when that keyring is back', () => {
    const file = join(tmp(), 'secrets.json');
    new Secrets(file, keyring({ on: true }, { n: 0 })).set('remoteToken', 'team-token-123456');
    const other = { ...keyring({ on: true }, { n: 0 }), decryptString: () => { throw new Error('another keyring'); } };
    const s = new Secrets(file, other);
    expect(s.get('remoteToken')).toBeNull();
    s.set('localToken', TOKEN);
    expect(new Secrets(file, keyring({ on: true }, { n: 0 })).get('remoteToken')).toBe('team-token-123456');
    new Secrets(file, other).set('remoteToken', null); // removed by name: gone
    expect(new Secrets(file, keyring({ on: true }, { n: 0 })).get('remoteToken')).toBeNull();
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect([Object.keys(stored.values), Object.keys(stored.sealed)]).toEqual([[], ['localToken']]); // the local token it cannot read stays sealed
  });

  it('a keyring that appears later encrypts what was kept in plain text; a foreign key reads as nothing', () => {
    const file = join(tmp(), 'secrets.json');
    const available = { on: false };
    const s = new Secrets(file, keyring(available, { n: 0 }));
    s.set('remoteToken', 'team-token-123456');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ encrypted: false, values: { remoteToken: 'team-token-123456' } });
    available.on = true;
    new Secrets(file, keyring(available, { n: 0 })).set('localToken', TOKEN);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored.encrypted).toBe(true);
    expect(JSON.stringify(stored)).not.toContain('team-token-123456');
    expect(new Secrets(file, keyring(available, { n: 0 })).get('remoteToken')).toBe('team-token-123456');
    const foreign = { ...keyring(available, { n: 0 }), decryptString: () => { throw new Error('wrong key'); } };
    expect(new Secrets(file, foreign).get('remoteToken')).toBeNull();
  });
});
