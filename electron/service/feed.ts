// The change feed as one caller sees it (docs/sync-protocol.md). The store keeps one entry per
// record (its latest change), tombstones, and membership changes, in commit order. Visibility is
// decided here, at read time, by the very operation that answers the record's own GET: when it
// answers 404 to this caller now, the entry is a delete, unless the caller is a client and clients never
// could see the record (D245: a private record's existence is not a client's business). A membership change of the caller is a
// `resync` of the project when the caller has access now, a delete of the project otherwise.

import { RESOURCES, type ResourceKey } from '../../shared/registry.ts';
import { rewriteIds } from '../../shared/sync/ids.ts';
import type { WireRow } from '../../shared/sync/wire.ts';
import { entriesAfter, feedBounds, feedPage } from '../store/queries/sync.ts';
import { MEMBERS } from '../store/feed.ts';
import type { Row } from '../store/types.ts';
import { ApiError, badRequest, type Ctx } from './context.ts';
import * as projects from './projects.ts';
import { redact } from './redact.ts';
import * as directory from './directory.ts';
import * as categories from './categories.ts';
import * as posts from './posts.ts';
import * as comments from './comments.ts';
import * as milestones from './milestones.ts';
import * as todoLists from './todo-lists.ts';
import * as todoItems from './todo-items.ts';
import * as timeEntries from './time-entries.ts';

export const DEFAULT_LIMIT = 500;
export const MAX_LIMIT = 1000;

/** The operation behind each resource's own GET of one record. */
const GET_ONE: Record<ResourceKey, (ctx: Ctx, id: number) => Promise<Row>> = {
  company: directory.company, person: directory.person, project: projects.get, category: categories.get,
  post: posts.get, comment: comments.get, milestone: milestones.get, todoList: todoLists.get,
  todoItem: todoItems.get, timeEntry: timeEntries.get,
};

const resourceOf = (table: string): ResourceKey | undefined => Object.values(RESOURCES).find((r) => r.table === table)?.key;

export interface FeedEntry {
  readonly seq: number;
  readonly resource: ResourceKey;
  readonly id: number;
  readonly op: 'upsert' | 'delete' | 'resync';
  readonly row?: Row;
}

/** `clock`: the newest commit sequence number this answer was read up to (a client's progress: cursor of clock). */
export interface FeedPage { readonly cursor: number; readonly more: boolean; readonly clock: number; readonly entries: readonly FeedEntry[] }

export const expired = (): ApiError => new ApiError(410, ['Cursor expired: resync in full']);

/**
 * `since`: absent or digits (0 = from the beginning). `limit`: 1..1000, default 500. `items`: absent
 * or `1` (a todo list's record carries its `todo_items`, as its GET), `0` (it does not: D170). `ahead`:
 * absent or `0` (a page carries its entries only), `1` (and the records they reference ahead of their entries, D348).
 */
