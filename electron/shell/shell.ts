// The desktop shell's logic: lifecycle, single instance and `bivouac://` links, close-to-tray or
// quit, the shutdown order, crashed or hung windows, tray and menus, window state, the shell's
// settings, secrets and log. It talks to Electron only through the port (port.ts): electron/main.ts
// gives it the real one, tests a fake. All state lives in the Shell object (no module state).

import { join, dirname } from 'node:path';
import { createServer } from 'node:net';
import { APP_SCHEME, LOCAL_ONLY, appLinkHash, type EventChannel, type EventContract, type SettingsResult, type ShellSession,
  type ShellSettingsPatch, type ShellState, type SyncStatus } from '../../shared/ipc.ts';
import { guardPermissions, lockDown, externalUrl } from './guards.ts';
import { registerIpc, type InvokeHandlers } from './ipc.ts';
import { RotatingLog, type Log } from './log.ts';
import type { ShellDeps, ShellOptions } from './options.ts';
import { appMenu, trayMenu, trayTooltip } from './menus.ts';
import type { ElectronPort, LocalService, Preventable, SyncStatusSource, TrayPort, WindowPort } from './port.ts';
import { Secrets } from './secrets.ts';
import { SettingsFile, currentSettings, defaultSettings, loginItems, readJson, writeFileAtomic, type LoginItems } from './settings.ts';
import { MIN_SIZE, parseWindowState, rememberBounds, restoreBounds } from './window-state.ts';

export type { ProcessEvents, ShellDeps, ShellOptions } from './options.ts';

/** A crash loop: this many renderer crashes within CRASH_WINDOW_MS stop the automatic reloads. */
const CRASH_LIMIT = 3;
const CRASH_WINDOW_MS = 60_000;
/** Errors nothing caught after the start: at most one notice in this time (D352). */
const PROBLEM_NOTICE_MS = 5 * 60_000;

export function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen({ port, host: '127.0.0.1', exclusive: true }, () => s.close(() => resolve(true)));
  });
}

const sleep = (ms: number) => new Promise<void>((r) => { setTimeout(r, ms); });
const errorCode = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | null)?.code;

export class Shell {
  private readonly port: ElectronPort;
  private readonly deps: ShellDeps;
  private readonly o: ShellOptions;
  readonly log: Log & { readonly file: string };
  private readonly settings: SettingsFile;
  private readonly login: LoginItems;
  private readonly secrets: Secrets;
  private readonly windowStateFile: string;
  private readonly now: () => number;

  readonly dataDir: string;
  private service: LocalService | null = null;
  private sync: SyncStatusSource | null = null;
  private origin = '';
  private window: WindowPort | null = null;
  private tray: TrayPort | null = null;
  private loaded = false;
  private syncStatus: SyncStatus = LOCAL_ONLY;
  private portMessage: string | null = null;
  private pendingHashes: string[] = [];
  private pendingNotices: EventContract['shell:notice'][] = [];
  private crashes: number[] = [];
  private quitting = false;
  private shutdownDone = false;
  private serviceStarted = false;
  private startFailed = false;
  private problemNoticeAt: number | null = null;
  private shutdown: Promise<void> | null = null;
  private quitWatchdog: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private hangTimer: NodeJS.Timeout | null = null;
  private saveTimer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  /** Resolves when start-up finished (or failed). */
  ready: Promise<void> = Promise.resolve();

  constructor(deps: ShellDeps, options: ShellOptions) {
    this.deps = deps;
    this.port = deps.port;
    this.o = options;
    this.now = deps.now ?? Date.now;
    const userData = this.port.app.getPath('userData');
    this.dataDir = options.env.BIVOUAC_DATA_DIR || join(userData, 'data');
    this.secrets = new Secrets(join(userData, 'secrets.json'), this.port.safeStorage);
    this.log = deps.log ?? new RotatingLog(join(this.port.app.getPath('logs'), 'bivouac.log'), { secrets: () => this.secretValues() });
    this.settings = new SettingsFile(join(userData, 'shell-settings.json'), defaultSettings(this.port.platform));
    this.login = loginItems(this.port, options.env);
    this.windowStateFile = join(userData, 'window-state.json');
  }

  private secretValues(): string[] {
    return [this.service?.token ?? '', ...this.secrets.all()].filter(Boolean);
  }

  // -------------------------------------------------------------------------------------------
  // Lifecycle

