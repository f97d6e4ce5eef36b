// The port between the desktop shell's logic (electron/shell/*) and Electron. The logic imports only
// these types; electron/main.ts implements them over the real `electron` module, tests over a fake
// (tests/support/shell-fake.ts). Everything here is what the shell needs, no more: small enough to fake
// completely, typed closely enough that main.ts's adapter typechecks against Electron's own types.

import type { ShellCommand, SyncStatus } from '../../shared/ipc.ts';
import type { TokenVault } from '../sync/token-vault.ts';
import type { Log } from './log.ts';

export interface Rect { readonly x: number; readonly y: number; readonly width: number; readonly height: number }

export interface DisplayInfo {
  readonly id: number;
  /** The usable part of the display (without task bars and docks), in screen coordinates. */
  readonly workArea: Rect;
}

export interface Preventable { preventDefault(): void }

/** A web page's contents (of our window, or any other that something tries to create). */
export interface ContentsPort {
  readonly id: number;
  getURL(): string;
  send(channel: string, payload: unknown): void;
  reload(): void;
  /** Kill a hung renderer so that it can be reloaded. */
  forcefullyCrashRenderer(): void;
  /** `window.open`, target=_blank links: the answer is always to deny; the handler may open the URL elsewhere. */
  setWindowOpenHandler(handler: (url: string) => void): void;
  onWillNavigate(listener: (e: Preventable, url: string) => void): void;
  onWillRedirect(listener: (e: Preventable, url: string) => void): void;
  onWillAttachWebview(listener: (e: Preventable) => void): void;
  onRenderProcessGone(listener: (details: { reason: string; exitCode: number }) => void): void;
  onDidFinishLoad(listener: () => void): void;
}

export interface WindowOptions {
  readonly bounds: Rect;
  readonly minWidth: number;
  readonly minHeight: number;
  readonly title: string;
  readonly preload: string;
  readonly icon: string | null;
  /** DevTools at all (off in packaged builds: no menu item, no shortcut, no devtools API). */
  readonly devTools: boolean;
}

export interface WindowPort {
  readonly contents: ContentsPort;
  loadURL(url: string): Promise<void>;
  show(): void;
  hide(): void;
  focus(): void;
  restore(): void;
  maximize(): void;
  close(): void;
  destroy(): void;
  isMinimized(): boolean;
  isMaximized(): boolean;
  isVisible(): boolean;
  isDestroyed(): boolean;
  /** Bounds when neither maximised nor minimised (what is remembered). */
  getNormalBounds(): Rect;
  onReadyToShow(listener: () => void): void;
  onClose(listener: (e: Preventable) => void): void;
  onClosed(listener: () => void): void;
  /** Moved, resized, maximised or restored. */
  onBoundsChanged(listener: () => void): void;
  /** Windows is logging off or shutting down (the window would otherwise be hidden, not closed). */
  onSessionEnd(listener: () => void): void;
  onUnresponsive(listener: () => void): void;
  onResponsive(listener: () => void): void;
}

export type MenuRole =
  | 'undo' | 'redo' | 'cut' | 'copy' | 'paste' | 'pasteAndMatchStyle' | 'delete' | 'selectAll'
  | 'reload' | 'forceReload' | 'toggleDevTools' | 'resetZoom' | 'zoomIn' | 'zoomOut' | 'togglefullscreen'
  | 'minimize' | 'zoom' | 'close' | 'front' | 'quit' | 'about' | 'services' | 'hide' | 'hideOthers' | 'unhide'
  | 'appMenu' | 'editMenu' | 'viewMenu' | 'windowMenu' | 'help';

export interface MenuItem {
  readonly label?: string;
  readonly role?: MenuRole;
  readonly type?: 'normal' | 'separator' | 'checkbox';
  readonly accelerator?: string;
  readonly enabled?: boolean;
  readonly checked?: boolean;
  readonly click?: () => void;
  readonly submenu?: readonly MenuItem[];
}

export interface TrayPort {
  setContextMenu(items: readonly MenuItem[]): void;
  setToolTip(text: string): void;
  onClick(listener: () => void): void;
  destroy(): void;
}

export interface MessageBoxOptions {
  readonly type: 'info' | 'warning' | 'error' | 'question';
  readonly title: string;
  readonly message: string;
  readonly detail?: string;
  readonly buttons: readonly string[];
}

/** Who sent an IPC message: the frame's URL (null if it is gone) and the contents it belongs to. */
export interface IpcSender {
  readonly frameUrl: string | null;
  readonly contentsId: number;
}

