// The plain-server scan (D317): everything the remote person can see, read through the public routes and
// applied in parts (D248). Input: the store (shadows, scan round), a remote that lists; output: the parts
// applied (apply.ts) and the next scan round saved. `scanProject` and `members` also serve the feed's
// project resyncs (feed.ts).

import { commentableType, RESOURCES, type ResourceKey } from '../../shared/registry.ts';
import { ROUTES } from '../../shared/routes.ts';
import { decodeCollection, unrepresentable, type WireRow } from '../../shared/sync/wire.ts';
import * as q from '../store/queries/replica.ts';
import { RemoteFeedBroken, type Remote } from './remote.ts';
import { applySet } from './apply.ts';
import { add, emptySet, MAX_LIST_PAGES, NO_DEEP, type DeepSlice, type PageSet, type PhaseEnv, type Scan, type Shadows } from './phase.ts';

/** What a scan asks of the remote: lists of the public routes, and XML pages (time entries, comments). */
export type ScanRemote = Pick<Remote, 'list' | 'getXml'>;

/** The scan's one option: every scan also reads one slice in N of the unchanged parents' comments (D162; 0: never). */
export interface ScanOptions { readonly deepScanEvery?: number }

/** A list of the public routes, its unrepresentable records refused alone (D251). */
export async function safeList(env: PhaseEnv, remote: ScanRemote, resource: ResourceKey, path: string): Promise<WireRow[]> {
  return safeRows(env, resource, await remote.list(resource, path), path);
}

export function safeRows(env: PhaseEnv, resource: ResourceKey, rows: WireRow[], where: string): WireRow[] {
  return rows.filter((row) => {
    const why = unrepresentable(row);
    if (why) env.refuse(`a ${resource} in ${where} cannot be represented here: ${why}`);
    return !why;
  });
}

/**
 * A plain server: read everything the remote person can see through the public routes, applied in
 * parts (D248): companies, people and projects in one transaction, then each project in its own, so
 * that memory holds one project at a time. Deletions are found per scope, as each part is applied.
 */
export async function pullScan(env: PhaseEnv, remote: ScanRemote, o: ScanOptions = {}): Promise<boolean> {
  const st = await q.state(env.store);
  const prev = await q.shadows(env.store);
  // Plain scans rotate through N slices of the comment lists (deepScanEvery): slice `round mod N` now
  // (the round is kept in memory while no scan commits, D343).
  const every = Math.max(0, Math.floor(o.deepScanEvery ?? 10));
  const round = env.held.round ?? Number(st.get('scan_round') ?? 0);
  // A part that changes nothing is not applied: an idle scan commits nothing (D343).
  const inScope = new Map<string, number>();
  for (const s of prev.values()) inScope.set(s.scope, (inScope.get(s.scope) ?? 0) + 1);
  let committed = false;
  const apply = async (set: PageSet) => {
    if (await unchanged(env, set, prev, inScope)) return;
    await applySet(env, set, prev, null, { park: false });
    committed = true;
  };
  const deep: DeepSlice = every === 0 ? NO_DEEP : (id) => id % every === round % every;
  const top = emptySet();
  let done = 0;
  const companies = await safeList(env, remote, 'company', '/companies.xml');
  add(top, 'company', companies, 'companies');
  const projects = await safeList(env, remote, 'project', '/projects.xml');
  add(top, 'project', projects, 'projects');
  // Progress: one step per company (its people) and per project (everything in it).
  const total = companies.length + projects.length;
  const tick = () => env.report('pull', ++done, total);
  env.report('pull', 0, total);
  top.scopes.add('people');
  for (const c of companies) {
    add(top, 'person', await safeList(env, remote, 'person', `/contacts/people/${c.id}`), 'people');
    tick();
  }
  await apply(top);
  for (const p of projects) {
    const part = emptySet();
    await scanProject(env, remote, Number(p.id), prev, part, deep);
    await apply(part);
    tick();
  }
  if (every > 0) {
    const next = (round + 1) % every;
    if (!committed) env.held.round = next;
    else {
      delete env.held.round;
      await env.store.write(async (w) => { w.outbox?.mute(); await q.setState(w, 'scan_round', String(next)); });
    }
  }
  return true;
}


const sameRow = (a: WireRow, b: WireRow): boolean => {
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  if (ka.length !== Object.keys(b).filter((k) => b[k] !== undefined).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && JSON.stringify(a[k]) === JSON.stringify(b[k]));
};

/**
 * Would applying this part of a scan change nothing here? Every record as its shadow (the same values,
 * the same scope: the merge with pending local edits then applies nothing and logs nothing), no record
 * of its scopes missing (nothing to remove), the same members of its projects (D343).
 */
