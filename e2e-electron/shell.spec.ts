// The desktop app in a real Electron (33.2.1, the test runtime: docs/desktop-shell.md), driven by Playwright's
// _electron: the window, the sandboxed preload and its bridge, the IPC sender checks, the navigation guards, close
// to the tray or quit, the single instance and its bivouac:// links, the ordered shutdown, the window state, the
// log. The dev layout is launched twice on one profile (the second launch sees what the first left), the packaged
// test build once. Checks that are independent share one launched app.

import { test, expect, _electron, type ElectronApplication, type Page } from '@playwright/test';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INVOKE_CHANNELS } from '../shared/ipc.ts';
import { launchSpec, packagedDir, root } from '../scripts/electron-launch.mjs';

interface Session { origin: string; token: string }
interface Launched { app: ElectronApplication; win: Page; spec: ReturnType<typeof launchSpec>; session: Session }

const node = join(root, 'node_modules', '.bin', 'node');
const authHeader = (token: string) => `Basic ${Buffer.from(`${token}:X`).toString('base64')}`;

async function launch(profile: string, packaged = false): Promise<Launched> {
  const spec = launchSpec({ profile, packaged });
  currentLog = join(profile, packaged ? 'Bivouac' : 'bivouac', 'logs', 'bivouac.log'); // userData: the app's name
  logFrom = existsSync(currentLog) ? statSync(currentLog).size : 0; // this launch's lines only
  const launching = _electron.launch({ ...spec, timeout: 90_000 });
  const app = await step('launching the app', launching).catch((e: unknown) => {
    // The log said it could not start, and the launch may still end later: that app is stopped then.
    void launching.then((late) => late.process().kill('SIGKILL'), () => undefined);
    throw e;
  });
  try {
    // As the launch check: the window waits for the service, slow on a busy machine.
    const win = await step('waiting for its window', app.firstWindow({ timeout: 90_000 }));
    // The first page after sign-in is the Overview (issue #27); the boards are a click away.
    await step('waiting for the Overview', expect(win.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible({ timeout: 60_000 }), win);
    await win.getByRole('button', { name: 'Todos', exact: true }).click();
    await step('waiting for the Todos board', expect(win.getByRole('heading', { name: 'Todos', level: 1 })).toBeVisible({ timeout: 30_000 }), win);
    const session = await win.evaluate(() => ({ origin: window.bivouac.apiBase, token: window.bivouac.token }));
    return { app, win, spec, session };
  } catch (e) {
    try { app.process().kill('SIGKILL'); } catch { /* gone */ }
    throw e;
  }
}

/**
 * One step of a launch: its error names the step and carries the tail of the app's log and the page's text (CI
 * shows only the output). An app that logs, in this launch, that it could not start (its error box waits for a
 * click that never comes) or an error nothing caught (a bug, even where the app goes on) fails the step at once.
 */
async function step<T>(what: string, p: Promise<T>, win?: Page): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const failed = new Promise<never>((_, reject) => {
    timer = setInterval(() => {
      let log = '';
      try { log = readFileSync(currentLog).subarray(logFrom).toString('utf8'); } catch { /* not written yet */ }
      const bad = /could not start|unexpected error in the main process/.exec(log);
      if (bad) reject(new Error(`the app logged "${bad[0]}"`));
    }, 250);
  });
  try {
    return await Promise.race([p, failed]);
  } catch (e) {
    const page = win ? await win.locator('body').innerText({ timeout: 2000 }).catch((x: unknown) => `(no text: ${String(x)})`) : '';
    throw new Error(`${what}: ${e instanceof Error ? e.message : String(e)}\n${page ? `the page shows:\n${page.slice(0, 1500)}\n` : ''}`
      + `the app's log (${currentLog}) ends:\n${logTail()}`, { cause: e });
  } finally {
    clearInterval(timer);
  }
}

