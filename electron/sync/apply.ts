// The apply phase (D317): a set of pulled records (a feed page, or a part of a plain scan) merged with the
// pending local edits and written in ONE transaction, with what the remote no longer shows removed.
// Input: the store, the set, the shadows it is diffed against; output: the rows, shadows, id map, conflicts
// and (for a feed page) the cursor, all in the store. It owns no state; the merge decisions are shared/sync/.

import { commentParent, RESOURCES, TABLE_ORDER, type ResourceKey } from '../../shared/registry.ts';
import { rewriteIds, type IdLookup } from '../../shared/sync/ids.ts';
import { deletedRemotely, editedRemotely, mergeRecord, orphaned, type Conflict } from '../../shared/sync/merge.ts';
import { unrepresentable, type WireRow } from '../../shared/sync/wire.ts';
import * as q from '../store/queries/replica.ts';
import type { NewRow, Writer } from '../store/types.ts';
import { newToken } from '../service/auth.ts';
import { describe, keepInTree, newRestoreTree, saveRestoreTree } from './conflicts.ts';
import { forgetPushed, queueNotices } from './notices.ts';
import { deleteRecord } from '../store/delete-record.ts';
import { yieldUserName } from '../store/queries/admin.ts';
import { remoteIdOf } from '../store/queries/notices.ts';
import { addPending, EDITED, REQUIRED, scopeOf, type PageSet, type Pending, type PhaseEnv, type Pulled, type Shadows } from './phase.ts';

/** What one apply transaction knows: the id map (or the part of it a page needs), pending local edits, who this replica is. */
export type ApplyCtx = Awaited<ReturnType<typeof applyContext>>;

/**
 * Apply one set (a feed page, or a part of a plain scan) in one transaction: records parents
 * first, memberships, what the remote no longer shows in the scopes read; for a feed page also
 * its cursor, its parked records (D248) and, on the last page of a resync round, what the round
 * did not bring.
 */
export async function applySet(env: PhaseEnv, set: PageSet, prev: Shadows, mapped: Set<string> | null,
  o: { park: boolean; round?: string | null; last?: boolean; cursor?: string }): Promise<void> {
  await env.store.write(async (w) => {
    w.outbox?.mute();
    const ctx = { ...(await applyContext(w, mapped)), park: o.park, parked: o.cursor !== undefined && await q.hasParked(w) };
    const seen = new Set<string>();
    // The feed's last page: the records parked on earlier pages go with it, each kind after the page's
    // own records of that kind (newer), parents first (D248); what still misses a parent never comes.
    const flush = o.last === true && ctx.parked;
    if (flush) ctx.park = false;
    for (const res of TABLE_ORDER) {
      await applyKind(w, env.refuse, ctx, res, set.items.filter((p) => p.resource === res), seen);
      if (flush) {
        // A batch at a time (D348), what the batch references mapped at once.
        for await (const batch of q.parkedBatches(w, res)) {
          await mapRefs(w, ctx.ids, batch.map((p) => ({ res, row: p.row })));
          await applyKind(w, env.refuse, ctx, res, batch.map((p) => ({ resource: res, row: o.round ? { ...p.row, _round: o.round } : p.row, scope: p.scope })), seen);
        }
      }
    }
    if (flush) await q.dropParked(w);
    // Memberships of the visible projects.
    for (const [P, people] of set.members) {
      const local = await localOf(w, ctx.ids, 'project', P);
      if (local === undefined) continue;
      const want = new Set<number>();
      for (const x of people) { const l = await localOf(w, ctx.ids, 'person', x); if (l !== undefined) want.add(l); }
      for (const m of await q.membersOf(w, local)) if (!want.has(Number(m.person_id))) await q.dropMember(w, local, Number(m.person_id));
      for (const x of want) await q.addMember(w, local, x);
    }
    // What the remote no longer shows (deleted, or no longer visible) goes, with what it holds.
    const gone = [...prev].filter(([k, s]) => set.scopes.has(s.scope) && !seen.has(k));
    for (const [res, id] of set.deletes) {
      if (seen.has(`${res}:${id}`)) continue;
      gone.push([`${res}:${id}`, { row: {}, scope: '' }]);
      if (ctx.parked) await q.unpark(w, res, id);
    }
    if (o.last && o.round) {
      // Walked a batch at a time, what the round did not bring kept by its key (D346: all the shadows at once were
      // the peak of a large clone's memory).
      for await (const rows of q.shadowBatches(w)) {
        for (const r of rows) if (!seen.has(r.key) && (JSON.parse(r.record) as WireRow)._round !== o.round) gone.push([r.key, { row: {}, scope: r.scope }]);
      }
    }
    gone.sort((a, b) => TABLE_ORDER.indexOf(a[0].split(':')[0] as ResourceKey) - TABLE_ORDER.indexOf(b[0].split(':')[0] as ResourceKey));
    for (const [k] of gone) {
      const [res, rid] = k.split(':');
      const local = await localOf(w, ctx.ids, res as ResourceKey, Number(rid));
      if (local !== undefined) await removeLocal(w, ctx, res as ResourceKey, local, 'remote');
      await q.dropShadow(w, res as ResourceKey, Number(rid));
      if (local !== undefined) await q.unmapLocal(w, res as ResourceKey, local);
    }
    if (o.cursor !== undefined) {
      await q.setState(w, 'cursor', o.cursor);
      await q.setState(w, 'resync', o.last ? null : o.round ?? null);
    }
  });
}

