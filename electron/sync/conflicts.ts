// Conflicts as people read them (issue #26, D310): the record's title and where it lives, the field's
// label from the registry, readable values (a name, not an id; a comment's text, not JSON), who made the
// value that won, and only the resolutions that can succeed. Bookkeeping columns (updated_at, position,
// versions) are never a conflict of their own.
//
// `describe` runs when a conflict is recorded (the record may be gone when it is read: its title and
// place are kept with it); the rest when the list is read.

import { randomUUID } from 'node:crypto';
import { commentParent, fieldLabel, parentOf as parentOfRecord, RESOURCE_NAMES, RESOURCES, type ResourceKey } from '../../shared/registry.ts';
import type { WireRow } from '../../shared/sync/wire.ts';
import * as q from '../store/queries/replica.ts';
import type { Queryable, Store } from '../store/types.ts';
import { SyncError, type ConflictAction, type ConflictView } from '../service/sync.ts';
import { queueOutcome } from './notices.ts';

/** What is kept with a conflict (sync_conflicts.context). */
export interface ConflictContext {
  title: string;
  place: string[];
  /** Who made the value that won, when known (the remote person's name). */
  by?: string | null;
  /** The removal this conflict belongs to: its rows can be restored together (D311). */
  group?: string;
  /** Recorded from a team server's notice: this replica lost the conflict, the other side detected it (D329). */
  told?: boolean;
  /** Told of a removal this replica made: what the other side did with their work since (D329). */
  outcome?: 'restored' | 'dropped';
}

// ---- restore (D311) ---------------------------------------------------------------------------------

/** The rows one remote deletion removed here, parents first; `keep`: restored by "Restore with my changes". */
export interface RestoreTree { group: string; rows: { res: ResourceKey; id: number; row: WireRow; parent: number; keep: boolean }[] }

export const newRestoreTree = (res: ResourceKey, id: number, now: string): RestoreTree =>
  ({ group: `${res}-${id}-${now.replace(/[^0-9]/g, '')}-${randomUUID().slice(0, 8)}`, rows: [] });

/** A row with a conflict is restored, and so is every row it lives under. */
export function keepInTree(tree: RestoreTree, at: number): void {
  for (let i = at; i >= 0 && !tree.rows[i].keep; i = tree.rows[i].parent) tree.rows[i].keep = true;
}

const restoreKey = (group: string): q.SyncStateKey => `restore:${group}`;

/**
 * Keep what a removal with conflicts took, until it is restored or dismissed: the whole removed record
 * with everything under it (D342: other people's comments and to-dos too, not only the rows with a conflict).
 */
export async function saveRestoreTree(db: Queryable, tree: RestoreTree): Promise<void> {
  const rows = tree.rows.some((r) => r.keep) ? tree.rows : [];
  if (!rows.length) return;
  await q.setState(db, restoreKey(tree.group), JSON.stringify(rows.map((r) => ({ res: r.res, id: r.id, row: r.row }))));
}

type Kept = { res: ResourceKey; id: number; row: WireRow }[];

/** The record a restored row's own parent must still be (a to-do's list, a comment's record, else the project: the registry's, D320). */
function parentOf(res: ResourceKey, row: WireRow): [string, number] | null {
  const p = parentOfRecord(res, row);
  return p ? [RESOURCES[p.res].table, p.id] : null;
}

const COMPLETION = ['completed', 'completed_at', 'completer_id'];

/** The day a comment was written, as its attribution line says it ("12 Nov 2026"); '' when unreadable. */
const dayOf = (at: unknown): string => {
  const d = new Date(String(at ?? ''));
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
};

/**
 * Someone else's comment re-posted by the restorer (D342): the server names the poster, so the body
 * begins with a line that says whose words they are and when they were written.
 */
export function attributed(author: string, at: unknown, body: unknown): string {
  const day = dayOf(at);
  return `${author || 'Someone'} wrote${day ? ` on ${day}` : ''}:\n\n${String(body ?? '')}`;
}