function api(s: Session, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${s.origin}${path}`, {
    method,
    headers: { Authorization: authHeader(s.token), Accept: 'application/json', ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
}

/** A second launch of the same app (same profile), as the OS would start it for a bivouac:// link: its exit code. */
function secondLaunch(spec: Launched['spec'], args: string[] = []): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const c = spawn(spec.executablePath, [...spec.args, ...args], { env: spec.env, cwd: spec.cwd, stdio: 'ignore' });
    c.once('error', reject);
    c.once('exit', (code) => resolve(code));
  });
}

const mainWindow = <T>(app: ElectronApplication, fn: string) =>
  app.evaluate(({ BrowserWindow }, f) => {
    const w = BrowserWindow.getAllWindows().find((x) => !x.webContents.getURL().startsWith('data:'))!;
    return new Function('w', `return (${f})(w)`)(w) as T;
  }, fn);

/** Writes sent while the app quits: those acknowledged (201) must all be in the store afterwards. */
async function writesAcrossQuit(s: Session, listId: number, tag: string, quit: () => Promise<unknown>): Promise<string[]> {
  const acked: string[] = [];
  const posts = Array.from({ length: 40 }, (_, i) => api(s, 'POST', `/todo_lists/${listId}/todo_items.json`, { content: `${tag} ${i}` })
    .then((r) => { if (r.status === 201) acked.push(`${tag} ${i}`); return r.status; }, () => 'cut'));
  await expect.poll(() => acked.length).toBeGreaterThan(2);
  await quit();
  await Promise.all(posts);
  return acked;
}

/** The account as `bivouac export` reads it from the data directory (the app is not running). */
function exported(dataDir: string): string {
  const r = spawnSync(node, [join(root, 'electron', 'bin.mjs'), 'export', '--data-dir', dataDir], { encoding: 'utf8', cwd: root });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

/** `p` within ms, or an error that carries the tail of the app's log (what CI shows of a failure). */
async function withLog<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s; the app's log ends:\n${logTail()}`)), ms); });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

let currentLog = '';
let logFrom = 0;
const logTail = () => { try { return readFileSync(currentLog, 'utf8').split('\n').slice(-40).join('\n'); } catch (e) { return String(e); } };

/** Closes a launched app; one that does not end within 20 s is killed (and its log's tail printed). */
async function closeOrKill(l: Launched | undefined): Promise<void> {
  let proc: ReturnType<ElectronApplication['process']> | undefined;
  try { proc = l?.app.process(); } catch { /* closed already: Playwright let go of it */ }
  if (!l || !proc || proc.exitCode !== null) return;
  try {
    await withLog(l.app.close(), 20_000, 'the app did not close');
  } catch (e) {
    console.error(String(e));
    proc.kill('SIGKILL');
  }
}

async function expectServiceStopped(s: Session): Promise<void> {
  await expect(fetch(`${s.origin}/health`)).rejects.toThrow();
}

async function firstListId(s: Session): Promise<number> {
  const lists = await (await api(s, 'GET', '/projects/1/todo_lists.json')).json() as { id: number }[];
  return lists[0].id;
}

