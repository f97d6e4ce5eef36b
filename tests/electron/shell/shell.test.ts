// The desktop shell's logic (electron/shell/*) in plain Node, against a fake of its Electron port
// (tests/support/shell-fake.ts): lifecycle, single instance, close-to-tray vs quit, shutdown order, window
// state, IPC checks, guards, tray and menus, settings, secrets, crashes.

import { EventEmitter } from 'node:events';
import { describe, it, expect, afterEach, vi } from 'vitest';
import { existsSync, readFileSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Shell, type ShellOptions } from '../../../electron/shell/shell.ts';
import { Secrets } from '../../../electron/shell/secrets.ts';
import type { LocalService, SyncStatusSource } from '../../../electron/shell/port.ts';
import { LOCAL_ONLY, SESSION_CHANNEL, type SettingsResult, type ShellState, type SyncStatus } from '../../../shared/ipc.ts';
import { DISPLAY_1, DISPLAY_2, FakeElectron, FakeOs, fakeStarter, type FakeOptions } from '../../support/shell-fake.ts';
import { SqliteStore } from '../../../electron/store/sqlite.ts';
import { SyncEngine } from '../../../electron/sync/engine.ts';
import type { TokenVault } from '../../../electron/sync/token-vault.ts';
import { password, startRemote, type Remote } from '../../support/sync-helpers.ts';

class FakeSync implements SyncStatusSource {
  current: SyncStatus;
  runs = 0;
  readonly events: string[];
  constructor(events: string[], s: Partial<SyncStatus> = {}) {
    this.events = events;
    this.current = { ...LOCAL_ONLY, ...s };
  }
  async status() { return this.current; }
  async runNow() { this.runs++; this.current = { ...this.current, state: 'syncing', progress: { done: 0, total: 10, phase: 'pull' } }; return this.current; }
  finish() { this.current = { ...this.current, state: 'idle', progress: null }; this.events.push('sync finished'); }
}

class MemoryLog {
  readonly file: string;
  readonly lines: string[] = [];
  constructor(file: string) { this.file = file; }
  info(m: string) { this.lines.push(`info ${m}`); }
  warn(m: string) { this.lines.push(`warn ${m}`); }
  error(m: string) { this.lines.push(`error ${m}`); }
  flush() { this.lines.push('flush'); }
}

const fakes: FakeElectron[] = [];
afterEach(() => { for (const f of fakes.splice(0)) f.cleanup(); });

interface Boot extends FakeOptions {
  argv?: string[];
  env?: NodeJS.ProcessEnv;
  sync?: Partial<SyncStatus>;
  taken?: number[];
  opts?: Partial<ShellOptions>;
  ready?: boolean;
  /** The shell's own log (RotatingLog, which asks for the secrets on every line), not a MemoryLog. */
  ownLog?: boolean;
  now?: () => number;
}

async function boot(o: Boot = {}) {
  const fake = new FakeElectron(o);
  fakes.push(fake);
  const events: string[] = [];
  const starter = fakeStarter(events, o.taken);
  const sync = new FakeSync(events, o.sync);
  const log = new MemoryLog(join(fake.dir, 'logs', 'bivouac.log'));
  const warnings = new EventEmitter();
  const shell = new Shell({ port: fake.port, startService: starter.start, syncSource: () => sync, log: o.ownLog ? undefined : log, portFree: async (p) => p !== 5555, processEvents: warnings, now: o.now }, {
    argv: o.argv ?? [], env: { XDG_CONFIG_HOME: join(fake.dir, 'config'), ...o.env }, preload: '/app/dist/electron/preload.cjs',
    windowIcon: null, trayIcon: '/app/tray.png', apiDocsUrl: 'https://docs.example/api', syncPollMs: 60_000, ...o.opts,
  });
  const started = shell.start();
  if (started && o.ready !== false) {
    fake.ready();
    await shell.ready;
  }
  return { fake, shell, events, starter, sync, log, started, warnings };
}

/** A sender that is the app's own page in the app's window. */
const own = (fake: FakeElectron, path = '/') => ({ frameUrl: `http://127.0.0.1:4817${path}`, contentsId: fake.window.contents.id });

