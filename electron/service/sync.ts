// The sync port (issue #8): what the local /sync/* routes need from the sync engine
// (electron/sync/engine.ts implements it; electron/server.ts wires it). HTTP sees only this.

import type { ResourceKey } from '../../shared/registry.ts';

// The one sync status (D308).
export type { SyncState, SyncStatus } from '../../shared/sync-status.ts';
import type { SyncStatus } from '../../shared/sync-status.ts';

/**
 * A resolution: keep my value (or my deletion), keep theirs (or their deletion), or restore a record the
 * remote deleted with my changes and what I added under it (D311).
 */
export type ConflictAction = 'mine' | 'theirs' | 'restore';

/**
 * A conflict as people read it (D310; docs/sync-client.md §4). `mine`/`theirs`: the stored values (text);
 * `mineText`/`theirsText`: as people read them (a name for an id, Done / Not done, the text of a record
 * that was dropped); `format` says when they are dates the renderer localises. `actions`: the resolutions
 * that can succeed now (none once resolved).
 */
export interface ConflictView {
  id: number; resource: ResourceKey; recordId: number; field: string; kind: string;
  mine: string | null; theirs: string | null; at: string; resolved: boolean; keep: string | null;
  title: string; place: string[]; label: string; mineText: string | null; theirsText: string | null;
  format: 'text' | 'date' | 'datetime'; by: string | null; exists: boolean; actions: ConflictAction[];
  /** Recorded from the other side's notice: this replica lost (D329). */
  told: boolean;
  /** Told of a removal made here: whether the other side restored their work or left it deleted (D329). */
  outcome: 'restored' | 'dropped' | null;
}

export interface RejectedView {
  id: number; seq: number; resource: ResourceKey; recordId: number; method: string; path: string;
  status: number; message: string; at: string;
}

export type RemoteCredentials = { readonly user: string; readonly password: string } | { readonly token: string };

/**
 * A sync request that cannot go ahead (nothing changed): HTTP status and message. `transient`: the
 * remote did not answer (or was busy) and may later; `retryAfterMs`: how long it asked us to wait.
 */
export class SyncError extends Error {
  readonly status: number;
  readonly transient: boolean;
  readonly retryAfterMs: number | null;
  constructor(status: number, message: string, o: { transient?: boolean; retryAfterMs?: number | null } = {}) {
    super(message);
    this.status = status;
    this.transient = o.transient ?? false;
    this.retryAfterMs = o.retryAfterMs ?? null;
  }
}

export interface SyncPort {
  readonly connected: boolean;
  /** A connect goes on in the background (not linked yet): POST /sync/run tries it at once. */
  readonly connecting: boolean;
  status(): Promise<SyncStatus>;
  /** One sync now (joins one already running); rejects with the reason when it failed. */
  run(): Promise<void>;
  /**
   * Connect; a directory holding local work has it checked and pushed up, or is refused (409) with
   * everything that blocks it, unchanged (D150). `caller`: the local person asking (becomes the
   * remote person when no user name or e-mail matches).
   */
  connect(url: string, auth: RemoteCredentials, o?: { caller?: number | null }): Promise<void>;
  disconnect(): Promise<void>;
  conflicts(): Promise<ConflictView[]>;
  resolve(id: number, keep: ConflictAction): Promise<ConflictView>;
  rejected(): Promise<RejectedView[]>;
  /** The local person who owns this replica (null: standalone, administrators own it). */
  ownerId(): Promise<number | null>;
  /** A local write happened: sync soon. */
  nudge(): void;
  /** Start the interval timer. */
  start(): void;
  /** Call `fn` after each sync that committed something here (the local change streams look at once, D305). */
  onChanged?(fn: () => void): void;
}
