// Property tests of the pure sync decisions (issue #8), with a small seeded generator: push
// planning (parents before children, ids rewritten), the field-level merge (replicas converge,
// every overwritten concurrent edit is logged), and what a refused push does.

import { describe, expect, it } from 'vitest';
import { classify, mergeRecord, same, type Conflict } from '../../../shared/sync/merge.ts';
import { planAction, Unmapped, type LocalView, type RowChange } from '../../../shared/sync/plan.ts';
import { rewriteIds } from '../../../shared/sync/ids.ts';
import type { Value, WireRow } from '../../../shared/sync/wire.ts';
import { rng } from '../../../shared/sync/rng.ts';


const SEEDS = Array.from({ length: 40 }, (_, k) => 1000 + k);
const REMOTE = 100_000; // remote id = local id + REMOTE: a rewritten id is recognisable

describe('push planning', () => {
  /** Random local actions over a project: lists, items, comments, edits, completes, reorders, deletes. */
  function randomOutbox(seed: number): { groups: RowChange[][]; view: LocalView } {
    const r = rng(seed);
    let next = 10;
    const lists: number[] = [];
    const items = new Map<number, number>(); // item -> list
    const alive = new Set<number>();
    const groups: RowChange[][] = [];
    for (let k = 0; k < 60; k++) {
      const op = r.int(7);
      if (op === 0 || !lists.length) {
        const id = next++;
        lists.push(id);
        alive.add(id);
        groups.push([{ t: 'todo_lists', id, op: 'insert', v: { name: `l${id}`, project_id: 1, position: lists.length } }]);
      } else if (op === 1) {
        const id = next++;
        const l = r.pick(lists);
        items.set(id, l);
        alive.add(id);
        groups.push([{ t: 'todo_items', id, op: 'insert', v: { content: `i${id}`, todo_list_id: l, project_id: 1, position: 1, responsible_party_id: 3, responsible_party_type: 'Person' } }]);
      } else if (op === 2 && items.size) {
        const it = r.pick([...items.keys()]);
        groups.push([{ t: 'comments', id: next++, op: 'insert', v: { body: 'c', commentable_type: 'TodoItem', commentable_id: it, project_id: 1 } }]);
      } else if (op === 3 && items.size) {
        const it = r.pick([...items.keys()]);
        groups.push([{ t: 'todo_items', id: it, op: 'update', v: r.next() < 0.5 ? { content: 'edited', updated_at: 'x' } : { completed: 1, completed_at: 'x', completer_id: 3 } }]);
      } else if (op === 4 && items.size > 2) {
        const l = r.pick(lists);
        const mine = [...items].filter(([, x]) => x === l).map(([i]) => i);
        groups.push(mine.map((i, n) => ({ t: 'todo_items', id: i, op: 'update' as const, v: { position: mine.length - n } })));
      } else if (op === 5 && items.size) {
        const it = r.pick([...items.keys()]);
        items.delete(it);
        groups.push([{ t: 'comments', id: 1, op: 'delete' }, { t: 'todo_items', id: it, op: 'delete' }, { t: 'todo_items', id: r.pick([...items.keys(), it]), op: 'update', v: { position: 1 } }]);
      } else {
        groups.push([{ t: 'time_entries', id: next++, op: 'insert', v: { date: '2026-01-01', hours: 1, description: '', person_id: 3, project_id: 1, todo_item_id: items.size ? r.pick([...items.keys()]) : null } }]);
      }
    }
    const view: LocalView = {
      row: (t, id): WireRow | undefined => (t === 'todo_items' && items.has(id) ? { id, todo_list_id: items.get(id)!, project_id: 1 } : t === 'todo_lists' ? { id, project_id: 1 } : undefined),
      order: (res, parent) => (res === 'todoItem' ? [...items].filter(([, l]) => l === parent).map(([i]) => i) : lists),
    };
    return { groups, view };
  }

  it.each(SEEDS)('replayed in order, every request names remote ids only and creates come before their children (seed %i)', (seed) => {
    const { groups, view } = randomOutbox(seed);
    const map = new Map<string, number>([['project:1', 1 + REMOTE], ['person:3', 3 + REMOTE]]);
    for (const g of groups) {
      const steps = planAction(g, view, (res, id) => map.get(`${res}:${id}`));
      expect(steps.filter((s) => s.kind === 'delete').length).toBeLessThanOrEqual(1);
      if (g.some((c) => c.op === 'delete')) expect(steps.every((s) => s.kind === 'delete')).toBe(true);
      expect(new Set(steps.filter((s) => s.kind === 'reorder').map((s) => s.path)).size).toBe(steps.filter((s) => s.kind === 'reorder').length);
      for (const s of steps) {
        for (const n of (s.path.match(/\d+/g) ?? []).map(Number)) expect(n).toBeGreaterThan(REMOTE);
        for (const n of [...(s.body ?? '').matchAll(/<(?:id|person-id|todo-item-id|responsible-party)>(\d+)</g)].map((m) => Number(m[1]))) expect(n).toBeGreaterThan(REMOTE);
        if (s.kind === 'create') map.set(`${s.resource}:${s.localId}`, s.localId + REMOTE);
      }
    }
  });

  it('a child whose parent never reached the remote is Unmapped (it cannot be pushed)', () => {
    const view: LocalView = { row: () => undefined, order: () => [] };
    expect(() => planAction([{ t: 'todo_items', id: 5, op: 'insert', v: { content: 'x', todo_list_id: 4, project_id: 1 } }], view, () => undefined)).toThrow(Unmapped);
  });

  it('a delete replays only the principal record, and a record born and deleted offline sends nothing', () => {
    const view: LocalView = { row: () => undefined, order: () => [] };
    const map = (res: string, id: number) => (res === 'post' && id === 7 ? 70 : res === 'comment' ? id * 10 : undefined);
    expect(planAction([{ t: 'comments', id: 1, op: 'delete' }, { t: 'comments', id: 2, op: 'delete' }, { t: 'posts', id: 7, op: 'delete' }], view, map))
      .toMatchObject([{ kind: 'delete', method: 'DELETE', path: '/posts/70.xml' }]);
    expect(planAction([{ t: 'posts', id: 8, op: 'insert', v: { title: 't', project_id: 1 } }, { t: 'posts', id: 8, op: 'delete' }], view, map)).toEqual([]);
  });

  it('an update sends only the fields the action wrote, with ids rewritten', () => {
    const view: LocalView = { row: () => undefined, order: () => [] };
    const [s] = planAction([{ t: 'todo_items', id: 2, op: 'update', v: { responsible_party_id: 4, responsible_party_type: 'Company', updated_at: 'x' } }], view,
      (res, id) => (res === 'todoItem' ? 20 : res === 'company' && id === 4 ? 40 : undefined));
    expect(s).toMatchObject({ kind: 'update', method: 'PUT', path: '/todo_items/20.xml' });
    expect(s.body).toContain('<responsible-party>c40</responsible-party>');
    expect(s.body).not.toContain('content');
    expect(s.body).not.toContain('updated');
  });
});

