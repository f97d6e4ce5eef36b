// The feed pull alone (electron/sync/feed.ts with apply.ts, D317) against a fake remote: each page is
// applied with its cursor in one transaction, a record naming one not here yet waits for the last
// page, a feed that does not advance stops without losing what was applied, a delete removes.

import { describe, expect, it, vi } from 'vitest';
import * as q from '../../../electron/store/queries/replica.ts';
import { pullFeed } from '../../../electron/sync/feed.ts';
import { RemoteFeedBroken } from '../../../electron/sync/remote.ts';
import type { FeedChange } from '../../../electron/sync/remote.ts';
import type { WireRow } from '../../../shared/sync/wire.ts';
import { FakeRemote, phaseEnv } from '../../support/sync-phase-fake.ts';

let seq = 0;
const up = (resource: FeedChange['resource'], record: WireRow): FeedChange => ({ seq: ++seq, resource, id: record.id as number, op: 'upsert', record });
const page = (cursor: string, more: boolean, changes: FeedChange[]) => ({ cursor, more, clock: null, changes, refused: [] });

describe('feed phase', () => {
  it('a cursor moved by pages without a change is held in memory, not committed, then written with a day of it (D343)', async () => {
    const env = phaseEnv();
    const remote = new FakeRemote();
    remote.pages.set('0', page('5', false, [up('company', { id: 1, name: 'Acme' })]));
    await pullFeed(env, remote);
    const token = await env.store.changeToken();
    // Others' changes this person cannot see: the cursor moves, the page has none.
    remote.pages.set('5', page('7', false, []));
    await pullFeed(env, remote);
    expect(await env.store.changeToken()).toBe(token);
    expect((await q.state(env.store)).get('cursor')).toBe('5');
    // The next pull goes on from the cursor held (not from 5 again).
    remote.log.length = 0;
    await pullFeed(env, remote);
    expect(remote.log).toEqual(['changes 7']);
    expect(await env.store.changeToken()).toBe(token);
    // Held a day: written (a restart never re-reads more than that).
    const now = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(now + 86_400_000 + 1000);
    try {
      await pullFeed(env, remote);
    } finally {
      vi.restoreAllMocks();
    }
    expect((await q.state(env.store)).get('cursor')).toBe('7');
    // A page with a change writes its cursor at once, as before.
    remote.pages.set('7', page('9', false, [up('company', { id: 1, name: 'Acme Ltd' })]));
    await pullFeed(env, remote);
    expect((await q.state(env.store)).get('cursor')).toBe('9');
  });

  it('applies a page with its cursor, then the next from that cursor; a record before its parent waits for the last page', async () => {
    const env = phaseEnv();
    const remote = new FakeRemote();
    remote.pages.set('0', page('5', true, [
      up('company', { id: 1, name: 'Acme' }),
      up('project', { id: 10, name: 'Site', company_id: 1 }),
      // Its list comes on the next page: parked until the feed's end.
      up('todoItem', { id: 30, todo_list_id: 20, content: 'Buy milk' }),
    ]));
    remote.pages.set('5', page('9', false, [up('todoList', { id: 20, project_id: 10, name: 'Launch' })]));
    expect(await pullFeed(env, remote)).toBe(true);
    expect(remote.log.filter((l) => l.startsWith('changes'))).toEqual(['changes 0', 'changes 5']);
    const st = await q.state(env.store);
    expect(st.get('cursor')).toBe('9');
    expect(st.has('resync')).toBe(false); // the clone's round ended with its last page
    const ids = (await q.idMap(env.store)).toLocal;
    const item = await q.localRow(env.store, 'todo_items', ids.get('todoItem:30')!);
    expect(item).toMatchObject({ content: 'Buy milk', todo_list_id: ids.get('todoList:20'), project_id: ids.get('project:10') });
    expect(await q.hasParked(env.store)).toBe(false);
    // Members were read for the new project (the interface's companies' people in it).
    expect(remote.log).toContain('GET /projects/10/companies.xml');
  });

  it('stops on a feed whose cursor does not advance, keeping the pages applied before it', async () => {
    const env = phaseEnv();
    const remote = new FakeRemote();
    remote.pages.set('0', page('4', true, [up('company', { id: 1, name: 'Acme' })]));
    remote.pages.set('4', page('4', true, [up('company', { id: 2, name: 'Other' })]));
    await expect(pullFeed(env, remote)).rejects.toBeInstanceOf(RemoteFeedBroken);
    expect((await q.state(env.store)).get('cursor')).toBe('4');
    expect((await q.idMap(env.store)).toLocal.has('company:1')).toBe(true);
    expect((await q.idMap(env.store)).toLocal.has('company:2')).toBe(false);
  });

  it('reads at most maxPullPages a run and goes on from the saved cursor in the next; a delete removes the record', async () => {
    const env = phaseEnv();
    const remote = new FakeRemote();
    remote.pages.set('0', page('1', true, [up('company', { id: 1, name: 'Acme' })]));
    remote.pages.set('1', page('2', false, [up('company', { id: 2, name: 'Other' })]));
    expect(await pullFeed(env, remote, { maxPullPages: 1 })).toBe(false);
    expect((await q.state(env.store)).get('cursor')).toBe('1');
    expect(await pullFeed(env, remote, { maxPullPages: 1 })).toBe(true);
    expect((await q.state(env.store)).get('cursor')).toBe('2');
    const local = (await q.idMap(env.store)).toLocal.get('company:2')!;
    expect(await q.localRow(env.store, 'companies', local)).toMatchObject({ name: 'Other' });

    remote.pages.set('2', page('3', false, [{ seq: ++seq, resource: 'company', id: 2, op: 'delete' }]));
    expect(await pullFeed(env, remote)).toBe(true);
    expect(await q.localRow(env.store, 'companies', local)).toBeUndefined();
    expect((await q.idMap(env.store)).toLocal.has('company:2')).toBe(false);
    expect((await q.state(env.store)).get('cursor')).toBe('3');
  });

  it('refuses a record it cannot hold alone and applies the rest of its page', async () => {
    const env = phaseEnv();
    const remote = new FakeRemote();
    remote.pages.set('0', page('2', false, [up('company', { id: 1, name: 'Acme' }), up('company', { id: -5, name: 'Bad id' })]));
    expect(await pullFeed(env, remote)).toBe(true);
    expect(env.refused).toHaveLength(1);
    expect(env.refused[0]).toContain('company');
    expect((await q.idMap(env.store)).toLocal.has('company:1')).toBe(true);
  });
});