/**
 * The id map an apply reads (D348): the whole of it, or (`asked`, a feed page) the `resource:remoteId` keys
 * the page's records and their shadows name, read at once; any other id is read from the store when asked
 * (`localOf`, `remoteOf`, `mapRefs`), so a page's memory and time do not grow with the account.
 */
export interface ApplyIds {
  toLocal: Map<string, number>;
  toRemote: Map<string, number>;
  /** A partial map: the `resource:remoteId` keys looked up so far (found or not); null: the whole map was read. */
  asked: Set<string> | null;
}

/** The local id of a remote record, from the map read or (a partial map) the store. */
export async function localOf(w: Writer, ids: ApplyIds, res: ResourceKey, remote: number): Promise<number | undefined> {
  const k = `${res}:${remote}`;
  if (ids.asked && !ids.asked.has(k)) await mapKeys(w, ids, [k]);
  return ids.toLocal.get(k);
}
/** The remote id of a local record, from the map read or (a partial map) the store. */
export async function remoteOf(w: Writer, ids: ApplyIds, res: ResourceKey, local: number): Promise<number | undefined> {
  const x = ids.toRemote.get(`${res}:${local}`);
  if (x !== undefined || !ids.asked) return x;
  const remote = await remoteIdOf(w, res, local);
  if (remote !== undefined) { ids.toRemote.set(`${res}:${local}`, remote); ids.toLocal.set(`${res}:${remote}`, local); }
  return remote;
}
/** A partial map: read the keys not looked up yet. */
async function mapKeys(w: Writer, ids: ApplyIds, keys: readonly string[]): Promise<void> {
  const want = keys.filter((k) => !ids.asked!.has(k));
  if (!want.length) return;
  for (const k of want) ids.asked!.add(k);
  const more = await q.idsByRemote(w, want);
  for (const [k, v] of more.toLocal) ids.toLocal.set(k, v);
  for (const [k, v] of more.toRemote) ids.toRemote.set(k, v);
}
/** A partial map: read what these rows reference (records applied beyond the page's own, or their shadows). */
async function mapRefs(w: Writer, ids: ApplyIds, rows: readonly { res: ResourceKey; row: WireRow | undefined }[]): Promise<void> {
  if (!ids.asked) return;
  const keys: string[] = [];
  for (const { res, row } of rows) {
    if (!row) continue;
    keys.push(`${res}:${row.id}`);
    rewriteIds(row, (r, id) => { keys.push(`${r}:${id}`); return undefined; });
  }
  await mapKeys(w, ids, keys);
}

