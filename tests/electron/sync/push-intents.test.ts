// The intent outbox end to end (D336, D337): a replica's actions pushed to a team server (batched, keyed) and to
// a plain server of the interface (the same program behind a proxy that hides the sync extension), counting the
// writes that reach the remote. A milestone moved with "move upcoming" is ONE update carrying the flags (the
// remote shifts its later open milestones itself), where the row changes alone made one update per milestone;
// an entry written without intents (an older version's) still pushes, from its row changes.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { Remote as SyncRemote } from '../../../electron/sync/remote.ts';
import { defaultEngine, text } from '../../support/helpers.ts';
import { pgSkipReason } from '../../support/pg.ts';
import { closeAll, dump, loc, settle, startProxy, startRemote, startReplica, type Proxy, type Remote, type Replica } from '../../support/sync-helpers.ts';

const XML = '<?xml version="1.0" encoding="UTF-8"?>\n';
const engine = defaultEngine();
const skip = engine === 'postgres' ? pgSkipReason() : '';

describe.skipIf(skip).each([['team server', false], ['plain server', true]] as const)(`intents pushed to a %s on ${engine}`, (_name, plain) => {
  let remote: Remote;
  let proxy: Proxy;
  const replicas: Replica[] = [];
  afterEach(async () => { vi.restoreAllMocks(); await closeAll(replicas, proxy, remote); });

  /** Every write the replica sends, a batch's mutations one by one: `METHOD path`. */
  function spyWrites(): string[] {
    const writes: string[] = [];
    const request = SyncRemote.prototype.request;
    vi.spyOn(SyncRemote.prototype, 'request').mockImplementation(function (this: SyncRemote, ...args: Parameters<SyncRemote['request']>) {
      const [method, path, body] = args;
      if (path === '/sync/batch.json' && body) for (const m of (JSON.parse(body) as { mutations: { method: string; path: string }[] }).mutations) writes.push(`${m.method} ${m.path}`);
      else if (method !== 'GET') writes.push(`${method} ${path.split('?')[0]}`);
      return request.apply(this, args);
    });
    return writes;
  }

  it('a milestone moved with "move upcoming" is one update on the remote, whose dates then equal the local ones', async () => {
    remote = await startRemote();
    proxy = await startProxy(remote.url, { plain });
    const R = remote.as('ada');
    const P = (await R('GET', '/projects.xml')).xml().children.find((p) => text(p, 'name') === 'Alpha Ascent')!;
    const pid = text(P, 'id')!;
    const make = async (title: string, deadline: string) =>
      loc(await R('POST', `/projects/${pid}/milestones/create`, `${XML}<request><milestone><title>${title}</title><deadline>${deadline}</deadline></milestone></request>`));
    await make('Intent one', '2099-01-05'); // a Monday
    await make('Intent two', '2099-01-09'); // a Friday: + 1 day is a Saturday, off weekends a Monday
    await make('Intent three', '2099-01-16');
    const a = await startReplica(proxy.url, 'ada');
    replicas.push(a);
    const localPid = text((await a.req('GET', '/projects.xml')).xml().children.find((p) => text(p, 'name') === 'Alpha Ascent')!, 'id')!;
    const local = (await a.req('GET', `/projects/${localPid}/milestones/list`)).xml().children;
    const one = text(local.find((m) => text(m, 'title') === 'Intent one')!, 'id')!;

    // Made on the remote after the replica's clone: the replica has not seen it when the person moves "Intent one".
    await make('Intent four', '2099-01-20');
    const writes = spyWrites();
    const moved = await a.req('POST', `/milestones/update/${one}`, `${XML}<request><milestone><deadline>2099-01-06</deadline></milestone>`
      + '<move-upcoming-milestones>true</move-upcoming-milestones><move-upcoming-milestones-off-weekends>true</move-upcoming-milestones-off-weekends></request>');
    expect(moved.status, moved.body).toBe(200);
    await settle(a);
    await a.engine.run(); // the remote's dates, read back

    expect(writes.filter((w) => w.includes('/milestones/update/'))).toHaveLength(1);
    const deadlines = async (req: typeof R, p: string) => Object.fromEntries((await req('GET', `/projects/${p}/milestones/list`)).xml().children
      .filter((m) => text(m, 'title')!.startsWith('Intent')).map((m) => [text(m, 'title'), text(m, 'deadline')]));
    // The remote moved its own later milestone too (the action, not the local rows, reached it).
    const expected = { 'Intent one': '2099-01-06', 'Intent two': '2099-01-12', 'Intent three': '2099-01-19', 'Intent four': '2099-01-21' };
    expect(await deadlines(a.req, localPid)).toEqual(expected);
    expect(await deadlines(R, pid)).toEqual(expected);
    expect(await dump(a.req)).toEqual(await dump(R));
  });

  it('an entry without intents (written by an older version) still pushes, from its row changes', async () => {
    remote = await startRemote();
    proxy = await startProxy(remote.url, { plain });
    const a = await startReplica(proxy.url, 'ada');
    replicas.push(a);
    const R = remote.as('ada');
    const pid = text((await a.req('GET', '/projects.xml')).xml().children.find((p) => text(p, 'name') === 'Alpha Ascent')!, 'id')!;
    const list = loc(await a.req('POST', `/projects/${pid}/todo_lists.xml`, `${XML}<todo-list><name>Old ways</name></todo-list>`));
    // Row changes only, as an outbox entry of the version before intents: a to-do created, then completed.
    const id = await a.store.write(async (w) => w.insert('todo_items', {
      content: 'Old-format entry', todo_list_id: Number(list), project_id: Number(pid), position: 99, completed: 0, creator_id: null, created_at: w.now, updated_at: w.now,
    }, Number(pid)));
    await a.store.write((w) => w.update('todo_items', id, { completed: 1, completed_at: w.now, updated_at: w.now }, Number(pid)));
    const pending = await a.store.all<{ intents: string | null }>('SELECT intents FROM sync_outbox');
    expect(pending.map((e) => e.intents === null)).toEqual([false, true, true]); // the list's create names its intent
    const writes = spyWrites();
    await settle(a);
    expect(writes.some((w) => /^PUT \/todo_items\/\d+\/complete\.xml$/.test(w))).toBe(true);
    expect(await dump(a.req)).toEqual(await dump(R));
  });
});
