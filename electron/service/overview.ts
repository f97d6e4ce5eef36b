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

/**
 * The cursor of an event: where the page after it starts (`before` of the next page). `whole`: the page holds
 * every event of that event's second, and the next starts below the second (`at` alone: rank -1, D301 amended).
 */
export const cursorOf = (e: Pick<EventRow, 'at' | 'kind' | 'id'>, whole = false): string => (whole ? e.at : `${e.at}.${rankOf(e.kind)}.${e.id}`);

/** A page takes the rest of its last second up to this many more events (else it splits the second by kind and id). */
export const SECOND_MAX = 100;

/** A page of the caller's Overview: `limit` events before `before` (none: the newest). */
export async function overview(ctx: Ctx, opts: { before?: Cursor; limit?: number; today?: string; perProjectMax?: number; secondMax?: number } = {}): Promise<OverviewPage> {
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
  const read = async (n: number, before: Cursor | undefined): Promise<EventRow[]> => {
    const out: EventRow[] = [];
    for (const kind of EVENT_KINDS) {
      if (!perProject) out.push(...await kindEvents(store, caller, kind, n, today, before));
      else for (const p of visible) out.push(...await kindEvents(store, caller, kind, n, today, before, Number(p.id)));
    }
    return out.sort(newerFirst);
  };
  const found = await read(limit + 1, opts.before);
  let page = found.slice(0, limit);
  // A page never ends inside a second (times are seconds: an event made later in that second, of a kind ranked
  // after the cursor's, would sort after it and show on the next page instead of the top): it takes the rest of
  // its last second, and the next page starts below that second. Over SECOND_MAX more, the second is split.
  let whole = found.length <= limit || found[limit].at !== page[page.length - 1].at;
  let older = found.length > limit;
  if (!whole) {
    const t = page[page.length - 1].at;
    // Everything of second t still after the caller's cursor (rank 7: above every kind, so the whole second).
    const from: Cursor = opts.before && opts.before.at === t ? opts.before : { at: t, rank: EVENT_KINDS.length, id: 0 };
    const have = new Set(page.map((e) => `${e.kind}:${e.id}`));
    const max = opts.secondMax ?? SECOND_MAX;
    // (The page's own events of that second are read again: up to `limit` of them more per kind.)
    const rest = (await read(limit + max + 1, from)).filter((e) => e.at === t && !have.has(`${e.kind}:${e.id}`));
    if (rest.length <= max) {
      page = [...page, ...rest];
      whole = true;
      // Each kind was read only so far: is anything older than that second left?
      older = (await read(1, { at: t, rank: -1, id: 0 })).length > 0;
    }
  }
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
  return { events, next_before: older ? cursorOf(page[page.length - 1], whole) : null };
}