  /** Returns false when another instance runs (this one then quits after handing over). */
  start(): boolean {
    const { app } = this.port;
    if (!app.requestSingleInstanceLock()) {
      // The first instance gets our argv (with any bivouac:// link) in its 'second-instance' event.
      app.quit();
      return false;
    }
    this.deps.processEvents?.on('warning', (w) => this.log.warn(`process warning: ${w.name}: ${w.message}`));
    this.deps.processEvents?.on('uncaughtException', (e) => this.unexpected(e));
    this.deps.processEvents?.on('unhandledRejection', (reason) => this.unexpected(reason));
    app.setAsDefaultProtocolClient(APP_SCHEME);
    app.onSecondInstance((argv) => this.secondInstance(argv));
    app.onOpenUrl((e, url) => {
      e.preventDefault();
      this.openLink(url);
    });
    app.onWebContentsCreated((contents) => lockDown(contents, () => this.origin, this.port, (m) => this.log.warn(m),
      (url) => this.openPage(url)));
    app.onWindowAllClosed(() => this.windowAllClosed());
    app.onActivate(() => this.showWindow());
    app.onBeforeQuit((e) => this.beforeQuit(e));
    for (const a of this.o.argv) if (a.toLowerCase().startsWith(`${APP_SCHEME}://`)) this.openLink(a);
    this.ready = app.whenReady().then(() => this.boot()).catch((e: unknown) => this.failed(e));
    return true;
  }

  private async boot(): Promise<void> {
    this.log.info(`starting Bivouac ${this.port.app.getVersion()} (${this.port.platform}${this.port.isPackaged ? ', packaged' : ''})`);
    guardPermissions(this.port, () => this.origin);
    registerIpc(this.port, this.handlers(), () => this.session(), {
      origin: () => this.origin,
      windowContentsId: () => (this.window && !this.window.isDestroyed() ? this.window.contents.id : null),
    }, (m) => this.log.warn(m));

    const service = await this.startService();
    if (this.startFailed) { // an error nothing caught failed the start meanwhile: this service is not used
      await service.close({ graceMs: 0 }).catch((e: unknown) => this.log.warn('closing the service of a failed start', e));
      return;
    }
    this.service = service;
    this.serviceStarted = true;
    this.origin = this.service.url;
    this.secrets.set('localToken', this.service.token);
    this.sync = this.deps.syncSource(this.service);
    this.port.setApplicationMenu(appMenu({ platform: this.port.platform, packaged: this.port.isPackaged, appName: 'Bivouac' }, {
      command: (c) => { this.showWindow(); this.send('shell:command', c); },
      exportBackup: () => void this.exportBackup().catch((e: unknown) => this.report('Export failed', e)),
      openDataFolder: () => void this.openFolder(this.dataDir).catch((e: unknown) => this.report('Cannot open the data folder', e)),
      openLogFolder: () => {
        this.log.flush?.(); // the counts of lines repeated lately, for whoever reads it now
        void this.openFolder(dirname(this.log.file)).catch((e: unknown) => this.report('Cannot open the log folder', e));
      },
      // The API reference shipped with the app (docs/api.md), or a web address.
      openApiDocs: () => void (/^https?:\/\//.test(this.o.apiDocsUrl) ? this.port.shell.openExternal(this.o.apiDocsUrl)
        : this.openFolder(this.o.apiDocsUrl)).catch((e: unknown) => this.report('Cannot open the API documentation', e)),
      copyApiCredentials: () => this.copyApiCredentials(),
      quit: () => this.quit(),
    }));
    try {
      this.tray = this.port.createTray(this.o.trayIcon, trayTooltip(this.syncStatus));
      this.tray.onClick(() => this.showWindow());
    } catch (e) {
      this.log.warn('no tray on this desktop: closing the window quits', e);
      this.tray = null;
    }
    this.updateTray();
    // --hidden (start at login) stays in the tray, unless the start came with a link to show.
    this.openWindow(!this.o.argv.includes('--hidden') || this.pendingHashes.length > 0);
    await this.refreshSync();
    this.pollTimer = setInterval(() => void this.refreshSync(), this.o.syncPollMs ?? 5000);
    this.pollTimer.unref?.();
    if (this.port.isPackaged && this.port.updater) {
      this.port.updater.checkForUpdates().catch((e: unknown) => this.log.warn('update check failed', e));
    }
    this.log.info(`service on ${this.origin}, data in ${this.dataDir}`);
  }

