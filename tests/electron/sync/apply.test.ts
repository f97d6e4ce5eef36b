// The apply and reject phases alone (electron/sync/apply.ts, reject.ts; D317): a pulled record merged
// with a pending local edit (the conflict logged, the remote's other change applied), and a refused
// update put back at the remote's state with the entry on the rejected list.

import { describe, expect, it } from 'vitest';
import * as q from '../../../electron/store/queries/replica.ts';
import { applyContext, applyOne, applySet } from '../../../electron/sync/apply.ts';
import { TABLE_ORDER } from '../../../shared/registry.ts';
import type { Pulled } from '../../../electron/sync/phase.ts';
import { push } from '../../../electron/sync/push.ts';
import { reject } from '../../../electron/sync/reject.ts';
import { emptySet } from '../../../electron/sync/phase.ts';
import { FakeRemote, phaseEnv } from '../../support/sync-phase-fake.ts';

const BASE = { id: 30, todo_list_id: 20, content: 'Base', due_at: null };

/** A replica holding item 5 (remote 30) in list 1 (20) of project 1 (10), last pulled as BASE, edited here to 'Mine'. */
async function replica() {
  const env = phaseEnv();
  await env.store.write(async (w) => {
    await w.insert('companies', { id: 1, name: 'Acme' }, null);
    await w.insert('projects', { id: 1, name: 'Site', company_id: 1 }, null);
    await w.insert('todo_lists', { id: 1, project_id: 1, name: 'Launch' }, 1);
    await w.insert('todo_items', { id: 5, project_id: 1, todo_list_id: 1, content: 'Mine' }, 1);
    for (const [r, l, rid] of [['company', 1, 1], ['project', 1, 10], ['todoList', 1, 20], ['todoItem', 5, 30]] as const) await q.mapId(w, r, l, rid);
    await q.putShadow(w, 'todoItem', 30, 'p10/items/20', BASE);
    await q.appendOutbox(w, w.now, [{ t: 'todo_items', id: 5, op: 'update', v: { content: 'Mine' } }]);
  });
  return env;
}

describe('apply phase', () => {
  it('keeps a pending local edit against the remote\'s edit of the same field (logged as a conflict) and applies its other change', async () => {
    const env = await replica();
    const set = emptySet();
    set.items.push({ resource: 'todoItem', row: { ...BASE, content: 'Theirs', due_at: '2026-05-01T00:00:00Z' }, scope: 'p10/items/20' });
    await applySet(env, set, await q.shadows(env.store), null, { park: false });
    const row = await q.localRow(env.store, 'todo_items', 5);
    expect(row?.due_at).toBe('2026-05-01T00:00:00Z');
    const conflicts = await q.conflicts(env.store);
    expect(conflicts.map((c) => [c.resource, c.record_id, c.field])).toEqual([['todoItem', 5, 'content']]);
    expect((await q.shadow(env.store, 'todoItem', 30))?.content).toBe('Theirs');
  });

  it('removes what the remote no longer shows in a scope it read, with the local edit logged', async () => {
    const env = await replica();
    const set = emptySet();
    set.scopes.add('p10/items/20');
    await applySet(env, set, await q.shadows(env.store), null, { park: false });
    expect(await q.localRow(env.store, 'todo_items', 5)).toBeUndefined();
    expect((await q.idMap(env.store)).toRemote.has('todoItem:5')).toBe(false);
    expect((await q.conflicts(env.store)).some((c) => c.record_id === 5 && c.field === 'content')).toBe(true);
  });

  it('an intent on a record the remote deleted goes with its row changes: the rest of its entry pushes nothing for it (D336)', async () => {
    const env = await replica();
    const SIX = { id: 31, todo_list_id: 20, content: 'Six', due_at: null };
    await env.store.write(async (w) => {
      await w.insert('todo_items', { id: 6, project_id: 1, todo_list_id: 1, content: 'Six', position: 2 }, 1);
      await q.mapId(w, 'todoItem', 6, 31);
      await q.putShadow(w, 'todoItem', 31, 'p10/items/20', SIX);
      await q.setState(w, 'client', 'c1');
      await w.run('DELETE FROM sync_outbox');
      // Item 5 moved to the top of its list: its own position and item 6's changed (one entry, one intent).
      await w.run('INSERT INTO sync_outbox (at, changes, intents) VALUES (?, ?, ?)', [w.now,
        JSON.stringify([{ t: 'todo_items', id: 5, op: 'update', v: { position: 1 } }, { t: 'todo_items', id: 6, op: 'update', v: { position: 2 } }]),
        JSON.stringify([{ name: 'todoItem.move', args: { id: 5 } }])]);
    });
    // The remote deleted item 5: the list it reads holds item 6 only.
    const set = emptySet();
    set.scopes.add('p10/items/20');
    set.items.push({ resource: 'todoItem', row: SIX, scope: 'p10/items/20' });
    await applySet(env, set, await q.shadows(env.store), null, { park: false });
    expect(await q.localRow(env.store, 'todo_items', 5)).toBeUndefined();
    const [entry] = await q.outbox(env.store);
    expect(entry.changes.map((c) => c.id)).toEqual([6]);
    const remote = new FakeRemote();
    await push(env, remote, { idempotency: true });
    expect(remote.sent).toEqual([]);
    expect(await q.outbox(env.store)).toEqual([]);
  });
});

