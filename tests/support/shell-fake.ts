// A fake of the shell's Electron port (electron/shell/port.ts) for tests in plain Node: it records
// what the shell does (windows, tray menus, IPC handlers, dialogs) and lets a test play the user and
// the OS (close the window, launch a second instance, crash the renderer, quit).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContentsPort, DisplayInfo, ElectronPort, IpcSender, LoginItem, LocalService, MenuItem, MessageBoxOptions, Preventable, Rect,
  StartServiceOptions, TrayPort, WindowOptions, WindowPort } from '../../electron/shell/port.ts';

type Listener<A extends unknown[] = []> = (...a: A) => void;

export function preventable(): Preventable & { prevented: boolean } {
  const e = { prevented: false, preventDefault() { e.prevented = true; } };
  return e;
}

let nextId = 1;

export class FakeContents implements ContentsPort {
  readonly id = nextId++;
  url = '';
  readonly sent: [string, unknown][] = [];
  reloads = 0;
  forcedCrashes = 0;
  openHandler: ((url: string) => void) | null = null;
  private readonly nav: Listener<[Preventable, string]>[] = [];
  private readonly redirect: Listener<[Preventable, string]>[] = [];
  private readonly webview: Listener<[Preventable]>[] = [];
  private readonly gone: Listener<[{ reason: string; exitCode: number }]>[] = [];
  private readonly loaded: Listener[] = [];

  getURL() { return this.url; }
  send(channel: string, payload: unknown) { this.sent.push([channel, payload]); }
  reload() { this.reloads++; }
  forcefullyCrashRenderer() { this.forcedCrashes++; this.renderProcessGone('killed'); }
  setWindowOpenHandler(h: (url: string) => void) { this.openHandler = h; }
  onWillNavigate(l: Listener<[Preventable, string]>) { this.nav.push(l); }
  onWillRedirect(l: Listener<[Preventable, string]>) { this.redirect.push(l); }
  onWillAttachWebview(l: Listener<[Preventable]>) { this.webview.push(l); }
  onRenderProcessGone(l: Listener<[{ reason: string; exitCode: number }]>) { this.gone.push(l); }
  onDidFinishLoad(l: Listener) { this.loaded.push(l); }

  /** The page tries to navigate: true when the shell blocked it. */
  willNavigate(url: string): boolean {
    const e = preventable();
    for (const l of this.nav) l(e, url);
    return e.prevented;
  }
  willRedirect(url: string): boolean {
    const e = preventable();
    for (const l of this.redirect) l(e, url);
    return e.prevented;
  }
  willAttachWebview(): boolean {
    const e = preventable();
    for (const l of this.webview) l(e);
    return e.prevented;
  }
  renderProcessGone(reason: string, exitCode = 1) { for (const l of this.gone) l({ reason, exitCode }); }
  finishLoad() { for (const l of this.loaded) l(); }
  /** Events of one channel sent to the page. */
  events(channel: string): unknown[] { return this.sent.filter(([c]) => c === channel).map(([, p]) => p); }
}

export class FakeWindow implements WindowPort {
  readonly contents = new FakeContents();
  readonly options: WindowOptions;
  visible = false;
  minimized = false;
  maximized = false;
  destroyed = false;
  focused = 0;
  bounds: Rect;
  loadedUrl: string | null = null;
  private readonly readyToShow: Listener[] = [];
  private readonly closing: Listener<[Preventable]>[] = [];
  private readonly closed: Listener[] = [];
  private readonly changed: Listener[] = [];
  private readonly unresponsive: Listener[] = [];
  private readonly sessionEnd: Listener[] = [];
  private readonly responsive: Listener[] = [];
  private readonly fake: FakeElectron;

  constructor(fake: FakeElectron, options: WindowOptions) {
    this.fake = fake;
    this.options = options;
    this.bounds = options.bounds;
  }

  async loadURL(url: string) { this.loadedUrl = url; this.contents.url = url; }
  show() { this.visible = true; this.minimized = false; }
  hide() { this.visible = false; }
  focus() { this.focused++; }
  restore() { this.minimized = false; }
  maximize() { this.maximized = true; }
  close() { this.userClose(); }
  destroy() { this.destroyNow(); }
  isMinimized() { return this.minimized; }
  isMaximized() { return this.maximized; }
  isVisible() { return this.visible; }
  isDestroyed() { return this.destroyed; }
  getNormalBounds() { return this.bounds; }
  onReadyToShow(l: Listener) { this.readyToShow.push(l); }
  onClose(l: Listener<[Preventable]>) { this.closing.push(l); }
  onClosed(l: Listener) { this.closed.push(l); }
  onBoundsChanged(l: Listener) { this.changed.push(l); }
  onSessionEnd(l: Listener) { this.sessionEnd.push(l); }
  onUnresponsive(l: Listener) { this.unresponsive.push(l); }
  onResponsive(l: Listener) { this.responsive.push(l); }