describe('lifecycle', () => {
  it('starts the service on <userData>/data and the configured port before it opens the window on it', async () => {
    const { fake, starter, log } = await boot();
    expect(starter.calls).toEqual([{ dataDir: join(fake.dir, 'userData', 'data'), port: 4817, tokenVault: expect.objectContaining({ read: expect.any(Function) }), log }]);
    expect(fake.windows).toHaveLength(1);
    expect(fake.window.loadedUrl).toBe('http://127.0.0.1:4817/');
    expect(fake.window.options.preload).toBe('/app/dist/electron/preload.cjs');
    expect(fake.protocols).toEqual(['bivouac']);
    fake.window.ready();
    expect(fake.window.visible).toBe(true);
  });

  it('writes the process\'s warnings to its log (a packaged app shows no stderr; D235)', async () => {
    const { log, warnings } = await boot();
    const w = new Error('the SQLite checkpoint worker failed (boom): checkpoints run in the request thread');
    w.name = 'Warning';
    warnings.emit('warning', w);
    expect(log.lines).toContain('warn process warning: Warning: the SQLite checkpoint worker failed (boom): checkpoints run in the request thread');
  });

  it('an error nothing caught in the main process is written to the log; after the start the app goes on and the window is told (once in 5 minutes), without a box that blocks it', async () => {
    let t = 1_000_000;
    const { fake, log, warnings } = await boot({ now: () => t });
    fake.window.ready();
    warnings.emit('uncaughtException', new Error('write EPIPE'));
    warnings.emit('unhandledRejection', new Error('a promise nobody awaited'));
    expect(log.lines.filter((l) => l.startsWith('error'))).toEqual(['error unexpected error in the main process', 'error unexpected error in the main process']);
    expect(fake.errorBoxes).toEqual([]);
    expect(fake.exited).toBeNull();
    const told = { title: 'Bivouac ran into a problem', text: `Your saved work is safe. The log says what happened: ${log.file}` };
    expect(fake.window.contents.events('shell:notice')).toEqual([told]);
    t += 5 * 60_000 - 1;
    warnings.emit('uncaughtException', new Error('again'));
    expect(fake.window.contents.events('shell:notice')).toEqual([told]);
    t += 1;
    warnings.emit('uncaughtException', new Error('and again'));
    expect(fake.window.contents.events('shell:notice')).toEqual([told, told]);
    expect(log.lines.filter((l) => l.startsWith('error'))).toHaveLength(4);
  });

  for (const late of ['fails', 'starts'] as const) {
    it(`an error nothing caught while the service starts is a start that failed: one dialog, the app exits (the start then ${late === 'fails' ? 'fails too' : 'ends: that service is closed'})`, async () => {
      const fake = new FakeElectron();
      fakes.push(fake);
      const log = new MemoryLog(join(fake.dir, 'l.log'));
      const proc = new EventEmitter();
      let settle: { resolve: (s: LocalService) => void; reject: (e: Error) => void } | undefined;
      const shell = new Shell({ port: fake.port, startService: () => new Promise((resolve, reject) => { settle = { resolve, reject }; }), syncSource: () => new FakeSync([]),
        log, processEvents: proc }, { argv: [], env: {}, preload: '', windowIcon: null, trayIcon: '', apiDocsUrl: '' });
      shell.start();
      fake.ready();
      await vi.waitFor(() => expect(settle).toBeDefined());
      proc.emit('uncaughtException', new Error('write EPIPE'));
      const closed: number[] = [];
      if (late === 'fails') settle!.reject(new Error('the service process exited before it listened (exit 1)'));
      else settle!.resolve({ url: 'http://127.0.0.1:4817', token: 't', exportBackup: async () => undefined, close: async ({ graceMs }) => { closed.push(graceMs); return { drained: true }; } });
      await shell.ready;
      await vi.waitFor(() => expect(fake.exited).toBe(1));
      expect(fake.errorBoxes).toEqual([['Bivouac could not start', expect.stringMatching(/^write EPIPE\n/)]]);
      expect(log.lines.filter((l) => l.startsWith('error'))).toEqual(['error unexpected error in the main process', 'error could not start']);
      expect(fake.windows).toHaveLength(0);
      expect(closed).toEqual(late === 'fails' ? [] : [0]);
    });
  }

  it('--hidden (start at login) starts in the tray without showing the window', async () => {
    const { fake } = await boot({ argv: ['bivouac', '--hidden'] });
    fake.window.ready();
    expect(fake.window.visible).toBe(false);
    fake.tray!.click();
    expect(fake.window.visible).toBe(true);
  });

  it('--hidden with a bivouac:// link shows the window (the link asked for it)', async () => {
    const { fake } = await boot({ argv: ['bivouac', '--hidden', 'bivouac://projects/2'] });
    fake.window.ready();
    expect(fake.window.visible).toBe(true);
    expect(fake.window.contents.events('shell:open-link')).toEqual([{ hash: '#/projects/2' }]);
  });

  it('a taken port: another port, and a clear message in the state and to the page', async () => {
    const { fake, starter, shell } = await boot({ taken: [4817] });
    expect(starter.calls.map((c) => c.port)).toEqual([4817, 0]);
    const state = shell.state();
    expect(state.apiUrl).toBe('http://127.0.0.1:50123');
    expect(state.portMessage).toMatch(/Port 4817 is in use by another program, so the local API answers on port 50123 this time/);
    fake.window.ready();
    expect(fake.window.contents.events('shell:notice')).toEqual([{ title: 'Port 4817 is taken', text: state.portMessage }]);
  });

  it('a service that cannot start is reported in a dialog and the app exits', async () => {
    const fake = new FakeElectron();
    fakes.push(fake);
    const log = new MemoryLog(join(fake.dir, 'l.log'));
    const shell = new Shell({ port: fake.port, startService: async () => { throw new Error('database is locked'); }, syncSource: () => new FakeSync([]),
      log }, { argv: [], env: {}, preload: '', windowIcon: null, trayIcon: '', apiDocsUrl: '' });
    shell.start();
    fake.ready();
    await shell.ready;
    await vi.waitFor(() => expect(fake.exited).toBe(1));
    expect(fake.errorBoxes[0][0]).toBe('Bivouac could not start');
    expect(fake.errorBoxes[0][1]).toContain('database is locked');
    expect(fake.windows).toHaveLength(0);
    // The counts of repeated lines are written before the dialog, and again after the service closed, before it exits.
    expect(log.lines.slice(log.lines.indexOf('error could not start'))).toEqual(['error could not start', 'flush', 'flush']);

  });
});

describe('single instance', () => {
  it('a second launch quits and the first one comes to the front with its bivouac:// link', async () => {
    const os = new FakeOs();
    const first = await boot({ os });
    first.fake.window.ready();
    first.fake.window.minimized = true;
    first.fake.window.hide();

    const second = await boot({ os, ready: false, argv: ['bivouac', 'bivouac://projects/7/messages/12'] });
    expect(second.started).toBe(false);
    expect(second.fake.quitCalls).toBe(1);
    expect(second.fake.windows).toHaveLength(0);
    expect(second.starter.calls).toHaveLength(0); // no second service on the same store
    expect(second.warnings.listenerCount('warning')).toBe(0); // nor a listener on the process's warnings

    // The OS hands the second launch's argv to the first instance.
    first.fake.secondInstance(['bivouac', 'bivouac://projects/7/messages/12']);
    const w = first.fake.window;
    expect(w.visible).toBe(true);
    expect(w.minimized).toBe(false);
    expect(w.focused).toBeGreaterThan(0);
    expect(w.contents.events('shell:open-link')).toEqual([{ hash: '#/projects/7/messages/12' }]);
  });

  it('a link the app was started with waits until the page has loaded; links that are not Bivouac pages are dropped', async () => {
    const { fake, log } = await boot({ argv: ['bivouac', 'bivouac://projects/3/todos'] });
    expect(fake.window.contents.events('shell:open-link')).toEqual([]);
    fake.window.ready();
    expect(fake.window.contents.events('shell:open-link')).toEqual([{ hash: '#/projects/3/todos' }]);
    fake.secondInstance(['bivouac', 'bivouac://../../etc/passwd']);
    fake.openUrl('bivouac://projects/3/todos/9'); // an id only after messages
    expect(fake.window.contents.events('shell:open-link')).toHaveLength(1);
    expect(log.lines.filter((l) => l.includes('ignored a link'))).toHaveLength(2);
  });

  it('macOS open-url links are handed over the same way', async () => {
    const { fake } = await boot({ platform: 'darwin' });
    fake.window.ready();
    fake.openUrl('bivouac://projects/1/report');
    expect(fake.window.contents.events('shell:open-link')).toEqual([{ hash: '#/projects/1/report' }]);
  });
});

