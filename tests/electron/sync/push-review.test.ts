// The push of intent entries (D336) against a fake remote, on cases an independent review found: a reorder
// batched with the creates of the items it orders, and outbox rows whose intents cannot be read back.

import { describe, expect, it } from 'vitest';
import * as q from '../../../electron/store/queries/replica.ts';
import { push } from '../../../electron/sync/push.ts';
import { applySet } from '../../../electron/sync/apply.ts';
import { Backoff, emptySet } from '../../../electron/sync/phase.ts';
import { RemoteUnreachable } from '../../../electron/sync/remote.ts';
import type { RowChange } from '../../../shared/sync/plan.ts';
import { FakeRemote, phaseEnv } from '../../support/sync-phase-fake.ts';

/** A replica holding project 1 (remote 10), its list 1 (remote 20) with items 2 and 3 (remote 102, 103). */
async function replica() {
  const env = phaseEnv();
  await env.store.write(async (w) => {
    await w.insert('companies', { id: 1, name: 'Acme' }, null);
    await w.insert('projects', { id: 1, name: 'Site', company_id: 1 }, null);
    await w.insert('todo_lists', { id: 1, project_id: 1, name: 'Launch', position: 1 }, 1);
    await w.insert('todo_items', { id: 2, project_id: 1, todo_list_id: 1, content: 'A', position: 1 }, 1);
    await w.insert('todo_items', { id: 3, project_id: 1, todo_list_id: 1, content: 'B', position: 2 }, 1);
    await q.mapId(w, 'project', 1, 10);
    await q.mapId(w, 'todoList', 1, 20);
    await q.mapId(w, 'todoItem', 2, 102);
    await q.mapId(w, 'todoItem', 3, 103);
    await q.setState(w, 'client', 'c1');
    await q.setState(w, 'self_remote', '7');
  });
  env.store.recordOutbox = true; // local actions from here on
  return env;
}

/** Append an outbox row as it is stored (intents: its raw column text). */
const appendRaw = (env: ReturnType<typeof phaseEnv>, changes: RowChange[], intents: string | null) =>
  env.store.write(async (w) => { await w.run('INSERT INTO sync_outbox (at, changes, intents) VALUES (?, ?, ?)', [w.now, JSON.stringify(changes), intents]); });

/** A team server's batch: every create answers a new id, everything else 200. */
function batchingRemote(): FakeRemote {
  const remote = new FakeRemote();
  remote.batch = { max: 100, bytes: 1_000_000 };
  let next = 300;
  remote.answer = (s) => {
    if (s.path !== '/sync/batch.json') return { status: 200, headers: new Headers(), body: '' };
    const { mutations } = JSON.parse(s.body!) as { mutations: { method: string; path: string; body: string | null }[] };
    const results = mutations.map((m) => (m.path.endsWith('/todo_items.xml') ? { status: 201, location: `/todo_items/${next++}.xml` } : { status: 200 }));
    return { status: 200, headers: new Headers(), body: JSON.stringify({ results }) };
  };
  return remote;
}

/** Every write sent, a batch's mutations one by one. */
const writes = (remote: FakeRemote) => remote.sent.flatMap((s) => (s.path === '/sync/batch.json'
  ? (JSON.parse(s.body!) as { mutations: { method: string; path: string; body: string | null }[] }).mutations
  : [s]));

describe('push of intent entries (review)', () => {
  it('a reorder of a list whose new item was created offline just before carries that item, also when batched with its create', async () => {
    const env = await replica();
    // Offline: a to-do created (last), then put first in its list.
    await env.store.write(async (w) => {
      await w.insert('todo_items', { id: 5, project_id: 1, todo_list_id: 1, content: 'New', position: 3 }, 1);
      w.outbox?.intent('todoItem.create', { id: 5 });
    });
    await env.store.write(async (w) => {
      await w.update('todo_items', 5, { position: 1 }, 1);
      await w.update('todo_items', 2, { position: 2 }, 1);
      await w.update('todo_items', 3, { position: 3 }, 1);
      w.outbox?.intent('todoItem.reorder', { listId: 1 });
    });
    const remote = batchingRemote();
    expect(await push(env, remote, { idempotency: true })).toBe(true);
    const reorder = writes(remote).find((m) => m.path === '/todo_lists/20/todo_items/reorder.xml');
    expect(reorder?.body).toContain('<id>300</id><');
    const ids = [...(reorder?.body ?? '').matchAll(/<id>(\d+)<\/id>/g)].map((m) => Number(m[1]));
    expect(ids).toEqual([300, 102, 103]);
    expect(await q.outbox(env.store)).toEqual([]);
  });
});

describe('outbox rows whose intents cannot be read back (hand-edited, corrupted)', () => {
  const rename: RowChange[] = [{ t: 'todo_lists', id: 1, op: 'update', v: { name: 'Launch day' } }];
  const cases: [label: string, intents: string][] = [
    ['an intent name this version does not know', '[{"name":"todoList.rename","args":{"id":1}}]'],
    ['arguments that are not an object', '[{"name":"todoList.update","args":null}]'],
    ['an id that is not a number', '[{"name":"todoList.update","args":{"id":"1"}}]'],
    ['intents that are not a list', '{"name":"todoList.update","args":{"id":1}}'],
    ['text that is not JSON', '[{"name":"todoList.upd'],
  ];
  it.each(cases)('%s: the entry is pushed from its row changes, and the entries after it still go', async (_label, intents) => {
    const env = await replica();
    await appendRaw(env, rename, intents);
    await env.store.write(async (w) => {
      await w.update('todo_items', 2, { content: 'A, edited' }, 1);
      w.outbox?.intent('todoItem.update', { id: 2 });
    });
    const remote = new FakeRemote();
    expect(await push(env, remote, { idempotency: true })).toBe(true);
    expect(remote.sent.map((s) => `${s.method} ${s.path} ${s.body?.replace(/^<\?xml[^>]*>\n/, '') ?? ''}`)).toEqual([
      'PUT /todo_lists/20.xml <todo-list><name>Launch day</name></todo-list>',
      'PUT /todo_items/102.xml <todo-item><content>A, edited</content></todo-item>',
    ]);
    expect(await q.outbox(env.store)).toEqual([]);
    expect(await q.rejected(env.store)).toEqual([]);
  });
});