  /** The page is ready: ready-to-show, then did-finish-load. */
  ready() {
    for (const l of this.readyToShow) l();
    this.contents.finishLoad();
  }
  /** The user clicks the close button: true when the window really closed. */
  userClose(): boolean {
    const e = preventable();
    for (const l of this.closing) l(e);
    if (e.prevented) return false;
    this.destroyNow();
    return true;
  }
  private destroyNow() {
    if (this.destroyed) return;
    this.destroyed = true;
    this.visible = false;
    for (const l of this.closed) l();
    this.fake.windowClosed();
  }
  moveTo(bounds: Rect) { this.bounds = bounds; for (const l of this.changed) l(); }
  hang() { for (const l of this.unresponsive) l(); }
  endSession() { for (const l of this.sessionEnd) l(); }
  recover() { for (const l of this.responsive) l(); }
}

export class FakeTray implements TrayPort {
  menu: readonly MenuItem[] = [];
  tooltip: string;
  destroyed = false;
  private readonly clicks: Listener[] = [];
  constructor(tooltip: string) { this.tooltip = tooltip; }
  setContextMenu(items: readonly MenuItem[]) { this.menu = items; }
  setToolTip(t: string) { this.tooltip = t; }
  onClick(l: Listener) { this.clicks.push(l); }
  destroy() { this.destroyed = true; }
  click() { for (const l of this.clicks) l(); }
  labels(): string[] { return this.menu.map((i) => (i.type === 'separator' ? '---' : `${i.label}${i.enabled === false ? ' (disabled)' : ''}`)); }
  item(label: string): MenuItem {
    const i = this.menu.find((m) => m.label === label);
    if (!i) throw new Error(`no tray item ${label}: ${this.labels().join(' | ')}`);
    return i;
  }
}

/** The OS's single-instance lock, shared by the fakes of several launches. */
export class FakeOs {
  holder: FakeElectron | null = null;
}

export interface FakeOptions {
  platform?: string;
  packaged?: boolean;
  displays?: DisplayInfo[];
  encryption?: boolean;
  os?: FakeOs;
  userData?: string;
  trayFails?: boolean;
}

export const DISPLAY_1: DisplayInfo = { id: 1, workArea: { x: 0, y: 0, width: 1920, height: 1040 } };
export const DISPLAY_2: DisplayInfo = { id: 2, workArea: { x: 1920, y: 0, width: 2560, height: 1400 } };

export class FakeElectron {
  readonly dir: string;
  readonly os: FakeOs;
  readonly windows: FakeWindow[] = [];
  tray: FakeTray | null = null;
  appMenu: readonly MenuItem[] = [];
  readonly opened: string[] = []; // shell.openExternal
  readonly openedPaths: string[] = [];
  readonly clipboard: string[] = [];
  readonly errorBoxes: [string, string][] = [];
  readonly messageBoxes: MessageBoxOptions[] = [];
  messageBoxAnswer = 0;
  saveDialogAnswer: string | null = null;
  readonly handlers = new Map<string, (s: IpcSender, a: readonly unknown[]) => Promise<unknown>>();
  readonly syncHandlers = new Map<string, (s: IpcSender) => unknown>();
  permissionRequest: ((p: string, url: string, id: number | null) => boolean) | null = null;
  permissionCheck: ((p: string, origin: string, id: number | null) => boolean) | null = null;
  loginItem: LoginItem = { openAtLogin: false };
  loginItemCalls: LoginItem[] = [];
  protocols: string[] = [];
  quitCalls = 0;
  exited: number | null = null;
  quitted = false;
  displays: DisplayInfo[];
  encryption: boolean;
  readonly port: ElectronPort;
  private readonly listeners = {
    secondInstance: [] as Listener<[readonly string[]]>[], openUrl: [] as Listener<[Preventable, string]>[],
    beforeQuit: [] as Listener<[Preventable]>[], allClosed: [] as Listener[], activate: [] as Listener[], contents: [] as Listener<[ContentsPort]>[],
  };
  private readyResolve: () => void = () => undefined;
  private readonly readyPromise = new Promise<void>((r) => { this.readyResolve = r; });