describe('reject phase', () => {
  it('puts a refused update back at the remote\'s state and lists the refusal', async () => {
    const env = await replica();
    const [entry] = await q.outbox(env.store);
    const ids = { toRemote: new Map<string, number>(), toLocal: new Map<string, number>() };
    await reject(env, entry, { resource: 'todoItem', localId: 5, method: 'PUT', path: '/todo_items/30.xml' }, 403, 'Forbidden', ids);
    expect((await q.localRow(env.store, 'todo_items', 5))?.content).toBe('Base');
    expect(await q.outbox(env.store)).toEqual([]);
    const [r] = await q.rejected(env.store);
    expect(r).toMatchObject({ seq: entry.seq, resource: 'todoItem', record_id: 5, method: 'PUT', status: 403, message: 'Forbidden' });
    // The caller's id map is refreshed from the store.
    expect(ids.toRemote.get('todoItem:5')).toBe(30);
  });

  it('new records written together (D350) leave exactly what one at a time leaves: rows, ids, versions, feed entries in order, id map, shadows', async () => {
    // A page mixing new records (to-dos, comments) with a held one changed there, a to-do whose list is not held,
    // and a comment on a record not held: applied by applySet, and record by record (applyOne) on a twin replica.
    const item = (id: number, list: number, content: string) => ({ resource: 'todoItem' as const, row: { id, todo_list_id: list, content, due_at: null }, scope: 'p10/items/20' });
    const comment = (id: number, on: number) => ({ resource: 'comment' as const, row: { id, commentable_type: 'TodoItem', commentable_id: on, body: `c${id}`, author_id: null, created_at: '2026-05-01T00:00:00Z' }, scope: 'p10/comments' });
    const items: Pulled[] = [item(40, 20, 'A'), item(41, 20, 'B'), { ...item(30, 20, 'Theirs'), row: { ...BASE, content: 'Theirs', due_at: '2026-06-01T00:00:00Z' } }, item(42, 99, 'no list'),
      item(43, 20, 'C'), comment(50, 30), comment(51, 40), comment(52, 777), comment(53, 43)];
    const [many, one] = [await replica(), await replica()];
    const set = emptySet();
    set.items.push(...items);
    await applySet(many, set, await q.shadows(many.store), null, { park: false });
    await one.store.write(async (w) => {
      w.outbox?.mute();
      const ctx = { ...(await applyContext(w, null)), park: false, parked: false };
      const seen = new Set<string>();
      for (const res of TABLE_ORDER) for (const p of items) if (p.resource === res) await applyOne(w, one.refuse, ctx, p, seen);
    });
    const state = async (e: typeof many) => ({
      items: await e.store.all('SELECT id, todo_list_id, project_id, content, version FROM todo_items ORDER BY id'),
      comments: await e.store.all('SELECT id, commentable_type, commentable_id, project_id, body, version FROM comments ORDER BY id'),
      changes: await e.store.all('SELECT seq, tbl, record_id, op, project_id, shown FROM changes ORDER BY seq'),
      ids: await e.store.all('SELECT resource, local_id, remote_id FROM sync_ids ORDER BY resource, local_id'),
      shadows: await e.store.all('SELECT resource, remote_id, scope, record FROM sync_shadow ORDER BY resource, remote_id'),
      conflicts: (await q.conflicts(e.store)).map((c) => [c.resource, c.record_id, c.field]),
    });
    const got = await state(many);
    expect(got).toEqual(await state(one));
    // What the page brought: four new to-dos (not the one without its list), three comments (not the one on nothing).
    expect(got.items.map((r) => r.content)).toEqual(['Mine', 'A', 'B', 'C']);
    expect(got.comments).toHaveLength(3);
    expect(got.conflicts).toEqual([['todoItem', 5, 'content']]);
  });
});
