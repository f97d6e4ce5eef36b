// Telling the side that lost a conflict (issue #26, D312, D328–D330). The replica that records a conflict
// queues a notice for the other side in the same transaction (`queueNotices`); a restore or a "leave it
// deleted" (D311) queues what became of it (`queueOutcome`). After its push a replica of a team server that
// advertises `notices` sends what it queued and reads the notices of its projects (`exchangeNotices`). A
// notice becomes a conflict here only when this replica pushed the value overwritten (or the deletion)
// itself: `sync_pushed` holds the value it pushed last per record and field (`rememberPushed`, written
// with the push's outcome). Bystanders are not told; nothing a remote sends is trusted beyond its shape.
//
// Values travel in the team server's terms: a reference column's local id is sent as its remote id and
// read back as the local one (a person for `responsible_party_id` first, then a company).

import { randomUUID } from 'node:crypto';
import { fieldLabel, RESOURCE_NAMES, RESOURCES, type ResourceKey } from '../../shared/registry.ts';
import type { Conflict } from '../../shared/sync/merge.ts';
import type { RowChange } from '../../shared/sync/plan.ts';
import { resourceOfTable, type WireRow } from '../../shared/sync/wire.ts';
import * as n from '../store/queries/notices.ts';
import * as q from '../store/queries/replica.ts';
import type { Queryable, Store } from '../store/types.ts';
import type { Remote } from './remote.ts';
import { DEFAULT_TOMBSTONE_DAYS } from '../service/maintenance.ts';

/** What a notice carries (docs/sync-protocol.md §6): the record on the team server, and what happened. */
export interface NoticeBody {
  kind: 'field' | 'delete-vs-edit' | 'edit-vs-delete' | 'parent-deleted' | 'restored' | 'dropped';
  project: number; resource: ResourceKey; id: number; field: string; child: ResourceKey | null;
  overwritten: string | null; kept: string | null; title: string; place: string[];
}

/** What a conflict recorded here from a notice keeps (sync_conflicts.context), beside D310's title and place. */
export interface ToldContext { title: string; place: string[]; by: string | null; told: true; target?: string; outcome?: 'restored' | 'dropped' }

const KINDS = new Set<NoticeBody['kind']>(['field', 'delete-vs-edit', 'edit-vs-delete', 'parent-deleted', 'restored', 'dropped']);
const REF: Readonly<Record<string, readonly ResourceKey[]>> = {
  milestone_id: ['milestone'], category_id: ['category'], todo_item_id: ['todoItem'], todo_list_id: ['todoList'],
  person_id: ['person'], responsible_party_id: ['person', 'company'],
};
const PROJECTLESS = new Set<ResourceKey>(['person', 'company']);
/** How long a sent notice is kept here (a restore long after still finds the removal it is about). */
const KEEP_SENT_DAYS = 90;
/**
 * How long a value pushed is kept (D344): as long as the team server keeps a notice (its tombstones'
 * retention, `--tombstone-days`, 90 by default); the rows of a record the remote deleted, a week.
 */
const DAY = 86_400_000;
const PUSHED_DAYS = DEFAULT_TOMBSTONE_DAYS;
const GONE_DAYS = 7;
const after = (now: string, days: number) => new Date(Date.parse(now) + days * DAY).toISOString();

const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** A local value as the team server knows it (reference ids mapped; null when the record is not there). */
async function toWire(db: Queryable, col: string, v: unknown): Promise<string | null> {
  const s = text(v);
  const refs = REF[col];
  if (s === null || !refs) return s;
  for (const r of refs) {
    const id = await n.remoteIdOf(db, r, Number(s));
    if (id !== undefined) return String(id);
  }
  return null;
}

/** A value of the team server's as this replica stores it. */
async function fromWire(db: Queryable, col: string, s: string | null): Promise<string | null> {
  const refs = REF[col];
  if (s === null || !refs) return s;
  for (const r of refs) {
    const id = await n.localIdOf(db, r, Number(s));
    if (id !== undefined) return String(id);
  }
  return null;
}