  /** The service on the configured port; another port (with a clear message) when that one is taken. */
  private async startService(): Promise<LocalService> {
    const env = this.o.env.BIVOUAC_PORT;
    const wanted = env !== undefined && /^\d+$/.test(env) && Number(env) <= 65535 ? Number(env) : this.settings.get().apiPort;
    try {
      return await this.deps.startService({ dataDir: this.dataDir, port: wanted, tokenVault: this.secrets.vault('remoteToken'), log: this.log });
    } catch (e) {
      if (errorCode(e) !== 'EADDRINUSE') throw e;
      const s = await this.deps.startService({ dataDir: this.dataDir, port: 0, tokenVault: this.secrets.vault('remoteToken'), log: this.log });
      const got = new URL(s.url).port;
      this.portMessage = `Port ${wanted} is in use by another program, so the local API answers on port ${got} this time. `
        + `Local tools set up for port ${wanted} cannot reach Bivouac until that program stops; you can pick another port in Settings.`;
      this.log.warn(this.portMessage);
      this.pendingNotices.push({ title: `Port ${wanted} is taken`, text: this.portMessage });
      return s;
    }
  }

  /**
   * An error nothing caught in this process (D352). Electron's own answer is a modal box, with nothing in the log
   * and the app stopped until it is clicked. While the service starts, the start has failed (its promise may
   * never end); after it, the app goes on, and the window says so.
   */
  private unexpected(e: unknown): void {
    this.log.error('unexpected error in the main process', e);
    this.log.flush?.();
    if (!this.serviceStarted) {
      // Its box once the app is ready (before, Electron only prints it); during a quit, the log is enough.
      if (!this.quitting && !this.shutdownDone) void this.port.app.whenReady().then(() => this.failed(e));
      return;
    }
    // One notice in PROBLEM_NOTICE_MS, however many errors (each is in the log).
    const now = this.now();
    if (this.problemNoticeAt !== null && now - this.problemNoticeAt < PROBLEM_NOTICE_MS) return;
    this.problemNoticeAt = now;
    this.notice({ title: 'Bivouac ran into a problem', text: `Your saved work is safe. The log says what happened: ${this.log.file}` });
  }

  private notice(n: EventContract['shell:notice']): void {
    if (this.loaded && this.window && !this.window.isDestroyed()) this.send('shell:notice', n);
    else this.pendingNotices.push(n);
  }

  private failed(e: unknown): void {
    if (this.startFailed) return; // an error nothing caught during the start, then the start's own
    this.startFailed = true;
    const msg = e instanceof Error ? e.message : String(e);
    this.log.error('could not start', e);
    this.log.flush?.();
    this.port.dialog.showErrorBox('Bivouac could not start', `${msg}\n\nData folder: ${this.dataDir}\nLog: ${this.log.file}`);
    this.shutdownDone = true;
    const s = this.service;
    this.service = null;
    void (s ? s.close({ graceMs: 0 }) : Promise.resolve()).catch(() => undefined).finally(() => {
      this.log.flush?.(); // what the service logged while closing
      this.port.app.exit(1);
    });
  }

  private secondInstance(argv: readonly string[]): void {
    this.log.info('a second launch handed over to this one');
    this.showWindow();
    const link = argv.find((a) => a.toLowerCase().startsWith(`${APP_SCHEME}://`));
    if (link) this.openLink(link);
  }

  /** Show a `bivouac://` link in the window (queued until the page has loaded). */
  openLink(url: string): void {
    const hash = appLinkHash(url);
    if (!hash) {
      this.log.warn(`ignored a link that is not a Bivouac page: ${url.slice(0, 100)}`);
      return;
    }
    this.showWindow();
    if (this.loaded && this.window && !this.window.isDestroyed()) this.window.contents.send('shell:open-link', { hash });
    else this.pendingHashes.push(hash);
  }