test.describe.serial('dev layout (dist/e2e-electron/entry.js)', () => {
  const profile = mkdtempSync(join(tmpdir(), 'bivouac-electron-dev-'));
  let a: Launched;
  test.afterAll(async () => {
    await closeOrKill(a);
    rmSync(profile, { recursive: true, force: true });
  });

  test('one window with the boards; not packaged', async () => {
    a = await launch(profile);
    expect(a.app.windows()).toHaveLength(1);
    await expect(a.win.locator('.column').first()).toBeVisible();
    expect(await a.app.evaluate(({ app }) => ({ packaged: app.isPackaged, version: process.versions.electron }))).toEqual({ packaged: false, version: '33.2.1' });
    expect(a.session.origin).toBe(new URL(a.win.url()).origin);
  });

  test('window.bivouac is exactly the IPC contract, frozen, and main answers every channel of it', async () => {
    const shape = await a.win.evaluate(() => {
      const b = window.bivouac as unknown as Record<string, unknown>;
      return { keys: Object.keys(b).sort(), frozen: Object.isFrozen(b), types: Object.fromEntries(Object.entries(b).map(([k, v]) => [k, typeof v])) };
    });
    expect(shape).toEqual({
      keys: ['apiBase', 'invoke', 'on', 'platform', 'token', 'version'], frozen: true,
      types: { apiBase: 'string', invoke: 'function', on: 'function', platform: 'string', token: 'string', version: 'string' },
    });
    expect(a.session.token).toMatch(/^[0-9a-f]{40}$/);
    // Every channel of the contract reaches main's checks (a wrong extra argument: refused there, no side effect).
    const answers = await a.win.evaluate(async (channels) => Promise.all(channels.map((c) =>
      (window.bivouac.invoke as (c: string, ...a: unknown[]) => Promise<unknown>)(c, 1, 2, 3).then(() => `${c}: answered`, (e: Error) => `${c}: ${e.message}`))), INVOKE_CHANNELS);
    for (const [i, line] of answers.entries()) expect(line).toMatch(new RegExp(`^${INVOKE_CHANNELS[i]}: Error invoking remote method '${INVOKE_CHANNELS[i]}': Error: ${INVOKE_CHANNELS[i]}: expects `));
    expect(answers).toHaveLength(INVOKE_CHANNELS.length);
    // Nothing else: no channel outside the contract, no event outside it.
    await expect(a.win.evaluate(() => (window.bivouac.invoke as (c: string) => Promise<unknown>)('shell:nope'))).rejects.toThrow(/no such channel/);
    await expect(a.win.evaluate(() => (window.bivouac.on as (c: string, l: () => void) => unknown)('ipc:anything', () => undefined))).rejects.toThrow(/no such event/);
    const state = await a.win.evaluate(() => window.bivouac.invoke('shell:state'));
    expect(state.apiUrl).toBe(a.session.origin);
  });

  test('contextIsolation, sandbox, no nodeIntegration: in the window\'s preferences and in the page', async () => {
    const prefs = await mainWindow<Record<string, unknown>>(a.app, '(w) => w.webContents.getLastWebPreferences()');
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, nodeIntegrationInSubFrames: false, webviewTag: false, webSecurity: true });
    expect(await a.win.evaluate(() => [typeof (globalThis as Record<string, unknown>).require, typeof (globalThis as Record<string, unknown>).process,
      typeof (globalThis as Record<string, unknown>).module, typeof (globalThis as Record<string, unknown>).Buffer])).toEqual(['undefined', 'undefined', 'undefined', 'undefined']);
  });

  test('an IPC call from another window, even with a page of the app\'s own origin, is refused (and logged)', async () => {
    const result = await a.app.evaluate(async ({ BrowserWindow }, { preload, url }) => {
      const w = new BrowserWindow({ show: false, webPreferences: { preload, sandbox: true, contextIsolation: true } });
      await w.loadURL(url);
      const r = await w.webContents.executeJavaScript(`(async () => {
        const session = window.forge.session();
        let state;
        try { await window.forge.invoke('shell:state'); state = 'answered'; } catch (e) { state = String(e.message); }
        return { session, state, bridge: typeof window.bivouac };
      })()`);
      w.destroy();
      return r;
    }, { preload: join(root, 'e2e-electron', 'forge-preload.cjs'), url: `${a.session.origin}/` });
    expect(result).toEqual({ session: null, state: expect.stringMatching(/shell:state: refused \(the sender is not the app's page\)/), bridge: 'undefined' });
    await expect.poll(() => a.app.windows().length).toBe(1);
  });

  test('window.open and links to other origins open no app window; they go to the system browser', async () => {
    await a.app.evaluate(({ shell }) => {
      const g = globalThis as unknown as { opened: string[] };
      g.opened = [];
      shell.openExternal = async (url: string) => { g.opened.push(url); }; // no browser, no network
    });
    const opened = () => a.app.evaluate(() => (globalThis as unknown as { opened: string[] }).opened);
    expect(await a.win.evaluate(() => window.open('https://example.com/opened'))).toBeNull();
    await a.win.evaluate(() => {
      for (const [href, target] of [['https://example.com/blank', '_blank'], ['https://example.com/same', ''], ['file:///etc/passwd', '_blank']]) {
        const l = document.createElement('a');
        l.href = href;
        l.target = target;
        l.textContent = href;
        document.body.append(l);
        l.click();
        l.remove();
      }
    });
    await expect.poll(opened).toEqual(['https://example.com/opened', 'https://example.com/blank', 'https://example.com/same']);
    // A page of the app asked for in a new window opens in the app's window.
    await a.win.evaluate((o) => window.open(`${o}/#/projects/1/messages`), a.session.origin);
    await expect(a.win).toHaveURL(/#\/projects\/1\/messages$/);
    expect(a.app.windows()).toHaveLength(1);
    expect(await a.app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(1);
    expect(new URL(a.win.url()).origin).toBe(a.session.origin);
  });

  test('a second launch quits, and the first comes to the front with its bivouac:// link', async () => {
    await mainWindow(a.app, '(w) => w.hide()');
    expect(await secondLaunch(a.spec, ['bivouac://projects/1/time'])).toBe(0);
    await expect(a.win).toHaveURL(/#\/projects\/1\/time$/);
    expect(await mainWindow(a.app, '(w) => w.isVisible()')).toBe(true);
    expect(a.app.windows()).toHaveLength(1);
  });

  test('the log is written where the app says, and without the token', async () => {
    const state = await a.win.evaluate(() => window.bivouac.invoke('shell:state'));
    expect(state.logFile).toBe(join(profile, 'bivouac', 'logs', 'bivouac.log'));
    expect(state.dataDir).toBe(join(profile, 'bivouac', 'data'));
    const text = readFileSync(state.logFile, 'utf8');
    expect(text).toContain('starting Bivouac 0.1.0 (linux)');
    expect(text).toContain(`service on ${a.session.origin}`);
    expect(text).toContain("shell:state: refused (the sender is not the app's page)");
    expect(text).toContain('a second launch handed over to this one');
    expect(text).not.toContain('refused a sender (no origin)'); // Playwright's attach (D261)
    expect(text).not.toContain(a.session.token);
  });

  test('Linux (D258): closing the window quits; the service stops after the writes it acknowledged', async () => {
    await mainWindow(a.app, '(w) => w.setBounds({ x: 210, y: 120, width: 1010, height: 690 })');
    const { dataDir } = await a.win.evaluate(() => window.bivouac.invoke('shell:state'));
    const exited = new Promise((r) => a.app.process().once('exit', r));
    const acked = await writesAcrossQuit(a.session, await firstListId(a.session), 'close-quit', async () => {
      // Closed from a timer, so that the evaluation has answered before the app starts to quit.
      await mainWindow(a.app, '(w) => { setTimeout(() => w.close(), 0); }');
      await withLog(exited, 60_000, 'the app did not exit after its window closed');
    });
    await expectServiceStopped(a.session);
    const account = exported(dataDir);
    for (const c of acked) expect(account).toContain(JSON.stringify(c));
    const log = readFileSync(join(profile, 'bivouac', 'logs', 'bivouac.log'), 'utf8');
    expect(log).toMatch(/quitting\n.*stopped\n$/);
  });

  test('the next launch restores the window\'s place and size', async () => {
    a = await launch(profile);
    expect(await mainWindow(a.app, '(w) => w.getNormalBounds()')).toEqual({ x: 210, y: 120, width: 1010, height: 690 });
  });

  test('with the tray turned on, closing keeps the app in the tray and the service answering; a launch shows it again', async () => {
    const r = await a.win.evaluate(() => window.bivouac.invoke('shell:set-settings', { keepInTray: true }));
    expect(r.ok).toBe(true);
    await mainWindow(a.app, '(w) => w.close()');
    await expect.poll(() => mainWindow(a.app, '(w) => w.isVisible()')).toBe(false);
    expect(a.app.process().exitCode).toBeNull();
    expect((await fetch(`${a.session.origin}/health`)).status).toBe(200);
    expect((await api(a.session, 'GET', '/projects/1/todo_lists.json')).status).toBe(200);
    expect(await secondLaunch(a.spec)).toBe(0);
    await expect.poll(() => mainWindow(a.app, '(w) => w.isVisible()')).toBe(true);
  });

  test('quitting stops the service with no acknowledged write lost', async () => {
    const { dataDir } = await a.win.evaluate(() => window.bivouac.invoke('shell:state'));
    const acked = await writesAcrossQuit(a.session, await firstListId(a.session), 'app-quit', () => a.app.close());
    await expectServiceStopped(a.session);
    const account = exported(dataDir);
    for (const c of acked) expect(account).toContain(JSON.stringify(c));
  });
});

test.describe.serial('packaged test build (release/test/linux-unpacked)', () => {
  const profile = mkdtempSync(join(tmpdir(), 'bivouac-electron-packaged-'));
  let p: Launched;
  test.afterAll(async () => {
    await closeOrKill(p);
    rmSync(profile, { recursive: true, force: true });
  });

  test('differs from the shipped build only in the inspector fuse and its entry', async () => {
    const shipped = join(root, 'release', 'linux-unpacked');
    test.skip(!existsSync(join(shipped, 'bivouac')), 'no shipped directory built with the real runtime');
    const { getCurrentFuseWire, FuseV1Options } = await import('@electron/fuses');
    const names = (w: Record<number, number>) => Object.fromEntries(Object.entries(FuseV1Options).filter(([, v]) => typeof v === 'number')
      .map(([k, v]) => [k, w[v as number] === 49 ? 'on' : w[v as number] === 48 ? 'off' : 'absent']));
    const a = names(await getCurrentFuseWire(join(shipped, 'bivouac')) as unknown as Record<number, number>);
    const b = names(await getCurrentFuseWire(join(packagedDir, 'bivouac')) as unknown as Record<number, number>);
    expect(Object.keys(a).filter((k) => a[k] !== b[k])).toEqual(['EnableNodeCliInspectArguments']);
    expect([a.EnableNodeCliInspectArguments, b.EnableNodeCliInspectArguments]).toEqual(['off', 'on']);
    expect(a.RunAsNode).toBe('off');
    const asar = (await import('@electron/asar')).default;
    const list = (dir: string) => new Set(asar.listPackage(join(dir, 'resources', 'app.asar'), { isPack: false }));
    const [x, y] = [list(shipped), list(packagedDir)];
    expect([...y].filter((f) => !x.has(f)).sort()).toEqual(['/dist/e2e-electron', '/dist/e2e-electron/entry.js']);
    expect([...x].filter((f) => !y.has(f))).toEqual([]);
  });

  test('one window with the boards, the bridge, a locked-down page; packaged; the log where the app says; quit stops the service', async () => {
    p = await launch(profile, true);
    expect(p.app.windows()).toHaveLength(1);
    expect(await p.app.evaluate(({ app }) => ({ packaged: app.isPackaged, name: app.getName() }))).toEqual({ packaged: true, name: 'Bivouac' });
    expect(await p.win.evaluate(() => Object.keys(window.bivouac).sort())).toEqual(['apiBase', 'invoke', 'on', 'platform', 'token', 'version']);
    expect(await mainWindow<Record<string, unknown>>(p.app, '(w) => w.webContents.getLastWebPreferences()'))
      .toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
    // No DevTools in a packaged build (webPreferences.devTools: false): asking for them opens nothing.
    expect(await mainWindow(p.app, '(w) => { w.webContents.openDevTools(); return w.webContents.isDevToolsOpened(); }')).toBe(false);
    const state = await p.win.evaluate(() => window.bivouac.invoke('shell:state'));
    expect(state.logFile).toBe(join(profile, 'Bivouac', 'logs', 'bivouac.log'));
    expect(readFileSync(state.logFile, 'utf8')).toContain('starting Bivouac 0.1.0 (linux, packaged)');
    await p.app.close();
    await expectServiceStopped(p.session);
    expect(readFileSync(state.logFile, 'utf8')).toMatch(/stopped\n$/);
  });
});

test('a service that cannot start: the app logs why at once (its box then says it), not an uncaught error with nothing in the log', async () => {
  // The test runtime starts the service on BIVOUAC_TEST_NODE: here a program that exits at once. The start command
  // written to it fails with EPIPE when it is gone first (most times here): that was an uncaught exception in main,
  // Electron's modal box, and no line in the log. tests/electron/shell/service-process.test.ts makes the EPIPE sure.
  const profile = mkdtempSync(join(tmpdir(), 'bivouac-electron-nostart-'));
  const spec = launchSpec({ profile, env: { BIVOUAC_TEST_NODE: '/bin/false' } });
  const child = spawn(spec.executablePath, spec.args, { env: spec.env, cwd: spec.cwd, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.once('error', () => resolve()); });
  try {
    const log = join(profile, 'bivouac', 'logs', 'bivouac.log');
    const read = () => { try { return readFileSync(log, 'utf8'); } catch { return ''; } };
    await expect.poll(read, { timeout: 60_000 }).toMatch(/ERROR could not start Error: the service process exited before it listened \(exit 1\)/);
    expect(read()).not.toMatch(/unexpected error/);
  } finally {
    child.kill('SIGKILL');
    await exited;
    rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
  }
});

