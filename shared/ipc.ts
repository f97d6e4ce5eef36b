// The ONE contract between the Electron shell's main process and the page (renderer), imported by
// both sides: electron/shell/ipc.ts registers a handler for every invoke channel (and checks the
// sender and the arguments with the checks below), electron/preload.ts exposes exactly this through
// one `contextBridge` object, and the renderer's `window.bivouac` is typed as `BivouacBridge`.
// Adding a channel here without handling it in main, or reading a field the bridge does not have, is
// a type error. No Node, no DOM: plain data and pure checks.

/** The URL scheme the desktop app registers: `bivouac://projects/7/messages/12` opens that message. */
export const APP_SCHEME = 'bivouac';

// ---------------------------------------------------------------------------------------------
// Data that crosses the bridge

// Sync as the shell shows it: the one status of shared/sync-status.ts (D308).
export { LOCAL_ONLY, SYNC_STATES, type SyncState, type SyncStatus } from './sync-status.ts';
import type { SyncStatus } from './sync-status.ts';

/** The settings that belong to the shell (the rest lives in the account). */
export interface ShellSettings {
  /** Start Bivouac when the user logs in (opt-in). */
  readonly startAtLogin: boolean;
  /** Closing the window keeps the service (and sync) running in the tray. */
  readonly keepInTray: boolean;
  /** The port of the local API (fixed so local tools can rely on it). Used from the next start. */
  readonly apiPort: number;
}
export type ShellSettingsPatch = Partial<ShellSettings>;

/** Everything the desktop settings panel shows. */
export interface ShellState {
  readonly settings: ShellSettings;
  /** The origin the local API answers on now (may differ from settings.apiPort, see portMessage). */
  readonly apiUrl: string;
  /** Set when the configured port was taken at start (or a new port waits for a restart). */
  readonly portMessage: string | null;
  readonly dataDir: string;
  readonly logFile: string;
  /** False when the platform offers no keyring: secrets are then only protected by file permissions. */
  readonly secretsEncrypted: boolean;
  readonly sync: SyncStatus;
}

export type SettingsResult = { readonly ok: true; readonly state: ShellState } | { readonly ok: false; readonly error: string };

/** The session the preload reads synchronously before the page runs. */
export interface ShellSession {
  /** The API token of the local owner (HTTP Basic: the token as user name, any password). */
  readonly token: string;
  /** The origin of the local service, e.g. `http://127.0.0.1:4817`. */
  readonly apiBase: string;
  /** The app's version. */
  readonly version: string;
  /** process.platform of the main process (for shortcut labels). */
  readonly platform: string;
}

/** Commands of the application menu, carried out by the page. */
export type ShellCommand = 'settings' | 'search' | 'help' | 'new' | 'view:todos' | 'view:messages' | 'view:time' | 'view:report';
export const SHELL_COMMANDS: readonly ShellCommand[] = ['settings', 'search', 'help', 'new', 'view:todos', 'view:messages', 'view:time', 'view:report'];

// ---------------------------------------------------------------------------------------------
// Channels

/** Page → main, answered (ipcRenderer.invoke / ipcMain.handle): arguments and result of each. */
export interface InvokeContract {
  'shell:state': { args: []; result: ShellState };
  'shell:set-settings': { args: [patch: ShellSettingsPatch]; result: SettingsResult };
  'shell:open-data-folder': { args: []; result: void };
  'shell:open-log-folder': { args: []; result: void };
  /** Asks where to save (a dialog); null when the user cancelled, else the file written. */
  'shell:export-backup': { args: []; result: { readonly file: string | null } };
  /** "Copy API URL and token" for local tools. */
  'shell:copy-api-credentials': { args: []; result: void };
  /** Opens an http(s)/mailto link in the system browser; false when the URL was refused. */
  'shell:open-external': { args: [url: string]; result: boolean };
  'sync:status': { args: []; result: SyncStatus };
  'sync:run': { args: []; result: SyncStatus };
}
export type InvokeChannel = keyof InvokeContract;
export type InvokeArgs<C extends InvokeChannel> = InvokeContract[C]['args'];
export type InvokeResult<C extends InvokeChannel> = InvokeContract[C]['result'];

