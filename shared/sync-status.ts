// The one sync status (issue #26, D308): what the engine reports, `GET /sync/status` answers (JSON),
// the renderer shows in its header and the desktop shell in its tray. Pure: no Node, no DOM.

/**
 * `local`: no remote is connected (a standalone data directory, or a service without sync);
 * `connecting`: a connect goes on in the background (a start with --remote whose remote has not
 * answered yet; D253).
 */
export type SyncState = 'idle' | 'syncing' | 'offline' | 'error' | 'local' | 'connecting';
export const SYNC_STATES: readonly SyncState[] = ['idle', 'syncing', 'offline', 'error', 'local', 'connecting'];

/** While syncing (docs/sync-client.md §4, D163): how far, in units of `total` (0: unknown); `phase`: pulling or pushing. */
export interface SyncProgress { readonly done: number; readonly total: number; readonly phase?: 'pull' | 'push' }

export interface SyncStatus {
  readonly state: SyncState;
  /** When the last sync ended well (ISO 8601), null if never. */
  readonly lastSuccessAt: string | null;
  /** Outbox entries (local user actions) not yet on the remote. */
  readonly pending: number;
  /** Local actions the remote refused. */
  readonly rejected: number;
  /** Unresolved conflicts. */
  readonly conflicts: number;
  readonly progress: SyncProgress | null;
  readonly remote: { readonly url: string; readonly user: string | null; readonly kind: 'team' | 'plain' | null } | null;
  readonly error: string | null;
  /** When the next attempt after a failure is due (ISO time; null: none waiting). Backoff: D255. */
  readonly nextAttemptAt: string | null;
  /** State `offline`: since when the remote does not answer (ISO time), else null. */
  readonly offlineSince: string | null;
  /** The team server's change stream is open: its changes arrive within a second (D305). */
  readonly live: boolean;
  /**
   * Where people, companies and project members are administered (D338): `here` (not a replica), `queued` (a
   * replica of a team server that takes them: made here, sent at the next sync), `elsewhere` (a replica of a plain
   * server — `plain` — or of a team server without it, or a disconnected one: refused here; `at` is where).
   * Absent from an older service: read as `here` when there is no remote, else `elsewhere`.
   */
  readonly administration?: { readonly mode: 'here' | 'queued' | 'elsewhere'; readonly at: string | null; readonly plain: boolean };
  /** Aliases the desktop shell reads (docs/desktop-shell.md): lastSuccessAt and error. */
  readonly lastSyncedAt: string | null;
  readonly message: string | null;
}

export const LOCAL_ONLY: SyncStatus = Object.freeze({
  state: 'local', lastSuccessAt: null, pending: 0, rejected: 0, conflicts: 0, progress: null, remote: null,
  error: null, nextAttemptAt: null, offlineSince: null, live: false, lastSyncedAt: null, message: null,
});

/** How far a sync is, 0–1, or null when its total is not known (the tray's "Syncing… 40 %"). */
export function progressRatio(p: SyncProgress | null | undefined): number | null {
  if (!p || !(p.total > 0) || !Number.isFinite(p.done)) return null;
  return Math.min(1, Math.max(0, p.done / p.total));
}