describe('merge of pulled state with pending local edits', () => {
  const FIELDS = ['name', 'description', 'tracked', 'milestone_id'];

  it.each(SEEDS)('replicas converge with the server, and every concurrent edit a push overwrites is in a conflict log (seed %i)', (seed) => {
    const r = rng(seed);
    const server: WireRow = { id: 1, name: 'n0', description: 'd0', tracked: 0, milestone_id: null };
    interface Rep { base: WireRow; local: WireRow; pending: Set<string>; log: Conflict[]; online: boolean }
    const reps: Rep[] = Array.from({ length: 3 }, () => ({ base: { ...server }, local: { ...server }, pending: new Set<string>(), log: [], online: true }));
    const mustLog: { field: string; value: Value }[] = [];
    let n = 0;
    const sync = (x: Rep) => {
      const { apply, conflicts } = mergeRecord(x.base, server, x.local, x.pending);
      Object.assign(x.local, apply);
      x.log.push(...conflicts);
      for (const f of x.pending) {
        if (!same(server[f], x.local[f]) && !same(server[f], x.base[f])) mustLog.push({ field: f, value: server[f] });
        server[f] = x.local[f];
      }
      x.pending.clear();
      x.base = { ...server };
    };
    for (let k = 0; k < 200; k++) {
      const x = r.pick(reps);
      const op = r.int(10);
      if (op < 6) {
        const f = r.pick(FIELDS);
        x.local[f] = f === 'tracked' ? r.int(2) : f === 'milestone_id' ? (r.next() < 0.3 ? null : r.int(3)) : `${f[0]}${++n}`;
        x.pending.add(f);
      } else if (op < 8) x.online = !x.online; // a partition
      else if (x.online) sync(x);
    }
    for (const x of reps) x.online = true;
    for (let round = 0; round < 2; round++) for (const x of reps) sync(x);
    for (const x of reps) expect(x.local).toEqual(server);
    const logged = reps.flatMap((x) => x.log);
    for (const m of mustLog) expect(logged.some((c) => c.field === m.field && same(c.theirs, m.value))).toBe(true);
  });

  it('edits of different fields merge silently; a pending bookkeeping column keeps its local value without a conflict', () => {
    const base = { id: 1, name: 'a', position: 1 };
    const { apply, conflicts } = mergeRecord(base, { id: 1, name: 'b', position: 3 }, { id: 1, name: 'a', position: 2 }, new Set(['position']), (c) => c === 'name');
    expect(apply).toEqual({ name: 'b' });
    expect(conflicts).toEqual([]);
  });

  it('ids of a pulled row are rewritten to local ids; unmapped references are reported', () => {
    const { row, missing } = rewriteIds({ id: 9, todo_list_id: 5, commentable_type: 'Post', commentable_id: 6, category_id: null }, (res, id) => (res === 'todoList' ? id + 1 : undefined), 'todoItem');
    expect(row).toMatchObject({ todo_list_id: 6, commentable_id: 6, category_id: null });
    expect(missing.map((m) => m.col).sort()).toEqual(['commentable_id', 'id']);
  });
});