  /** A page of the app asked for in a new window: its route opens in the app's window; anything else nowhere. */
  private openPage(url: string): void {
    const route = new URL(url).hash.replace(/^#\/?/, '');
    if (route) this.openLink(`${APP_SCHEME}://${route}`);
    else this.log.warn(`refused to open ${url.slice(0, 200)} in a new window`);
  }

  private windowAllClosed(): void {
    if (this.quitting) return;
    // Without the tray, closing the last window quits (except on macOS, where apps stay in the Dock).
    if (this.port.platform !== 'darwin') this.quit();
  }

  quit(): void {
    this.port.app.quit(); // → before-quit → the ordered shutdown
  }

  private beforeQuit(e: Preventable): void {
    if (this.shutdownDone) return;
    e.preventDefault();
    this.quitting = true;
    this.quitWatchdog ??= setTimeout(() => {
      // A step of the shutdown hung (or a quit after it did not end the app): exit. An acknowledged
      // write was committed before its answer, so nothing acknowledged is lost by this.
      this.log.error(`the quit did not finish within ${(this.o.quitDeadlineMs ?? 45_000) / 1000} s: exiting${this.shutdownDone ? '' : ' before the shutdown ended'}`);
      this.log.flush?.();
      this.port.app.exit(this.shutdownDone ? 0 : 1);
    }, this.o.quitDeadlineMs ?? 45_000);
    this.quitWatchdog.unref?.();
    this.shutdown ??= this.stop().catch((err: unknown) => this.log.error('quitting failed', err)).finally(() => {
      this.log.flush?.(); // stop() flushes before its last line; this covers a stop that threw
      this.shutdownDone = true;
      this.port.app.quit();
    });
  }

  /**
   * The shutdown order: the window goes away at once; a running sync may finish (bounded); then the
   * service stops taking requests, lets those in flight (an open write) finish (bounded) and closes
   * the store after its last write. An acknowledged write was committed before its answer was sent.
   */
  private async stop(): Promise<void> {
    this.log.info('quitting');
    for (const t of [this.pollTimer, this.hangTimer, this.saveTimer]) if (t) clearTimeout(t);
    this.pollTimer = this.hangTimer = this.saveTimer = null;
    if (this.window && !this.window.isDestroyed()) {
      this.saveWindowState();
      this.window.hide();
    }
    await this.polling;
    try {
      if (this.sync && !(await this.waitForSync(this.o.syncWaitMs ?? 15_000))) this.log.warn('quit before the sync finished (it resumes on the next start)');
    } catch (e) {
      this.log.warn('sync state unknown on quit', e);
    }
    const s = this.service;
    this.service = null;
    if (s) {
      try {
        const { drained } = await s.close({ graceMs: this.o.requestGraceMs ?? 5000 });
        if (!drained) this.log.warn('requests still running on quit were cut off (unanswered, so not acknowledged)');
      } catch (e) {
        this.log.error('stopping the service failed', e);
      }
    }
    this.tray?.destroy();
    this.tray = null;
    this.log.flush?.(); // the counts of lines that repeated, before the last line
    this.log.info('stopped');
  }

  /** True when no sync runs (any more); false when it still ran after ms. */
  private async waitForSync(ms: number): Promise<boolean> {
    const deadline = this.now() + ms;
    for (;;) {
      const s = await this.sync!.status();
      if (s.state !== 'syncing') return true;
      const left = deadline - this.now();
      if (left <= 0) return false;
      await sleep(Math.min(100, left));
    }
  }

  // -------------------------------------------------------------------------------------------
  // The window

  private openWindow(show: boolean): void {
    if (!this.service) return;
    const state = parseWindowState(readJson(this.windowStateFile));
    const { bounds, maximized } = restoreBounds(state, this.port.screen.getAllDisplays(), this.port.screen.getPrimaryDisplay());
    const win = this.port.createWindow({ bounds, minWidth: MIN_SIZE.width, minHeight: MIN_SIZE.height, title: 'Bivouac', preload: this.o.preload,
      icon: this.o.windowIcon, devTools: !this.port.isPackaged });
    this.window = win;
    this.loaded = false;
    if (maximized) win.maximize();
    win.onReadyToShow(() => { if (show) win.show(); });
    win.onBoundsChanged(() => this.scheduleSave());
    win.onClose((e) => this.windowClose(win, e));
    win.onClosed(() => {
      if (this.window === win) {
        this.window = null;
        this.loaded = false;
      }
    });
    // Logging off: quit for real (a close to the tray here would hold up the session's end).
    win.onSessionEnd(() => {
      this.log.info('the session ends: quitting');
      this.quitting = true;
      this.quit();
    });
    win.onUnresponsive(() => this.hung(win));
    win.onResponsive(() => {
      if (this.hangTimer) clearTimeout(this.hangTimer);
      this.hangTimer = null;
      this.log.info('the window responds again');
    });
    win.contents.onRenderProcessGone((d) => this.crashed(win, d));
    win.contents.onDidFinishLoad(() => {
      this.loaded = true;
      for (const hash of this.pendingHashes.splice(0)) win.contents.send('shell:open-link', { hash });
      for (const n of this.pendingNotices.splice(0)) win.contents.send('shell:notice', n);
      win.contents.send('shell:sync-status', this.syncStatus);
    });
    void win.loadURL(`${this.origin}/`).catch((e: unknown) => this.log.error('the page did not load', e));
  }

  showWindow(): void {
    if (this.quitting) return;
    const w = this.window;
    if (!w || w.isDestroyed()) {
      this.openWindow(true);
      return;
    }
    if (w.isMinimized()) w.restore();
    w.show();
    w.focus();
  }

  private windowClose(win: WindowPort, e: Preventable): void {
    this.saveWindowState();
    if (this.quitting) return;
    if (this.settings.get().keepInTray && this.tray) {
      // Close to the tray: the service (and sync, and local tools) keep running.
      e.preventDefault();
      win.hide();
      this.log.info('window closed to the tray');
    }
  }

  private scheduleSave(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => this.saveWindowState(), 500);
    this.saveTimer.unref?.();
  }