describe('close to tray vs quit', () => {
  it('keep running in the tray (the default on Windows and macOS): closing hides the window, the service keeps running', async () => {
    const { fake, starter } = await boot({ platform: 'win32' });
    fake.window.ready();
    expect(fake.window.userClose()).toBe(false);
    expect(fake.window.visible).toBe(false);
    expect(fake.window.destroyed).toBe(false);
    expect(starter.services[0].closed).toBeNull();
    expect(fake.quitCalls).toBe(0);
    fake.tray!.item('Open Bivouac').click!();
    expect(fake.window.visible).toBe(true);
  });

  it('Linux (D258): closing quits by default, as a desktop without a tray host would hide the window behind an icon nobody sees', async () => {
    const { fake, starter, shell } = await boot({ platform: 'linux' });
    expect(fake.tray).not.toBeNull(); // Electron creates a Tray there without an error
    expect(shell.state().settings.keepInTray).toBe(false);
    fake.window.ready();
    expect(fake.window.userClose()).toBe(true);
    await vi.waitFor(() => expect(fake.quitted).toBe(true));
    expect(starter.services[0].closed).toEqual({ graceMs: 5000 });
  });

  it('Linux with the tray turned on by the user: closing hides the window; a second launch brings it back', async () => {
    const { fake, starter, shell } = await boot({ platform: 'linux' });
    fake.window.ready();
    expect((await shell.setSettings({ keepInTray: true })).ok).toBe(true);
    expect(fake.window.userClose()).toBe(false);
    expect(fake.window.visible).toBe(false);
    expect(starter.services[0].closed).toBeNull();
    fake.secondInstance(['bivouac']);
    expect(fake.window.visible).toBe(true);
  });

  it('with the tray turned off, closing the window quits, and the service is stopped', async () => {
    const { fake, starter, shell } = await boot({ platform: 'win32' });
    fake.window.ready();
    const r = await shell.setSettings({ keepInTray: false });
    expect(r.ok).toBe(true);
    expect(fake.window.userClose()).toBe(true);
    expect(fake.quitCalls).toBeGreaterThan(0);
    await vi.waitFor(() => expect(fake.quitted).toBe(true));
    expect(starter.services[0].closed).toEqual({ graceMs: 5000 });
    expect(fake.tray!.destroyed).toBe(true);
  });

  it('without a tray (a desktop that has none) closing quits even with the setting on', async () => {
    const { fake } = await boot({ trayFails: true, platform: 'win32' });
    fake.window.ready();
    expect(fake.window.userClose()).toBe(true);
    await vi.waitFor(() => expect(fake.quitted).toBe(true));
  });

  it('on macOS, closing without the tray keeps the app (and service) in the Dock; activate reopens a window', async () => {
    const { fake, shell, starter } = await boot({ platform: 'darwin' });
    await shell.setSettings({ keepInTray: false });
    fake.window.ready();
    expect(fake.window.userClose()).toBe(true);
    expect(fake.quitCalls).toBe(0);
    expect(starter.services[0].closed).toBeNull();
    fake.activate();
    expect(fake.windows).toHaveLength(2);
    expect(fake.window.destroyed).toBe(false);
  });

  it('Windows logging off quits for real (the close is not turned into a hide), after the ordered shutdown', async () => {
    const { fake, starter } = await boot({ platform: 'win32' });
    fake.window.ready();
    fake.window.endSession();
    await vi.waitFor(() => expect(fake.quitted).toBe(true));
    expect(fake.window.destroyed).toBe(true);
    expect(starter.services[0].closed).not.toBeNull();
  });

  it('Quit in the tray quits even with keep-in-tray on (the close is not turned into a hide)', async () => {
    const { fake, starter } = await boot({ platform: 'win32' });
    fake.window.ready();
    fake.tray!.item('Quit Bivouac').click!();
    await vi.waitFor(() => expect(fake.quitted).toBe(true));
    expect(fake.window.destroyed).toBe(true);
    expect(starter.services[0].closed).not.toBeNull();
  });
});