async function projectOf(db: Queryable, res: ResourceKey, row: WireRow, local: number): Promise<number | undefined> {
  if (res === 'project') return n.remoteIdOf(db, 'project', local);
  let p: unknown = row.project_id;
  if ((p === undefined || p === null) && res === 'todoItem') p = (await q.localRow(db, 'todo_lists', Number(row.todo_list_id)))?.project_id;
  return p === undefined || p === null ? undefined : n.remoteIdOf(db, 'project', Number(p));
}

const clientId = async (db: Queryable): Promise<string> => (await n.stateValue(db, 'client')) ?? 'c';

/** A conflict just recorded here, as the engine knows it (local ids and values). */
export interface Recorded {
  res: ResourceKey;
  /** The local id of the record (still mapped to its remote id in this transaction). */
  id: number;
  /** Its local values (for a record deleted here: the values pulled, in local terms). */
  row: WireRow;
  conflicts: readonly Conflict[];
  about: { title: string; place: string[] } | null;
  now: string;
  /** A remote deletion: the record it removed (the top of the removal), and D311's group. */
  removal?: { res: ResourceKey; id: number; row: WireRow; group?: string };
}

/**
 * Queue the notices of conflicts recorded in this transaction (D328). Only conflicts about fields people
 * edit, and whole records added under a deleted one; a record the team server does not know is skipped.
 */
export async function queueNotices(w: Queryable, r: Recorded): Promise<void> {
  if (!r.conflicts.length || PROJECTLESS.has(r.res)) return;
  const client = await clientId(w);
  for (const c of r.conflicts) {
    if (c.field !== '*' && fieldLabel(r.res, c.field) === null) continue; // bookkeeping is never told
    let body: NoticeBody | null = null;
    const base = { title: r.about?.title ?? '', place: r.about?.place ?? [] };
    if (c.kind === 'field' || c.kind === 'delete-vs-edit') {
      const id = await n.remoteIdOf(w, r.res, r.id);
      const project = await projectOf(w, r.res, r.row, r.id);
      if (id === undefined || project === undefined) continue;
      body = c.kind === 'field'
        ? { kind: 'field', project, resource: r.res, id, field: c.field, child: null, overwritten: await toWire(w, c.field, c.theirs), kept: await toWire(w, c.field, c.mine), ...base }
        : { kind: 'delete-vs-edit', project, resource: r.res, id, field: c.field, child: null, overwritten: await toWire(w, c.field, c.theirs), kept: null, ...base };
    } else if ((c.kind === 'edit-vs-delete' || c.kind === 'parent-deleted') && r.removal) {
      const top = r.removal;
      const id = await n.remoteIdOf(w, top.res, top.id);
      const project = await projectOf(w, top.res, top.row, top.id);
      if (id === undefined || project === undefined) continue;
      const self = top.res === r.res && top.id === r.id;
      body = c.kind === 'edit-vs-delete'
        ? { kind: 'edit-vs-delete', project, resource: top.res, id, field: c.field, child: self ? null : r.res, overwritten: await toWire(w, c.field, c.mine), kept: null, ...base }
        : Number(r.row.private) === 1 // a private record's text is not carried: a client may be the deleter (D328)
          ? { kind: 'parent-deleted', project, resource: top.res, id, field: '*', child: r.res, overwritten: null, kept: null, title: `A private ${RESOURCE_NAMES[r.res].toLowerCase()}`, place: base.place }
          : { kind: 'parent-deleted', project, resource: top.res, id, field: '*', child: r.res, overwritten: base.title, kept: null, ...base };
    }
    if (body) await n.queueNotice(w, `${client}:${randomUUID()}`, JSON.stringify(body), r.removal?.group ?? null, r.now);
  }
}

/** A removal this replica lost was restored with its work, or left deleted (D311): the deleter is told. */
export async function queueOutcome(w: Queryable, group: string, outcome: 'restored' | 'dropped', now: string): Promise<void> {
  const first = await n.noticeOfGroup(w, group);
  if (!first) return;
  const b = JSON.parse(first.body) as NoticeBody;
  const body: NoticeBody = { ...b, kind: outcome, field: '*', child: null, overwritten: null, kept: null };
  await n.queueNotice(w, `${await clientId(w)}:${randomUUID()}`, JSON.stringify(body), group, now);
}