/** Main → page (webContents.send / ipcRenderer.on): the payload of each. */
export interface EventContract {
  'shell:sync-status': SyncStatus;
  /** A `bivouac://` link was opened: the page shows `hash` (e.g. `#/projects/7/messages/12`). */
  'shell:open-link': { readonly hash: string };
  'shell:command': ShellCommand;
  /** Something the user should know (the window was reloaded after a crash, …). */
  'shell:notice': { readonly title: string; readonly text: string };
}
export type EventChannel = keyof EventContract;

/** The one synchronous channel: the preload asks for the session before the page runs. */
export const SESSION_CHANNEL = 'shell:session';

/** What the page sees as `window.bivouac` (absent when the page runs in a plain browser). */
export interface BivouacBridge extends ShellSession {
  invoke<C extends InvokeChannel>(channel: C, ...args: InvokeArgs<C>): Promise<InvokeResult<C>>;
  /** Listen to an event of main; returns the function that stops listening. */
  on<E extends EventChannel>(channel: E, listener: (payload: EventContract[E]) => void): () => void;
}

// ---------------------------------------------------------------------------------------------
// Argument checks (main runs them on every call: the page is not trusted to send what the types say)

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const noArgs = (args: readonly unknown[]): string | null => (args.length === 0 ? null : `expects no arguments, got ${args.length}`);
export const MAX_URL_LENGTH = 2048;

function checkSettingsPatch(args: readonly unknown[]): string | null {
  if (args.length !== 1 || !isObject(args[0])) return 'expects one object of settings';
  const p = args[0];
  for (const [k, v] of Object.entries(p)) {
    if (k === 'startAtLogin' || k === 'keepInTray') {
      if (typeof v !== 'boolean') return `${k} must be true or false`;
    } else if (k === 'apiPort') {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 1024 || v > 65535) return 'apiPort must be a whole number from 1024 to 65535';
    } else return `unknown setting ${JSON.stringify(k).slice(0, 40)}`;
  }
  return null;
}

/** For each invoke channel: null when the arguments are acceptable, else why not. */
export const INVOKE_ARG_CHECKS: { readonly [C in InvokeChannel]: (args: readonly unknown[]) => string | null } = {
  'shell:state': noArgs,
  'shell:set-settings': checkSettingsPatch,
  'shell:open-data-folder': noArgs,
  'shell:open-log-folder': noArgs,
  'shell:export-backup': noArgs,
  'shell:copy-api-credentials': noArgs,
  'shell:open-external': (args) => (args.length === 1 && typeof args[0] === 'string' && args[0].length <= MAX_URL_LENGTH ? null : 'expects one URL (a string of at most 2048 characters)'),
  'sync:status': noArgs,
  'sync:run': noArgs,
};
export const INVOKE_CHANNELS = Object.keys(INVOKE_ARG_CHECKS) as InvokeChannel[];

const EVENTS: { readonly [E in EventChannel]: true } = { 'shell:sync-status': true, 'shell:open-link': true, 'shell:command': true, 'shell:notice': true };
export const EVENT_CHANNELS = Object.keys(EVENTS) as EventChannel[];

export const isInvokeChannel = (c: unknown): c is InvokeChannel => typeof c === 'string' && Object.hasOwn(INVOKE_ARG_CHECKS, c);
export const isEventChannel = (c: unknown): c is EventChannel => typeof c === 'string' && Object.hasOwn(EVENTS, c);

export function isShellSession(v: unknown): v is ShellSession {
  return isObject(v) && typeof v.token === 'string' && typeof v.apiBase === 'string' && typeof v.version === 'string' && typeof v.platform === 'string';
}

// ---------------------------------------------------------------------------------------------
// Links

const LINK_PATH = /^projects\/(\d{1,12})(?:\/(todos|messages|time|report)(?:\/(\d{1,12}))?)?\/?$/;

/**
 * The page route of a `bivouac://` link, or null when it is not one we understand (nothing else is
 * ever passed on): `bivouac://projects/7/messages/12` → `#/projects/7/messages/12`.
 */
export function appLinkHash(link: string): string | null {
  if (typeof link !== 'string' || link.length > MAX_URL_LENGTH) return null;
  const prefix = `${APP_SCHEME}://`;
  if (!link.toLowerCase().startsWith(prefix)) return null;
  const path = link.slice(prefix.length).split(/[?#]/)[0];
  if (path === '' || path === '/') return '#/';
  const m = LINK_PATH.exec(path);
  if (!m) return null;
  const [, project, view, id] = m;
  if (id && view !== 'messages') return null;
  return `#/projects/${project}${view ? `/${view}` : ''}${id ? `/${id}` : ''}`;
}
