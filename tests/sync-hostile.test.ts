// A replica against a hostile or broken remote (issue #25): whatever the remote answers, the pull stays
// bounded (pages, bytes), refuses what cannot be represented alone, never follows a redirect to
// another origin, keeps its data consistent, keeps answering its user, and recovers when the remote
// behaves again (unpushed local work goes up). The remote: tests/support/hostile-remote.ts.

import { afterEach, describe, expect, it } from 'vitest';
import { startRemote, startReplica, loc, type Remote, type Replica, type Res } from './sync-helpers.ts';
import { startHostileRemote, startSideServer, type HostileRemote, type SideServer } from './support/hostile-remote.ts';
import * as q from '../electron/store/queries/replica.ts';

const XML = '<?xml version="1.0" encoding="UTF-8"?>\n';
const text = (r: Res, name: string) => r.xml().children.find((c) => c.name === name)?.text ?? '';

let remote: Remote;
let hostile: HostileRemote;
let side: SideServer | null = null;
const replicas: Replica[] = [];
const refused: string[] = [];

async function setup(o: { plain?: boolean; engine?: Record<string, unknown> } = {}): Promise<Replica> {
  remote = await startRemote({ engine: 'sqlite' });
  // A list with an item in each of ada's first two projects (the fixture has none).
  const ada = remote.as('ada');
  for (const p of (await ada('GET', '/projects.xml')).xml().children.slice(0, 2)) {
    const P = p.children.find((c) => c.name === 'id')!.text;
    const L = loc(await ada('POST', `/projects/${P}/todo_lists.xml`, `${XML}<todo-list><name>List of ${P}</name></todo-list>`));
    loc(await ada('POST', `/todo_lists/${L}/todo_items.xml`, `${XML}<todo-item><content>Item of ${P}</content></todo-item>`));
  }
  hostile = await startHostileRemote(remote.url);
  if (o.plain) hostile.mode.plain = true;
  const r = await startReplica(hostile.url, 'ada', { engine: { onRefused: (m: string) => refused.push(m), ...o.engine } });
  replicas.push(r);
  return r;
}

/** A project of ada's, by name, on the replica and on the remote. */
async function projectIds(r: Replica, name: string): Promise<{ local: string; remote: string }> {
  const find = (x: Res) => x.xml().children.find((p) => p.children.find((c) => c.name === 'name')?.text === name)!.children.find((c) => c.name === 'id')!.text;
  return { local: find(await r.req('GET', '/projects.xml')), remote: find(await remote.as('ada')('GET', '/projects.xml')) };
}

/** Settles with the run's outcome, or with 'never' when `stop` comes first (a run that does not end). */
async function outcome(run: Promise<void>, stop: Promise<void>): Promise<'ok' | 'never' | Error> {
  return Promise.race([run.then(() => 'ok' as const, (e: Error) => e), stop.then(() => 'never' as const)]);
}

/** A local edit not yet pushed, and a check that it reached the remote. */
async function localWork(r: Replica): Promise<{ reachedRemote(): Promise<boolean> }> {
  const content = `offline ${Math.random()}`;
  const L = (await r.store.get<{ id: number }>('SELECT id FROM todo_lists ORDER BY id LIMIT 1'))!.id;
  loc(await r.req('POST', `/todo_lists/${L}/todo_items.xml`, `${XML}<todo-item><content>${content}</content></todo-item>`));
  return { reachedRemote: async () => (await remote.store.all('SELECT id FROM todo_items WHERE content = ?', [content])).length === 1 };
}

afterEach(async () => {
  for (const r of replicas.splice(0)) await r.close();
  await hostile?.close();
  await side?.close();
  side = null;
  await remote?.close();
  refused.length = 0;
});