export function parseFeedQuery(since: string | undefined, limit: string | undefined, items?: string, ahead?: string): { since: number; limit: number; items: boolean; ahead: boolean } {
  if (since !== undefined && !/^\d{1,16}$/.test(since)) throw badRequest('since must be a cursor (digits)');
  if (limit !== undefined && (!/^\d{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_LIMIT)) {
    throw badRequest(`limit must be 1..${MAX_LIMIT}`);
  }
  if (items !== undefined && items !== '0' && items !== '1') throw badRequest('items must be 0 or 1');
  if (ahead !== undefined && ahead !== '0' && ahead !== '1') throw badRequest('ahead must be 0 or 1');
  return { since: Number(since ?? 0), limit: limit === undefined ? DEFAULT_LIMIT : Number(limit), items: items !== '0', ahead: ahead === '1' };
}

export async function visible(ctx: Ctx, resource: ResourceKey, id: number, items = true): Promise<Row | null> {
  try {
    return await (resource === 'todoList' && !items ? todoLists.getBare : GET_ONE[resource])(ctx, id);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
}

/**
 * One page for the caller. `items` false: todo lists come without their embedded items (a sync client
 * gets each item as its own entry; with them, 100 item edits spread over 30 lists sent every item of
 * those lists: 93 % of the answer, D170).
 */
export async function changes(ctx: Ctx, since: number, limit: number, items = true, withAhead = false): Promise<FeedPage> {
  // The clock first: every entry up to it is committed, so a cursor never skips one.
  const { clock, horizon } = await feedBounds(ctx.store);
  if (since > 0 && (since < horizon || since > clock)) throw expired();
  const rows = await feedPage(ctx.store, ctx.caller, since, clock, limit + 1);
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const entries: FeedEntry[] = [];
  for (const r of page) {
    const seq = Number(r.seq), id = Number(r.record_id);
    if (r.tbl === MEMBERS) {
      if (ctx.caller.admin) continue; // administrators see every project whatever their membership
      const now = await visible(ctx, 'project', id);
      entries.push({ seq, resource: 'project', id, op: now ? 'resync' : 'delete' });
      continue;
    }
    const resource = resourceOf(r.tbl);
    if (!resource) continue;
    const row = r.op === 'delete' ? null : await visible(ctx, resource, id, items);
    // A record clients never could see is no business of a client: not even that it existed (D245).
    if (!row && !ctx.caller.firm && r.shown !== null && Number(r.shown) === 0) continue;
    entries.push(row ? { seq, resource, id, op: 'upsert', row } : { seq, resource, id, op: 'delete' });
  }
  const cursor = more ? Number(page[page.length - 1].seq) : Math.max(clock, since);
  if (more && withAhead) entries.push(...await ahead(ctx, entries, cursor, clock, items, 3 * limit + 10));
  // What the client may not see inside the records it sees, as on every other route (D32).
  const byResource = new Map<ResourceKey, Row[]>();
  for (const e of entries) {
    if (!e.row) continue;
    const rows = byResource.get(e.resource);
    if (rows) rows.push(e.row); else byResource.set(e.resource, [e.row]);
  }
  for (const [resource, rows] of byResource) await redact(ctx, RESOURCES[resource], rows);
  return { cursor, more, clock: Math.max(clock, since), entries };
}

/** How many levels of references a page carries ahead at most (an item's list, its project: 2; a comment's item, list, project: 3). */
const AHEAD_DEPTH = 4;

/**
 * The records a page's records reference whose own entry comes after the page (D348), as upserts of their
 * current state (with that entry's seq), and theirs in turn: a page is then whole by itself. A record's entry
 * moves to its latest change, and every change of a child changes its parents (a project's last-changed-on, a
 * list's counts, a post's comments): from cursor 0, a project's records came pages before the project, and a
 * client had to keep nearly the whole account aside until the last page. What the caller cannot see is left
 * out, as on its own GET; the entry still comes at its place (the same state again, or a newer one). At most
 * `max` records (a page's cost stays a few times its own; what is not carried, a client keeps aside, D248).
 * Only when the caller asks (`ahead=1`): a third-party client may count on a page's entries being its own.
 */
async function ahead(ctx: Ctx, entries: readonly FeedEntry[], cursor: number, clock: number, items: boolean, max: number): Promise<FeedEntry[]> {
  const out: FeedEntry[] = [];
  const inPage = new Set(entries.map((e) => `${e.resource}:${e.id}`));
  let frontier = entries;
  for (let depth = 0; depth < AHEAD_DEPTH && frontier.length; depth++) {
    const want = new Map<string, { tbl: string; id: number }>();
    for (const e of frontier) {
      if (!e.row) continue;
      rewriteIds(e.row as WireRow, (r, id) => {
        const k = `${r}:${id}`;
        if (!inPage.has(k)) want.set(k, { tbl: RESOURCES[r].table, id });
        return undefined;
      });
    }
    if (!want.size) break;
    const next: FeedEntry[] = [];
    for (const a of await entriesAfter(ctx.store, [...want.values()], cursor, clock)) {
      if (out.length + next.length >= max) break;
      const resource = resourceOf(a.tbl)!;
      inPage.add(`${resource}:${a.id}`);
      const row = await visible(ctx, resource, a.id, items);
      if (row) next.push({ seq: a.seq, resource, id: a.id, op: 'upsert', row });
    }
    out.push(...next);
    frontier = next;
  }
  return out;
}