describe('shutdown order', () => {
  it('a running sync finishes first, then the service closes (after its requests in flight), then the app quits', async () => {
    const { fake, sync, events, starter } = await boot({ sync: { state: 'syncing', progress: { done: 4, total: 10, phase: 'pull' } } });
    fake.window.ready();
    fake.quit();
    expect(fake.quitted).toBe(false); // held back by before-quit
    expect(fake.window.visible).toBe(false); // but the window is gone at once
    await new Promise((r) => setTimeout(r, 30));
    expect(starter.services[0].closed).toBeNull(); // still waiting for the sync
    sync.finish();
    await vi.waitFor(() => expect(fake.quitted).toBe(true));
    expect(events).toEqual(['sync finished', 'service closed']);
  });

  it('the wait for the sync is bounded: a sync that never ends does not keep the app from quitting', async () => {
    const { fake, starter, log } = await boot({ sync: { state: 'syncing' }, opts: { syncWaitMs: 50 } });
    fake.quit();
    await vi.waitFor(() => expect(fake.quitted).toBe(true));
    expect(starter.services[0].closed).toEqual({ graceMs: 5000 });
    expect(log.lines).toContain('warn quit before the sync finished (it resumes on the next start)');
  });

  it('the counts of repeated lines are written on quit, before its last line', async () => {
    const { fake, warnings } = await boot({ ownLog: true });
    const w = new Error('the SQLite checkpoint worker failed (boom)');
    w.name = 'Warning';
    for (let i = 0; i < 3; i++) warnings.emit('warning', w);
    fake.quit();
    await vi.waitFor(() => expect(fake.quitted).toBe(true));
    const lines = readFileSync(join(fake.dir, 'logs', 'bivouac.log'), 'utf8').split('\n').filter(Boolean).map((l) => l.slice(25));
    expect(lines.filter((l) => l.includes('checkpoint worker failed'))).toEqual([
      'WARN  process warning: Warning: the SQLite checkpoint worker failed (boom)',
      expect.stringMatching(/^WARN {2}repeated 2 more times from \S+ to \S+: process warning: Warning: the SQLite checkpoint worker failed \(boom\)$/),
    ]);
    expect(lines.at(-1)).toBe('INFO  stopped');
  });

  it('a shutdown that throws is logged, the log flushed, and the app still quits', async () => {
    const { fake, log } = await boot();
    fake.tray!.destroy = () => { throw new Error('the tray is gone'); };
    fake.quit();
    await vi.waitFor(() => expect(fake.quitted).toBe(true));
    expect(log.lines.slice(-2)).toEqual(['error quitting failed', 'flush']);
  });

  it('a shutdown step that hangs does not keep the app from ending: past the deadline it exits, and says so', async () => {
    const { fake, starter, log } = await boot({ opts: { quitDeadlineMs: 50 } });
    starter.services[0].close = () => new Promise<never>(() => undefined); // the service never stops
    fake.quit();
    await vi.waitFor(() => expect(fake.exited).toBe(1));
    expect(fake.quitted).toBe(false);
    expect(log.lines).toContain('error the quit did not finish within 0.05 s: exiting before the shutdown ended');
  });

  it('an app still there after its ordered shutdown (a window that would not close) exits at the deadline, with 0', async () => {
    const { fake, log } = await boot({ opts: { quitDeadlineMs: 100 } });
    fake.quit();
    await vi.waitFor(() => expect(fake.quitted).toBe(true)); // the fake's quit does not end this process
    expect(fake.exited).toBeNull();
    await vi.waitFor(() => expect(fake.exited).toBe(0));
    expect(log.lines).toContain('error the quit did not finish within 0.1 s: exiting');
  });

  it('quitting twice shuts down once', async () => {
    const { fake, events } = await boot();
    fake.quit();
    fake.quit();
    await vi.waitFor(() => expect(fake.quitted).toBe(true));
    expect(events.filter((e) => e === 'service closed')).toHaveLength(1);
  });
});

describe('window state', () => {
  it('remembers bounds and maximised state per display and restores them', async () => {
    const first = await boot({ displays: [DISPLAY_1, DISPLAY_2] });
    first.fake.window.moveTo({ x: 2000, y: 100, width: 1500, height: 900 });
    first.fake.window.maximized = true;
    first.shell.saveWindowState();
    const again = await boot({ displays: [DISPLAY_1, DISPLAY_2], userData: first.fake.dir });
    expect(again.fake.window.options.bounds).toEqual({ x: 2000, y: 100, width: 1500, height: 900 });
    expect(again.fake.window.maximized).toBe(true);
  });

  it('a save made now supersedes the one scheduled by a move: nothing is written after it', async () => {
    const { fake, shell } = await boot();
    fake.window.moveTo({ x: 40, y: 30, width: 1300, height: 800 }); // schedules a save in 500 ms
    shell.saveWindowState();
    const file = join(fake.dir, 'userData', 'window-state.json');
    expect(existsSync(file)).toBe(true);
    rmSync(file);
    await new Promise((r) => setTimeout(r, 700));
    expect(existsSync(file)).toBe(false); // the scheduled save did not run after the explicit one
  });

  it('on a missing display the window opens on the primary display, centred, not off screen', async () => {
    const first = await boot({ displays: [DISPLAY_1, DISPLAY_2] });
    first.fake.window.moveTo({ x: 2000, y: 100, width: 1500, height: 900 });
    first.shell.saveWindowState();
    const again = await boot({ displays: [DISPLAY_1], userData: first.fake.dir });
    const b = again.fake.window.options.bounds;
    expect(b).toEqual({ x: 210, y: 70, width: 1500, height: 900 });
    expect(b.x + b.width).toBeLessThanOrEqual(1920);
  });
});