describe('a replica against a hostile remote', () => {
  it('an endless feed: a run reads a bounded number of pages, saving each with its cursor; the API answers meanwhile; sync recovers', async () => {
    const r = await setup({ engine: { maxPullPages: 20 } });
    const work = await localWork(r);
    hostile.mode.endlessFeed = true;
    const before = hostile.stats.feedPages;
    const run = r.engine.run();
    // The local API answers while the endless pull goes on.
    expect((await r.req('GET', '/projects.xml')).status).toBe(200);
    expect(await outcome(run, hostile.until(() => hostile.stats.feedPages - before >= 400, 120_000))).toBe('ok');
    expect(hostile.stats.feedPages - before).toBe(20);
    // Each page was saved with its cursor: the next run goes on from the last one (20 pages of 1000 further).
    const cursor = (await q.state(r.store)).get('cursor')!;
    expect(hostile.stats.seen.length).toBeGreaterThan(0);
    // Push went on (the pull is bounded, not stuck).
    expect(await work.reachedRemote()).toBe(true);
    expect(Number(cursor)).toBeGreaterThanOrEqual(20_000);
    hostile.behave();
    const remoteEdit = await remote.as('ada')('PUT', `/projects/${(await projectIds(r, 'Alpha Ascent')).remote}.xml`, `${XML}<project><announcement>after the storm</announcement></project>`);
    expect(remoteEdit.status).toBe(200);
    await r.engine.run();
    expect(text(await r.req('GET', `/projects/${(await projectIds(r, 'Alpha Ascent')).local}.xml`), 'announcement')).toBe('after the storm');
  }, 120_000);

  it('a feed whose cursor does not move stops with a clear sync error', async () => {
    const r = await setup();
    hostile.mode.stuckCursor = true;
    const res = await outcome(r.engine.run(), hostile.until(() => hostile.stats.feedPages >= 200, 60_000));
    expect(res).toBeInstanceOf(Error);
    expect((res as Error).message).toMatch(/does not advance/);
    expect((await r.engine.status()).error).toMatch(/does not advance/);
    hostile.behave();
    await r.engine.run();
    expect((await r.engine.status()).state).toBe('idle');
  }, 60_000);

  it('a huge answer is cut at the cap (the connection closed), a clear error; nothing is held', async () => {
    const r = await setup({ engine: { maxAnswerMb: 2 } });
    const work = await localWork(r);
    hostile.mode.hugeAnswer = { path: /^\/sync\/changes\.json$/, bytes: 3 * 1024 ** 3 };
    const res = await outcome(r.engine.run(), hostile.until(() => hostile.stats.hugeBytes > 400 * 1024 ** 2, 120_000));
    expect(res).toBeInstanceOf(Error);
    expect((res as Error).message).toMatch(/larger than 2 MB/);
    await hostile.until(() => hostile.stats.hugeAborted === 1);
    expect(hostile.stats.hugeBytes).toBeLessThan(100 * 1024 ** 2);
    hostile.behave();
    await r.engine.run();
    expect(await work.reachedRemote()).toBe(true);
  }, 120_000);

  it('a record whose id is 2^53 + 1 is refused alone; the rest is applied, local work goes up, and sync keeps working', async () => {
    const r = await setup();
    const work = await localWork(r);
    const P = await projectIds(r, 'Alpha Ascent');
    expect((await remote.as('ada')('PUT', `/projects/${P.remote}.xml`, `${XML}<project><announcement>big day</announcement></project>`)).status).toBe(200);
    hostile.mode.oversizedId = true;
    await r.engine.run();
    expect(refused.some((m) => /cannot be represented/.test(m))).toBe(true);
    expect(text(await r.req('GET', `/projects/${P.local}.xml`), 'announcement')).toBe('big day');
    expect(await work.reachedRemote()).toBe(true);
    expect((await r.req('GET', '/companies.xml')).body).not.toMatch(/Oversized/);
    await r.engine.run(); // again, with the remote still sending it
    hostile.behave();
    const again = await localWork(r);
    await r.engine.run();
    expect(await again.reachedRemote()).toBe(true);
  }, 60_000);

  it('a plain server listing a project whose id is 2^53 + 1: refused alone, the scan goes on', async () => {
    const r = await setup({ plain: true });
    hostile.mode.oversizedId = true;
    const work = await localWork(r);
    await r.engine.run();
    expect(refused.some((m) => /cannot be represented/.test(m))).toBe(true);
    expect(await work.reachedRemote()).toBe(true);
    expect((await r.req('GET', '/projects.xml')).body).not.toMatch(/Oversized/);
  }, 60_000);

  it('a redirect of a write to another host is not followed: an error, the local record kept, the third host never asked', async () => {
    const r = await setup();
    side = await startSideServer();
    const work = await localWork(r);
    hostile.mode.redirectWritesTo = side.url;
    await expect(r.engine.run()).rejects.toThrow(/redirect/);
    expect(side.seen).toEqual([]);
    expect(hostile.stats.redirected).toBeGreaterThan(0);
    expect((await r.engine.status()).pending).toBeGreaterThan(0);
    expect((await r.engine.rejected()).length).toBe(0);
    hostile.behave();
    await r.engine.run();
    expect(await work.reachedRemote()).toBe(true);
    expect((await r.engine.status()).pending).toBe(0);
  }, 60_000);

  it('a todo item moved into another project\'s list by the remote is refused: the local data stays consistent', async () => {
    const r = await setup();
    // An item the replica holds, and a list (that it holds too) of another project.
    const mine = new Set((await r.store.all<{ remote_id: number }>("SELECT remote_id FROM sync_ids WHERE resource = 'todoList'")).map((x) => Number(x.remote_id)));
    const item = (await remote.store.all<{ id: number; project_id: number; todo_list_id: number }>('SELECT i.id, l.project_id, i.todo_list_id FROM todo_items i JOIN todo_lists l ON l.id = i.todo_list_id ORDER BY i.id'))
      .find((x) => mine.has(Number(x.todo_list_id)))!;
    const other = (await remote.store.all<{ id: number; project_id: number }>('SELECT id, project_id FROM todo_lists WHERE project_id <> ? ORDER BY id', [item.project_id]))
      .find((x) => mine.has(Number(x.id)))!;
    expect(other && item).toBeTruthy();
    expect((await remote.as('ada')('PUT', `/todo_items/${item.id}.xml`, `${XML}<todo-item><content>moved away</content></todo-item>`)).status).toBe(200);
    hostile.mode.editFeed = (changes) => changes.map((c) => c.resource === 'todoItem' && c.id === item.id && c.record
      ? { ...c, record: { ...c.record, todo_list_id: other.id, 'todo-list-id': other.id } } : c);
    await r.engine.run();
    const rows = await r.store.all<{ p: number; lp: number }>('SELECT i.project_id AS p, l.project_id AS lp FROM todo_items i JOIN todo_lists l ON l.id = i.todo_list_id');
    for (const x of rows) expect(x.p).toBe(x.lp);
    expect(refused.some((m) => /another project/.test(m))).toBe(true);
  }, 60_000);
});