/** `mapped`: read only these `resource:remoteId` keys of the id map, the rest when asked (null: all of it). */
export async function applyContext(w: Writer, mapped: Set<string> | null = null) {
  const ids: ApplyIds = { ...(mapped ? await q.idsByRemote(w, mapped) : await q.idMap(w)), asked: mapped ? new Set(mapped) : null };
  const pending = new Map<string, Pending>();
  for (const e of await q.outbox(w)) addPending(pending, e.changes);
  const st = await q.state(w);
  return {
    ids, pending, selfRemote: Number(st.get('self_remote')), passwordHash: st.get('password_hash') ?? null, now: w.now,
    /** Park a record that names one not here yet (a feed page before its last, D248). */
    park: false as boolean,
    /** Parked records may exist (each applied or deleted record is taken off that list). */
    parked: false as boolean,
  };
}

/** Local values of a remote row: ids rewritten; null for references the replica cannot see. */
export function localValues(res: ResourceKey, row: WireRow, toLocal: Map<string, number>, missingOut?: { n: number }): WireRow | null {
  const lookup: IdLookup = (r, id) => toLocal.get(`${r}:${id}`);
  const { row: out, missing } = rewriteIds(row, lookup);
  if (missingOut) missingOut.n = missing.length;
  for (const m of missing) {
    if (REQUIRED.has(m.col) || (m.col === 'company_id' && (res === 'person' || res === 'project'))) return null;
    out[m.col] = null;
  }
  delete out.id;
  for (const k of Object.keys(out)) if (k.startsWith('_') || k === 'token') delete out[k];
  return out;
}

export async function insertValues(w: Writer, res: ResourceKey, v: WireRow): Promise<WireRow | null> {
  const out = { ...v };
  // A comment's or a to-do's project is its parent's (parentRow, the one rule applyKind reads too).
  const at = parentRow(res, v);
  if (at === undefined) return null;
  if (at) {
    const parent = await q.localRow(w, at[0], at[1]);
    if (!parent) return null;
    out.project_id = parent.project_id as number;
  }
  if (res === 'company' && out.firm === undefined) out.firm = 0;
  return out;
}

/** Kinds a page brings by the thousand (D350); people, projects and companies go one by one (secrets, user names, members). */
const MANY: ReadonlySet<ResourceKey> = new Set<ResourceKey>(['category', 'milestone', 'post', 'todoList', 'todoItem', 'comment', 'timeEntry']);

/**
 * The records of one kind a set brings (D350). Those new here whose references are all held (nearly every record
 * of a clone) are inserted together (Writer.insertMany), with their id-map rows and shadows, in a few statements:
 * a record at a time, a clone of 55k records ran ten statements each. Any other (held here, a reference not held,
 * a parent not found, a person, a project, a company) goes through applyOne. The order is the set's: the new
 * records gathered so far are written before any other, so ids and feed entries come as one at a time.
 */
export async function applyKind(w: Writer, refuse: PhaseEnv['refuse'], ctx: ApplyCtx, res: ResourceKey, items: readonly Pulled[], seen: Set<string>): Promise<void> {
  if (!MANY.has(res)) {
    for (const p of items) await applyOne(w, refuse, ctx, p, seen);
    return;
  }
  let fresh: Fresh[] = [];
  for (const p of items) {
    const key = `${res}:${p.row.id}`;
    if (!seen.has(key) && !unrepresentable(p.row) && !/^p(NaN|null)\//.test(p.scope) && await localOf(w, ctx.ids, res, Number(p.row.id)) === undefined) {
      const missing = { n: 0 };
      const values = localValues(res, p.row, ctx.ids.toLocal, missing);
      const parent = values ? parentRow(res, values) : undefined;
      if (values && missing.n === 0 && parent !== undefined) {
        seen.add(key);
        fresh.push({ p, values, parent });
        continue;
      }
    }
    if (fresh.length) { await insertFresh(w, refuse, ctx, res, fresh, seen); fresh = []; }
    await applyOne(w, refuse, ctx, p, seen);
  }
  if (fresh.length) await insertFresh(w, refuse, ctx, res, fresh, seen);
}