describe('IPC', () => {
  it('answers the app page of the app window', async () => {
    const { fake } = await boot();
    const state = await fake.invoke('shell:state', own(fake)) as ShellState;
    expect(state.apiUrl).toBe('http://127.0.0.1:4817');
    expect(state.settings).toEqual({ keepInTray: false, apiPort: 4817, startAtLogin: false }); // Linux: D258
    expect(state.dataDir).toBe(join(fake.dir, 'userData', 'data'));
    expect(fake.sendSync(SESSION_CHANNEL, own(fake))).toEqual({ token: '5aac8c4132687845b7119d564bfd9980c282a594', apiBase: 'http://127.0.0.1:4817', version: '1.2.3', platform: 'linux' });
  });

  it.each([
    ['another origin', (f: FakeElectron) => ({ frameUrl: 'https://evil.example/', contentsId: f.window.contents.id })],
    ['another port on the same host', (f: FakeElectron) => ({ frameUrl: 'http://127.0.0.1:9999/', contentsId: f.window.contents.id })],
    ['a frame that is gone', (f: FakeElectron) => ({ frameUrl: null, contentsId: f.window.contents.id })],
    ['another web contents', () => ({ frameUrl: 'http://127.0.0.1:4817/', contentsId: 99_999 })],
  ])('refuses %s, and never gives it the session', async (_name, sender) => {
    const { fake, log } = await boot();
    await expect(fake.invoke('shell:copy-api-credentials', sender(fake))).rejects.toThrow(/refused/);
    expect(fake.clipboard).toEqual([]);
    expect(fake.sendSync(SESSION_CHANNEL, sender(fake))).toBeNull();
    expect(log.lines.some((l) => l.includes('refused'))).toBe(true);
  });

  it.each([
    ['shell:set-settings', [], /expects one object/],
    ['shell:set-settings', [{ apiPort: 80 }], /apiPort must be a whole number from 1024 to 65535/],
    ['shell:set-settings', [{ apiPort: '4817' }], /apiPort must be/],
    ['shell:set-settings', [{ keepInTray: 'yes' }], /keepInTray must be true or false/],
    ['shell:set-settings', [{ __proto__: 1, dataDir: '/' }], /unknown setting "dataDir"/],
    ['shell:set-settings', [null], /expects one object/],
    ['shell:open-external', [42], /expects one URL/],
    ['shell:open-external', ['https://x.example/' + 'a'.repeat(3000)], /expects one URL/],
    ['shell:open-data-folder', ['/etc'], /expects no arguments/],
    ['sync:run', [1], /expects no arguments/],
  ])('checks the arguments: %s %j', async (channel, args, message) => {
    const { fake } = await boot();
    await expect(fake.invoke(channel, own(fake), ...args)).rejects.toThrow(message);
    expect(fake.openedPaths).toEqual([]);
    expect(existsSync(join(fake.dir, 'userData', 'shell-settings.json'))).toBe(false);
  });

  it('the window\'s initial empty document (committed when a debugger attaches before the page loads) gets no session, without a warning', async () => {
    const { fake, log } = await boot();
    expect(fake.sendSync(SESSION_CHANNEL, { frameUrl: '', contentsId: fake.window.contents.id })).toBeNull();
    expect(log.lines.filter((l) => l.includes('refused'))).toEqual([]);
    // Any other sender without an origin is refused and logged, with what it was.
    expect(fake.sendSync(SESSION_CHANNEL, { frameUrl: '', contentsId: 999 })).toBeNull();
    expect(fake.sendSync(SESSION_CHANNEL, { frameUrl: 'about:blank', contentsId: fake.window.contents.id })).toBeNull();
    expect(fake.sendSync(SESSION_CHANNEL, { frameUrl: 'https://evil.example/x?token=1', contentsId: fake.window.contents.id })).toBeNull();
    expect(log.lines.filter((l) => l.includes('refused'))).toEqual([
      'warn shell:session: refused a sender (an empty document of another web contents)',
      'warn shell:session: refused a sender (about:blank)',
      'warn shell:session: refused a sender (https://evil.example)',
    ]);
  });

  it('registers a handler for every channel of the contract', async () => {
    const { fake } = await boot();
    expect([...fake.handlers.keys()].sort()).toEqual(['shell:copy-api-credentials', 'shell:export-backup', 'shell:open-data-folder', 'shell:open-external',
      'shell:open-log-folder', 'shell:set-settings', 'shell:state', 'sync:run', 'sync:status']);
  });

  it('the actions: data folder, copy API URL and token, export backup (and cancel), sync now', async () => {
    const { fake, starter, sync } = await boot({ sync: { state: 'idle' } });
    await fake.invoke('shell:open-data-folder', own(fake));
    expect(fake.openedPaths).toEqual([join(fake.dir, 'userData', 'data')]);
    await fake.invoke('shell:copy-api-credentials', own(fake));
    expect(fake.clipboard).toEqual(['BIVOUAC_API_URL=http://127.0.0.1:4817\nBIVOUAC_API_TOKEN=5aac8c4132687845b7119d564bfd9980c282a594\n']);
    expect(await fake.invoke('shell:export-backup', own(fake))).toEqual({ file: null });
    fake.saveDialogAnswer = join(fake.dir, 'backup.json');
    expect(await fake.invoke('shell:export-backup', own(fake))).toEqual({ file: join(fake.dir, 'backup.json') });
    expect(starter.services[0].backups).toEqual([join(fake.dir, 'backup.json')]);
    const s = await fake.invoke('sync:run', own(fake)) as SyncStatus;
    expect(s.state).toBe('syncing');
    expect(sync.runs).toBe(1);
  });

  it('settings: a taken port is refused with a message; a free one waits for the next start', async () => {
    const { fake } = await boot();
    const taken = await fake.invoke('shell:set-settings', own(fake), { apiPort: 5555 }) as SettingsResult;
    expect(taken).toEqual({ ok: false, error: 'Port 5555 is in use by another program. Pick another one.' });
    const ok = await fake.invoke('shell:set-settings', own(fake), { apiPort: 5600 }) as SettingsResult;
    expect(ok.ok && ok.state.settings.apiPort).toBe(5600);
    expect(ok.ok && ok.state.portMessage).toBe('The local API moves to port 5600 when Bivouac starts next time.');
    expect(JSON.parse(readFileSync(join(fake.dir, 'userData', 'shell-settings.json'), 'utf8'))).toEqual({ keepInTray: false, apiPort: 5600 });
  });
});

