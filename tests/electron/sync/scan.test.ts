// The plain-server scan alone (electron/sync/scan.ts with apply.ts, D317) against a fake remote: a
// project read through the public routes is applied, what a later scan no longer shows goes, the
// comment lists are read only when their hints change (or in the deep slice), and a list that never
// ends stops the scan with a clear error.

import { describe, expect, it } from 'vitest';
import * as q from '../../../electron/store/queries/replica.ts';
import { pullScan } from '../../../electron/sync/scan.ts';
import { RemoteFeedBroken } from '../../../electron/sync/remote.ts';
import { FakeRemote, phaseEnv } from '../../support/sync-phase-fake.ts';

/** A plain server with one company, its person, one project with a list of two items and a post. */
function plainServer(): FakeRemote {
  const r = new FakeRemote();
  r.lists.set('/companies.xml', [{ id: 1, name: 'Acme' }]);
  r.lists.set('/contacts/people/1', [{ id: 7, company_id: 1, first_name: 'Ada', last_name: 'L', user_name: 'ada' }]);
  r.lists.set('/projects.xml', [{ id: 10, name: 'Site', company_id: 1 }]);
  r.lists.set('/projects/10/companies.xml', [{ id: 1, name: 'Acme' }]);
  r.lists.set('/projects/10/contacts/people/1', [{ id: 7, company_id: 1, first_name: 'Ada', last_name: 'L', user_name: 'ada' }]);
  r.lists.set('/projects/10/todo_lists.xml', [{ id: 20, project_id: 10, name: 'Launch' }]);
  r.lists.set('/todo_lists/20/todo_items.xml', [{ id: 30, todo_list_id: 20, content: 'Buy milk' }, { id: 31, todo_list_id: 20, content: 'Ship' }]);
  r.lists.set('/projects/10/posts.xml?n=0', [{ id: 40, project_id: 10, title: 'Hello', body: 'x', _comments_count: 0 }]);
  return r;
}

const local = async (env: ReturnType<typeof phaseEnv>, key: string) => (await q.idMap(env.store)).toLocal.get(key);

describe('scan phase', () => {
  it('applies a project read through the public routes, with its members, and reports progress per company and project', async () => {
    const env = phaseEnv();
    const remote = plainServer();
    expect(await pullScan(env, remote)).toBe(true);
    const item = await q.localRow(env.store, 'todo_items', (await local(env, 'todoItem:30'))!);
    expect(item).toMatchObject({ content: 'Buy milk', project_id: await local(env, 'project:10'), todo_list_id: await local(env, 'todoList:20') });
    expect(await q.localRow(env.store, 'posts', (await local(env, 'post:40'))!)).toMatchObject({ title: 'Hello' });
    expect((await q.membersOf(env.store, (await local(env, 'project:10'))!)).map((m) => Number(m.person_id))).toEqual([await local(env, 'person:7')]);
    expect(env.progress).toEqual(['pull 0/2', 'pull 1/2', 'pull 2/2']);
    // No comments: no comment list read.
    expect(remote.log.some((l) => l.includes('comments'))).toBe(false);
  });

  it('removes what a later scan no longer shows in a scope it read', async () => {
    const env = phaseEnv();
    const remote = plainServer();
    await pullScan(env, remote);
    const gone = (await local(env, 'todoItem:31'))!;
    remote.lists.set('/todo_lists/20/todo_items.xml', [{ id: 30, todo_list_id: 20, content: 'Buy milk' }]);
    await pullScan(env, remote);
    expect(await q.localRow(env.store, 'todo_items', gone)).toBeUndefined();
    expect(await local(env, 'todoItem:31')).toBeUndefined();
    expect(await local(env, 'todoItem:30')).toBeDefined();
  });

  it('reads a comment list when its hints change, and an unchanged one in its deep slice only', async () => {
    const env = phaseEnv();
    const remote = plainServer();
    remote.lists.set('/projects/10/posts.xml?n=0', [{ id: 40, project_id: 10, title: 'Hello', body: 'x', _comments_count: 1, _commented_at: '2026-01-01T00:00:00Z' }]);
    remote.lists.set('/posts/40/comments.xml', [{ id: 50, commentable_type: 'Post', commentable_id: 40, body: 'First' }]);
    const reads = () => remote.log.filter((l) => l === 'GET /posts/40/comments.xml').length;
    await pullScan(env, remote, { deepScanEvery: 2 }); // round 0: 40 % 2 = 0, the deep slice
    expect(reads()).toBe(1);
    expect(await q.localRow(env.store, 'comments', (await local(env, 'comment:50'))!)).toMatchObject({ body: 'First' });
    expect((await q.state(env.store)).get('scan_round')).toBe('1');
    await pullScan(env, remote, { deepScanEvery: 2 }); // round 1: not its slice, hints unchanged
    expect(reads()).toBe(1);
    await pullScan(env, remote, { deepScanEvery: 2 }); // round 0 again
    expect(reads()).toBe(2);
  });

  it('an idle scan commits nothing; a changed value, a member gone, or a new record commits its part (D343)', async () => {
    const env = phaseEnv();
    const remote = plainServer();
    remote.lists.set('/companies.xml', [{ id: 1, name: 'Acme' }, { id: 2, name: 'Beta' }]);
    remote.lists.set('/contacts/people/2', [{ id: 8, company_id: 2, first_name: 'Bo', last_name: 'B', user_name: 'bo' }]);
    remote.lists.set('/projects/10/companies.xml', [{ id: 1, name: 'Acme' }, { id: 2, name: 'Beta' }]);
    remote.lists.set('/projects/10/contacts/people/2', [{ id: 8, company_id: 2, first_name: 'Bo', last_name: 'B', user_name: 'bo' }]);
    await pullScan(env, remote);
    let token = await env.store.changeToken();
    await pullScan(env, remote);
    await pullScan(env, remote);
    expect(await env.store.changeToken()).toBe(token);
    const project = (await local(env, 'project:10'))!;
    // Bo leaves the project (still a person of the account): the membership goes.
    remote.lists.set('/projects/10/companies.xml', [{ id: 1, name: 'Acme' }]);
    await pullScan(env, remote);
    expect(await env.store.changeToken()).not.toBe(token);
    expect((await q.membersOf(env.store, project)).map((m) => Number(m.person_id))).toEqual([await local(env, 'person:7')]);
    token = await env.store.changeToken();
    // A value changed there.
    remote.lists.set('/todo_lists/20/todo_items.xml', [{ id: 30, todo_list_id: 20, content: 'Buy oat milk' }, { id: 31, todo_list_id: 20, content: 'Ship' }]);
    await pullScan(env, remote);
    expect(await env.store.changeToken()).not.toBe(token);
    expect(await q.localRow(env.store, 'todo_items', (await local(env, 'todoItem:30'))!)).toMatchObject({ content: 'Buy oat milk' });
  });

  it('stops with a clear error on a post list that repeats its page', async () => {
    const env = phaseEnv();
    const remote = plainServer();
    const full = Array.from({ length: 25 }, (_, k) => ({ id: 100 + k, project_id: 10, title: `P${k}`, body: '', _comments_count: 0 }));
    remote.lists.set('/projects/10/posts.xml?n=0', full);
    remote.lists.set('/projects/10/posts.xml?n=25', full);
    await expect(pullScan(env, remote)).rejects.toThrow(RemoteFeedBroken);
    await expect(pullScan(env, remote)).rejects.toThrow(/post list of project 10 does not end/);
  });
});
