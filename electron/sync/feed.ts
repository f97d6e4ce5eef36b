// The feed pull (D317): the team server's change feed since the saved cursor, page by page, each page
// applied with its cursor in ONE transaction (D248). Input: the store (cursor, resync round, shadows),
// a remote with a feed; output: whether the feed's end was reached (the pages are in the store).

import { commentParent, type ResourceKey } from '../../shared/registry.ts';
import { unrepresentable, type WireRow } from '../../shared/sync/wire.ts';
import * as q from '../store/queries/replica.ts';
import { cursorAfter, RemoteError, RemoteFeedBroken, type FeedChange, type Remote } from './remote.ts';
import { applySet } from './apply.ts';
import { members, safeList, scanProject, type ScanRemote } from './scan.ts';
import { add, emptySet, referencedKeys, scopeOf, type PhaseEnv, type Shadows } from './phase.ts';

/** What a feed pull asks of the remote: its pages, and the public routes for a project's resync. */
export type FeedRemote = ScanRemote & Pick<Remote, 'changes'>;
export type FeedPage = Awaited<ReturnType<Remote['changes']>>;

/** How much one run reads at most (D248): the rest in the next run. */
export interface FeedOptions {
  /** Feed pages one run reads at most (default 250 pages of 1000 changes). */
  readonly maxPullPages?: number;
  /** Time one run spends pulling at most (default 120 s). */
  readonly maxPullMs?: number;
}

/**
 * The team server's change feed since the saved cursor (O(changes)), page by page: each page is
 * applied with its cursor in ONE transaction (D248), so memory holds one page and an interrupted
 * pull (a kill, the run's bound) goes on from the last saved page without duplicates. A run reads
 * at most `maxPullPages` pages and `maxPullMs`; a cursor that does not advance with `more: true`
 * stops it. From cursor 0 (a clone) or after a 410, the feed is a full resync: a round marker kept
 * in the state until its last page, which removes what the round did not bring. Returns whether
 * the feed's end was reached.
 */
export async function pullFeed(env: PhaseEnv, remote: FeedRemote, o: FeedOptions = {}): Promise<boolean> {
  const st = await q.state(env.store);
  const stored = st.get('cursor') ?? null;
  // A cursor moved by pages without a change is held in memory (D343): used while the stored one is still its base.
  const held = env.held.cursor;
  let since = held && stored !== null && held.base === stored ? held.cursor : stored;
  let round = st.get('resync') ?? (since === null ? String(Date.now()) : null);
  let start = Number(since ?? 0);
  const maxPages = Math.max(1, o.maxPullPages ?? 250);
  const until = Date.now() + Math.max(1, o.maxPullMs ?? 120_000);
  let read = 0;
  for (;;) {
    if (read >= maxPages || (read > 0 && Date.now() >= until)) return false;
    let page: FeedPage;
    try {
      page = await remote.changes(since ?? '0', 1000);
    } catch (e) {
      if (e instanceof RemoteError && e.status === 410 && since !== null && since !== '0') {
        since = null;
        start = 0;
        round = String(Date.now());
        continue;
      }
      throw e;
    }
    read++;
    for (const m of page.refused) env.refuse(m);
    if (page.more && !cursorAfter(since ?? '0', page.cursor)) {
      throw new RemoteFeedBroken(200, `The remote's change feed does not advance (more: true with the cursor ${page.cursor} after ${since ?? '0'}): sync stopped; it goes on when the remote's feed moves again`);
    }
    // Progress in commit sequence numbers: how far the cursor goes with this page of what there is to read
    // (told before the page is applied, which is most of a page's time: a one-page clone shows it too).
    if (page.clock !== null && page.clock > start) env.report('pull', Math.min(Number(page.cursor), page.clock) - start, page.clock - start);
    else env.report('pull', read, 0);
    // Nothing visible (no change, no round, nothing parked): nothing to commit (D307), even when the cursor
    // moved past changes this person cannot see (D343): the moved cursor is held in memory, and written
    // with the next page applied, or once it has been held a day (a restart re-reads at most that much).
    const idle = !page.changes.length && round === null && since !== null && !(await q.hasParked(env.store));
    const base = held && stored !== null && held.base === stored ? held : null;
    if (idle && !(base && Date.now() - base.since >= HOLD_MS)) {
      if (page.cursor !== since) env.held.cursor = { base: stored!, cursor: page.cursor, since: base?.since ?? Date.now() };
    } else {
      await applyPage(env, remote, page, round, !page.more);
      delete env.held.cursor;
    }
    since = page.cursor;
    if (!page.more) round = null;
    if (!page.more) return true;
  }
}

