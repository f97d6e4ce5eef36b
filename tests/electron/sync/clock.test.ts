// Clock skew between machines (issue #8, faults): the remote runs 3 hours ahead, one replica 5 hours
// behind, the other 7 hours ahead (each store stamps its writes with its own clock; the proxy gives
// the remote's Date headers). Wall time must decide nothing: the server's order picks a conflict's
// winner, cursors are commit sequence numbers, a Retry-After date is read on the remote's clock.

import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, dump, loc, settle, startProxy, startRemote, startReplica, type Proxy, type Remote, type Replica, type Requester } from '../../support/sync-helpers.ts';
import * as q from '../../../electron/store/queries/replica.ts';
import type { XNode } from '../../../shared/codec/in.ts';

const XML = '<?xml version="1.0" encoding="UTF-8"?>\n';
const H = 3_600_000;
const skewed = (ms: number) => () => new Date(Date.now() + ms);

const child = (x: XNode, name: string) => x.children.find((c) => c.name === name)?.text ?? '';
const idOf = async (r: Requester, path: string, field: string, value: string) => {
  const hit = (await r('GET', path)).xml().children.find((p) => child(p, field) === value);
  if (!hit) throw new Error(`no ${field}=${value} in ${path}`);
  return child(hit, 'id');
};

describe.each([['team server', false], ['plain server', true]] as const)('clock skew against a %s', (_name, plain) => {
  let remote: Remote;
  let proxy: Proxy;
  const replicas: Replica[] = [];
  afterEach(() => closeAll(replicas, proxy, remote));

  it('edits on machines hours apart: nothing lost or duplicated, the server order (not wall time) picks the winner', async () => {
    remote = await startRemote({ engine: 'sqlite', clock: skewed(3 * H) });
    proxy = await startProxy(remote.url, { plain, skewMs: 3 * H });
    const R = remote.as('ada');
    const P = await idOf(R, '/projects.xml', 'name', 'Alpha Ascent');
    const L = loc(await R('POST', `/projects/${P}/todo_lists.xml`, `${XML}<todo-list><name>Shared</name></todo-list>`));
    loc(await R('POST', `/todo_lists/${L}/todo_items.xml`, `${XML}<todo-item><content>one</content></todo-item>`));

    const a = await startReplica(proxy.url, 'ada', { clock: skewed(-5 * H) }); // behind
    replicas.push(a);
    const f = await startReplica(proxy.url, 'ada', { clock: skewed(7 * H) }); // ahead
    replicas.push(f);
    const aP = await idOf(a.req, '/projects.xml', 'name', 'Alpha Ascent');
    const fP = await idOf(f.req, '/projects.xml', 'name', 'Alpha Ascent');
    const aL = await idOf(a.req, `/projects/${aP}/todo_lists.xml`, 'name', 'Shared');
    const fL = await idOf(f.req, `/projects/${fP}/todo_lists.xml`, 'name', 'Shared');
    const ai = await idOf(a.req, `/todo_lists/${aL}/todo_items.xml`, 'content', 'one');
    const fi = await idOf(f.req, `/todo_lists/${fL}/todo_items.xml`, 'content', 'one');
    const cursorBefore = plain ? null : Number((await q.state(a.store)).get('cursor'));

    proxy.faults.down = true;
    // a (5 h behind) edits first in real time, f (7 h ahead) later: f's wall time is 12 h "newer".
    expect((await a.req('PUT', `/todo_lists/${aL}.xml`, `${XML}<todo-list><name>Ada's name</name></todo-list>`)).status).toBe(200);
    expect((await a.req('PUT', `/todo_items/${ai}.xml`, `${XML}<todo-item><content>one (edited behind)</content></todo-item>`)).status).toBe(200);
    const ait = loc(await a.req('POST', `/todo_lists/${aL}/todo_items.xml`, `${XML}<todo-item><content>from behind</content></todo-item>`));
    loc(await a.req('POST', `/todo_items/${ait}/comments.xml`, `${XML}<comment><body>said behind</body></comment>`));
    expect((await f.req('PUT', `/todo_lists/${fL}.xml`, `${XML}<todo-list><name>Fran's name</name></todo-list>`)).status).toBe(200);
    expect((await f.req('PUT', `/todo_items/${fi}.xml`, `${XML}<todo-item><due-at>2026-12-24</due-at></todo-item>`)).status).toBe(200);
    const fpost = loc(await f.req('POST', `/projects/${fP}/posts.xml`, `${XML}<post><title>From ahead</title><body>b</body></post>`));
    loc(await f.req('POST', `/posts/${fpost}/comments.xml`, `${XML}<comment><body>said ahead</body></comment>`));
    loc(await f.req('POST', `/todo_lists/${fL}/todo_items.xml`, `${XML}<todo-item><content>from ahead</content></todo-item>`));
    // Local stamps follow each machine's clock.
    const postedLocally = child((await f.req('GET', `/posts/${fpost}.xml`)).xml(), 'posted-on');
    expect(Date.parse(postedLocally) - Date.now()).toBeGreaterThan(6 * H);

    proxy.faults.down = false;
    // f (ahead) reaches the server first, a (behind) last: a's name is the server's last write.
    await settle(f);
    await settle(a);
    await settle(f);
    if (plain) for (let k = 0; k < 10; k++) await settle(f); // a body-only comment edit would need the deep pass: none here

    const there = await dump(R);
    expect(await dump(a.req)).toEqual(there);
    expect(await dump(f.req)).toEqual(there);
    const lists = (there as Record<string, { lists: { name: string; items: { content: string; due: string | null; comments: string[] }[] }[]; posts: { title: string; comments: string[] }[] }>)['Alpha Ascent'];
    const shared = lists.lists.filter((l) => l.name.endsWith('name'));
    expect(shared.map((l) => l.name)).toEqual(["Ada's name"]);
    const items = shared[0].items;
    expect(items.find((i) => i.content === 'one (edited behind)')).toMatchObject({ due: '2026-12-24T00:00:00Z' });
    expect(items.find((i) => i.content === 'from behind')).toMatchObject({ comments: ['said behind'] });
    expect(shared[0].items.map((i) => i.content).sort()).toEqual(['from ahead', 'from behind', 'one (edited behind)']);
    expect(lists.posts.filter((p) => p.title === 'From ahead')).toEqual([expect.objectContaining({ comments: ['said ahead'] })]);

    // The overwritten edit is logged where it was decided (a's pull met Fran's name under its pending edit).
    const conflicts = JSON.parse((await a.req('GET', '/sync/conflicts')).body) as { kind: string; field: string; mine: string; theirs: string }[];
    expect(conflicts).toEqual([expect.objectContaining({ kind: 'field', field: 'name', mine: "Ada's name", theirs: "Fran's name" })]);
    expect(JSON.parse((await f.req('GET', '/sync/status')).body)).toMatchObject({ pending: 0, rejected: 0 });

    // After the sync the replica shows the server's stamps (the remote's clock), not its own.
    const remotePost = await idOf(R, `/projects/${P}/posts.xml`, 'title', 'From ahead');
    const serverPosted = child((await R('GET', `/posts/${remotePost}.xml`)).xml(), 'posted-on');
    expect(child((await f.req('GET', `/posts/${fpost}.xml`)).xml(), 'posted-on')).toBe(serverPosted);

    // Cursors are commit sequence numbers: they only move forward, and one more remote edit arrives in one sync.
    if (!plain) expect(Number((await q.state(a.store)).get('cursor'))).toBeGreaterThan(cursorBefore!);
    const rItem = await idOf(R, `/todo_lists/${L}/todo_items.xml`, 'content', 'from ahead');
    expect((await R('PUT', `/todo_items/${rItem}.xml`, `${XML}<todo-item><content>from ahead, edited on the server</content></todo-item>`)).status).toBe(200);
    await a.engine.run();
    expect(await dump(a.req)).toEqual(await dump(R));
  });

  it('a Retry-After date is read on the remote\'s clock: a remote hours ahead does not stop the sync for hours', async () => {
    remote = await startRemote({ engine: 'sqlite', clock: skewed(3 * H) });
    proxy = await startProxy(remote.url, { plain, skewMs: 3 * H });
    const a = await startReplica(proxy.url, 'ada');
    replicas.push(a);
    let once = true;
    proxy.faults.busy = () => (once ? ((once = false), 2) : undefined);
    await expect(a.engine.run()).rejects.toThrow(/503|Busy/);
    expect(JSON.parse((await a.req('GET', '/sync/status')).body)).toMatchObject({ state: 'error' });
    // "Retry at remote-now + 2 s": about 2 s, not 3 h + 2 s.
    expect(a.engine.retryInMs).toBeLessThanOrEqual(2000);
    expect(a.engine.retryInMs).toBeGreaterThan(0);
    await a.engine.run();
    expect(JSON.parse((await a.req('GET', '/sync/status')).body)).toMatchObject({ state: 'idle' });
  });
});