/**
 * The values this replica pushed, per record and field ('*' = deleted): written with the push's outcome
 * (`now`: the transaction's time). What expired goes first (D344); a deletion keeps only itself.
 */
export async function rememberPushed(w: Queryable & { now?: string }, entries: readonly { changes: readonly RowChange[] }[], now = w.now ?? new Date().toISOString()): Promise<void> {
  await n.prunePushed(w, now);
  const expires = after(now, PUSHED_DAYS);
  for (const e of entries) {
    for (const c of e.changes) {
      const res = resourceOfTable(c.t);
      if (!res || PROJECTLESS.has(res)) continue;
      const id = await n.remoteIdOf(w, res, c.id);
      if (id === undefined) continue;
      if (c.op === 'delete') {
        await n.dropPushedFields(w, res, id);
        await n.setPushed(w, res, id, '*', 'deleted', expires);
        continue;
      }
      for (const [col, v] of Object.entries(c.v ?? {})) if (fieldLabel(res, col) !== null) await n.setPushed(w, res, id, col, text(v), expires);
    }
  }
}

/**
 * The remote deleted a record this replica held (someone else did): what it pushed of it is kept a week,
 * for a notice of an edit of its lost to that deletion (the deleter sends it after its push), then goes.
 */
export async function forgetPushed(w: Queryable, res: ResourceKey, remoteId: number, now: string): Promise<void> {
  await n.expirePushed(w, res, remoteId, after(now, GONE_DAYS));
}

// ---- the exchange with the team server -------------------------------------------------------------

const PAGE = 200;
const PAGES_PER_SYNC = 10;

/** Send what was queued, then read what this replica may have to be told. A failure waits for the next sync. */
export async function exchangeNotices(store: Store, remote: Remote): Promise<void> {
  try {
    await send(store, remote);
    await read(store, remote);
  } catch { /* the remote went away: both are done again at the next sync */ }
}

async function send(store: Store, remote: Remote): Promise<void> {
  for (let round = 0; round < 20; round++) {
    const rows = await n.unsent(store, 100);
    if (!rows.length) return;
    const post = (list: typeof rows) => remote.request('POST', '/sync/notices.json',
      JSON.stringify({ notices: list.map((r) => ({ key: r.notice_key, ...JSON.parse(r.body) as NoticeBody })) }), { 'content-type': 'application/json' });
    const res = await post(rows);
    if (res.status === 429 || res.status >= 500) return;
    const done: string[] = [];
    if (res.status === 200) done.push(...rows.map((r) => r.notice_key));
    else {
      // One refused notice (its record gone from the feed, a project no longer shared…) does not hold back the others.
      for (const r of rows) {
        const one = await post([r]);
        if (one.status === 429 || one.status >= 500) break;
        done.push(r.notice_key);
      }
    }
    await store.write(async (w) => {
      w.outbox?.mute();
      await n.markSent(w, done);
      await n.purgeSent(w, new Date(Date.now() - KEEP_SENT_DAYS * 86_400_000).toISOString());
    });
    if (done.length < rows.length) return;
  }
}

interface Received extends NoticeBody { seq: number; at: string; by: string }

const str = (v: unknown, max: number): string | null => (typeof v === 'string' ? v.slice(0, max) : null);
const okId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/** A notice as a hostile remote may send it: anything out of shape is left out. */
function decode(x: unknown): Received | null {
  const o = (x && typeof x === 'object' ? x : {}) as Record<string, unknown>;
  const res = typeof o.resource === 'string' && Object.hasOwn(RESOURCES, o.resource) ? o.resource as ResourceKey : null;
  const child = typeof o.child === 'string' && Object.hasOwn(RESOURCES, o.child) ? o.child as ResourceKey : null;
  const field = str(o.field, 64);
  if (!KINDS.has(o.kind as NoticeBody['kind']) || !res || !okId(o.id) || !okId(o.seq) || field === null) return null;
  if (field !== '*' && fieldLabel(child ?? res, field) === null) return null;
  const by = (o.by && typeof o.by === 'object' ? o.by : {}) as Record<string, unknown>;
  return {
    kind: o.kind as NoticeBody['kind'], project: Number(o.project), resource: res, id: o.id, field, child,
    overwritten: str(o.overwritten, 2000), kept: str(o.kept, 2000), title: str(o.title, 200) ?? '',
    place: Array.isArray(o.place) ? o.place.slice(0, 4).map((p) => str(p, 200) ?? '') : [],
    seq: o.seq, at: str(o.at, 40) ?? '', by: str(by.name, 200) ?? '',
  };
}

