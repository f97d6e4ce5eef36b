// The sync engine's state, read from the local API: `GET /sync/status` and `POST /sync/run` (JSON,
// docs/desktop-shell.md). A service without these routes (404) has no sync: "local only".

import { LOCAL_ONLY, SYNC_STATES, type SyncState, type SyncStatus } from '../../shared/ipc.ts';
import type { SyncStatusSource } from './port.ts';

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);

/** A status from the route's JSON, tolerant of what it leaves out (conflicts may be a count or a list). */
export function normalizeSyncStatus(raw: unknown): SyncStatus {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const state = (SYNC_STATES as readonly unknown[]).includes(r.state) ? r.state as SyncState : 'error';
  const progress = typeof r.progress === 'number' && Number.isFinite(r.progress) ? Math.min(1, Math.max(0, r.progress)) : null;
  return {
    state,
    pending: num(r.pending),
    conflicts: Array.isArray(r.conflicts) ? r.conflicts.length : num(r.conflicts),
    progress: state === 'syncing' ? progress : null,
    lastSyncedAt: typeof r.lastSyncedAt === 'string' ? r.lastSyncedAt : typeof r.last_synced_at === 'string' ? r.last_synced_at : null,
    message: typeof r.message === 'string' ? r.message.slice(0, 300) : state === 'error' && !(SYNC_STATES as readonly unknown[]).includes(r.state) ? 'unreadable sync status' : null,
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
      return { ...LOCAL_ONLY, state: 'error', message: `the local service does not answer (${(e as Error).message})` };
    }
    if (res.status === 404 || res.status === 405) {
      await res.body?.cancel();
      return LOCAL_ONLY; // this service has no sync
    }
    let body: unknown = null;
    try {
      body = await res.json();
    } catch { /* not JSON */ }
    if (!res.ok) return { ...LOCAL_ONLY, state: 'error', message: `sync status: HTTP ${res.status}` };
    return normalizeSyncStatus(body);
  }

  status(): Promise<SyncStatus> { return this.call('GET', '/sync/status'); }
  runNow(): Promise<SyncStatus> { return this.call('POST', '/sync/run'); }
}
