// `sync_pushed` is bounded (issue #26, D329, D344): the value a replica pushed last per record and field is
// kept as long as a notice about it can come (the team server keeps notices as long as its tombstones, 90 days
// by default); a record this replica deleted keeps only its deletion; a record the remote deleted keeps its
// rows a week (a notice about an edit lost to that deletion follows the deletion). Unit level: a replica store
// in memory and a fake remote for the notices' read.

import { describe, expect, it } from 'vitest';
import * as q from '../../../electron/store/queries/replica.ts';
import { exchangeNotices, rememberPushed } from '../../../electron/sync/notices.ts';
import { applySet } from '../../../electron/sync/apply.ts';
import { emptySet } from '../../../electron/sync/phase.ts';
import type { Remote } from '../../../electron/sync/remote.ts';
import type { RowChange } from '../../../shared/sync/plan.ts';
import { FakeRemote, phaseEnv } from '../../support/sync-phase-fake.ts';

const DAY = 86_400_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const day = (d: number) => new Date(T0 + d * DAY).toISOString();
type Env = ReturnType<typeof phaseEnv>;

/** A replica whose local to-do `n` is the team server's `1000 + n` (n in 1..count), in project 1 (remote 10), list 1 (20). */
async function replica(count: number): Promise<Env> {
  const env = phaseEnv();
  await env.store.write(async (w) => {
    await w.insert('companies', { id: 1, name: 'Acme' }, null);
    await w.insert('projects', { id: 1, name: 'Site', company_id: 1 }, null);
    await w.insert('todo_lists', { id: 1, project_id: 1, name: 'Launch' }, 1);
    for (const [r, l, rid] of [['company', 1, 1], ['project', 1, 10], ['todoList', 1, 20]] as const) await q.mapId(w, r, l, rid);
    for (let n = 1; n <= count; n++) {
      await w.insert('todo_items', { id: n, project_id: 1, todo_list_id: 1, content: `item ${n}` }, 1);
      await q.mapId(w, 'todoItem', n, 1000 + n);
      await q.putShadow(w, 'todoItem', 1000 + n, 'p10/items/20', { id: 1000 + n, todo_list_id: 20, content: `item ${n}` });
    }
  });
  return env;
}

const push = (env: Env, changes: RowChange[], at: string) => env.store.write((w) => rememberPushed(w, [{ changes }], at));
const rows = async (env: Env) => env.store.all<{ resource: string; remote_id: number; field: string; value: string | null }>(
  'SELECT resource, remote_id, field, value FROM sync_pushed ORDER BY remote_id, field');

/** A notice from the team server: Fran's value replaced item 1's content, which was `overwritten` (or `o` says otherwise). */
function noticeRemote(overwritten: string, at: string, o: Record<string, unknown> = {}): Remote {
  const fake = new FakeRemote();
  fake.answer = (s) => ({
    status: 200, headers: new Headers(),
    body: s.method === 'GET' ? JSON.stringify({ cursor: 1, more: false, notices: [{
      seq: 1, at, by: { name: 'Fran Firm' }, kind: 'field', project: 10, resource: 'todoItem', id: 1001, field: 'content', child: null,
      overwritten, kept: 'one (fran)', title: 'one (fran)', place: ['Site', 'Launch'], ...o,
    }] }) : '{}',
  });
  return fake as unknown as Remote;
}