describe('guards', () => {
  it('navigation stays inside the app; other links go to the system browser after a scheme check', async () => {
    const { fake } = await boot();
    const c = fake.window.contents;
    expect(c.willNavigate('http://127.0.0.1:4817/#/projects/1')).toBe(false);
    expect(c.willNavigate('https://example.com/page')).toBe(true);
    expect(c.willRedirect('http://127.0.0.1:4818/')).toBe(true);
    expect(c.willNavigate('file:///etc/passwd')).toBe(true);
    expect(c.willNavigate('javascript:alert(1)')).toBe(true);
    expect(fake.opened).toEqual(['https://example.com/page']);
    expect(c.willAttachWebview()).toBe(true);
  });

  it('new windows are never opened; http(s) and mailto links go to the browser, others nowhere', async () => {
    const { fake } = await boot();
    const open = fake.window.contents.openHandler!;
    for (const u of ['https://example.com/a', 'mailto:team@example.com', 'file:///C:/Windows/system32/calc.exe', 'smb://host/share',
      'http://user:pw@example.com/', 'http://127.0.0.1:4817/', 'ms-settings:privacy', 'not a url']) open(u);
    expect(fake.opened).toEqual(['https://example.com/a', 'mailto:team@example.com']);
    expect(fake.windows).toHaveLength(1);
  });

  it('a new window for a page of the app opens in the app window instead', async () => {
    const { fake } = await boot();
    fake.window.ready();
    fake.window.contents.openHandler!('http://127.0.0.1:4817/#/projects/4/messages/9');
    fake.window.contents.openHandler!('http://127.0.0.1:4817/projects.xml');
    expect(fake.window.contents.events('shell:open-link')).toEqual([{ hash: '#/projects/4/messages/9' }]);
    expect(fake.windows).toHaveLength(1);
    expect(fake.opened).toEqual([]);
  });

  it('contents created by anything else are locked down too', async () => {
    const { fake } = await boot();
    const other = fake.port.createWindow({ bounds: { x: 0, y: 0, width: 1, height: 1 }, minWidth: 1, minHeight: 1, title: '', preload: '', icon: null, devTools: false });
    expect((other.contents as typeof fake.window.contents).willNavigate('https://evil.example/')).toBe(true);
  });

  it('permissions are denied, except clipboard writes for the app itself', async () => {
    const { fake } = await boot();
    const req = fake.permissionRequest!;
    const check = fake.permissionCheck!;
    expect(req('media', 'http://127.0.0.1:4817/', 1)).toBe(false);
    expect(req('geolocation', 'http://127.0.0.1:4817/', 1)).toBe(false);
    expect(req('notifications', 'http://127.0.0.1:4817/', 1)).toBe(false);
    expect(req('openExternal', 'http://127.0.0.1:4817/', 1)).toBe(false);
    expect(req('clipboard-sanitized-write', 'http://127.0.0.1:4817/', 1)).toBe(true);
    expect(req('clipboard-sanitized-write', 'https://evil.example/', 1)).toBe(false);
    expect(check('clipboard-read', 'http://127.0.0.1:4817', 1)).toBe(false);
    expect(check('clipboard-sanitized-write', 'http://127.0.0.1:4817', 1)).toBe(true);
  });

  it('shell:open-external opens checked URLs only', async () => {
    const { fake } = await boot();
    expect(await fake.invoke('shell:open-external', own(fake), 'https://basecamp.example/help')).toBe(true);
    expect(await fake.invoke('shell:open-external', own(fake), 'file:///etc/passwd')).toBe(false);
    expect(await fake.invoke('shell:open-external', own(fake), 'http://127.0.0.1:4817/projects.xml')).toBe(false);
    expect(fake.opened).toEqual(['https://basecamp.example/help']);
  });
});

describe('tray and sync state', () => {
  it.each<[Partial<SyncStatus>, string[], string]>([
    [{}, ['Open Bivouac', '---', 'Local only: no team server (disabled)', 'Sync now (disabled)', '---', 'Copy API URL and token', '---', 'Quit Bivouac'], 'Bivouac — Local only: no team server'],
    [{ state: 'idle' }, ['Open Bivouac', '---', 'Synced (disabled)', 'Sync now', '---', 'Copy API URL and token', '---', 'Quit Bivouac'], 'Bivouac — Synced'],
    [{ state: 'syncing', progress: { done: 42, total: 100, phase: 'pull' }, pending: 3 }, ['Open Bivouac', '---', 'Syncing… 42% (disabled)', 'Sync now (disabled)', '---', 'Copy API URL and token', '---', 'Quit Bivouac'], 'Bivouac — Syncing… 42%'],
    [{ state: 'offline', pending: 1 }, ['Open Bivouac', '---', 'Offline (1 change waiting) (disabled)', 'Sync now', '---', 'Copy API URL and token', '---', 'Quit Bivouac'], 'Bivouac — Offline (1 change waiting)'],
    [{ state: 'idle', conflicts: 2 }, ['Open Bivouac', '---', 'Synced (disabled)', '2 conflicts to resolve…', 'Sync now', '---', 'Copy API URL and token', '---', 'Quit Bivouac'], 'Bivouac — Synced, 2 conflicts'],
    [{ state: 'error', message: 'team server answered 500', pending: 4 }, ['Open Bivouac', '---', 'Sync failed: team server answered 500 (4 changes waiting) (disabled)', 'Sync now', '---', 'Copy API URL and token', '---', 'Quit Bivouac'], 'Bivouac — Sync failed: team server answered 500 (4 changes waiting)'],
  ])('%j', async (state, labels, tooltip) => {
    const { fake } = await boot({ sync: state });
    expect(fake.tray!.labels()).toEqual(labels);
    expect(fake.tray!.tooltip).toBe(tooltip);
  });

  it('follows changes of the sync state, tells the page, and runs "Sync now"', async () => {
    const { fake, shell, sync } = await boot({ sync: { state: 'idle' } });
    fake.window.ready();
    sync.current = { ...sync.current, state: 'offline', pending: 2 };
    await shell.refreshSync();
    expect(fake.tray!.labels()[2]).toBe('Offline (2 changes waiting) (disabled)');
    expect(fake.window.contents.events('shell:sync-status').at(-1)).toMatchObject({ state: 'offline', pending: 2 });
    fake.tray!.item('Sync now').click!();
    await vi.waitFor(() => expect(sync.runs).toBe(1));
    await vi.waitFor(() => expect(fake.tray!.labels()[2]).toBe('Syncing… 0% (disabled)'));
  });

  it('"Copy API URL and token" in the tray', async () => {
    const { fake } = await boot();
    fake.tray!.item('Copy API URL and token').click!();
    expect(fake.clipboard[0]).toContain('BIVOUAC_API_URL=http://127.0.0.1:4817');
  });
});

