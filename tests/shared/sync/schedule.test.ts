// Property tests of push scheduling (D105): a random outbox, run by a random concurrent scheduler,
// never starts a child before its parent's create finished, never reorders two actions on one
// record, fences deletes/reorders/memberships, and finishes everything.

import { describe, expect, it } from 'vitest';
import { dependencies, ready } from '../../../shared/sync/schedule.ts';
import type { RowChange } from '../../../shared/sync/plan.ts';
import { rng } from '../../../shared/sync/rng.ts';


interface Entry { seq: number; changes: RowChange[] }

/** Random actions: lists, items, comments, time entries, edits, completions, moves, deletes, memberships. */
function randomOutbox(seed: number, n = 120): Entry[] {
  const r = rng(seed);
  let next = 10;
  const P = 1;
  const lists: number[] = [];
  const items: number[] = [];
  const out: Entry[] = [];
  for (let k = 0; k < n; k++) {
    const op = r.int(9);
    let changes: RowChange[];
    if (op === 0 || !lists.length) {
      const id = next++;
      lists.push(id);
      changes = [{ t: 'todo_lists', id, op: 'insert', v: { id, project_id: P, name: `l${id}` } }];
    } else if (op <= 2 || !items.length) {
      const id = next++;
      items.push(id);
      changes = [{ t: 'todo_items', id, op: 'insert', v: { id, todo_list_id: r.pick(lists), content: `i${id}` } }];
    } else if (op === 3) {
      changes = [{ t: 'todo_items', id: r.pick(items), op: 'update', v: { content: `e${k}` } }];
    } else if (op === 4) {
      changes = [{ t: 'todo_items', id: r.pick(items), op: 'update', v: { completed: 1 } }];
    } else if (op === 5) {
      const id = next++;
      changes = [{ t: 'comments', id, op: 'insert', v: { id, commentable_type: 'TodoItem', commentable_id: r.pick(items), body: 'c' } }];
    } else if (op === 6) {
      const id = next++;
      changes = [{ t: 'time_entries', id, op: 'insert', v: { id, project_id: P, todo_item_id: r.pick(items), hours: 1 } }];
    } else if (op === 7) {
      const a = r.pick(items), b = r.pick(items);
      changes = r.int(2)
        ? [{ t: 'todo_items', id: a, op: 'update', v: { position: 1 } }, { t: 'todo_items', id: b, op: 'update', v: { position: 2 } }]
        : [{ t: 'todo_items', id: a, op: 'update', v: { todo_list_id: r.pick(lists), position: 1 } }];
    } else if (r.int(4) === 0) {
      changes = [{ t: 'project_members', id: 1, op: 'insert', v: { project_id: P, person_id: 2 } }];
    } else {
      const id = r.pick(items);
      changes = [{ t: 'todo_items', id, op: 'delete' }];
    }
    out.push({ seq: k + 1, changes });
  }
  return out;
}

/** The oracle, written from the raw changes (not from the scheduler's footprint). */
function mustPrecede(a: Entry, b: Entry): boolean {
  const fence = (e: Entry) => e.changes.some((c) => c.op === 'delete' || c.t === 'project_members' || (c.v && ('position' in c.v || 'todo_list_id' in c.v) && c.op === 'update'));
  if (fence(a) || fence(b)) return true;
  const recs = (e: Entry) => new Set(e.changes.map((c) => `${c.t}:${c.id}`));
  const parents = (e: Entry) => new Set(e.changes.flatMap((c) => {
    const v = c.v ?? {};
    const p: string[] = [];
    if (typeof v.todo_list_id === 'number') p.push(`todo_lists:${v.todo_list_id}`);
    if (typeof v.todo_item_id === 'number') p.push(`todo_items:${v.todo_item_id}`);
    if (v.commentable_type === 'TodoItem') p.push(`todo_items:${v.commentable_id}`);
    return p;
  }));
  // Creates into one collection keep their order (the remote appends).
  const coll = (e: Entry) => new Set(e.changes.filter((c) => c.op === 'insert').map((c) => `${c.t}@${c.v?.todo_list_id ?? ''}/${c.v?.commentable_id ?? ''}/${c.v?.todo_list_id === undefined && c.v?.commentable_id === undefined ? c.v?.project_id : ''}`));
  for (const x of coll(b)) if (coll(a).has(x)) return true;
  const ra = recs(a), rb = recs(b);
  for (const x of rb) if (ra.has(x)) return true; // same record: in order
  for (const x of parents(b)) if (ra.has(x)) return true; // b is a child of what a wrote
  for (const x of parents(a)) if (rb.has(x)) return true; // b changes a's parent after a used it
  return false;
}