  /** Saves the window's place now; a save scheduled by a move or resize is superseded (it would write the same later). */
  saveWindowState(): void {
    if (this.saveTimer) { clearTimeout(this.saveTimer); this.saveTimer = null; }
    const w = this.window;
    if (!w || w.isDestroyed() || w.isMinimized()) return;
    const bounds = w.getNormalBounds();
    const display = this.port.screen.getDisplayMatching(bounds);
    const next = rememberBounds(parseWindowState(readJson(this.windowStateFile)), display, bounds, w.isMaximized());
    try {
      writeFileAtomic(this.windowStateFile, `${JSON.stringify(next)}\n`);
    } catch (e) {
      this.log.warn('cannot save the window state', e);
    }
  }

  private hung(win: WindowPort): void {
    this.log.warn('the window does not respond');
    if (this.hangTimer) return;
    this.hangTimer = setTimeout(() => {
      this.hangTimer = null;
      if (win.isDestroyed() || this.quitting) return;
      this.log.error('the window still does not respond: restarting its renderer');
      win.contents.forcefullyCrashRenderer(); // → render-process-gone → reload
    }, this.o.hangReloadMs ?? 10_000);
    this.hangTimer.unref?.();
  }

  private crashed(win: WindowPort, d: { reason: string; exitCode: number }): void {
    this.log.error(`the window's renderer is gone: ${d.reason} (exit code ${d.exitCode})`);
    if (this.quitting || d.reason === 'clean-exit' || win.isDestroyed()) return;
    const now = this.now();
    this.crashes = [...this.crashes.filter((t) => now - t < CRASH_WINDOW_MS), now];
    if (this.crashes.length >= CRASH_LIMIT) {
      this.log.error('the window keeps crashing: not reloading it automatically');
      void this.port.dialog.showMessageBox({
        type: 'error', title: 'Bivouac', message: 'The Bivouac window keeps crashing.',
        detail: `Your saved work is safe. The log may tell why: ${this.log.file}`, buttons: ['Reload', 'Quit'],
      }).then((button) => {
        if (button === 0) {
          this.crashes = [];
          win.contents.reload();
        } else this.quit();
      });
      return;
    }
    this.loaded = false;
    this.pendingNotices.push({ title: 'The window was reloaded', text: `It had stopped (${d.reason}). Everything you saved is kept.` });
    win.contents.reload();
  }

  // -------------------------------------------------------------------------------------------
  // Sync, tray

  private send<E extends EventChannel>(channel: E, payload: EventContract[E]): void {
    if (this.loaded && this.window && !this.window.isDestroyed()) this.window.contents.send(channel, payload);
  }

  private setSyncStatus(s: SyncStatus): void {
    const changed = JSON.stringify(s) !== JSON.stringify(this.syncStatus);
    this.syncStatus = s;
    if (!changed) return;
    this.updateTray();
    this.send('shell:sync-status', s);
  }

  async refreshSync(): Promise<SyncStatus> {
    if (!this.sync) return this.syncStatus;
    const p = this.sync.status().then((s) => this.setSyncStatus(s), (e: unknown) => this.log.warn('cannot read the sync state', e));
    this.polling = p;
    await p;
    return this.syncStatus;
  }

  async syncNow(): Promise<SyncStatus> {
    if (!this.sync) return this.syncStatus;
    this.log.info('sync now');
    this.setSyncStatus(await this.sync.runNow());
    return this.syncStatus;
  }

