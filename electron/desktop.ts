// The desktop app over the `electron` module: the real implementation of the shell's port
// (electron/shell/port.ts) and the start of the shell (electron/shell/shell.ts), whose logic is tested in plain
// Node against a fake of that port. What it does not decide is how the local service runs: its composition root
// passes that in (D259). electron/main.ts, the shipped entry, runs the service in this process (Electron 45's
// Node 24 has node:sqlite); the real-Electron tests' entry (e2e-electron/entry.ts) runs it on the project's
// Node 24 beside Electron 33, whose Node 20 has none. This file, main.ts and preload.ts are the only ones that
// import `electron`.

import { app, BrowserWindow, clipboard, dialog, ipcMain, Menu, safeStorage, screen, session, shell, Tray, nativeImage,
  type MenuItemConstructorOptions, type WebContents } from 'electron';
import electronUpdater from 'electron-updater';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ContentsPort, ElectronPort, MenuItem, StartService, WindowPort } from './shell/port.ts';
import { Shell } from './shell/shell.ts';
import { HttpSyncStatusSource } from './shell/sync-source.ts';


function contentsPort(c: WebContents): ContentsPort {
  return {
    id: c.id,
    getURL: () => c.getURL(),
    send: (channel, payload) => { if (!c.isDestroyed()) c.send(channel, payload); },
    reload: () => c.reload(),
    forcefullyCrashRenderer: () => c.forcefullyCrashRenderer(),
    setWindowOpenHandler: (handler) => c.setWindowOpenHandler(({ url }) => {
      handler(url);
      return { action: 'deny' };
    }),
    onWillNavigate: (l) => c.on('will-navigate', (e) => l(e, e.url)),
    onWillRedirect: (l) => c.on('will-redirect', (e) => l(e, e.url)),
    onWillAttachWebview: (l) => c.on('will-attach-webview', (e) => l(e)),
    onRenderProcessGone: (l) => c.on('render-process-gone', (_e, d) => l({ reason: d.reason, exitCode: d.exitCode })),
    onDidFinishLoad: (l) => c.on('did-finish-load', () => l()),
  };
}

function windowPort(w: BrowserWindow): WindowPort {
  const contents = contentsPort(w.webContents);
  return {
    contents,
    loadURL: (url) => w.loadURL(url),
    show: () => w.show(), hide: () => w.hide(), focus: () => w.focus(), restore: () => w.restore(),
    maximize: () => w.maximize(), close: () => w.close(), destroy: () => w.destroy(),
    isMinimized: () => w.isMinimized(), isMaximized: () => w.isMaximized(), isVisible: () => w.isVisible(),
    isDestroyed: () => w.isDestroyed(), getNormalBounds: () => w.getNormalBounds(),
    onReadyToShow: (l) => w.once('ready-to-show', l),
    onClose: (l) => w.on('close', (e) => l(e)),
    onClosed: (l) => w.on('closed', l),
    onBoundsChanged: (l) => { for (const ev of ['resized', 'moved', 'maximize', 'unmaximize'] as const) w.on(ev as 'resized', l); },
    onSessionEnd: (l) => w.on('session-end', () => l()),
    onUnresponsive: (l) => w.on('unresponsive', l),
    onResponsive: (l) => w.on('responsive', l),
  };
}

function menuTemplate(items: readonly MenuItem[]): MenuItemConstructorOptions[] {
  return items.map((i) => ({
    label: i.label, role: i.role, type: i.type, accelerator: i.accelerator, enabled: i.enabled, checked: i.checked,
    click: i.click ? () => i.click?.() : undefined,
    submenu: i.submenu ? menuTemplate(i.submenu) : undefined,
  }));
}

function updater(): ElectronPort['updater'] {
  const { autoUpdater } = electronUpdater;
  // The feed is set at build time (build/electron-builder.yml, `publish`: the generic provider's URL is
  // written into resources/app-update.yml); BIVOUAC_UPDATE_URL overrides it (a test feed, a mirror).
  const feed = process.env.BIVOUAC_UPDATE_URL;
  if (feed) autoUpdater.setFeedURL({ provider: 'generic', url: feed });
  autoUpdater.autoDownload = true;
  autoUpdater.autoInstallOnAppQuit = true;
  return { checkForUpdates: async () => { await autoUpdater.checkForUpdatesAndNotify(); } };
}

