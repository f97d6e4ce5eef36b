// The Overview (docs/api-extensions.md E7, D300–D302): the caller's latest events across the projects they
// see, newest first, a page at a time (a keyset cursor, not an offset: a page does not shift when events
// arrive). Each kind of event is read with the visibility of its resource's own routes
// (store/queries/overview.ts); names follow the redaction of every other answer (D32: a client reads ''
// for a person of another client company).

import { EVENT_KINDS, kindEvents, projectCount, rankOf, type Cursor, type EventKind, type EventRow } from '../store/queries/overview.ts';
import { names, personNameOf } from '../store/queries/names.ts';
import { clientSees } from '../store/queries/redaction.ts';
import type { Ctx } from './context.ts';
import * as projects from './projects.ts';

export { EVENT_KINDS, type Cursor };

export const DEFAULT_LIMIT = 30;
export const MAX_LIMIT = 100;
/** Up to this many visible projects (and a quarter of the account's), a person's events are read project by project (D301). */
export const PER_PROJECT_MAX = 20;

/** The record each kind of event is about (its `resource`). */
const RESOURCE_OF: Readonly<Record<EventKind, string>> = {
  'post': 'post', 'comment': 'comment', 'todo-item': 'todo-item', 'todo-item-completed': 'todo-item',
  'milestone': 'milestone', 'milestone-completed': 'milestone', 'time-entry': 'time-entry',
};

export interface OverviewEvent extends EventRow {
  readonly resource: string;
  readonly project_name: string;
  readonly person_name: string | null;
}

export interface OverviewPage {
  readonly events: readonly OverviewEvent[];
  /** The `before` of the next page; null when this one is the last. */
  readonly next_before: string | null;
}

/** Newest first: time, then the kind's rank, then the id (the order of the cursor). Times compare as text (one format). */
const newerFirst = (a: EventRow, b: EventRow): number =>
  a.at !== b.at ? (a.at < b.at ? 1 : -1) : a.kind !== b.kind ? rankOf(b.kind) - rankOf(a.kind) : b.id - a.id;

/** The cursor of an event: where the page after it starts (`before` of the next page). */
export const cursorOf = (e: Pick<EventRow, 'at' | 'kind' | 'id'>): string => `${e.at}.${rankOf(e.kind)}.${e.id}`;

/** A page of the caller's Overview: `limit` events before `before` (none: the newest). */
export async function overview(ctx: Ctx, opts: { before?: Cursor; limit?: number; today?: string; perProjectMax?: number } = {}): Promise<OverviewPage> {
  const limit = opts.limit ?? DEFAULT_LIMIT;
  const today = opts.today ?? new Date().toISOString().slice(0, 10);
  const { store, caller } = ctx;
  // One more than a page of each kind: the page is the newest `limit` of them all, and one more says there is a next page.
  const visible = await projects.list(ctx);
  // A person who sees a few projects, a small part of the account (at most 20, at most a quarter): each project's
  // events off its own time index. Otherwise (administrators, members of most projects) the newest of the whole
  // account, filtered: for a few projects of a large account that would read past the records of all the others
  // (1 s for one small project beside 200,000 time entries), and project by project costs a statement per project
  // and kind (15-23 ms for a member of 10-13 projects of 13, against 1.2 ms) (D301).
  const perProject = !caller.admin && visible.length <= (opts.perProjectMax ?? PER_PROJECT_MAX)
    && (opts.perProjectMax !== undefined || visible.length * 4 <= await projectCount(store));
  const found: EventRow[] = [];
  for (const kind of EVENT_KINDS) {
    if (!perProject) found.push(...await kindEvents(store, caller, kind, limit + 1, today, opts.before));
    else for (const p of visible) found.push(...await kindEvents(store, caller, kind, limit + 1, today, opts.before, Number(p.id)));
  }
  found.sort(newerFirst);
  const page = found.slice(0, limit);
  const [n, sees] = await Promise.all([names(store), caller.firm ? Promise.resolve(undefined) : clientSees(store, caller)]);
  const projectNames = new Map(visible.map((p) => [Number(p.id), String(p.name ?? '')]));
  const events = page.map((e): OverviewEvent => {
    const name = personNameOf(n, e.person_id);
    return {
      ...e, resource: RESOURCE_OF[e.kind], project_name: projectNames.get(e.project_id) ?? '',
      // As redaction does for every record (D32): the id stays, the name of someone the client cannot see reads ''.
      person_name: name !== null && sees && e.person_id !== null && !sees.people.has(e.person_id) ? '' : name,
    };
  });
  return { events, next_before: found.length > limit ? cursorOf(page[page.length - 1]) : null };
}
