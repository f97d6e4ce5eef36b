// The Electron shell of Bivouac: starts the local service in-process (the same `serve()` as
// `bivouac serve`) on a data directory under the user's app data, and shows its UI in one
// locked-down window. Everything else (store, API, UI) is plain Node/web code that runs and is
// tested without Electron; this file and preload.ts are the only ones that import `electron`.
//
//   development:  npm run build:electron && npm run build:ui && npx electron .
//   packaging:    npm run package:dir  (see build/electron-builder.yml)

import { app, BrowserWindow, dialog, ipcMain, session, shell, type WebContents } from 'electron';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { ownerToken, serve, type Running } from './server.ts';
import { DEFAULT_PORT } from './cli.ts';
import type { BivouacBridge } from './preload.ts';

const SESSION_CHANNEL = 'bivouac:session'; // the preload asks for the session on this channel

let running: Running | null = null;
let origin = '';
let bridge: BivouacBridge | null = null;
let mainWindow: BrowserWindow | null = null;

/** Where the store lives: $BIVOUAC_DATA_DIR, else `<userData>/data` (e.g. ~/.config/Bivouac/data). */
function dataDir(): string {
  return process.env.BIVOUAC_DATA_DIR || join(app.getPath('userData'), 'data');
}

/** The port: $BIVOUAC_PORT, else the CLI's default (a stable origin keeps the page's local storage). */
function wantedPort(): number {
  const p = Number(process.env.BIVOUAC_PORT ?? DEFAULT_PORT);
  return Number.isInteger(p) && p >= 0 && p <= 65535 ? p : DEFAULT_PORT;
}

async function startService(): Promise<Running> {
  const uiDir = join(app.getAppPath(), 'dist', 'renderer');
  const opts = { dataDir: dataDir(), host: '127.0.0.1', uiDir: existsSync(uiDir) ? uiDir : null, logLevel: 'warn', demo: true };
  try {
    return await serve({ ...opts, port: wantedPort() });
  } catch (e) {
    // Another program (or `bivouac serve`) holds the port: take any free one rather than fail.
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    return await serve({ ...opts, port: 0 });
  }
}

function isOwnOrigin(url: string): boolean {
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}

/** Links to the outside world open in the user's browser; nothing else leaves the app. */
function openExternally(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return;
  }
  if (u.protocol === 'https:' || u.protocol === 'http:' || u.protocol === 'mailto:') void shell.openExternal(u.href);
}

function lockDown(contents: WebContents): void {
  contents.setWindowOpenHandler(({ url }) => {
    openExternally(url);
    return { action: 'deny' };
  });
  const stayInside = (e: { preventDefault(): void; url: string }) => {
    if (isOwnOrigin(e.url)) return;
    e.preventDefault();
    openExternally(e.url);
  };
  contents.on('will-navigate', stayInside);
  contents.on('will-redirect', stayInside);
  contents.on('will-attach-webview', (e) => e.preventDefault());
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280, height: 820, minWidth: 720, minHeight: 480, show: false, title: 'Bivouac',
    webPreferences: {
      preload: join(import.meta.dirname, 'preload.cjs'),
      contextIsolation: true, sandbox: true, nodeIntegration: false, nodeIntegrationInWorker: false,
      webSecurity: true, allowRunningInsecureContent: false, webviewTag: false, spellcheck: true,
    },
  });
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => { if (mainWindow === win) mainWindow = null; });
  void win.loadURL(`${origin}/`);
  return win;
}

async function start(): Promise<void> {
  running = await startService();
  origin = new URL(running.url).origin;
  const owner = await ownerToken(running.store);
  bridge = Object.freeze({ token: owner?.token ?? '', apiBase: origin, version: app.getVersion() });

  // The page gets the session only if it is our page (not a frame of some other origin).
  ipcMain.on(SESSION_CHANNEL, (e) => {
    e.returnValue = e.senderFrame && isOwnOrigin(e.senderFrame.url) ? bridge : null;
  });
  // No camera, geolocation, notifications…: the app needs none of them.
  session.defaultSession.setPermissionRequestHandler((_wc, permission, grant) => grant(permission === 'clipboard-sanitized-write'));
  session.defaultSession.setPermissionCheckHandler((_wc, permission) => permission === 'clipboard-sanitized-write');

  mainWindow = createWindow();
}

let stopped = false;
async function stopService(): Promise<void> {
  const r = running;
  running = null;
  if (r) await r.close();
}

if (!app.requestSingleInstanceLock()) {
  // One app per user: a second launch focuses the first window (the store is single-writer).
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });
  app.on('web-contents-created', (_e, contents) => lockDown(contents));
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => {
    if (running && BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow();
  });
  // Stop the service (close the HTTP server, checkpoint and close the store) before quitting.
  app.on('before-quit', (e) => {
    if (stopped) return;
    e.preventDefault();
    stopped = true;
    stopService().catch((err: unknown) => console.error('bivouac: stopping the service failed', err)).finally(() => app.quit());
  });

  app.whenReady().then(start).catch((err: unknown) => {
    const msg = err instanceof Error ? err.message : String(err);
    console.error('bivouac: could not start', err);
    dialog.showErrorBox('Bivouac could not start', `${msg}\n\nData directory: ${dataDir()}`);
    stopped = true;
    void stopService().finally(() => app.exit(1));
  });
}
