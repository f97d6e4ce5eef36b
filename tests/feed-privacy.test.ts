// The change feed tells nobody about records they never could see (issue #25, D245): a client's feed has no
// entry (not even a delete) of a private post, a comment on it, a private list, its items, a private time
// entry or milestone; records once visible to clients still reach them as deletes. Both engines.

import { describe, expect, it } from 'vitest';
import { freshAccount, locId, type Account, type Who } from './helpers.ts';

interface Change { seq: number; resource: string; id: number; op: string }

describe('feed privacy of deletions', () => {
  let a: Account;
  freshAccount((x) => { a = x; });

  const all = async (who: Who, since: string | number = 0): Promise<{ changes: Change[]; cursor: string }> => {
    const out: Change[] = [];
    let cursor = String(since);
    for (;;) {
      const r = await a.h.req(who, 'GET', `/sync/changes.json?since=${cursor}&limit=1000`);
      expect(r.status, r.body).toBe(200);
      const f = r.json() as { cursor: string; more: boolean; changes: Change[] };
      out.push(...f.changes);
      cursor = f.cursor;
      if (!f.more) return { changes: out, cursor };
    }
  };
  const make = async (who: Who, url: string, body: string) => {
    const r = await a.h.req(who, 'POST', url, body);
    expect(r.status, r.body).toBe(201);
    return locId(r);
  };

  it('a client never gets an entry of a private record, before or after its deletion; others get the deletes', async () => {
    const p = a.pid, crev = a.f.project.crevasse;
    const post = await make('fran', `/projects/${p}/posts.xml`, '<post><title>Secret</title><private>true</private></post>');
    const comment = await make('fran', `/posts/${post}/comments.xml`, '<comment><body>inside</body></comment>');
    const list = await make('fran', `/projects/${p}/todo_lists.xml`, '<todo-list><name>Hidden</name><private>true</private></todo-list>');
    const item = await make('fran', `/todo_lists/${list}/todo_items.xml`, '<todo-item><content>I</content></todo-item>');
    const itemComment = await make('fran', `/todo_items/${item}/comments.xml`, '<comment><body>on item</body></comment>');
    const entry = await make('fran', `/todo_items/${item}/time_entries.xml`,
      `<time-entry><person-id>${a.f.person.fran}</person-id><date>2026-11-02</date><hours>1.0</hours></time-entry>`);
    const privEntry = await make('fran', `/projects/${p}/time_entries.xml`,
      `<time-entry><person-id>${a.f.person.fran}</person-id><date>2026-11-02</date><hours>2.0</hours><private>true</private></time-entry>`);
    const publicPost = await make('fran', `/projects/${p}/posts.xml`, '<post><title>Open</title></post>');
    const wasPublic = await make('fran', `/projects/${p}/posts.xml`, '<post><title>Once open</title></post>');
    const crevPost = await make('fran', `/projects/${crev}/posts.xml`, '<post><title>Crevasse</title></post>');
    const start = (await all('cleo')).cursor;
    // While they live: no entry of them for the client (an update included).
    expect((await a.h.req('fran', 'PUT', `/posts/${post}.xml`, '<post><title>Secret 2</title></post>')).status).toBe(200);
    const hidden: [string, number][] = [['post', post], ['comment', comment], ['todoList', list], ['todoItem', item],
      ['comment', itemComment], ['timeEntry', entry], ['timeEntry', privEntry]];
    const about = (cs: Change[], r: string, id: number) => cs.filter((c) => c.resource === r && c.id === id);
    for (const [r, id] of hidden) expect(about((await all('cleo')).changes, r, id), `${r} ${id} live`).toEqual([]);

    expect((await a.h.req('fran', 'PUT', `/posts/${wasPublic}.xml`, '<post><private>true</private></post>')).status).toBe(200);
    for (const [url] of [[`/time_entries/${privEntry}.xml`], [`/time_entries/${entry}.xml`], [`/comments/${itemComment}.xml`],
      [`/todo_items/${item}.xml`], [`/todo_lists/${list}.xml`], [`/comments/${comment}.xml`], [`/posts/${post}.xml`],
      [`/posts/${publicPost}.xml`], [`/posts/${wasPublic}.xml`], [`/posts/${crevPost}.xml`]]) {
      const r = await a.h.req('fran', 'DELETE', url);
      expect(r.status, `${url} ${r.body}`).toBe(200);
    }
    const deleted = (cs: Change[], r: string, id: number) => about(cs, r, id).map((c) => c.op);
    for (const since of [0, start]) {
      const cleo = (await all('cleo', since)).changes;
      for (const [r, id] of hidden) expect(deleted(cleo, r, id), `cleo ${r} ${id} since ${since}`).toEqual([]);
      // What clients could see once still reaches them as a delete.
      expect(deleted(cleo, 'post', publicPost)).toEqual(['delete']);
      expect(deleted(cleo, 'post', wasPublic)).toEqual(['delete']);
      expect(deleted(cleo, 'post', crevPost)).toEqual([]); // not a member
      const carl = (await all('carl', since)).changes;
      expect(carl.filter((c) => !['company', 'person'].includes(c.resource))).toEqual([]);
      for (const who of ['fran', 'ada'] as const) {
        const f = (await all(who, since)).changes;
        for (const [r, id] of [...hidden, ['post', publicPost], ['post', wasPublic], ['post', crevPost]] as [string, number][]) {
          expect(deleted(f, r, id), `${who} ${r} ${id}`).toEqual(['delete']);
        }
      }
      // A firm person who is not a member of Crevasse: its deletes stay out; Alpha's private ones reach them.
      const finn = (await all('finn', since)).changes;
      expect(deleted(finn, 'post', crevPost)).toEqual([]);
      for (const [r, id] of hidden) expect(deleted(finn, r, id), `finn ${r} ${id}`).toEqual(['delete']);
    }
  });

  it('a private milestone and a comment on it: no entry for a client', async () => {
    const m = await a.h.req('fran', 'POST', `/projects/${a.pid}/milestones/create`,
      '<milestone><title>M</title><deadline>2026-12-01</deadline><private>true</private></milestone>');
    expect(m.status, m.body).toBe(201);
    const id = locId(m);
    const c = await make('fran', `/milestones/${id}/comments.xml`, '<comment><body>x</body></comment>');
    expect((await a.h.req('fran', 'DELETE', `/comments/${c}.xml`)).status).toBe(200);
    expect((await a.h.req('fran', 'POST', `/milestones/delete/${id}`)).status).toBe(200);
    const cleo = (await all('cleo')).changes;
    expect(cleo.filter((x) => (x.resource === 'milestone' && x.id === id) || (x.resource === 'comment' && x.id === c))).toEqual([]);
    const fran = (await all('fran')).changes;
    expect(fran.filter((x) => (x.resource === 'milestone' && x.id === id) || (x.resource === 'comment' && x.id === c)).map((x) => x.op)).toEqual(['delete', 'delete']);
  });

  it('a record made public after being private, then hidden by its list and deleted, still reaches the client as a delete', async () => {
    const list = await make('fran', `/projects/${a.pid}/todo_lists.xml`, '<todo-list><name>L</name><private>true</private></todo-list>');
    const item = await make('fran', `/todo_lists/${list}/todo_items.xml`, '<todo-item><content>I</content></todo-item>');
    expect((await a.h.req('fran', 'PUT', `/todo_lists/${list}.xml`, '<todo-list><private>false</private></todo-list>')).status).toBe(200);
    const seen = (await all('cleo')).changes.filter((c) => c.resource === 'todoItem' && c.id === item);
    expect(seen.map((c) => c.op)).toEqual(['upsert']);
    expect((await a.h.req('fran', 'PUT', `/todo_lists/${list}.xml`, '<todo-list><private>true</private></todo-list>')).status).toBe(200);
    expect((await a.h.req('fran', 'DELETE', `/todo_items/${item}.xml`)).status).toBe(200);
    expect((await all('cleo')).changes.filter((c) => c.resource === 'todoItem' && c.id === item).map((c) => c.op)).toEqual(['delete']);
  });
});