/** A new record applyKind gathered: its local values, and the row whose project it takes. */
interface Fresh { p: Pulled; values: WireRow; parent: readonly [string, number] | null }

/** New records of one kind, written together: rows and entries, id-map rows, shadows (D350). */
async function insertFresh(w: Writer, refuse: PhaseEnv['refuse'], ctx: ApplyCtx, res: ResourceKey, fresh: readonly Fresh[], seen: Set<string>): Promise<void> {
  // The project of each record's parent (a comment's, a to-do's list's), read at once (insertValues reads it one by one).
  const wanted = new Map<string, Set<number>>();
  for (const { parent } of fresh) if (parent) (wanted.get(parent[0]) ?? wanted.set(parent[0], new Set()).get(parent[0])!).add(parent[1]);
  const projects = await q.projectsOf(w, wanted);
  const taken: Fresh[] = [];
  const rows: NewRow[] = [];
  for (const f of fresh) {
    const values = { ...f.values };
    if (f.parent) {
      const project = projects.get(`${f.parent[0]}:${f.parent[1]}`);
      if (project === undefined) {
        // Parked, or left out, as one at a time (insertValues finds no parent either: nothing is inserted).
        seen.delete(`${res}:${f.p.row.id}`);
        await applyOne(w, refuse, ctx, f.p, seen);
        continue;
      }
      values.project_id = project;
    }
    taken.push(f);
    rows.push({ values, projectId: (values.project_id as number | null | undefined) ?? undefined });
  }
  if (!rows.length) return;
  const ids = await w.insertMany(RESOURCES[res].table, rows);
  const pairs: [number, number][] = [];
  for (let i = 0; i < ids.length; i++) {
    const remote = Number(taken[i].p.row.id);
    pairs.push([ids[i], remote]);
    ctx.ids.toLocal.set(`${res}:${remote}`, ids[i]);
    ctx.ids.toRemote.set(`${res}:${ids[i]}`, remote);
  }
  await q.mapIds(w, res, pairs);
  // One row per key (a multi-row upsert may not name a key twice on PostgreSQL): `seen` lets each record in once.
  await q.putShadows(w, res, taken.map((f) => ({ remote: Number(f.p.row.id), scope: f.p.scope, row: f.p.row })));
  if (ctx.parked) await q.unparkMany(w, res, pairs.map(([, r]) => r));
}

/** The row whose project a new record takes (insertValues): [table, local id]; null: none; undefined: it cannot be told. */
function parentRow(res: ResourceKey, v: WireRow): readonly [string, number] | null | undefined {
  const at = (table: string, id: unknown): readonly [string, number] | undefined => (Number.isSafeInteger(id) && Number(id) > 0 ? [table, Number(id)] : undefined);
  if (res === 'todoItem') return at('todo_lists', v.todo_list_id);
  if (res !== 'comment') return null;
  const parent = commentParent(v.commentable_type);
  return parent ? at(RESOURCES[parent].table, v.commentable_id) : undefined;
}

