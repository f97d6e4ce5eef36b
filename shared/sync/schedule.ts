// Push scheduling (issue #8, D105): which outbox entries must wait for which earlier ones, so that
// independent actions can be replayed concurrently while keeping the outbox's meaning. Pure.
//
// Each entry has a footprint: the records it WRITES (inserts, updates, deletes: `resource:id`) and
// the records it only REFERENCES (its parents and other reference columns: project_id,
// todo_list_id, commentable_id…). Ordering is a readers/writer rule per record:
//  - an entry that writes R waits for the last earlier entry that wrote R and for every earlier
//    entry that referenced R since then (a child created before its parent is deleted keeps going
//    first; two edits of one record stay in order);
//  - an entry that references R waits for the last earlier entry that wrote R (parents before
//    children); two children of one parent do not wait for each other;
//  - a create also writes its parent's COLLECTION (`todoItem@todoList:7`): the remote appends a new
//    record at the end (positions, ids, times), so creates into one list, project or thread keep
//    their local order; creates into different collections and edits of different records overlap;
//  - a BARRIER waits for every earlier entry and every later entry waits for it. Barriers are the
//    actions whose effect reaches beyond their footprint: deletes (the server cascades), moves and
//    reorders (one request carries the whole current order of a parent), anything outside the
//    registry's resources (memberships), and the intents whose effect the remote decides (a milestone
//    moved with "move upcoming" shifts the remote's later open milestones: records/reachesBeyond, D336).

import { refResource } from './ids.ts';
import type { RowChange } from './plan.ts';
import { reachesBeyond } from './intents/records.ts';
import { resourceOfTable } from './wire.ts';

export interface Footprint {
  readonly writes: ReadonlySet<string>;
  readonly refs: ReadonlySet<string>;
  readonly barrier: boolean;
}

/** The collection a new record is appended to (its parent, as the remote orders it). */
function collectionOf(r: string, v: Readonly<Record<string, unknown>>): string {
  if (r === 'todoItem') return `todoList:${String(v.todo_list_id)}`;
  if (r === 'comment') return `${String(v.commentable_type)}:${String(v.commentable_id)}`;
  return `project:${String(v.project_id)}`;
}

/** An outbox entry's intents as the schedule reads them (null: an entry written before them). */
type Intents = readonly { readonly name: string; readonly args: unknown }[] | null | undefined;

export function footprint(changes: readonly RowChange[], intents?: Intents): Footprint {
  const writes = new Set<string>();
  const refs = new Set<string>();
  let barrier = (intents ?? []).some(reachesBeyond);
  for (const c of changes) {
    const r = resourceOfTable(c.t);
    if (!r) { barrier = true; continue; }
    writes.add(`${r}:${c.id}`);
    if (c.op === 'insert') writes.add(`${r}@${collectionOf(r, c.v ?? {})}`);
    if (c.op === 'delete') barrier = true;
    if (c.op === 'update' && c.v && ('position' in c.v || 'todo_list_id' in c.v || 'project_id' in c.v)) barrier = true;
    for (const [col, v] of Object.entries(c.v ?? {})) {
      if (col === 'id' || typeof v !== 'number' || v === 0) continue;
      const ref = refResource(col, c.v!);
      if (ref) refs.add(`${ref}:${v}`);
    }
  }
  for (const w of writes) refs.delete(w);
  return { writes, refs, barrier };
}

/**
 * For each entry (by seq, in outbox order), the seqs of the earlier entries it must wait for.
 * Waiting for these (transitively) is enough: chains per record are ordered, barriers fence all.
 */
export function dependencies(entries: readonly { readonly seq: number; readonly changes: readonly RowChange[]; readonly intents?: Intents }[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  const lastWriter = new Map<string, number>();
  const readers = new Map<string, number[]>();
  let barrier: number | null = null;
  let sinceBarrier: number[] = [];
  for (const e of entries) {
    const f = footprint(e.changes, e.intents);
    const deps = new Set<number>();
    if (f.barrier) {
      if (barrier !== null) deps.add(barrier);
      for (const s of sinceBarrier) deps.add(s);
      barrier = e.seq;
      sinceBarrier = [];
      lastWriter.clear();
      readers.clear();
    } else {
      if (barrier !== null) deps.add(barrier);
      for (const k of f.writes) {
        const w = lastWriter.get(k);
        if (w !== undefined) deps.add(w);
        for (const r of readers.get(k) ?? []) deps.add(r);
        lastWriter.set(k, e.seq);
        readers.delete(k);
      }
      for (const k of f.refs) {
        const w = lastWriter.get(k);
        if (w !== undefined) deps.add(w);
        const rs = readers.get(k);
        if (rs) rs.push(e.seq);
        else readers.set(k, [e.seq]);
      }
      sinceBarrier.push(e.seq);
    }
    out.set(e.seq, [...deps]);
  }
  return out;
}

/**
 * The next entries that may start: in outbox order, those whose dependencies are all finished and
 * that are neither finished nor running, at most `limit - running.size` of them.
 */
export function ready(order: readonly number[], deps: ReadonlyMap<number, readonly number[]>, finished: ReadonlySet<number>, running: ReadonlySet<number>, limit: number): number[] {
  const out: number[] = [];
  const room = limit - running.size;
  for (const s of order) {
    if (out.length >= room) break;
    if (finished.has(s) || running.has(s)) continue;
    if ((deps.get(s) ?? []).every((d) => finished.has(d))) out.push(s);
  }
  return out;
}
