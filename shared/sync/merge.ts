// Merging pulled remote state with pending local edits (issue #8). Pure: no I/O.
//
// Policy: the server's order decides, field by field. Pulls run before pushes, so a pending local
// edit reaches the server AFTER the remote change it is merged with: for a field both sides
// changed, the local value wins and the remote value it will overwrite goes to the conflict log.
// Fields changed on one side only merge silently. All values here use LOCAL ids.

import type { Value, WireRow } from './wire.ts';

export type ConflictKind = 'field' | 'edit-vs-delete' | 'delete-vs-edit' | 'parent-deleted';

export interface Conflict {
  readonly field: string;
  readonly mine: Value;
  readonly theirs: Value;
  readonly kind: ConflictKind;
}

export const same = (a: Value | undefined, b: Value | undefined): boolean =>
  (a ?? null) === (b ?? null) || (typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) < 1e-9);

/** Keys of a decoded row that are record data (not the id, not full-scan hints). */
export const dataKeys = (row: WireRow): string[] => Object.keys(row).filter((k) => k !== 'id' && !k.startsWith('_'));

/**
 * Merge one pulled record.
 * @param base    the remote state last seen (undefined: never seen)
 * @param theirs  the remote state now
 * @param mine    the local row now
 * @param pending columns with local edits not yet pushed
 * @param edited  columns a person edits (writable fields, completion): only these conflict; a
 *                pending bookkeeping column (updated-at, position) just keeps its local value until pushed
 * @returns the columns to write locally, and the conflicts (remote values a pending edit overwrites)
 */
export function mergeRecord(
  base: WireRow | undefined, theirs: WireRow, mine: WireRow, pending: ReadonlySet<string>,
  edited: (col: string) => boolean = () => true,
): { apply: WireRow; conflicts: Conflict[] } {
  const apply: WireRow = {};
  const conflicts: Conflict[] = [];
  for (const col of dataKeys(theirs)) {
    const remoteChanged = base === undefined || !same(base[col], theirs[col]);
    if (!remoteChanged) continue;
    if (pending.has(col)) {
      if (!same(mine[col], theirs[col]) && base !== undefined && edited(col)) conflicts.push({ field: col, mine: mine[col] ?? null, theirs: theirs[col], kind: 'field' });
      continue;
    }
    if (!same(mine[col], theirs[col])) apply[col] = theirs[col];
  }
  return { apply, conflicts };
}

/**
 * A record deleted on the remote while local edits to it are pending: the delete wins (the record
 * is gone for everyone), every pending local value is kept in the conflict log.
 */
export function deletedRemotely(mine: WireRow, pending: ReadonlySet<string>): Conflict[] {
  return [...pending].map((field) => ({ field, mine: mine[field] ?? null, theirs: null, kind: 'edit-vs-delete' as const }));
}

/**
 * A record deleted locally (delete pending) that the remote changed meanwhile: the local delete
 * reaches the server later and wins; the remote values it throws away are logged.
 */
export function editedRemotely(base: WireRow | undefined, theirs: WireRow): Conflict[] {
  if (!base) return [];
  return dataKeys(theirs).filter((c) => !same(base[c], theirs[c])).map((field) => ({ field, mine: null, theirs: theirs[field], kind: 'delete-vs-edit' as const }));
}

/** A child created offline under a parent the remote deleted: logged with all its values, then dropped. */
export function orphaned(child: WireRow): Conflict {
  return { field: '*', mine: JSON.stringify(child), theirs: null, kind: 'parent-deleted' };
}

/** What a refused push (403, 404, 422) does: the action leaves the outbox for the rejected list. */
export type PushOutcome =
  | { readonly kind: 'done' }
  | { readonly kind: 'rejected'; readonly status: number; readonly message: string }
  | { readonly kind: 'retry'; readonly afterMs: number; readonly reason: string };

/**
 * Classify a push response: 2xx done; 403/404/409/410/422 (and other 4xx but 408/425/429) are
 * refusals that will not change by retrying; 408/425/429/5xx/network errors retry, honouring
 * Retry-After (seconds or an HTTP date, against `now`: the remote's clock from its Date header when it
 * sent one, so clock skew between the machines does not stretch the wait), else exponential backoff
 * from `attempt`. A Retry-After wait is capped at one hour (a retry sooner just meets another 503).
 */
const MAX_RETRY_AFTER_MS = 3_600_000;

export function classify(status: number | null, retryAfter: string | null | undefined, attempt: number, now: number, message = ''): PushOutcome {
  if (status !== null && status >= 200 && status < 300) return { kind: 'done' };
  const transient = status === null || status === 408 || status === 425 || status === 429 || status >= 500 || status === 401
    || (status === 409 && !!retryAfter); // an idempotent request still running on the server
  if (!transient) return { kind: 'rejected', status, message: message || `HTTP ${status}` };
  let after = Math.min(60_000, 500 * 2 ** Math.min(attempt, 7));
  if (retryAfter && (status === 429 || status === 503 || status === 409)) {
    const s = Number(retryAfter);
    if (Number.isFinite(s) && s >= 0) after = s * 1000;
    else {
      const t = Date.parse(retryAfter);
      if (!Number.isNaN(t)) after = Math.max(0, t - now);
    }
    after = Math.min(after, MAX_RETRY_AFTER_MS);
  }
  return { kind: 'retry', afterMs: after, reason: status === null ? message || 'network error' : `HTTP ${status}` };
}
