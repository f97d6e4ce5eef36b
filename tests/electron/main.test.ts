// electron/main.ts itself (the real port over `electron`), with the `electron` module replaced by a
// small stand-in that behaves like Electron's API for what main.ts calls: the real service starts on a
// temporary data directory, the window is created locked down and loads it, IPC and permissions are
// checked, and quitting stops the service. No Electron binary is needed.

import { describe, it, expect, vi, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type Emitter = import('node:events').EventEmitter;
const E = vi.hoisted(() => {
  return {
    app: null as unknown as Emitter & Record<string, unknown>,
    windows: [] as { options: Record<string, unknown>; url: string | null; contents: Emitter & Record<string, unknown>; win: Emitter }[],
    handlers: new Map<string, (e: unknown, ...a: unknown[]) => unknown>(),
    syncHandlers: new Map<string, (e: { returnValue?: unknown; senderFrame: { url: string } | null; sender: { id: number } }) => void>(),
    opened: [] as string[],
    permission: null as null | ((wc: unknown, p: string, grant: (b: boolean) => void, d: { requestingUrl: string }) => void),
    quitCalls: 0,
    dir: '',
    menu: null as unknown,
    tray: null as unknown,
  };
});

vi.mock('electron', async () => {
  const { EventEmitter } = await import('node:events');
  const { join } = await import('node:path');
  let ids = 1;
  const app = Object.assign(new EventEmitter(), {}) as Emitter & Record<string, unknown>;
  E.app = app;
  Object.assign(app, {
    isPackaged: false,
    getPath: (n: string) => join(E.dir, n),
    getAppPath: () => join(E.dir, 'app'),
    getVersion: () => '0.1.0',
    whenReady: () => Promise.resolve(),
    requestSingleInstanceLock: () => true,
    setAsDefaultProtocolClient: () => true,
    getLoginItemSettings: () => ({ openAtLogin: false }),
    setLoginItemSettings: () => undefined,
    quit: () => {
      E.quitCalls++;
      const e = { defaultPrevented: false, preventDefault() { e.defaultPrevented = true; } };
      app.emit('before-quit', e);
    },
    exit: () => undefined,
  });
  class BrowserWindow extends EventEmitter {
    webContents: Emitter & Record<string, unknown>;
    constructor(options: Record<string, unknown>) {
      super();
      const contents: Emitter & Record<string, unknown> = Object.assign(new EventEmitter(), {
        id: ids++, isDestroyed: () => false, send: () => undefined, reload: () => undefined, forcefullyCrashRenderer: () => undefined,
        getURL: () => '', setWindowOpenHandler: (h: unknown) => { contents.openHandler = h; },
      }) as unknown as Emitter & Record<string, unknown>;
      this.webContents = contents;
      const entry = { options, url: null as string | null, contents, win: this };
      E.windows.push(entry);
      app.emit('web-contents-created', {}, contents);
      Object.assign(this, {
        loadURL: async (u: string) => { entry.url = u; },
        show: () => undefined, hide: () => undefined, focus: () => undefined, restore: () => undefined, maximize: () => undefined,
        close: () => undefined, destroy: () => undefined, isMinimized: () => false, isMaximized: () => false, isVisible: () => true,
        isDestroyed: () => false, getNormalBounds: () => ({ x: 0, y: 0, width: 1280, height: 820 }),
      });
    }
  }
  const display = { id: 1, workArea: { x: 0, y: 0, width: 1920, height: 1080 } };
  return {
    app,
    BrowserWindow,
    Tray: class extends EventEmitter { setToolTip() {} setContextMenu(m: unknown) { E.tray = m; } destroy() {} },
    Menu: { buildFromTemplate: (t: unknown) => t, setApplicationMenu: (m: unknown) => { E.menu = m; } },
    nativeImage: { createFromPath: (p: string) => p },
    screen: { getAllDisplays: () => [display], getPrimaryDisplay: () => display, getDisplayMatching: () => display },
    dialog: { showErrorBox: (t: string, m: string) => { throw new Error(`${t}: ${m}`); }, showMessageBox: async () => ({ response: 0 }), showSaveDialog: async () => ({ canceled: true }) },
    shell: { openExternal: async (u: string) => { E.opened.push(u); }, openPath: async () => '' },
    clipboard: { writeText: () => undefined },
    safeStorage: { isEncryptionAvailable: () => false, getSelectedStorageBackend: () => 'basic_text', encryptString: (s: string) => Buffer.from(s), decryptString: (b: Buffer) => b.toString() },
    ipcMain: {
      handle: (c: string, h: (e: unknown, ...a: unknown[]) => unknown) => { E.handlers.set(c, h); },
      on: (c: string, h: Parameters<typeof E.syncHandlers.set>[1]) => { E.syncHandlers.set(c, h); },
    },
    session: { defaultSession: {
      setPermissionRequestHandler: (h: typeof E.permission) => { E.permission = h; },
      setPermissionCheckHandler: () => undefined,
    } },
  };
});

E.dir = mkdtempSync(join(tmpdir(), 'bivouac-main-'));
afterAll(() => rmSync(E.dir, { recursive: true, force: true }));

describe('electron/main.ts over a stand-in electron module', () => {
  it('starts the service, opens a locked-down window on it, checks IPC and permissions, and stops on quit', async () => {
    process.env.BIVOUAC_PORT = '0';
    process.env.BIVOUAC_DATA_DIR = join(E.dir, 'data');
    try {
      await import('../../electron/main.ts');
      await vi.waitFor(() => expect(E.windows[0]?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/), { timeout: 15_000 });
    } finally {
      delete process.env.BIVOUAC_PORT;
      delete process.env.BIVOUAC_DATA_DIR;
    }
    const w = E.windows[0];
    const origin = new URL(w.url!).origin;
    const prefs = w.options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, webviewTag: false, allowRunningInsecureContent: false });
    expect(String(prefs.preload)).toMatch(/preload\.cjs$/);
    expect((await fetch(`${origin}/health`)).status).toBe(200);

    // The session goes to the app's page only.
    const ask = (url: string | null, id = w.contents.id as number) => {
      const e: { returnValue?: unknown; senderFrame: { url: string } | null; sender: { id: number } } = { senderFrame: url === null ? null : { url }, sender: { id } };
      E.syncHandlers.get('shell:session')!(e);
      return e.returnValue;
    };
    expect(ask(`${origin}/`)).toMatchObject({ apiBase: origin, version: '0.1.0', token: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(ask('https://evil.example/')).toBeNull();
    expect(ask(`${origin}/`, 999)).toBeNull();
    await expect(Promise.resolve(E.handlers.get('shell:state')!({ senderFrame: { url: 'https://evil.example/' }, sender: { id: w.contents.id } }))).rejects.toThrow(/refused/);
    const state = await E.handlers.get('shell:state')!({ senderFrame: { url: `${origin}/` }, sender: { id: w.contents.id } }) as { apiUrl: string; secretsEncrypted: boolean };
    expect(state.apiUrl).toBe(origin);
    expect(state.secretsEncrypted).toBe(false); // basic_text is not encryption

    // Navigation and permissions.
    const nav = { url: 'https://example.com/', defaultPrevented: false, preventDefault() { nav.defaultPrevented = true; } };
    w.contents.emit('will-navigate', nav);
    expect(nav.defaultPrevented).toBe(true);
    expect(E.opened).toEqual(['https://example.com/']);
    expect((w.contents.openHandler as (d: { url: string }) => unknown)({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    const granted: boolean[] = [];
    E.permission!({}, 'media', (b) => granted.push(b), { requestingUrl: `${origin}/` });
    E.permission!({}, 'clipboard-sanitized-write', (b) => granted.push(b), { requestingUrl: `${origin}/` });
    expect(granted).toEqual([false, true]);
    expect(Array.isArray(E.menu) && Array.isArray(E.tray)).toBe(true);

    // Quit: held back while the service stops, then let through.
    const first = { defaultPrevented: false, preventDefault() { first.defaultPrevented = true; } };
    E.app.emit('before-quit', first);
    expect(first.defaultPrevented).toBe(true);
    await vi.waitFor(() => expect(E.quitCalls).toBe(1), { timeout: 20_000 });
    await expect(fetch(`${origin}/health`)).rejects.toThrow();
  });
});