describe('an in-doubt reorder planned again after a later local reorder (review)', () => {
  /** A team server's keys (idempotency.ts): the same key and request replay, the same key with another request is 422. */
  function keyedRemote(): FakeRemote & { lose: boolean } {
    const remote = Object.assign(new FakeRemote(), { lose: false });
    const seen = new Map<string, string>();
    remote.answer = (s) => {
      const key = s.headers['Idempotency-Key'];
      const request = `${s.method} ${s.path} ${s.body ?? ''}`;
      const before = key ? seen.get(key) : undefined;
      if (before !== undefined && before !== request) return { status: 422, headers: new Headers(), body: '<errors><error>Idempotency-Key reused with another request</error></errors>' };
      if (key) seen.set(key, request);
      return remote.lose ? new RemoteUnreachable('connection reset') : { status: 200, headers: new Headers(), body: '' };
    };
    return remote;
  }
  const order = (body: string | null) => [...(body ?? '').matchAll(/<id>(\d+)<\/id>/g)].map((m) => Number(m[1]));

  it('is not refused: the list ends in the order of the last reorder, and nothing is rejected', async () => {
    const env = await replica();
    const reorder = async (first: number, second: number) => env.store.write(async (w) => {
      await w.update('todo_items', first, { position: 1 }, 1);
      await w.update('todo_items', second, { position: 2 }, 1);
      w.outbox?.intent('todoItem.reorder', { listId: 1 });
    });
    await reorder(3, 2);
    const remote = keyedRemote();
    remote.lose = true; // the remote commits [B, A]; its answer is lost
    await expect(push(env, remote, { idempotency: true })).rejects.toBeInstanceOf(Backoff);
    expect(await q.outbox(env.store)).toMatchObject([{ inDoubt: true }]);
    await reorder(2, 3); // offline, the person puts A first again
    remote.lose = false;
    await push(env, remote, { idempotency: true, inDoubtOnly: true });
    await push(env, remote, { idempotency: true });
    expect(await q.rejected(env.store)).toEqual([]);
    expect(order(remote.sent.at(-1)!.body)).toEqual([102, 103]);
    expect((await env.store.all<{ id: number }>('SELECT id FROM todo_items WHERE todo_list_id = 1 ORDER BY position')).map((r) => Number(r.id))).toEqual([2, 3]);
    expect(await q.outbox(env.store)).toEqual([]);
  });
});

describe('a milestone moved with "move upcoming" whose milestone the remote deleted meanwhile (review)', () => {
  it('the later milestones it shifted here reach the remote: their local dates are not left apart from the remote\'s', async () => {
    const env = await replica();
    const TWO = { id: 42, project_id: 10, title: 'Two', deadline: '2026-12-10', completed: 0 };
    await env.store.write(async (w) => {
      w.outbox?.mute(); // pulled earlier: no local action
      await w.insert('milestones', { id: 1, project_id: 1, title: 'One', deadline: '2026-12-01', completed: 0 }, 1);
      await w.insert('milestones', { id: 2, project_id: 1, title: 'Two', deadline: '2026-12-10', completed: 0 }, 1);
      await q.mapId(w, 'milestone', 1, 41);
      await q.mapId(w, 'milestone', 2, 42);
      await q.putShadow(w, 'milestone', 41, 'p10/milestones', { id: 41, project_id: 10, title: 'One', deadline: '2026-12-01', completed: 0 });
      await q.putShadow(w, 'milestone', 42, 'p10/milestones', TWO);
    });
    // Offline: "One" moved a week later with "move upcoming" (as milestones.ts update writes it): "Two" shifted too.
    await env.store.write(async (w) => {
      await w.update('milestones', 1, { deadline: '2026-12-08' }, 1);
      w.outbox?.intent('milestone.update', { id: 1, moveUpcoming: true, offWeekends: false });
      await w.update('milestones', 2, { deadline: '2026-12-17' }, 1);
    });
    // The pull: the remote deleted "One"; "Two" there is as it was.
    const set = emptySet();
    set.scopes.add('p10/milestones');
    set.items.push({ resource: 'milestone', row: TWO, scope: 'p10/milestones' });
    await applySet(env, set, await q.shadows(env.store), null, { park: false });
    expect(await q.localRow(env.store, 'milestones', 1)).toBeUndefined();
    expect((await q.localRow(env.store, 'milestones', 2))?.deadline).toBe('2026-12-17'); // the pending local shift is kept
    const remote = new FakeRemote();
    await push(env, remote, { idempotency: true });
    expect(remote.sent.map((s) => `${s.method} ${s.path} ${s.body?.replace(/^<\?xml[^>]*>\n/, '') ?? ''}`)).toEqual([
      'POST /milestones/update/42 <request><milestone><deadline>2026-12-17</deadline></milestone></request>',
    ]);
    expect(await q.outbox(env.store)).toEqual([]);
  });
});