describe('sync_pushed stays bounded (D344)', () => {
  it('under a workload of 200 days of edits, it holds only the values pushed within the retention', async () => {
    const env = await replica(400);
    let most = 0;
    for (let d = 0; d < 200; d++) {
      // Each day two to-dos get a new text (a different pair every day).
      const n = 1 + (d * 2) % 400;
      const changes: RowChange[] = [n, n + 1].map((id) => ({ t: 'todo_items', id, op: 'update', v: { content: `day ${d}`, updated_at: day(d) } }));
      await push(env, changes, day(d));
      most = Math.max(most, (await rows(env)).length);
    }
    // Without pruning: 400 rows (one per record edited). The retention is 90 days: at most 91 days of 2 rows.
    expect(most).toBeLessThanOrEqual(182);
    const left = await rows(env);
    expect(left.every((r) => r.value !== null && Number(r.value.slice(4)) >= 199 - 90)).toBe(true);
    expect(left.some((r) => r.value === 'day 199')).toBe(true);
  });

  it('a record deleted here keeps only its deletion; one deleted on the remote keeps its rows a week', async () => {
    const env = await replica(3);
    const now = Date.now();
    const at = (d: number) => new Date(now + d * DAY).toISOString();
    await push(env, [{ t: 'todo_items', id: 1, op: 'update', v: { content: 'mine', completed: 1 } }, { t: 'todo_items', id: 2, op: 'update', v: { content: 'mine too' } }], at(-2));
    await push(env, [{ t: 'todo_items', id: 1, op: 'delete' }], at(-1));
    expect(await rows(env)).toEqual([{ resource: 'todoItem', remote_id: 1001, field: '*', value: 'deleted' }, { resource: 'todoItem', remote_id: 1002, field: 'content', value: 'mine too' }]);
    // The remote deletes to-do 2 (someone else did): its row stays a week after, then goes with the next push.
    const set = emptySet();
    set.deletes.push(['todoItem', 1002]);
    await applySet(env, set, await q.shadows(env.store), null, { park: false });
    await push(env, [{ t: 'todo_items', id: 3, op: 'update', v: { content: 'later' } }], at(6));
    expect((await rows(env)).map((r) => r.remote_id)).toContain(1002);
    await push(env, [{ t: 'todo_items', id: 3, op: 'update', v: { content: 'later still' } }], at(8));
    expect((await rows(env)).map((r) => r.remote_id)).not.toContain(1002);
  });

  it('the overwritten editor is still told of a value pushed within the retention, not of one pruned', async () => {
    const env = await replica(2);
    const now = Date.now();
    await push(env, [{ t: 'todo_items', id: 1, op: 'update', v: { content: 'one (ada)' } }], new Date(now - 80 * DAY).toISOString());
    await exchangeNotices(env.store, noticeRemote('one (ada)', new Date(now).toISOString()));
    expect((await q.conflicts(env.store)).map((c) => [c.field, c.mine, c.theirs])).toEqual([['content', 'one (ada)', 'one (fran)']]);

    const old = await replica(2);
    await push(old, [{ t: 'todo_items', id: 1, op: 'update', v: { content: 'one (ada)' } }], new Date(now - 100 * DAY).toISOString());
    await push(old, [{ t: 'todo_items', id: 2, op: 'update', v: { content: 'two' } }], new Date(now).toISOString());
    await exchangeNotices(old.store, noticeRemote('one (ada)', new Date(now).toISOString()));
    expect(await q.conflicts(old.store)).toEqual([]);
  });

  it('a deleter told of work lost with its deletion learns it was restored, even once its own deletion\'s row expired', async () => {
    const restored = { kind: 'restored', field: '*', overwritten: null, kept: null, title: 'one' };
    const deleter = await replica(1);
    // Told earlier (D329) of Fran's work on the to-do it deleted; its '*' row has expired since.
    await q.addConflict(deleter.store, 'todoItem', 0, { field: 'completed', mine: null, theirs: '1', kind: 'delete-vs-edit' }, new Date().toISOString(),
      { title: 'one', place: [], by: 'Fran Firm', told: true, target: 'todoItem:1001' });
    await exchangeNotices(deleter.store, noticeRemote('', new Date().toISOString(), restored));
    expect((await q.conflicts(deleter.store)).map((c) => JSON.parse(c.context!).outcome)).toEqual(['restored']);
    // A bystander (no card, no deletion pushed) is still not told.
    const bystander = await replica(1);
    await exchangeNotices(bystander.store, noticeRemote('', new Date().toISOString(), restored));
    expect(await q.conflicts(bystander.store)).toEqual([]);
  });
});