export async function applyOne(w: Writer, refuse: PhaseEnv['refuse'], ctx: ApplyCtx, p: Pulled, seen: Set<string>): Promise<void> {
  const { resource: res, row } = p;
  const R = RESOURCES[res];
  const key = `${res}:${row.id}`;
  if (seen.has(key)) return;
  seen.add(key);
  const why = unrepresentable(row);
  if (why) { refuse(`the ${res} ${String(row.id)} cannot be represented here: ${why}`); seen.delete(key); return; }
  if (ctx.parked) await q.unpark(w, res, Number(row.id));
  const missing = { n: 0 };
  const values = localValues(res, row, ctx.ids.toLocal, missing);
  // A feed page before the last one: a record that names one not here yet waits for it (D248).
  const park = async () => { await q.parkRow(w, res, Number(row.id), p.scope, row); ctx.parked = true; };
  if (ctx.park && (!values || missing.n > 0)) { await park(); return; }
  if (!values) { seen.delete(key); return; }
  let local = ctx.ids.toLocal.get(key);
  const cur = local !== undefined ? await q.localRow(w, R.table, local) : undefined;
  if (cur) {
    const moved = impossibleMove(res, values, cur as WireRow, await listProject(w, res, values, cur as WireRow));
    if (moved) { refuse(`the ${res} ${String(row.id)}: ${moved}; it stays where it was here`); return; }
  }
  if (local === undefined || !cur) {
    const pend = local !== undefined ? ctx.pending.get(`${R.table}:${local}`) : undefined;
    if (pend?.deleted) {
      // Deleted here, changed there: the local delete will win on the server; log what it drops.
      const base = await q.shadow(w, res, Number(row.id));
      const logged = editedRemotely(base, row).filter((c) => EDITED[res].has(c.field));
      const about = logged.length ? await describe(w, res, values) : null;
      for (const c of logged) await q.addConflict(w, res, local!, c, ctx.now, about);
      await queueNotices(w, { res, id: local!, row: values, conflicts: logged, about, now: ctx.now }); // D328
      await q.putShadow(w, res, Number(row.id), p.scope, row);
      return;
    }
    const ins = await insertValues(w, res, values);
    if (!ins && ctx.park) { await park(); return; }
    if (!ins) { seen.delete(key); return; }
    if (local !== undefined) ins.id = local;
    if (res === 'person' && Number(row.id) === ctx.selfRemote) {
      ins.token = newToken();
      ins.password_hash = ctx.passwordHash;
    }
    if (res === 'person' && typeof ins.user_name === 'string') await yieldUserName(w, ins.user_name, local ?? 0); // D338
    const id = await w.insert(R.table, ins, (ins.project_id as number | undefined) ?? (res === 'project' ? null : undefined));
    if (local === undefined) {
      local = id;
      await q.mapId(w, res, id, Number(row.id));
      ctx.ids.toLocal.set(key, id);
      ctx.ids.toRemote.set(`${res}:${id}`, Number(row.id));
    }
  } else {
    const base = await q.shadow(w, res, Number(row.id));
    await mapRefs(w, ctx.ids, [{ res, row: base }]);
    const baseLocal = base ? localValues(res, base, ctx.ids.toLocal) ?? undefined : undefined;
    const pend = ctx.pending.get(`${R.table}:${local}`);
    const edited = EDITED[res];
    const { apply, conflicts } = mergeRecord(baseLocal, values, cur as WireRow, pend?.cols ?? new Set(), (c) => edited.has(c));
    const about = conflicts.length ? await describe(w, res, cur as WireRow) : null;
    for (const c of conflicts) await q.addConflict(w, res, local, c, ctx.now, about);
    await queueNotices(w, { res, id: local, row: cur as WireRow, conflicts, about, now: ctx.now }); // D328
    if (res === 'person' && typeof apply.user_name === 'string') await yieldUserName(w, apply.user_name, local); // D338
    if (Object.keys(apply).length) await w.update(R.table, local, apply, res === 'project' ? local : (cur.project_id as number | undefined));
  }
  let scope = p.scope;
  if (/^p(NaN|null)\//.test(scope)) {
    // Read before its list or parent (a feed page before theirs): its project is known now.
    const lp = (await q.localRow(w, R.table, local))?.project_id;
    scope = scopeOf(res, row, lp === undefined || lp === null ? null : await remoteOf(w, ctx.ids, 'project', Number(lp)) ?? null);
  }
  await q.putShadow(w, res, Number(row.id), scope, row);
}

/** The project of the list a todo item's pulled values name, when it names another list than its own. */
async function listProject(w: Writer, res: ResourceKey, values: WireRow, cur: WireRow): Promise<number | null> {
  if (res !== 'todoItem' || values.todo_list_id === undefined || values.todo_list_id === cur.todo_list_id) return null;
  const list = await q.localRow(w, 'todo_lists', Number(values.todo_list_id));
  return list ? Number(list.project_id) : null;
}

