// The sync engine's state, read from the local API: `GET /sync/status` and `POST /sync/run` (JSON,
// docs/desktop-shell.md). A service without these routes (404) has no sync: "local only".

import { LOCAL_ONLY, SYNC_STATES, type SyncState, type SyncStatus } from '../../shared/ipc.ts';
import type { SyncProgress } from '../../shared/sync-status.ts';
import type { SyncStatusSource } from './port.ts';

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);
const str = (v: unknown, max = 300): string | null => (typeof v === 'string' ? v.slice(0, max) : null);

/** The engine's `{done, total, phase}` (D308), or null. */
function progressOf(v: unknown): SyncProgress | null {
  const p = (typeof v === 'object' && v !== null ? v : null) as Record<string, unknown> | null;
  if (!p) return null;
  const phase = p.phase === 'pull' || p.phase === 'push' ? p.phase : undefined;
  return { done: num(p.done), total: num(p.total), ...(phase ? { phase } : {}) };
}

/** A status from the route's JSON (the engine's SyncStatus), tolerant of what it leaves out (conflicts may be a count or a list). */
export function normalizeSyncStatus(raw: unknown): SyncStatus {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const known = (SYNC_STATES as readonly unknown[]).includes(r.state);
  const state = known ? r.state as SyncState : 'error';
  const rem = (typeof r.remote === 'object' && r.remote !== null ? r.remote : null) as Record<string, unknown> | null;
  const last = str(r.lastSuccessAt) ?? str(r.lastSyncedAt) ?? str(r.last_synced_at);
  const message = str(r.error) ?? str(r.message) ?? (!known ? 'unreadable sync status' : null);
  return {
    state,
    lastSuccessAt: last,
    pending: num(r.pending),
    rejected: num(r.rejected),
    conflicts: Array.isArray(r.conflicts) ? r.conflicts.length : num(r.conflicts),
    progress: state === 'syncing' ? progressOf(r.progress) : null,
    remote: rem && typeof rem.url === 'string' ? { url: rem.url.slice(0, 500), user: str(rem.user), kind: rem.kind === 'team' || rem.kind === 'plain' ? rem.kind : null } : null,
    error: message,
    nextAttemptAt: str(r.nextAttemptAt),
    offlineSince: state === 'offline' ? str(r.offlineSince) : null,
    live: r.live === true,
    lastSyncedAt: last,
    message,
  };
}

export class HttpSyncStatusSource implements SyncStatusSource {
  private readonly base: string;
  private readonly auth: string;
  private readonly fetch: typeof fetch;
  constructor(base: string, token: string, f: typeof fetch = fetch) {
    this.base = base;
    this.auth = `Basic ${Buffer.from(`${token}:X`).toString('base64')}`;
    this.fetch = f;
  }

  private async call(method: 'GET' | 'POST', path: string): Promise<SyncStatus> {
    let res: Response;
    try {
      res = await this.fetch(`${this.base}${path}`, {
        method, headers: { Authorization: this.auth, Accept: 'application/json' }, signal: AbortSignal.timeout(10_000),
      });
    } catch (e) {
      const message = `the local service does not answer (${(e as Error).message})`;
      return { ...LOCAL_ONLY, state: 'error', message, error: message };
    }
    if (res.status === 404 || res.status === 405) {
      await res.body?.cancel();
      return LOCAL_ONLY; // this service has no sync
    }
    let body: unknown = null;
    try {
      body = await res.json();
    } catch { /* not JSON */ }
    if (!res.ok) return { ...LOCAL_ONLY, state: 'error', message: `sync status: HTTP ${res.status}`, error: `sync status: HTTP ${res.status}` };
    return normalizeSyncStatus(body);
  }

  status(): Promise<SyncStatus> { return this.call('GET', '/sync/status'); }
  runNow(): Promise<SyncStatus> { return this.call('POST', '/sync/run'); }
}