/**
 * "Restore with my changes": the removed record comes back as a NEW local record (created again on the
 * remote by the next push) with the values it had here, my edits included, and what I added under it.
 * One local action per record (a child's create needs its parent's new remote id first; schedule.ts
 * orders them), completion as its own action after its create (a create carries no completion).
 */
async function restore(store: Store, group: string): Promise<void> {
  const raw = (await q.state(store)).get(restoreKey(group));
  if (!raw) throw new SyncError(422, 'There is nothing left to restore: it was restored or dismissed already');
  const rows = JSON.parse(raw) as Kept;
  const top = rows[0];
  const up = parentOf(top.res, top.row);
  if (up && !(await q.localRow(store, up[0], up[1]))) {
    throw new SyncError(422, 'It cannot be restored: what it belonged to was deleted too');
  }
  const selfRemote = await q.selfRemoteId(store);
  const self = selfRemote === null ? undefined : await q.localIdOf(store, 'person', selfRemote);
  const fresh = new Map<string, number>();
  const completions: [string, number, WireRow, number | undefined][] = [];
  let first = true;
  for (const r of rows) {
    const R = RESOURCES[r.res];
    const v: WireRow = { ...r.row };
    delete v.id;
    delete v.version;
    if (r.res === 'todoItem' && fresh.has(`todoList:${String(v.todo_list_id)}`)) v.todo_list_id = fresh.get(`todoList:${String(v.todo_list_id)}`)!;
    if (r.res === 'comment') {
      const p = commentParent(v.commentable_type);
      const n = p ? fresh.get(`${p}:${String(v.commentable_id)}`) : undefined;
      if (n !== undefined) v.commentable_id = n;
      if (self !== undefined && v.author_id !== null && v.author_id !== undefined && Number(v.author_id) !== self) {
        const who = await q.localRow(store, 'people', Number(v.author_id));
        v.body = attributed(who ? titleOf('person', who as WireRow) : '', v.created_at, v.body);
      }
    }
    // Re-created by this replica's person: the server will name them, so the row says so here too.
    if (self !== undefined) for (const c of ['author_id', 'creator_id']) if (c in v) v[c] = self;
    const done: WireRow = {};
    if (Number(v.completed) === 1 && (r.res === 'todoItem' || r.res === 'milestone')) {
      for (const c of COMPLETION) { done[c] = v[c] ?? null; v[c] = c === 'completed' ? 0 : null; }
    }
    const project = r.res === 'project' ? undefined : (v.project_id as number | undefined);
    const id = await store.write(async (w) => {
      const n = await w.insert(R.table, v, project);
      if (first) {
        await queueOutcome(w, group, 'restored', new Date().toISOString()); // the deleter is told (D329)
        await q.resolveConflictGroup(w, group, 'restore');
        await q.setState(w, restoreKey(group), null);
      }
      return n;
    });
    first = false;
    fresh.set(`${r.res}:${r.id}`, id);
    if (Object.keys(done).length) completions.push([R.table, id, done, project]);
  }
  for (const [table, id, done, project] of completions) await store.write(async (w) => { await w.update(table, id, done, project); });
}


const excerpt = (v: unknown, n = 80): string => {
  const s = String(v ?? '').replace(/\s+/g, ' ').trim();
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
};


/** The title of a row (local column names and values). */
export function titleOf(res: ResourceKey, row: WireRow): string {
  switch (res) {
    case 'project': case 'category': case 'todoList': case 'company': return excerpt(row.name);
    case 'post': case 'milestone': return excerpt(row.title);
    case 'todoItem': return excerpt(row.content);
    case 'comment': return excerpt(row.body);
    case 'person': return excerpt(`${String(row.first_name ?? '')} ${String(row.last_name ?? '')}`);
    case 'timeEntry': return excerpt(`${String(row.hours ?? '')} h on ${String(row.date ?? '')}${row.description ? ` · ${String(row.description)}` : ''}`);
  }
}