describe('start at login', () => {
  it('Linux: an XDG autostart entry that starts the AppImage hidden, removed when turned off', async () => {
    const { fake, shell } = await boot({ env: { APPIMAGE: '/home/me/Apps/Bivouac 1.2.3.AppImage' } });
    const entry = join(fake.dir, 'config', 'autostart', 'bivouac.desktop');
    expect(shell.state().settings.startAtLogin).toBe(false);
    const on = await shell.setSettings({ startAtLogin: true });
    expect(on.ok && on.state.settings.startAtLogin).toBe(true);
    expect(readFileSync(entry, 'utf8')).toContain('Exec="/home/me/Apps/Bivouac 1.2.3.AppImage" --hidden');
    const off = await shell.setSettings({ startAtLogin: false });
    expect(off.ok && off.state.settings.startAtLogin).toBe(false);
    expect(existsSync(entry)).toBe(false);
  });

  it('Windows and macOS: the OS login item', async () => {
    for (const platform of ['win32', 'darwin']) {
      const { fake, shell } = await boot({ platform });
      await shell.setSettings({ startAtLogin: true });
      expect(fake.loginItem.openAtLogin).toBe(true);
      expect(shell.state().settings.startAtLogin).toBe(true);
      await shell.setSettings({ startAtLogin: false });
      expect(fake.loginItemCalls).toEqual([{ openAtLogin: true }, { openAtLogin: false }]);
      // setting it to what it is already does not call the OS
      await shell.setSettings({ startAtLogin: false });
      expect(fake.loginItemCalls).toHaveLength(2);
    }
  });
});

describe('secrets', () => {
  it('a line logged before the app is ready (a link to elsewhere in argv) loses no secret: the keyring answers from ready on (D236)', async () => {
    const first = await boot();
    const file = join(first.fake.dir, 'userData', 'secrets.json');
    new Secrets(file, first.fake.port.safeStorage).set('remoteToken', 'team-token-123456'); // as the sync engine keeps it
    // The next start, on Windows or Linux: no keyring until ready, and a line logged before it.
    const next = await boot({ userData: first.fake.dir, encryption: false, ready: false, ownLog: true, argv: ['bivouac', 'bivouac://elsewhere.example/x'] });
    expect(readFileSync(join(first.fake.dir, 'logs', 'bivouac.log'), 'utf8')).toContain('not a Bivouac page');
    next.fake.encryption = true;
    next.fake.ready();
    await next.shell.ready;
    expect(new Secrets(file, next.fake.port.safeStorage).get('remoteToken')).toBe('team-token-123456');
  });

  it('the local token is stored encrypted with safeStorage, never in plain text', async () => {
    const { fake, shell } = await boot();
    const file = readFileSync(join(fake.dir, 'userData', 'secrets.json'), 'utf8');
    expect(file).not.toContain('5aac8c4132687845b7119d564bfd9980c282a594');
    expect(JSON.parse(file).encrypted).toBe(true);
    expect(shell.state().secretsEncrypted).toBe(true);
  });

  describe('the remote (team server) token (D110)', () => {
    let remote: Remote | null = null;
    const stores: SqliteStore[] = [];
    const engines: SyncEngine[] = [];
    afterEach(async () => {
      for (const e of engines.splice(0)) e.stop();
      for (const s of stores.splice(0)) await s.close();
      await remote?.close();
      remote = null;
    });
    const replica = (dataDir: string, tokenVault?: TokenVault) => {
      mkdirSync(dataDir, { recursive: true });
      const store = new SqliteStore(join(dataDir, 'bivouac.sqlite'));
      stores.push(store);
      const engine = new SyncEngine({ store, dataDir, tokenVault, intervalSec: 0, timeoutMs: 5000 });
      engines.push(engine);
      return { store, engine };
    };
    const adaToken = async (r: Remote) => String((await r.store.get("SELECT token FROM people WHERE user_name = 'ada'") as { token: string }).token);

    it('connecting through the service the shell starts keeps it encrypted in secrets.json, with no plain-text file', async () => {
      remote = await startRemote();
      const { fake, shell, starter } = await boot();
      const vault = starter.calls[0].tokenVault;
      const { engine } = replica(shell.dataDir, vault);
      await engine.connect(remote.url, { user: 'ada', password: password('ada') });
      const token = await adaToken(remote);
      expect(token).toMatch(/^[0-9a-f]{20,}$/);
      expect(existsSync(join(shell.dataDir, 'remote-token'))).toBe(false);
      const file = readFileSync(join(fake.dir, 'userData', 'secrets.json'), 'utf8');
      expect(file).not.toContain(token);
      expect(JSON.parse(file)).toMatchObject({ encrypted: true, values: { remoteToken: expect.stringMatching(/./) } });
      expect(await vault.read()).toBe(token);
      // disconnecting forgets it
      await engine.disconnect();
      expect(await vault.read()).toBeNull();
      expect(JSON.parse(readFileSync(join(fake.dir, 'userData', 'secrets.json'), 'utf8')).values.remoteToken).toBeUndefined();
    });

    it('a plain-text remote-token file left by the CLI is moved into the encrypted secrets and deleted', async () => {
      remote = await startRemote();
      const { fake, shell, starter } = await boot();
      const cli = replica(shell.dataDir);
      await cli.engine.connect(remote.url, { user: 'ada', password: password('ada') });
      cli.engine.stop();
      const token = await adaToken(remote);
      expect(readFileSync(join(shell.dataDir, 'remote-token'), 'utf8').trim()).toBe(token);
      const { engine } = replica(shell.dataDir, starter.calls[0].tokenVault);
      expect(await engine.resume()).toBe(true);
      expect(existsSync(join(shell.dataDir, 'remote-token'))).toBe(false);
      const file = readFileSync(join(fake.dir, 'userData', 'secrets.json'), 'utf8');
      expect(file).not.toContain(token);
      expect(await starter.calls[0].tokenVault.read()).toBe(token);
      await engine.run();
      expect((await engine.status()).state).toBe('idle');
    });
  });

  it('without a keyring they are kept by file permissions only, and the state says so', async () => {
    const { fake, shell } = await boot({ encryption: false });
    const file = JSON.parse(readFileSync(join(fake.dir, 'userData', 'secrets.json'), 'utf8'));
    expect(file.encrypted).toBe(false);
    expect(shell.state().secretsEncrypted).toBe(false);
  });
});