describe('what a refused push does', () => {
  it.each([
    [403, null, 'rejected'], [404, null, 'rejected'], [422, null, 'rejected'], [409, null, 'rejected'],
    [409, '1', 'retry'], [500, null, 'retry'], [503, '7', 'retry'], [429, '2', 'retry'], [null, null, 'retry'], [201, null, 'done'],
  ] as const)('HTTP %s (Retry-After %s) -> %s', (status, after, kind) => {
    expect(classify(status, after, 3, 0).kind).toBe(kind);
  });
  it('honours Retry-After in seconds and as an HTTP date; otherwise backs off exponentially, capped', () => {
    expect(classify(429, '7', 0, 0)).toMatchObject({ afterMs: 7000 });
    expect(classify(503, new Date(60_000).toUTCString(), 0, 30_000)).toMatchObject({ afterMs: 30_000 });
    // `now` is the remote's clock (its Date header): a date hours ahead of ours waits only what the remote meant; at most an hour.
    expect(classify(503, new Date(3 * 3_600_000 + 2000).toUTCString(), 0, 3 * 3_600_000)).toMatchObject({ afterMs: 2000 });
    expect(classify(429, new Date(9 * 3_600_000).toUTCString(), 0, 0)).toMatchObject({ afterMs: 3_600_000 });
    expect(classify(503, '86400', 0, 0)).toMatchObject({ afterMs: 3_600_000 });
    const a = classify(500, null, 1, 0), b = classify(500, null, 4, 0), c = classify(null, null, 40, 0);
    expect(a.kind === 'retry' && b.kind === 'retry' && c.kind === 'retry' && a.afterMs < b.afterMs && c.afterMs <= 60_000).toBe(true);
  });
});