/** Title and place (project, list, parent record) of a row that still has its parents here (local ids). */
export async function describe(db: Queryable, res: ResourceKey, row: WireRow): Promise<ConflictContext> {
  const title = titleOf(res, row);
  const place: string[] = [];
  const projectName = async (id: unknown) => {
    if (id === null || id === undefined) return;
    const p = await q.localRow(db, 'projects', Number(id));
    if (p) place.push(excerpt(p.name));
  };
  if (res === 'todoItem') {
    const list = row.todo_list_id !== undefined ? await q.localRow(db, 'todo_lists', Number(row.todo_list_id)) : undefined;
    await projectName(row.project_id ?? list?.project_id);
    if (list) place.push(excerpt(list.name));
  } else if (res === 'comment') {
    const pres = commentParent(row.commentable_type);
    const parent = pres ? await q.localRow(db, RESOURCES[pres].table, Number(row.commentable_id)) : undefined;
    if (parent && pres) {
      const up = await describe(db, pres, parent as WireRow);
      place.push(...up.place, up.title);
    } else await projectName(row.project_id);
  } else if (res !== 'project' && res !== 'person' && res !== 'company') await projectName(row.project_id);
  return { title, place };
}

const REFERENCE: Readonly<Record<string, [string, (r: WireRow) => string]>> = {
  milestone_id: ['milestones', (r) => excerpt(r.title)],
  category_id: ['categories', (r) => excerpt(r.name)],
  todo_item_id: ['todo_items', (r) => excerpt(r.content)],
  person_id: ['people', (r) => titleOf('person', r)],
};

/** A stored value as people read it: a name for an id, Done / Not done, a comment's text for a dropped record. */
async function readable(db: Queryable, res: ResourceKey, col: string, raw: string | null): Promise<string | null> {
  if (raw === null || raw === '') return raw;
  const f = RESOURCES[res].fields.find((x) => x.name.replace(/-/g, '_') === col);
  if (f?.type === 'boolean') {
    const on = raw === '1' || raw === 'true';
    return col === 'completed' ? (on ? 'Done' : 'Not done') : on ? 'Yes' : 'No';
  }
  if (col === 'responsible_party_id') {
    const p = await q.localRow(db, 'people', Number(raw));
    if (p) return titleOf('person', p as WireRow);
    const c = await q.localRow(db, 'companies', Number(raw));
    return c ? excerpt(c.name) : 'someone no longer here';
  }
  const ref = REFERENCE[col];
  if (ref) {
    const r = await q.localRow(db, ref[0], Number(raw));
    return r ? ref[1](r as WireRow) : 'one no longer here';
  }
  return raw;
}

/** How a value is shown: dates are localised by the renderer. */
const formatOf = (res: ResourceKey, col: string): ConflictView['format'] => {
  const t = RESOURCES[res].fields.find((x) => x.name.replace(/-/g, '_') === col)?.type;
  return t === 'date' ? 'date' : t === 'datetime' ? 'datetime' : 'text';
};

/** The resolutions of a conflict that can succeed (the route refuses the others with 422). */
function actionsOf(kind: string, exists: boolean, restorable: boolean): ConflictAction[] {
  if (kind === 'field') return exists ? ['mine', 'theirs'] : ['theirs'];
  if (kind === 'delete-vs-edit') return ['mine'];
  return restorable ? ['restore', 'theirs'] : ['theirs'];
}

const parseContext = (s: string | null): ConflictContext | null => {
  if (!s) return null;
  try { return JSON.parse(s) as ConflictContext; } catch { return null; }
};