/** How long a cursor moved without a visible change is kept in memory only (D343). */
const HOLD_MS = 86_400_000;

/** One feed page: the shadows it needs, the projects it resyncs, then applied with its cursor in one transaction. */
export async function applyPage(env: PhaseEnv, remote: FeedRemote, page: FeedPage, round: string | null, last: boolean): Promise<void> {
  const latest = new Map<string, FeedChange>();
  for (const c of page.changes) latest.set(`${c.resource}:${c.id}`, c);
  const prev: Shadows = new Map();
  const parentOf = (row: WireRow | undefined): string[] => {
    if (!row) return [];
    const keys: string[] = [];
    if (row.todo_list_id) keys.push(`todoList:${row.todo_list_id}`);
    const pr = (commentParent(row.commentable_type) ?? undefined);
    if (pr) keys.push(`${pr}:${row.commentable_id}`);
    return keys;
  };
  const keys = new Set<string>();
  for (const c of latest.values()) { keys.add(`${c.resource}:${c.id}`); for (const k of parentOf(c.record)) keys.add(k); }
  await q.shadowsByKeys(env.store, keys, prev);
  const second = new Set<string>();
  for (const k of keys) for (const p of parentOf(prev.get(k)?.row ?? latest.get(k)?.record)) if (!prev.has(p)) second.add(p);
  await q.shadowsByKeys(env.store, second, prev);
  for (const c of latest.values()) if (c.op === 'resync' && c.resource === 'project') await q.shadowsInScope(env.store, `p${c.id}/`, prev);
  const out = emptySet();
  const projectOf = (res: ResourceKey, row: WireRow): number | null => {
    if (row.project_id !== undefined && row.project_id !== null) return Number(row.project_id);
    const up = (r: ResourceKey, id: unknown) => latest.get(`${r}:${id}`)?.record ?? prev.get(`${r}:${id}`)?.row;
    if (res === 'todoItem') return Number(up('todoList', row.todo_list_id)?.project_id ?? NaN);
    if (res === 'comment') {
      const parentRes = (commentParent(row.commentable_type) ?? undefined);
      const parent = parentRes ? up(parentRes, row.commentable_id) : undefined;
      if (!parent) return null;
      return parent.project_id !== undefined ? Number(parent.project_id) : Number(up('todoList', parent.todo_list_id)?.project_id ?? NaN);
    }
    return null;
  };
  for (const c of [...latest.values()].sort((a, b) => a.seq - b.seq)) {
    if (c.op === 'resync' && c.resource === 'project') {
      add(out, 'project', await safeList(env, remote, 'project', `/projects/${c.id}.xml`), 'projects');
      await scanProject(env, remote, c.id, prev, out);
    } else if (c.op === 'delete') {
      out.deletes.push([c.resource, c.id]);
    } else if (c.op === 'upsert' && c.record) {
      const row = c.record;
      const why = unrepresentable(row);
      if (why || row.id !== c.id) { env.refuse(`the ${c.resource} ${c.id} of the change feed cannot be represented here: ${why ?? 'its record has another id'}`); continue; }
      const P = projectOf(c.resource, row);
      out.items.push({ resource: c.resource, row, scope: scopeOf(c.resource, row, P) });
      // Its members: when it is new here, and at its own entry in a resync round; not when a page carries it ahead
      // of its entry (D348: a team server sends a page's projects with every page of a clone).
      const aheadOfPage = c.seq > Number(page.cursor);
      if (c.resource === 'project' && (!prev.has(`project:${c.id}`) || (round !== null && !aheadOfPage))) await members(env, remote, c.id, out);
    }
  }
  if (round !== null) for (const p of out.items) p.row = { ...p.row, _round: round };
  // Every page maps only the ids its records and their shadows name, and its deletions (O(page), D170, D348):
  // any other id the apply needs (what a deletion holds, what a round did not bring, a project's members) is read
  // from the store when asked, so a clone's memory does not grow with the account.
  const mapped = new Set([...referencedKeys(out.items, prev), ...out.deletes.map(([r, id]) => `${r}:${id}`)]);
  await applySet(env, out, prev, mapped, { park: !last, round, last, cursor: page.cursor });
}