async function read(store: Store, remote: Remote): Promise<void> {
  let cursor = (await n.stateValue(store, 'notice_cursor')) ?? '0';
  for (let page = 0; page < PAGES_PER_SYNC; page++) {
    const res = await remote.request('GET', `/sync/notices.json?since=${cursor}&limit=${PAGE}`, null, {}, 4 * 1024 * 1024);
    if (res.status !== 200) return;
    let j: { cursor?: unknown; more?: unknown; notices?: unknown };
    try { j = JSON.parse(res.body) as typeof j; } catch { return; }
    const next = String(j?.cursor ?? '');
    // A cursor that does not move ends the read (a hostile remote cannot make a notice recorded twice).
    if (!/^\d{1,16}$/.test(next) || !Array.isArray(j.notices) || BigInt(next) <= BigInt(cursor)) return;
    const list = j.notices.slice(0, PAGE).map(decode)
      .filter((x): x is Received => x !== null && BigInt(x.seq) > BigInt(cursor) && BigInt(x.seq) <= BigInt(next));
    await store.write(async (w) => {
      w.outbox?.mute();
      for (const x of list) await record(w, x);
      await q.setState(w, 'notice_cursor', next);
    });
    cursor = next;
    if (j.more !== true) return;
  }
}

/** Record a notice as a conflict here when this replica pushed what was lost (or the deletion that won). */
async function record(w: Queryable, x: Received): Promise<void> {
  const ctx = (more: Partial<ToldContext> = {}): ToldContext => ({ title: x.title, place: x.place, by: x.by || null, told: true, ...more });
  const at = x.at || new Date().toISOString();
  if (x.kind === 'field' || x.kind === 'delete-vs-edit') {
    const mine = await n.pushed(w, x.resource, x.id, x.field);
    const lost = await fromWire(w, x.field, x.overwritten);
    if (!mine || mine.value === null || mine.value !== lost) return; // not mine: a bystander is not told
    if (x.kind === 'field') {
      const local = await n.localIdOf(w, x.resource, x.id);
      const kept = await fromWire(w, x.field, x.kept);
      if (local === undefined || kept === lost) return;
      await q.addConflict(w, x.resource, local, { field: x.field, mine: lost, theirs: kept, kind: 'field' }, at, ctx());
    } else {
      const local = await n.localIdOf(w, x.resource, x.id);
      await q.addConflict(w, x.resource, local ?? 0, { field: x.field, mine: lost, theirs: null, kind: 'edit-vs-delete' }, at, ctx({ target: `${x.resource}:${x.id}` }));
    }
    return;
  }
  // The deletion kinds: told to the replica that pushed the deletion.
  const mine = await n.pushed(w, x.resource, x.id, '*');
  const target = `${x.resource}:${x.id}`;
  if (x.kind === 'restored' || x.kind === 'dropped') {
    // Cards told here of that removal say this replica made it, also once its '*' row expired (D344).
    const cards = await n.toldAbout(w, target);
    if (!cards.length && mine?.value !== 'deleted') return;
    for (const c of cards) {
      let kept: ToldContext;
      try { kept = JSON.parse(c.context ?? '') as ToldContext; } catch { continue; }
      await n.setContext(w, c.id, JSON.stringify({ ...kept, outcome: x.kind }));
    }
    if (!cards.length) await q.addConflict(w, x.resource, 0, { field: '*', mine: null, theirs: null, kind: 'delete-vs-edit' }, at, ctx({ target, outcome: x.kind }));
    return;
  }
  if (mine?.value !== 'deleted') return;
  const res = x.child ?? x.resource;
  const theirs = x.field === '*' ? x.overwritten : await fromWire(w, x.field, x.overwritten);
  await q.addConflict(w, res, 0, { field: x.field, mine: null, theirs, kind: 'delete-vs-edit' }, at, ctx({ target }));
}