export interface LoginItem { readonly openAtLogin: boolean }

export interface ElectronPort {
  readonly platform: string;
  readonly isPackaged: boolean;
  readonly app: {
    getPath(name: 'userData' | 'logs' | 'documents' | 'home' | 'appData'): string;
    getVersion(): string;
    /** The command that starts the app (for the Linux autostart entry). */
    getExecPath(): string;
    whenReady(): Promise<void>;
    requestSingleInstanceLock(): boolean;
    setAsDefaultProtocolClient(scheme: string): boolean;
    onSecondInstance(listener: (argv: readonly string[]) => void): void;
    /** macOS delivers `bivouac://` links this way. */
    onOpenUrl(listener: (e: Preventable, url: string) => void): void;
    onBeforeQuit(listener: (e: Preventable) => void): void;
    onWindowAllClosed(listener: () => void): void;
    onActivate(listener: () => void): void;
    onWebContentsCreated(listener: (contents: ContentsPort) => void): void;
    /** macOS and Windows only (Linux uses an XDG autostart entry, electron/shell/login-item.ts). */
    getLoginItem(): LoginItem;
    setLoginItem(item: LoginItem): void;
    quit(): void;
    exit(code: number): void;
  };
  createWindow(options: WindowOptions): WindowPort;
  createTray(icon: string, tooltip: string): TrayPort;
  setApplicationMenu(items: readonly MenuItem[]): void;
  readonly screen: {
    getAllDisplays(): readonly DisplayInfo[];
    getPrimaryDisplay(): DisplayInfo;
    getDisplayMatching(rect: Rect): DisplayInfo;
  };
  readonly dialog: {
    showErrorBox(title: string, text: string): void;
    showMessageBox(options: MessageBoxOptions): Promise<number>;
    /** The chosen file, or null when cancelled. */
    showSaveDialog(options: { title: string; defaultPath: string; filters: { name: string; extensions: string[] }[] }): Promise<string | null>;
  };
  readonly shell: {
    openExternal(url: string): Promise<void>;
    /** '' on success, else the error. */
    openPath(path: string): Promise<string>;
  };
  readonly clipboard: { writeText(text: string): void };
  readonly safeStorage: {
    /** True only when a real keyring (not Chromium's hard-coded-password fallback) protects the key. */
    isEncryptionAvailable(): boolean;
    encryptString(plain: string): Uint8Array;
    decryptString(cipher: Uint8Array): string;
  };
  readonly ipc: {
    handle(channel: string, handler: (sender: IpcSender, args: readonly unknown[]) => Promise<unknown>): void;
    /** A synchronous message (ipcRenderer.sendSync): the handler's value is the answer. */
    onSync(channel: string, handler: (sender: IpcSender) => unknown): void;
  };
  readonly session: {
    setPermissionRequestHandler(handler: (permission: string, requestingUrl: string, contentsId: number | null) => boolean): void;
    setPermissionCheckHandler(handler: (permission: string, requestingOrigin: string, contentsId: number | null) => boolean): void;
  };
  readonly updater: { checkForUpdates(): Promise<void> } | null;
}

// ---------------------------------------------------------------------------------------------
// What the shell drives besides Electron

/** The sync engine as the shell sees it (electron/shell/sync-source.ts talks to the local API). */
export interface SyncStatusSource {
  status(): Promise<SyncStatus>;
  runNow(): Promise<SyncStatus>;
}

/** The local service (electron/server.ts) as the shell sees it. */
export interface LocalService {
  /** The origin it answers on, e.g. `http://127.0.0.1:4817`. */
  readonly url: string;
  /** The local owner's API token. */
  readonly token: string;
  /** Write the whole account as JSON (the `bivouac export` format). */
  exportBackup(file: string): Promise<void>;
  /**
   * Stop taking requests, let the ones in flight finish (at most graceMs), close the store after its
   * last write. drained: false when requests had to be cut off.
   */
  close(opts: { graceMs: number }): Promise<{ drained: boolean }>;
}

export interface StartServiceOptions {
  readonly dataDir: string;
  readonly port: number;
  /** Where the sync engine keeps the remote token: the shell's encrypted secrets (D110). */
  readonly tokenVault: TokenVault;
  /** Where the service's own log lines go (its errors: an unexpected 500, housekeeping), D235. */
  readonly log?: Pick<Log, 'warn' | 'error'>;
}
export type StartService = (o: StartServiceOptions) => Promise<LocalService>;

export type { ShellCommand };
