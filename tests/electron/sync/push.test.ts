// The push phase alone (electron/sync/push.ts, D317) against a fake remote: an outbox entry whose
// answer is lost is settled without a duplicate, by its Idempotency-Key (a team server) or by looking
// for the record an earlier attempt created (a plain server).

import { describe, expect, it } from 'vitest';
import * as q from '../../../electron/store/queries/replica.ts';
import { push } from '../../../electron/sync/push.ts';
import { Backoff } from '../../../electron/sync/phase.ts';
import { RemoteUnreachable } from '../../../electron/sync/remote.ts';
import { FakeRemote, phaseEnv } from '../../support/sync-phase-fake.ts';

/** A replica holding project 1 (remote 10) and its list 1 (remote 20), with one todo item 5 created offline. */
async function replica() {
  const env = phaseEnv();
  await env.store.write(async (w) => {
    await w.insert('companies', { id: 1, name: 'Acme' }, null);
    await w.insert('projects', { id: 1, name: 'Site', company_id: 1 }, null);
    await w.insert('todo_lists', { id: 1, project_id: 1, name: 'Launch' }, 1);
    await w.insert('todo_items', { id: 5, project_id: 1, todo_list_id: 1, content: 'Buy milk' }, 1);
    await q.mapId(w, 'project', 1, 10);
    await q.mapId(w, 'todoList', 1, 20);
    await q.setState(w, 'client', 'c1');
    await q.setState(w, 'self_remote', '7');
    await q.appendOutbox(w, w.now, [{ t: 'todo_items', id: 5, op: 'insert', v: { todo_list_id: 1, project_id: 1, content: 'Buy milk' } }]);
  });
  return env;
}

const created = (id: number) => ({ status: 201, headers: new Headers({ location: `/todo_items/${id}.xml` }), body: '' });

describe('push phase', () => {
  it('sends a create again with the same Idempotency-Key after its answer was lost, and maps the id it got', async () => {
    const env = await replica();
    const remote = new FakeRemote();
    remote.answer = () => new RemoteUnreachable('connection reset');
    await expect(push(env, remote, { idempotency: true })).rejects.toBeInstanceOf(Backoff);
    const [entry] = await q.outbox(env.store);
    expect(entry).toMatchObject({ inDoubt: true, attempts: 1, doneSteps: 0 });

    remote.answer = () => created(300);
    expect(await push(env, remote, { idempotency: true, inDoubtOnly: true })).toBe(true);
    expect(remote.sent.map((s) => `${s.method} ${s.path} ${s.headers['Idempotency-Key']}`)).toEqual([
      `POST /todo_lists/20/todo_items.xml c1-${entry.seq}-0`,
      `POST /todo_lists/20/todo_items.xml c1-${entry.seq}-0`,
    ]);
    expect(await q.outbox(env.store)).toEqual([]);
    expect((await q.idMap(env.store)).toRemote.get('todoItem:5')).toBe(300);
  });

  it('on a plain server finds the record the lost attempt created instead of creating it twice', async () => {
    const env = await replica();
    const remote = new FakeRemote();
    remote.answer = () => new RemoteUnreachable('connection reset');
    await expect(push(env, remote, { idempotency: false })).rejects.toBeInstanceOf(Backoff);
    // The first attempt did commit: the list shows an item of this content by this person, and a newer one by someone else.
    remote.lists.set('/todo_lists/20/todo_items.xml', [
      { id: 302, todo_list_id: 20, content: 'Buy milk', creator_id: 8 },
      { id: 301, todo_list_id: 20, content: 'Buy milk', creator_id: 7 },
    ]);
    remote.answer = () => created(999);
    expect(await push(env, remote, { idempotency: false, inDoubtOnly: true })).toBe(true);
    expect(remote.sent).toHaveLength(1); // the lost one only: nothing sent again
    expect(remote.log).toContain('GET /todo_lists/20/todo_items.xml');
    expect((await q.idMap(env.store)).toRemote.get('todoItem:5')).toBe(301);
    expect(await q.outbox(env.store)).toEqual([]);
  });

  it('records a refusal on the rejected list and removes the record created here', async () => {
    const env = await replica();
    const remote = new FakeRemote();
    remote.answer = () => ({ status: 422, headers: new Headers(), body: '<errors><error>Content is too long</error></errors>' });
    expect(await push(env, remote, { idempotency: true })).toBe(true);
    const rejected = await q.rejected(env.store);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({ resource: 'todoItem', record_id: 5, method: 'POST', status: 422 });
    expect(String(rejected[0].message)).toContain('Content is too long');
    expect(await q.localRow(env.store, 'todo_items', 5)).toBeUndefined();
    expect(await q.outbox(env.store)).toEqual([]);
    expect(env.progress.at(-1)).toBe('push 1/1');
  });
});