function electronPort(): ElectronPort {
  return {
    platform: process.platform,
    isPackaged: app.isPackaged,
    app: {
      getPath: (name) => app.getPath(name),
      getVersion: () => app.getVersion(),
      getExecPath: () => process.execPath,
      whenReady: async () => { await app.whenReady(); },
      requestSingleInstanceLock: () => app.requestSingleInstanceLock(),
      setAsDefaultProtocolClient: (scheme) => (app.isPackaged
        ? app.setAsDefaultProtocolClient(scheme)
        // Development (`electron .`): the registration must start Electron with this app's folder.
        : app.setAsDefaultProtocolClient(scheme, process.execPath, [app.getAppPath()])),
      onSecondInstance: (l) => app.on('second-instance', (_e, argv) => l(argv)),
      onOpenUrl: (l) => app.on('open-url', (e, url) => l(e, url)),
      onBeforeQuit: (l) => app.on('before-quit', (e) => l(e)),
      onWindowAllClosed: (l) => app.on('window-all-closed', l),
      onActivate: (l) => app.on('activate', () => l()),
      onWebContentsCreated: (l) => app.on('web-contents-created', (_e, c) => l(contentsPort(c))),
      getLoginItem: () => ({ openAtLogin: app.getLoginItemSettings().openAtLogin }),
      setLoginItem: (item) => app.setLoginItemSettings({ openAtLogin: item.openAtLogin, args: ['--hidden'] }),
      quit: () => app.quit(),
      exit: (code) => app.exit(code),
    },
    createWindow: (o) => windowPort(new BrowserWindow({
      ...o.bounds, minWidth: o.minWidth, minHeight: o.minHeight, show: false, title: o.title,
      ...(o.icon ? { icon: o.icon } : {}),
      webPreferences: {
        preload: o.preload,
        // Electron's security checklist: an isolated, sandboxed page without Node, web security on.
        contextIsolation: true, sandbox: true, nodeIntegration: false, nodeIntegrationInWorker: false, nodeIntegrationInSubFrames: false,
        webSecurity: true, allowRunningInsecureContent: false, webviewTag: false, experimentalFeatures: false,
        navigateOnDragDrop: false, safeDialogs: true, spellcheck: true, devTools: o.devTools,
      },
    })),
    createTray: (icon, tooltip) => {
      const t = new Tray(nativeImage.createFromPath(icon));
      t.setToolTip(tooltip);
      return {
        setContextMenu: (items) => t.setContextMenu(Menu.buildFromTemplate(menuTemplate(items))),
        setToolTip: (text) => t.setToolTip(text),
        onClick: (l) => t.on('click', () => l()),
        destroy: () => t.destroy(),
      };
    },
    setApplicationMenu: (items) => Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate(items))),
    screen: {
      getAllDisplays: () => screen.getAllDisplays(),
      getPrimaryDisplay: () => screen.getPrimaryDisplay(),
      getDisplayMatching: (r) => screen.getDisplayMatching(r),
    },
    dialog: {
      showErrorBox: (title, text) => dialog.showErrorBox(title, text),
      showMessageBox: async (o) => (await dialog.showMessageBox({ ...o, buttons: [...o.buttons] })).response,
      showSaveDialog: async (o) => {
        const r = await dialog.showSaveDialog(o);
        return r.canceled || !r.filePath ? null : r.filePath;
      },
    },
    shell: {
      openExternal: (url) => shell.openExternal(url),
      openPath: (p) => shell.openPath(p),
    },
    clipboard: { writeText: (text) => clipboard.writeText(text) },
    safeStorage: {
      // On Linux without a keyring Chromium encrypts with a hard-coded password ('basic_text'): not real protection.
      isEncryptionAvailable: () => safeStorage.isEncryptionAvailable()
        && (process.platform !== 'linux' || safeStorage.getSelectedStorageBackend() !== 'basic_text'),
      encryptString: (plain) => safeStorage.encryptString(plain),
      decryptString: (cipher) => safeStorage.decryptString(Buffer.from(cipher)),
    },
    ipc: {
      handle: (channel, handler) => ipcMain.handle(channel, (e, ...args: unknown[]) =>
        handler({ frameUrl: e.senderFrame?.url ?? null, contentsId: e.sender.id }, args)),
      onSync: (channel, handler) => ipcMain.on(channel, (e) => {
        e.returnValue = handler({ frameUrl: e.senderFrame?.url ?? null, contentsId: e.sender.id });
      }),
    },
    session: {
      setPermissionRequestHandler: (h) => session.defaultSession.setPermissionRequestHandler((wc, permission, grant, details) =>
        grant(h(permission, details.requestingUrl, wc?.id ?? null))),
      setPermissionCheckHandler: (h) => session.defaultSession.setPermissionCheckHandler((wc, permission, origin) =>
        h(permission, origin, wc?.id ?? null)),
    },
    updater: app.isPackaged ? updater() : null,
  };
}

/** Where the app's files are: the app folder (app.asar when packaged) and the built UI in it, if any. */
export interface AppPaths {
  readonly appRoot: string;
  /** dist/renderer of the app, null when it was not built. */
  readonly uiDir: string | null;
}

/** Starts the shell with the port over Electron; `startService` (given the app's paths) runs the local service. */
export function startDesktop(startService: (paths: AppPaths) => StartService): Shell {
  const here = import.meta.dirname; // dist/electron
  const appRoot = app.getAppPath();
  /** A file shipped next to app.asar (extraResources), or its source in a development run. */
  const resource = (name: string, source: string) => {
    const packaged = join(process.resourcesPath ?? '', name);
    return existsSync(packaged) ? packaged : join(appRoot, source);
  };
  const icon = (name: string) => resource(name, join('build', name));
  const uiDir = join(appRoot, 'dist', 'renderer');

  const port = electronPort();
  const desktop = new Shell({
    port,
    startService: startService({ appRoot, uiDir: existsSync(uiDir) ? uiDir : null }),
    syncSource: (svc) => new HttpSyncStatusSource(svc.url, svc.token),
    processEvents: process,
  }, {
    argv: process.argv,
    env: process.env,
    preload: join(here, 'preload.cjs'),
    windowIcon: process.platform === 'linux' ? icon('icon.png') : null,
    trayIcon: icon('tray.png'),
    // Help → API documentation: docs/api.md, shipped next to app.asar (build/electron-builder.yml).
    apiDocsUrl: resource('api.md', join('docs', 'api.md')),
  });
  desktop.start();
  return desktop;
}
