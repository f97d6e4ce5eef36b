// What the desktop shell is given (electron/shell/shell.ts): its options and its dependencies, the port to
// Electron among them. electron/desktop.ts gives the real ones, tests/electron/shell/shell.test.ts fakes.

import type { Log } from './log.ts';
import type { ElectronPort, LocalService, StartService, SyncStatusSource } from './port.ts';

export interface ShellOptions {
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** The compiled preload (dist/electron/preload.cjs). */
  readonly preload: string;
  readonly windowIcon: string | null;
  readonly trayIcon: string;
  /** The API reference: a file (opened with the system's viewer) or an http(s) address. */
  readonly apiDocsUrl: string;
  /** Longest wait for a running sync on quit (default 15 s). */
  readonly syncWaitMs?: number;
  /** Longest wait for requests in flight on quit (default 5 s). */
  readonly requestGraceMs?: number;
  /** How often the sync state is read (default 5 s). */
  readonly syncPollMs?: number;
  /** How long a window may hang before it is reloaded (default 10 s). */
  readonly hangReloadMs?: number;
  /**
   * The longest a quit may take, all of it (default 45 s: the sync's wait, the requests' grace, the
   * service's own stop, and a margin). Past it the app exits anyway: a quit never hangs.
   */
  readonly quitDeadlineMs?: number;
}

export interface ShellDeps {
  readonly port: ElectronPort;
  readonly startService: StartService;
  readonly syncSource: (service: LocalService) => SyncStatusSource;
  readonly log?: Log & { readonly file: string };
  /** True when nothing listens on the port (default: try to listen on 127.0.0.1). */
  readonly portFree?: (port: number) => Promise<boolean>;
  readonly now?: () => number;
  /**
   * The process's warnings and its errors that nothing caught (main.ts gives `process`): written to the log, as
   * a packaged app's stderr is shown nowhere (the store's checkpoint worker failing, D233, D235; D352).
   */
  readonly processEvents?: ProcessEvents;
}

/** What the shell hears from its process (Node's `process`). */
export interface ProcessEvents {
  on(event: 'warning', listener: (w: Error) => void): unknown;
  on(event: 'uncaughtException', listener: (e: Error) => void): unknown;
  on(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
}