/**
 * A change the interface cannot produce (D252): a record moved to another project (its project, or
 * a todo item's list in another project), or a comment moved to another parent. Refused alone.
 */
export function impossibleMove(res: ResourceKey, values: WireRow, cur: WireRow, listProject: number | null): string | null {
  if (res === 'project') return null;
  if (values.project_id !== undefined && values.project_id !== null && cur.project_id !== undefined && Number(values.project_id) !== Number(cur.project_id)) {
    return 'the remote moved it into another project, which the interface cannot do';
  }
  if (listProject !== null && Number(listProject) !== Number(cur.project_id)) return 'the remote moved it into a list of another project, which the interface cannot do';
  if (res === 'comment' && ((values.commentable_id !== undefined && Number(values.commentable_id) !== Number(cur.commentable_id))
    || (values.commentable_type !== undefined && values.commentable_type !== cur.commentable_type))) {
    return 'the remote moved it to another record, which the interface cannot do';
  }
  return null;
}

const withoutSecrets = (row: WireRow): WireRow => Object.fromEntries(Object.entries(row).filter(([k]) => k !== 'token' && k !== 'password_hash'));

/**
 * Remove a local record and what it holds (the remote deleted it or refused its create). Pending
 * local edits of it, and records created offline under it, go to the conflict log with their values.
 */
export async function removeLocal(w: Writer, ctx: ApplyCtx, res: ResourceKey, id: number, why: 'remote' | 'rejected'): Promise<void> {
  // A remote deletion: what is removed is kept, so that "Restore with my changes" can bring it back (D311).
  const tree = why === 'remote' && res !== 'project' ? newRestoreTree(res, id, ctx.now) : undefined;
  // What goes with it, as the registry says (deleteRecord, D321); `at`: the row's place in the tree.
  const removed = await deleteRecord<number>(w, res, id, {
    enter: (r, rid, row, parent) => (tree ? tree.rows.push({ res: r, id: rid, row: row as WireRow, parent: parent ?? -1, keep: false }) - 1 : -1),
    leave: async (r, rid, row, at) => {
      const R = RESOURCES[r];
      const pend = ctx.pending.get(`${R.table}:${rid}`);
      const remoteId = await remoteOf(w, ctx.ids, r, rid);
      let logged: Conflict[] = [];
      // A person's credentials never reach the conflict log (D339): their public fields only.
      if (pend?.created && remoteId === undefined) logged = [orphaned(r === 'person' ? withoutSecrets(row as WireRow) : row as WireRow)];
      else if (pend && pend.cols.size && why === 'remote') logged = deletedRemotely(row as WireRow, new Set([...pend.cols].filter((c) => EDITED[r].has(c))));
      const about = logged.length ? { ...await describe(w, r, row as WireRow), group: tree?.group } : null;
      for (const c of logged) await q.addConflict(w, r, rid, c, ctx.now, about);
      if (tree) await queueNotices(w, { res: r, id: rid, row: row as WireRow, conflicts: logged, about, now: ctx.now, removal: { ...tree.rows[0], group: tree.group } }); // D328
      if (tree && logged.length) keepInTree(tree, at ?? -1);
      if (pend) await dropFromOutbox(w, R.table, rid);
      if (remoteId !== undefined) {
        if (why === 'remote') await forgetPushed(w, r, remoteId, ctx.now); // D344
        await q.dropShadow(w, r, remoteId);
        await q.unmapLocal(w, r, rid);
        ctx.ids.toRemote.delete(`${r}:${rid}`);
        ctx.ids.toLocal.delete(`${r}:${remoteId}`);
      }
    },
  });
  if (removed && tree) await saveRestoreTree(w, tree);
}

async function dropFromOutbox(w: Writer, table: string, id: number): Promise<void> {
  for (const e of await q.outbox(w)) {
    const keep = e.changes.filter((c) => !(c.t === table && c.id === id));
    if (keep.length !== e.changes.length) await q.rewriteOutbox(w, e.seq, keep);
  }
}