  private updateTray(): void {
    if (!this.tray) return;
    this.tray.setToolTip(trayTooltip(this.syncStatus));
    this.tray.setContextMenu(trayMenu(this.syncStatus, {
      open: () => this.showWindow(),
      syncNow: () => void this.syncNow().catch((e: unknown) => this.log.warn('sync failed', e)),
      copyApiCredentials: () => this.copyApiCredentials(),
      quit: () => this.quit(),
    }));
  }

  // -------------------------------------------------------------------------------------------
  // Actions (menus and IPC)

  private session(): ShellSession | null {
    if (!this.service) return null;
    return { token: this.service.token, apiBase: this.origin, version: this.port.app.getVersion(), platform: this.port.platform };
  }

  state(): ShellState {
    return {
      settings: currentSettings(this.settings, this.login),
      apiUrl: this.origin,
      portMessage: this.portMessage,
      dataDir: this.dataDir,
      logFile: this.log.file,
      secretsEncrypted: this.secrets.encrypted,
      sync: this.syncStatus,
    };
  }

  async setSettings(patch: ShellSettingsPatch): Promise<SettingsResult> {
    const current = this.settings.get();
    const running = this.origin ? Number(new URL(this.origin).port) : null;
    if (patch.apiPort !== undefined && patch.apiPort !== current.apiPort && patch.apiPort !== running) {
      const free = await (this.deps.portFree ?? listenable)(patch.apiPort);
      if (!free) return { ok: false, error: `Port ${patch.apiPort} is in use by another program. Pick another one.` };
    }
    if (patch.startAtLogin !== undefined && patch.startAtLogin !== this.login.isEnabled()) {
      try {
        this.login.setEnabled(patch.startAtLogin);
      } catch (e) {
        this.log.warn('cannot change start at login', e);
        return { ok: false, error: `Start at login could not be changed: ${(e as Error).message}` };
      }
      this.log.info(`start at login ${patch.startAtLogin ? 'on' : 'off'}`);
    }
    const { keepInTray, apiPort } = patch;
    if (keepInTray !== undefined || apiPort !== undefined) {
      const next = this.settings.set({ ...(keepInTray !== undefined ? { keepInTray } : {}), ...(apiPort !== undefined ? { apiPort } : {}) });
      if (apiPort !== undefined) {
        this.portMessage = running !== null && next.apiPort !== running ? `The local API moves to port ${next.apiPort} when Bivouac starts next time.` : null;
      }
    }
    return { ok: true, state: this.state() };
  }

  async openFolder(path: string): Promise<void> {
    const err = await this.port.shell.openPath(path);
    if (err) throw new Error(err);
  }

  async exportBackup(): Promise<{ file: string | null }> {
    if (!this.service) throw new Error('the service is not running');
    const day = new Date(this.now()).toISOString().slice(0, 10);
    const file = await this.port.dialog.showSaveDialog({
      title: 'Export backup', defaultPath: join(this.port.app.getPath('documents'), `bivouac-backup-${day}.json`),
      filters: [{ name: 'Bivouac backup', extensions: ['json'] }],
    });
    if (!file) return { file: null };
    await this.service.exportBackup(file);
    this.log.info(`backup exported to ${file}`);
    return { file };
  }

  copyApiCredentials(): void {
    if (!this.service) return;
    this.port.clipboard.writeText(`BIVOUAC_API_URL=${this.origin}\nBIVOUAC_API_TOKEN=${this.service.token}\n`);
    this.log.info('API URL and token copied to the clipboard');
  }

  private report(title: string, e: unknown): void {
    this.log.error(title, e);
    this.port.dialog.showErrorBox(title, e instanceof Error ? e.message : String(e));
  }

  private handlers(): InvokeHandlers {
    return {
      'shell:state': () => this.state(),
      'shell:set-settings': (patch) => this.setSettings(patch),
      'shell:open-data-folder': () => this.openFolder(this.dataDir),
      'shell:open-log-folder': () => this.openFolder(dirname(this.log.file)),
      'shell:export-backup': () => this.exportBackup(),
      'shell:copy-api-credentials': () => this.copyApiCredentials(),
      'shell:open-external': async (url) => {
        const ok = externalUrl(url, this.origin);
        if (ok) await this.port.shell.openExternal(ok);
        else this.log.warn(`refused to open ${url.slice(0, 100)}`);
        return ok !== null;
      },
      'sync:status': () => this.refreshSync(),
      'sync:run': () => this.syncNow(),
    };
  }
}