  constructor(o: FakeOptions = {}) {
    this.dir = o.userData ?? mkdtempSync(join(tmpdir(), 'bivouac-shell-'));
    this.os = o.os ?? new FakeOs();
    this.displays = o.displays ?? [DISPLAY_1];
    this.encryption = o.encryption ?? true;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the port's closures act on this fake
    const f = this;
    this.port = {
      platform: o.platform ?? 'linux',
      isPackaged: o.packaged ?? true,
      app: {
        getPath: (name) => join(f.dir, name),
        getVersion: () => '1.2.3',
        getExecPath: () => '/opt/Bivouac/bivouac',
        whenReady: () => f.readyPromise,
        requestSingleInstanceLock: () => {
          if (f.os.holder && f.os.holder !== f) return false;
          f.os.holder = f;
          return true;
        },
        setAsDefaultProtocolClient: (s) => { f.protocols.push(s); return true; },
        onSecondInstance: (l) => f.listeners.secondInstance.push(l),
        onOpenUrl: (l) => f.listeners.openUrl.push(l),
        onBeforeQuit: (l) => f.listeners.beforeQuit.push(l),
        onWindowAllClosed: (l) => f.listeners.allClosed.push(l),
        onActivate: (l) => f.listeners.activate.push(l),
        onWebContentsCreated: (l) => f.listeners.contents.push(l),
        getLoginItem: () => f.loginItem,
        setLoginItem: (item) => { f.loginItem = item; f.loginItemCalls.push(item); },
        quit: () => f.quit(),
        exit: (code) => { f.exited = code; },
      },
      createWindow: (options) => {
        const w = new FakeWindow(f, options);
        f.windows.push(w);
        for (const l of f.listeners.contents) l(w.contents);
        return w;
      },
      createTray: (_icon, tooltip) => {
        if (o.trayFails) throw new Error('no tray here');
        f.tray = new FakeTray(tooltip);
        return f.tray;
      },
      setApplicationMenu: (items) => { f.appMenu = items; },
      screen: {
        getAllDisplays: () => f.displays,
        getPrimaryDisplay: () => f.displays[0],
        getDisplayMatching: (r) => f.displays.find((d) => r.x >= d.workArea.x && r.x < d.workArea.x + d.workArea.width) ?? f.displays[0],
      },
      dialog: {
        showErrorBox: (t, m) => { f.errorBoxes.push([t, m]); },
        showMessageBox: async (m) => { f.messageBoxes.push(m); return f.messageBoxAnswer; },
        showSaveDialog: async () => f.saveDialogAnswer,
      },
      shell: {
        openExternal: async (url) => { f.opened.push(url); },
        openPath: async (p) => { f.openedPaths.push(p); return ''; },
      },
      clipboard: { writeText: (t) => { f.clipboard.push(t); } },
      safeStorage: {
        isEncryptionAvailable: () => f.encryption,
        // Reversible, but not the plain text: enough to see that what is stored is not the secret.
        encryptString: (s) => new Uint8Array(Buffer.from(`enc:${Buffer.from(s).toString('hex').split('').reverse().join('')}`)),
        decryptString: (c) => Buffer.from(Buffer.from(c).toString().slice(4).split('').reverse().join(''), 'hex').toString(),
      },
      ipc: {
        handle: (channel, h) => { f.handlers.set(channel, h); },
        onSync: (channel, h) => { f.syncHandlers.set(channel, h); },
      },
      session: {
        setPermissionRequestHandler: (h) => { f.permissionRequest = h; },
        setPermissionCheckHandler: (h) => { f.permissionCheck = h; },
      },
      updater: null,
    };
  }

  /** The app is ready (Electron's 'ready'). */
  ready() { this.readyResolve(); }
  get window(): FakeWindow { return this.windows[this.windows.length - 1]; }

  secondInstance(argv: readonly string[]) { for (const l of this.listeners.secondInstance) l(argv); }
  openUrl(url: string) { const e = preventable(); for (const l of this.listeners.openUrl) l(e, url); }
  activate() { for (const l of this.listeners.activate) l(); }
  /** Call an IPC handler as a sender would. */
  invoke(channel: string, sender: IpcSender, ...args: unknown[]): Promise<unknown> {
    const h = this.handlers.get(channel);
    if (!h) throw new Error(`no handler for ${channel}`);
    return h(sender, args);
  }
  sendSync(channel: string, sender: IpcSender): unknown { return this.syncHandlers.get(channel)!(sender); }

  quit() {
    this.quitCalls++;
    const e = preventable();
    for (const l of this.listeners.beforeQuit) l(e);
    if (e.prevented) return;
    this.quitted = true;
    for (const w of this.windows) if (!w.destroyed) w.userClose();
    if (this.os.holder === this) this.os.holder = null;
  }
  windowClosed() {
    if (this.windows.every((w) => w.destroyed)) for (const l of this.listeners.allClosed) l();
  }
  cleanup() { rmSync(this.dir, { recursive: true, force: true }); }
}

/** A fake local service: records its calls (and their order, with `events`). */
export class FakeService implements LocalService {
  readonly url: string;
  readonly token = '5aac8c4132687845b7119d564bfd9980c282a594';
  readonly events: string[];
  closed: { graceMs: number } | null = null;
  backups: string[] = [];
  constructor(port: number, events: string[]) {
    this.url = `http://127.0.0.1:${port}`;
    this.events = events;
  }
  async exportBackup(file: string) { this.backups.push(file); }
  async close(o: { graceMs: number }) { this.events.push('service closed'); this.closed = o; return { drained: true }; }
}

export function fakeStarter(events: string[] = [], taken: number[] = []) {
  const calls: StartServiceOptions[] = [];
  const services: FakeService[] = [];
  const start = async (o: StartServiceOptions): Promise<LocalService> => {
    calls.push(o);
    if (taken.includes(o.port)) throw Object.assign(new Error(`listen EADDRINUSE: address already in use 127.0.0.1:${o.port}`), { code: 'EADDRINUSE' });
    const s = new FakeService(o.port === 0 ? 50123 : o.port, events);
    services.push(s);
    return s;
  };
  return { start, calls, services };
}
