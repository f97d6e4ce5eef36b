// What the sync phases share (issue #26, D317): the environment each phase is given, the records
// a pull carries to the apply, and the few constants of the hierarchy. No state lives here.

import { column, commentParent, RESOURCES, TABLE_ORDER, writableFields, type ResourceKey } from '../../shared/registry.ts';
import { rewriteIds, type IdLookup } from '../../shared/sync/ids.ts';
import type { WireRow } from '../../shared/sync/wire.ts';
import type { Store } from '../store/types.ts';
import { RemoteError, RemoteUnreachable } from './remote.ts';

/** What every phase is given by the engine: the store, where a record refused alone goes, where progress goes. */
export interface PhaseEnv {
  readonly store: Store;
  /** A remote record refused alone (D251, D252): logged, the rest goes on. */
  readonly refuse: (message: string) => void;
  /** Progress of the pull or the push (the status's `progress`, the CLI's bar). */
  readonly report: (phase: 'pull' | 'push', done: number, total: number) => void;
  /**
   * What the phases hold in memory between syncs instead of committing it (D343): a feed cursor moved past
   * changes this person cannot see, and a plain scan's deep-slice round while no scan committed. Owned by the
   * engine (one per store it syncs); lost on a restart, which only re-reads.
   */
  readonly held: Held;
}

export interface Held {
  /** The stored cursor it started from (`base`), the one reached, and since when it is held. */
  cursor?: { base: string; cursor: string; since: number };
  /** The deep slice's round of the last scans, which committed nothing. */
  round?: number;
}

/** Pages of one list a plain scan reads at most (posts 25 a page, time entries, comments; D248). */
export const MAX_LIST_PAGES = 4000;

/** A sync stopped by a transient failure: retried with the backoff, not before `retryAfterMs` (the remote's Retry-After). */
export class Backoff extends Error {
  readonly offline: boolean;
  readonly retryAfterMs: number | null;
  constructor(reason: string, offline: boolean, retryAfterMs: number | null = null) {
    super(reason);
    this.offline = offline;
    this.retryAfterMs = retryAfterMs;
  }
}

/** A failure the remote may get over by itself (no answer, 5xx, 429): retried; anything else is a refusal. */
export const transient = (e: unknown): boolean => e instanceof Backoff || e instanceof RemoteUnreachable
  || (e instanceof RemoteError && (e.status >= 500 || e.status === 429));

/** Parent columns a record cannot exist without. */
export const REQUIRED = new Set(['project_id', 'todo_list_id', 'commentable_id']);
/** Columns people edit (conflicts are about these): writable fields and completion. */
export const EDITED = Object.fromEntries(TABLE_ORDER.map((k) => [k, new Set([
  ...writableFields(RESOURCES[k], 'create').map((f) => column(f.name)), 'completed', 'responsible_party_type',
])])) as Record<ResourceKey, Set<string>>;

/** Shadow copies by `resource:remoteId`: the merge base of each record, and the scan scope it was read in. */
export type Shadows = Map<string, { row: WireRow; scope: string }>;
export interface Pulled { resource: ResourceKey; row: WireRow; scope: string }
export interface Scan { items: Pulled[]; scopes: Set<string>; members: Map<number, Set<number>> }
/** One feed page's or one scan part's records, applied as a set in one transaction. */
export interface PageSet extends Scan { deletes: [ResourceKey, number][] }
export const emptySet = (): PageSet => ({ items: [], scopes: new Set(), members: new Map(), deletes: [] });
/** Parents (by remote id) whose comments a plain scan reads even when their hints did not change. */
export type DeepSlice = (remoteId: number) => boolean;
export const NO_DEEP: DeepSlice = () => false;
export interface Pending { cols: Set<string>; created: boolean; deleted: boolean }

/** Fold an outbox entry's row changes into `into`, per record (`table:id`): created, deleted, columns written. */
export function addPending(into: Map<string, Pending>, changes: readonly { t: string; id: number; op: string; v?: Record<string, unknown> | null }[]): void {
  for (const c of changes) {
    const k = `${c.t}:${c.id}`;
    const p = into.get(k) ?? { cols: new Set<string>(), created: false, deleted: false };
    if (c.op === 'insert') p.created = true;
    else if (c.op === 'delete') p.deleted = true;
    else for (const col of Object.keys(c.v ?? {})) p.cols.add(col);
    into.set(k, p);
  }
}

export const add = (out: Scan, resource: ResourceKey, rows: WireRow[], scope: string): void => {
  out.scopes.add(scope);
  for (const row of rows) out.items.push({ resource, row, scope });
};

/** The scan scope a record belongs to (where a full scan would read it): deletions are found per scope. */
export function scopeOf(res: ResourceKey, row: WireRow, P: number | null): string {
  switch (res) {
    case 'company': return 'companies';
    case 'person': return 'people';
    case 'project': return 'projects';
    case 'category': return `p${P}/categories`;
    case 'post': return `p${P}/posts`;
    case 'milestone': return `p${P}/milestones`;
    case 'todoList': return `p${P}/lists`;
    case 'todoItem': return `p${P}/items/${row.todo_list_id}`;
    case 'timeEntry': return `p${P}/time`;
    case 'comment': return `p${P}/c/${(commentParent(row.commentable_type) ?? undefined)}${row.commentable_id}`;
  }
}

/**
 * The `resource:remoteId` keys an apply of these records looks up in the id map: each record, what
 * its row references, and what its shadow (the merge base, in `prev`) references.
 */
export function referencedKeys(items: readonly Pulled[], prev: ReadonlyMap<string, { row: WireRow }>): Set<string> {
  const keys = new Set<string>();
  const note: IdLookup = (r, id) => { keys.add(`${r}:${id}`); return undefined; };
  for (const { resource, row } of items) {
    keys.add(`${resource}:${row.id}`);
    rewriteIds(row, note);
    const base = prev.get(`${resource}:${row.id}`)?.row;
    if (base) rewriteIds(base, note);
  }
  return keys;
}