describe('crashed or hung window', () => {
  it('a crashed renderer is logged and reloaded, and the page is told', async () => {
    const { fake, log } = await boot();
    fake.window.ready();
    fake.window.contents.renderProcessGone('crashed', 139);
    expect(fake.window.contents.reloads).toBe(1);
    expect(log.lines).toContain("error the window's renderer is gone: crashed (exit code 139)");
    fake.window.ready();
    expect(fake.window.contents.events('shell:notice')).toEqual([{ title: 'The window was reloaded', text: 'It had stopped (crashed). Everything you saved is kept.' }]);
  });

  it('a crash loop stops the automatic reloads and asks', async () => {
    const { fake } = await boot();
    fake.messageBoxAnswer = 1; // Quit
    for (let i = 0; i < 3; i++) fake.window.contents.renderProcessGone('oom');
    expect(fake.window.contents.reloads).toBe(2);
    expect(fake.messageBoxes[0].message).toBe('The Bivouac window keeps crashing.');
    await vi.waitFor(() => expect(fake.quitted).toBe(true));
  });

  it('a hung window is restarted after the grace period, unless it recovers', async () => {
    const { fake } = await boot({ opts: { hangReloadMs: 20 } });
    fake.window.hang();
    fake.window.recover();
    await new Promise((r) => setTimeout(r, 40));
    expect(fake.window.contents.forcedCrashes).toBe(0);
    fake.window.hang();
    await vi.waitFor(() => expect(fake.window.contents.forcedCrashes).toBe(1));
    expect(fake.window.contents.reloads).toBe(1);
  });
});

describe('application menu', () => {
  const find = (items: readonly import('../../../electron/shell/port.ts').MenuItem[], label: string) => items.find((i) => i.label === label)!;

  it('a packaged build has neither reload nor DevTools; development has both', async () => {
    const packaged = await boot({ packaged: true });
    const dev = await boot({ packaged: false });
    const roles = (f: FakeElectron) => find(f.appMenu, 'View').submenu!.map((i) => i.role).filter(Boolean);
    expect(roles(packaged.fake)).not.toContain('toggleDevTools');
    expect(roles(packaged.fake)).not.toContain('reload');
    expect(roles(dev.fake)).toEqual(expect.arrayContaining(['reload', 'forceReload', 'toggleDevTools']));
    expect(packaged.fake.window.options.devTools).toBe(false);
    expect(dev.fake.window.options.devTools).toBe(true);
  });

  it('Edit has the usual shortcuts, Help the API documentation and the data folder, per platform', async () => {
    const linux = await boot();
    const mac = await boot({ platform: 'darwin' });
    expect(linux.fake.appMenu.map((i) => i.label)).toEqual(['File', 'Edit', 'View', 'Help']);
    expect(mac.fake.appMenu.map((i) => i.label)).toEqual(['Bivouac', 'File', 'Edit', 'View', 'Window', 'Help']);
    expect(find(linux.fake.appMenu, 'Edit').submenu!.map((i) => i.role).filter(Boolean)).toEqual(['undo', 'redo', 'cut', 'copy', 'paste', 'delete', 'selectAll']);
    const help = find(linux.fake.appMenu, 'Help').submenu!;
    find(help, 'API documentation').click!();
    find(help, 'Open data folder').click!();
    expect(linux.fake.opened).toEqual(['https://docs.example/api']);
    const file = await boot({ opts: { apiDocsUrl: '/opt/Bivouac/resources/api.md' } });
    find(find(file.fake.appMenu, 'Help').submenu!, 'API documentation').click!();
    await vi.waitFor(() => expect(file.fake.openedPaths).toEqual(['/opt/Bivouac/resources/api.md']));
    await vi.waitFor(() => expect(linux.fake.openedPaths).toEqual([join(linux.fake.dir, 'userData', 'data')]));
  });

  it('Help → Open log folder writes the counts of repeated lines first, for whoever reads it now', async () => {
    const { fake, warnings } = await boot({ ownLog: true });
    const w = new Error('disk almost full');
    w.name = 'Warning';
    for (let i = 0; i < 3; i++) warnings.emit('warning', w);
    const file = join(fake.dir, 'logs', 'bivouac.log');
    expect(readFileSync(file, 'utf8')).not.toContain('repeated');
    find(find(fake.appMenu, 'Help').submenu!, 'Open log folder').click!();
    expect(readFileSync(file, 'utf8')).toMatch(/WARN {2}repeated 2 more times from \S+ to \S+: process warning: Warning: disk almost full\n/);
    await vi.waitFor(() => expect(fake.openedPaths).toEqual([join(fake.dir, 'logs')]));
  });

  it('leaves the page its own shortcuts: no accelerator without a modifier, none on Alt+arrows', async () => {
    const { accelerators } = await import('../../../electron/shell/menus.ts');
    for (const platform of ['linux', 'darwin', 'win32']) {
      const { fake } = await boot({ platform });
      for (const a of accelerators(fake.appMenu)) {
        expect(a).toMatch(/^(CmdOrCtrl|Ctrl|Cmd)\+/);
      }
    }
  });

  it('menu commands reach the page', async () => {
    const { fake } = await boot();
    fake.window.ready();
    find(find(fake.appMenu, 'View').submenu!, 'Messages').click!();
    find(find(fake.appMenu, 'File').submenu!, 'Settings…').click!();
    expect(fake.window.contents.events('shell:command')).toEqual(['view:messages', 'settings']);
  });
});

describe('settings file', () => {
  it('a broken settings file falls back to the defaults', async () => {
    const fake0 = new FakeElectron();
    fakes.push(fake0);
    mkdirSync(join(fake0.dir, 'userData'), { recursive: true });
    writeFileSync(join(fake0.dir, 'userData', 'shell-settings.json'), '{ not json');
    const { shell, starter } = await boot({ userData: fake0.dir });
    expect(shell.state().settings).toEqual({ keepInTray: false, apiPort: 4817, startAtLogin: false }); // Linux: D258
    expect(starter.calls[0].port).toBe(4817);
  });
});
