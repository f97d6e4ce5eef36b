// The status (D308, D317): what the engine knows, as the one SyncStatus the routes, the renderer and the
// shell read. Pure: the stored sync state and counts, and the engine's own fields, passed in.

import type { SyncState as StoredState } from '../store/queries/replica.ts';
import type { SyncState, SyncStatus } from '../service/sync.ts';
import type { RemoteAuth } from './remote.ts';
import { administrationOf } from '../../shared/sync/intents/admin.ts';

/** The engine's side of the status. */
export interface EngineView {
  readonly linked: boolean;
  readonly state: SyncState;
  readonly error: string | null;
  readonly progress: SyncStatus['progress'];
  readonly kind: 'team' | 'plain' | null;
  /** A connect going on in the background, not linked yet. */
  readonly pending: { readonly url: string; readonly auth: RemoteAuth } | null;
  /** The last success of a sync that committed nothing (kept in memory, D307). */
  readonly idleSuccessAt: string | null;
  readonly offlineSince: string | null;
  readonly live: boolean;
  /** ms until the retry after a failure (0: none waiting). */
  readonly retryInMs: number;
}

export function syncStatus(st: StoredState, counts: { pending: number; rejected: number; conflicts: number }, e: EngineView, now = Date.now()): SyncStatus {
  const stored = st.get('last_success_at') ?? null;
  const last = e.idleSuccessAt && (!stored || e.idleSuccessAt > stored) ? e.idleSuccessAt : stored;
  const p = e.pending;
  const admin = administrationOf((k) => st.get(k as Parameters<typeof st.get>[0]));
  return {
    // A resync round (a clone) that its run's bound cut (D248) goes on in the next run: still syncing, not "synced" (D346).
    state: e.linked ? (e.state === 'idle' && st.get('resync') ? 'syncing' : e.state) : p ? 'connecting' : e.state === 'error' && e.error ? 'error' : 'local', lastSuccessAt: last, ...counts, progress: e.progress,
    remote: st.get('url') ? { url: st.get('url')!, user: st.get('user') ?? null, kind: e.kind }
      : p ? { url: p.url.replace(/\/+$/, ''), user: 'user' in p.auth ? p.auth.user : null, kind: null } : null,
    error: e.error, nextAttemptAt: e.retryInMs > 0 ? new Date(now + e.retryInMs).toISOString() : null,
    offlineSince: e.linked && e.state === 'offline' ? e.offlineSince : null, live: e.live,
    administration: { mode: admin.mode, at: admin.mode === 'here' ? null : admin.at, plain: admin.mode === 'elsewhere' && admin.plain },
    // The names the desktop shell reads (docs/desktop-shell.md).
    lastSyncedAt: last, message: e.error,
  };
}