async function view(db: Queryable, c: q.ConflictRow, state: q.SyncState): Promise<ConflictView | null> {
  const res = c.resource;
  if (!(res in RESOURCES)) return null;
  const label = c.field === '*' ? null : fieldLabel(res, c.field);
  if (c.field !== '*' && label === null) return null; // bookkeeping (updated_at, position…): never a conflict of its own
  const cur = await q.localRow(db, RESOURCES[res].table, Number(c.record_id));
  const kept = parseContext(c.context);
  let ctx: ConflictContext;
  let mineText: string | null;
  if (c.field === '*') {
    // A record created here and dropped (its parent went): its values are in `mine` as JSON.
    let row: WireRow = {};
    try { row = JSON.parse(c.mine ?? '{}') as WireRow; } catch { /* an unreadable value: shown as nothing */ }
    ctx = kept ?? await describe(db, res, row);
    mineText = c.mine === null ? null : titleOf(res, row) || null;
  } else {
    ctx = cur ? { ...(await describe(db, res, cur as WireRow)), by: kept?.by ?? null } : kept ?? { title: `${RESOURCE_NAMES[res]} no longer here`, place: [] };
    mineText = await readable(db, res, c.field, c.mine);
  }
  return {
    id: Number(c.id), resource: res, recordId: Number(c.record_id), field: c.field, kind: c.kind,
    mine: c.mine, theirs: c.theirs, at: c.at, resolved: c.resolved !== null, keep: c.resolved,
    title: ctx.title, place: ctx.place, label: label ?? 'Everything', mineText,
    // A whole record someone else added under one deleted here (told, D329): its text.
    theirsText: c.field === '*' ? c.theirs : await readable(db, res, c.field, c.theirs),
    format: c.field === '*' ? 'text' : formatOf(res, c.field), by: ctx.by ?? null,
    told: kept?.told === true, outcome: kept?.outcome ?? null,
    exists: !!cur, actions: c.resolved !== null ? [] : actionsOf(c.kind, !!cur, !!kept?.group && state.has(restoreKey(kept.group))),
  };
}

export async function listConflicts(store: Store): Promise<ConflictView[]> {
  const out: ConflictView[] = [];
  const state = await q.state(store);
  for (const c of await q.conflicts(store)) {
    const v = await view(store, c, state);
    if (v) out.push(v);
  }
  return out;
}

/**
 * Resolve a conflict. For a field both sides changed, the kept value is written again as a new
 * local mutation (so it reaches the remote on the next push). For a deleted record, only the side
 * that already won can be kept (the other would need the record created again by hand).
 */
export async function resolveConflict(store: Store, id: number, keep: ConflictAction): Promise<ConflictView> {
  const c = await q.conflict(store, id);
  if (!c) throw new SyncError(404, 'No such conflict');
  if (c.resolved === null) {
    const R = RESOURCES[c.resource];
    const group = parseContext(c.context)?.group;
    if (keep === 'restore') {
      if (c.kind !== 'edit-vs-delete' && c.kind !== 'parent-deleted') throw new SyncError(422, 'Only a record deleted elsewhere can be restored');
      if (!group) throw new SyncError(422, 'There is nothing kept to restore for this conflict');
      await restore(store, group);
    } else if (c.kind === 'field') {
      const f = R.fields.find((x) => x.name.replace(/-/g, '_') === c.field);
      const raw = keep === 'mine' ? c.mine : c.theirs;
      const value = raw === null ? null : f && (f.type === 'integer' || f.type === 'boolean' || f.type === 'float') ? Number(raw) : raw;
      await store.write(async (w) => {
        const cur = await q.localRow(w, R.table, Number(c.record_id));
        if (!cur && keep === 'mine') throw new SyncError(422, 'The record no longer exists: your value cannot be brought back on it');
        if (cur) await w.update(R.table, Number(c.record_id), { [c.field]: value }, (cur.project_id as number | undefined) ?? undefined);
        await q.resolveConflict(w, id, keep);
      });
    } else {
      const won = c.kind === 'delete-vs-edit' ? 'mine' : 'theirs';
      if (keep !== won) throw new SyncError(422, 'The record no longer exists: only the deletion can be kept (create it again if it is still needed)');
      await store.write(async (w) => {
        await q.resolveConflict(w, id, keep);
        // Leaving a removal as it is, for every conflict of it: nothing is left to restore.
        if (group) {
          await q.resolveConflictGroup(w, group, keep);
          await q.setState(w, restoreKey(group), null);
          await queueOutcome(w, group, 'dropped', new Date().toISOString()); // the deleter is told (D329)
        }
      });
    }
  }
  const row = await q.conflict(store, id);
  return (await view(store, row!, await q.state(store)))!;
}