/** A random concurrent run: returns start and finish ticks per seq. */
function simulate(entries: Entry[], seed: number, limit: number) {
  const r = rng(seed);
  const deps = dependencies(entries);
  const order = entries.map((e) => e.seq);
  const finished = new Set<number>();
  const running = new Set<number>();
  const start = new Map<number, number>(), end = new Map<number, number>();
  let tick = 0, maxRunning = 0;
  while (finished.size < entries.length) {
    for (const s of ready(order, deps, finished, running, limit)) { running.add(s); start.set(s, tick++); }
    maxRunning = Math.max(maxRunning, running.size);
    if (!running.size) throw new Error('deadlock: nothing runnable');
    const done = [...running][r.int(running.size)];
    running.delete(done);
    finished.add(done);
    end.set(done, tick++);
  }
  return { start, end, maxRunning };
}

const SEEDS = Array.from({ length: 60 }, (_, k) => 7000 + k);

describe('push scheduling', () => {
  it.each(SEEDS)('never runs a child before its parent nor two actions on one record out of order (seed %i)', (seed) => {
    const entries = randomOutbox(seed);
    const { start, end } = simulate(entries, seed * 31, 8);
    for (let i = 0; i < entries.length; i++) {
      for (let j = i + 1; j < entries.length; j++) {
        if (mustPrecede(entries[i], entries[j])) expect(end.get(entries[i].seq)!, `seq ${entries[i].seq} before ${entries[j].seq}`).toBeLessThan(start.get(entries[j].seq)!);
      }
    }
  });

  it('runs independent actions concurrently, up to the limit; creates into one list keep their order', () => {
    const entries: Entry[] = [{ seq: 1, changes: [{ t: 'todo_lists', id: 5, op: 'insert', v: { id: 5, project_id: 1, name: 'l' } }] }];
    for (let k = 0; k < 40; k++) entries.push({ seq: k + 2, changes: [{ t: 'todo_items', id: 100 + k, op: 'update', v: { content: `x${k}` } }] });
    entries.push({ seq: 42, changes: [{ t: 'todo_items', id: 200, op: 'insert', v: { id: 200, todo_list_id: 5, content: 'a' } }] });
    entries.push({ seq: 43, changes: [{ t: 'todo_items', id: 201, op: 'insert', v: { id: 201, todo_list_id: 5, content: 'b' } }] });
    entries.push({ seq: 44, changes: [{ t: 'todo_items', id: 202, op: 'insert', v: { id: 202, todo_list_id: 6, content: 'c' } }] });
    const deps = dependencies(entries);
    const order = entries.map((e) => e.seq);
    expect(ready(order, deps, new Set(), new Set(), 8)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(deps.get(42)).toEqual([1]); // after its list's create
    expect(new Set(deps.get(43))).toEqual(new Set([1, 42])); // after the earlier create into the same list
    expect(deps.get(44)).toEqual([]); // another list
    expect(simulate(entries, 1, 8).maxRunning).toBe(8);
  });

  it('keeps edits of one record and the delete of a parent after its children in order', () => {
    const entries: Entry[] = [
      { seq: 1, changes: [{ t: 'todo_items', id: 7, op: 'update', v: { content: 'a' } }] },
      { seq: 2, changes: [{ t: 'comments', id: 9, op: 'insert', v: { id: 9, commentable_type: 'TodoItem', commentable_id: 7, body: 'c' } }] },
      { seq: 3, changes: [{ t: 'todo_items', id: 7, op: 'update', v: { content: 'b' } }] },
      { seq: 4, changes: [{ t: 'todo_items', id: 8, op: 'update', v: { content: 'other' } }] },
      { seq: 5, changes: [{ t: 'todo_items', id: 7, op: 'delete' }, { t: 'comments', id: 9, op: 'delete' }] },
    ];
    const deps = dependencies(entries);
    expect(deps.get(2)).toEqual([1]);
    expect(new Set(deps.get(3))).toEqual(new Set([1, 2]));
    expect(deps.get(4)).toEqual([]);
    expect(new Set(deps.get(5))).toEqual(new Set([1, 2, 3, 4]));
  });
});