export async function unchanged(env: PhaseEnv, set: PageSet, prev: Shadows, inScope: ReadonlyMap<string, number>): Promise<boolean> {
  if (set.deletes.length) return false;
  const count = new Map<string, number>();
  for (const p of set.items) {
    const s = prev.get(`${p.resource}:${String(p.row.id)}`);
    if (!s || s.scope !== p.scope || !sameRow(s.row, p.row)) return false;
    count.set(p.scope, (count.get(p.scope) ?? 0) + 1);
  }
  for (const scope of set.scopes) if ((inScope.get(scope) ?? 0) !== (count.get(scope) ?? 0)) return false;
  for (const [P, people] of set.members) {
    const local = await q.localIdOf(env.store, 'project', P);
    if (local === undefined) return false;
    const want = new Set<number>();
    for (const x of people) {
      const id = await q.localIdOf(env.store, 'person', x);
      if (id !== undefined) want.add(id);
    }
    const have = await q.membersOf(env.store, local);
    if (have.length !== want.size || have.some((m) => !want.has(Number(m.person_id)))) return false;
  }
  return true;
}

/** Members of a project (the interface has no member list: its companies' people in it). */
export async function members(env: PhaseEnv, remote: ScanRemote, P: number, out: Scan): Promise<void> {
  const m = new Set<number>();
  for (const c of await safeList(env, remote, 'company', `/projects/${P}/companies.xml`)) {
    for (const person of await safeList(env, remote, 'person', `/projects/${P}/contacts/people/${c.id}`)) m.add(Number(person.id));
  }
  out.members.set(P, m);
}

/** A list that pages on without end (or repeats its pages) stops the scan with a clear error (D248). */
function endless(what: string): never {
  throw new RemoteFeedBroken(200, `The remote's ${what} does not end (more than ${MAX_LIST_PAGES} pages, or the same page again): sync stopped`);
}

/**
 * Everything inside one project; comments only of parents whose count or newest comment changed,
 * and of the parents in this scan's deep slice (a body-only comment edit changes no hint).
 */
export async function scanProject(env: PhaseEnv, remote: ScanRemote, P: number, prev: Shadows, out: Scan, deep: DeepSlice = NO_DEEP): Promise<void> {
  await members(env, remote, P, out);
  add(out, 'category', await safeList(env, remote, 'category', `/projects/${P}/categories.xml`), `p${P}/categories`);
  const posts: WireRow[] = [];
  let last = '';
  for (let n = 0; ; n += 25) {
    if (n / 25 >= MAX_LIST_PAGES) endless(`post list of project ${P}`);
    const raw = await remote.list('post', `/projects/${P}/posts.xml?n=${n}`);
    const ids = raw.map((r) => r.id).join(',');
    if (raw.length && ids === last) endless(`post list of project ${P}`);
    last = ids;
    posts.push(...safeRows(env, 'post', raw, `/projects/${P}/posts.xml`));
    if (raw.length < 25) break;
  }
  add(out, 'post', posts, `p${P}/posts`);
  const milestones = await safeList(env, remote, 'milestone', `/projects/${P}/milestones/list`);
  add(out, 'milestone', milestones, `p${P}/milestones`);
  const lists = await safeList(env, remote, 'todoList', `/projects/${P}/todo_lists.xml`);
  add(out, 'todoList', lists, `p${P}/lists`);
  const items: WireRow[] = [];
  for (const l of lists) {
    const its = await safeList(env, remote, 'todoItem', `/todo_lists/${l.id}/todo_items.xml`);
    add(out, 'todoItem', its, `p${P}/items/${l.id}`);
    items.push(...its);
  }
  const entries: WireRow[] = [];
  for (let page = 1; ; page++) {
    if (page > MAX_LIST_PAGES) endless(`time entry list of project ${P}`);
    const { root, headers } = await remote.getXml(`/projects/${P}/time_entries.xml?page=${page}`);
    entries.push(...safeRows(env, 'timeEntry', decodeCollection(RESOURCES.timeEntry, root), `/projects/${P}/time_entries.xml`));
    if (page >= Number(headers.get('x-pages') ?? 1)) break;
  }
  add(out, 'timeEntry', entries, `p${P}/time`);
  for (const [res, rows] of [['post', posts], ['milestone', milestones], ['todoItem', items]] as const) {
    for (const parent of rows) {
      const before = prev.get(`${res}:${parent.id}`)?.row;
      if (before && before._comments_count === parent._comments_count && before._commented_at === parent._commented_at && !deep(Number(parent.id))) continue;
      const scope = `p${P}/c/${res}${parent.id}`;
      if (Number(parent._comments_count ?? 0) === 0) { out.scopes.add(scope); continue; }
      const comments: WireRow[] = [];
      let path: string | null = ROUTES.comment.list(parent.id as number, '.xml', commentableType(res)!);
      const visited = new Set<string>();
      while (path) {
        if (visited.has(path) || visited.size >= MAX_LIST_PAGES) endless(`comment list of ${res} ${parent.id}`);
        visited.add(path);
        const { root } = await remote.getXml(path);
        comments.unshift(...safeRows(env, 'comment', decodeCollection(RESOURCES.comment, root), path));
        path = root?.attrs['continued-at'] ?? null;
      }
      add(out, 'comment', comments, scope);
    }
  }
}

