// A clone is progressive (issue #26, D348): read from a team server one small feed page a run, every page is
// applied to the replica's tables when it arrives. Nothing waits aside for a parent that comes later (the team
// server's pages carry what their records reference), so a project's lists and to-dos are usable long before
// the clone ends, and the clone ends with every record, once. On the team server of the run's engine.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as q from '../../../electron/store/queries/replica.ts';
import { pullFeed } from '../../../electron/sync/feed.ts';
import { Remote as RemoteClient } from '../../../electron/sync/remote.ts';
import { phaseEnv } from '../../support/sync-phase-fake.ts';
import { loc, password, startRemote, type Remote } from '../../support/sync-helpers.ts';

const TABLES = ['companies', 'people', 'projects', 'categories', 'milestones', 'posts', 'comments', 'todo_lists', 'todo_items', 'time_entries'] as const;

describe('a clone applies each feed page as it comes (D348)', () => {
  let remote: Remote;
  beforeEach(async () => { remote = await startRemote(); });
  afterEach(async () => { await remote.close(); });

  it('one page a run: nothing parked after any page, the first to-dos usable before the end, every record once at the end', async () => {
    // Records whose parents change after them (a comment changes its to-do and the project; a to-do its list).
    const ada = remote.as('ada');
    const pid = Number(/<id type="integer">(\d+)<\/id>/.exec((await ada('GET', '/projects.xml')).body)![1]);
    for (let l = 0; l < 3; l++) {
      const list = loc(await ada('POST', `/projects/${pid}/todo_lists.xml`, `<todo-list><name>List ${l}</name></todo-list>`));
      for (let i = 0; i < 4; i++) {
        const item = loc(await ada('POST', `/todo_lists/${list}/todo_items.xml`, `<todo-item><content>Item ${l}.${i}</content></todo-item>`));
        expect((await ada('POST', `/todo_items/${item}/comments.xml`, '<comment><body>noted</body></comment>')).status).toBe(201);
      }
    }
    const env = phaseEnv();
    const client = new RemoteClient({ url: remote.url, auth: { user: 'ada', password: password('ada') } });
    // Pages of 7 changes (the team server honours a smaller limit).
    const small = Object.assign(Object.create(client) as RemoteClient, { changes: (since: string) => client.changes(since, 7) });
    const count = async (t: string) => (await env.store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t}`))!.n;
    let runs = 0, itemsEarly = -1;
    for (;;) {
      const ended = await pullFeed(env, small, { maxPullPages: 1 });
      runs++;
      expect(await q.hasParked(env.store), `records parked after page ${runs}`).toBe(false);
      if (ended) break;
      // A to-do here is in its list, in its project: usable as it is.
      if (itemsEarly < 0 && await count('todo_items') > 0) itemsEarly = runs;
      expect(runs).toBeLessThan(500);
    }
    expect(runs).toBeGreaterThan(5);
    expect(itemsEarly, 'to-dos arrived before the last page').toBeGreaterThan(0);
    expect(itemsEarly).toBeLessThan(runs);
    // Every record of the account, once (ada is an administrator: she sees all of it).
    for (const t of TABLES) {
      const there = (await remote.store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t}`))!.n;
      expect(await count(t), t).toBe(Number(there));
    }
    const dup = await env.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM (SELECT resource, remote_id FROM sync_ids GROUP BY resource, remote_id HAVING COUNT(*) > 1) d');
    expect(dup!.n).toBe(0);
    await env.store.close();
  });
});
