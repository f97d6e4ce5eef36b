// Offline sync, two instances (issue #8): a replica against the same program as remote, with the
// sync extension (team server) and through a proxy that hides it (a plain server of the interface).

import { afterEach, describe, expect, it } from 'vitest';
import { dump, loc, startProxy, startRemote, startReplica, type Proxy, type Remote, type Replica } from './sync-helpers.ts';

const XML = '<?xml version="1.0" encoding="UTF-8"?>\n';

describe.each([['team server', false], ['plain server', true]] as const)('sync against a %s', (_name, plain) => {
  let remote: Remote;
  let proxy: Proxy;
  const replicas: Replica[] = [];
  const setup = async () => {
    remote = await startRemote();
    proxy = await startProxy(remote.url, { plain });
  };
  afterEach(async () => {
    for (const r of replicas.splice(0)) await r.close();
    await proxy?.close();
    await remote?.close();
  });

  it('clones what the person sees', async () => {
    await setup();
    const a = await startReplica(proxy.url, 'ada');
    replicas.push(a);
    expect(await dump(a.req)).toEqual(await dump(remote.as('ada')));
    const f = await startReplica(proxy.url, 'fran');
    replicas.push(f);
    expect(await dump(f.req)).toEqual(await dump(remote.as('fran')));
    const status = await a.req('GET', '/sync/status');
    expect(JSON.parse(status.body)).toMatchObject({ state: 'idle', pending: 0, conflicts: 0, rejected: 0 });
    if (plain) expect(proxy.seen.some((s) => s.path.endsWith('.json') && s.status !== 404)).toBe(false);
  });

  it('offline work of every kind reaches the remote, and a second replica sees it', async () => {
    await setup();
    const a = await startReplica(proxy.url, 'ada');
    replicas.push(a);
    const P = (await a.req('GET', '/projects.xml')).xml().children.find((p) => p.children.find((c) => c.name === 'name')?.text === 'Alpha Ascent')!
      .children.find((c) => c.name === 'id')!.text;
    proxy.faults.down = true;
    const r = a.req;
    const cat = loc(await r('POST', `/projects/${P}/categories.xml`, `${XML}<category><name>Offline cat</name><type>post</type></category>`));
    const ms = loc(await r('POST', `/projects/${P}/milestones/create`, `${XML}<request><milestone><title>Summit</title><deadline>2026-12-01</deadline></milestone></request>`));
    const post = loc(await r('POST', `/projects/${P}/posts.xml`, `${XML}<post><title>Made offline</title><body>b1</body><category-id>${cat}</category-id><milestone-id>${ms}</milestone-id></post>`));
    loc(await r('POST', `/posts/${post}/comments.xml`, `${XML}<comment><body>first comment</body></comment>`));
    const c2 = loc(await r('POST', `/posts/${post}/comments.xml`, `${XML}<comment><body>to delete</body></comment>`));
    expect((await r('PUT', `/posts/${post}.xml`, `${XML}<post><title>Made offline, edited</title></post>`)).status).toBe(200);
    expect((await r('DELETE', `/comments/${c2}.xml`)).status).toBe(200);
    const list = loc(await r('POST', `/projects/${P}/todo_lists.xml`, `${XML}<todo-list><name>Packing</name><milestone-id>${ms}</milestone-id></todo-list>`));
    const items: string[] = [];
    for (const c of ['rope', 'axe', 'tent', 'stove']) items.push(loc(await r('POST', `/todo_lists/${list}/todo_items.xml`, `${XML}<todo-item><content>${c}</content></todo-item>`)));
    expect((await r('PUT', `/todo_items/${items[1]}/complete.xml`)).status).toBe(200);
    expect((await r('POST', `/todo_lists/${list}/todo_items/reorder.xml`, `${XML}<todo-items><todo-item><id>${items[3]}</id></todo-item><todo-item><id>${items[0]}</id></todo-item></todo-items>`)).status).toBe(200);
    expect((await r('DELETE', `/todo_items/${items[2]}.xml`)).status).toBe(200);
    loc(await r('POST', `/todo_items/${items[0]}/comments.xml`, `${XML}<comment><body>on an offline item</body></comment>`));
    loc(await r('POST', `/projects/${P}/time_entries.xml`, `${XML}<time-entry><date>2026-11-20</date><hours>1.5</hours><description>packing</description><todo-item-id>${items[0]}</todo-item-id></time-entry>`));
    expect((await r('PUT', `/todo_lists/${list}.xml`, `${XML}<todo-list><description>all the gear</description></todo-list>`)).status).toBe(200);
    expect((await r('POST', `/milestones/complete/${ms}`)).status).toBe(200);
    const status = JSON.parse((await r('GET', '/sync/status')).body) as { pending: number };
    expect(status.pending).toBeGreaterThan(10);

    proxy.faults.down = false;
    await a.engine.run();
    expect(JSON.parse((await r('GET', '/sync/status')).body)).toMatchObject({ pending: 0, rejected: 0, conflicts: 0 });
    const there = await dump(remote.as('ada'));
    expect(await dump(a.req)).toEqual(there);
    expect(JSON.stringify(there)).toContain('Made offline, edited');
    expect(JSON.stringify(there)).toContain('on an offline item');
    const b = await startReplica(proxy.url, 'ada');
    replicas.push(b);
    expect(await dump(b.req)).toEqual(there);
  });
});
