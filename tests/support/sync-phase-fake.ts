// A fake remote for the sync phases' unit tests (issue #26, D317): an in-memory object with the few
// methods of electron/sync/remote.ts a phase uses (list, getXml, changes, request, batch), no HTTP.
// Every call is logged; lists and feed pages are set by the test; writes answer through `answer`.

import type { ResourceKey } from '../../shared/registry.ts';
import type { XNode } from '../../shared/codec/in.ts';
import type { WireRow } from '../../shared/sync/wire.ts';
import type { BatchCaps, FeedChange, RemoteResponse } from '../../electron/sync/remote.ts';
import { SqliteStore } from '../../electron/store/sqlite.ts';
import type { PhaseEnv } from '../../electron/sync/phase.ts';

export interface FeedPage { cursor: string; more: boolean; clock: number | null; changes: FeedChange[]; refused: string[] }
export interface Sent { method: string; path: string; body: string | null; headers: Record<string, string> }

export class FakeRemote {
  readonly url = 'http://fake.invalid';
  /** Rows of each list path (what Remote.list would decode). */
  readonly lists = new Map<string, WireRow[]>();
  /** Feed pages by the cursor they are asked with (`since`). */
  readonly pages = new Map<string, FeedPage | Error>();
  /** The answer to a write (request), or an error to throw (an answer lost). */
  answer: (s: Sent) => RemoteResponse | Error = () => ({ status: 200, headers: new Headers(), body: '' });
  batch: BatchCaps | null = null;
  batchOff: string | null = null;
  /** Every call, in order: `GET path`, `changes since`, `POST path`. */
  readonly log: string[] = [];
  readonly sent: Sent[] = [];

  async list(_resource: ResourceKey, path: string): Promise<WireRow[]> {
    this.log.push(`GET ${path}`);
    return (this.lists.get(path) ?? []).map((r) => ({ ...r }));
  }

  /** An XML page: the rows of `lists` under the same path (time entries, comments, a create looked for), one page. */
  async getXml(path: string): Promise<{ root: XNode | null; headers: Headers }> {
    this.log.push(`GET ${path}`);
    const rows = this.lists.get(path) ?? this.lists.get(path.replace(/[?&]page=1$/, ''));
    if (!rows?.length) return { root: null, headers: new Headers() };
    const node = (name: string, text: string, attrs: Record<string, string> = {}): XNode => ({ name, attrs, children: [], text, nil: false });
    const root: XNode = {
      name: 'records', attrs: { type: 'array' }, text: '', nil: false,
      children: rows.map((r) => ({
        name: 'record', attrs: {}, text: '', nil: false,
        children: Object.entries(r).map(([k, v]) => node(k.replace(/_/g, '-'), String(v), typeof v === 'number' ? { type: 'integer' } : {})),
      })),
    };
    return { root, headers: new Headers() };
  }

  async changes(since: string, _limit?: number): Promise<FeedPage> {
    this.log.push(`changes ${since}`);
    const p = this.pages.get(since);
    if (!p) return { cursor: since, more: false, clock: null, changes: [], refused: [] };
    if (p instanceof Error) throw p;
    return p;
  }

  async request(method: string, path: string, body: string | null = null, headers: Record<string, string> = {}): Promise<RemoteResponse> {
    this.log.push(`${method} ${path}`);
    const s = { method, path, body, headers };
    this.sent.push(s);
    const a = this.answer(s);
    if (a instanceof Error) throw a;
    return a;
  }
}

/** An empty replica store (in memory) and a phase environment over it that records refusals and progress. */
export function phaseEnv(): PhaseEnv & { store: SqliteStore; refused: string[]; progress: string[] } {
  const store = new SqliteStore(':memory:');
  const refused: string[] = [];
  const progress: string[] = [];
  return { store, refused, progress, refuse: (m) => refused.push(m), report: (phase, done, total) => progress.push(`${phase} ${done}/${total}`), held: {} };
}
