// The change feed tells nobody about records they never could see (issue #25, D245): a client's feed has no
// entry (not even a delete) of a private post, a comment on it, a private list, its items, a private time
// entry or milestone; records once visible to clients still reach them as deletes. Both engines.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportAccount, importBackup } from '../../../electron/service/account.ts';
import { PgStore } from '../../../electron/store/postgres.ts';
import { SqliteStore } from '../../../electron/store/sqlite.ts';
import { freshDatabase } from '../../support/pg.ts';
import { FIXTURE, freshAccount, fx, harness, harnessOver, locId, type Account, type Harness, type Who } from '../../support/helpers.ts';

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

  it('a client paging one entry at a time meets no empty page: where hidden records sit is not told by the cursor', async () => {
    const p = a.pid;
    const post = await make('fran', `/projects/${p}/posts.xml`, '<post><title>Secret</title><private>true</private></post>');
    await make('fran', `/posts/${post}/comments.xml`, '<comment><body>inside</body></comment>');
    const list = await make('fran', `/projects/${p}/todo_lists.xml`, '<todo-list><name>Hidden</name><private>true</private></todo-list>');
    await make('fran', `/todo_lists/${list}/todo_items.xml`, '<todo-item><content>I</content></todo-item>');
    const gone = await make('fran', `/projects/${p}/posts.xml`, '<post><title>Gone</title><private>true</private></post>');
    expect((await a.h.req('fran', 'DELETE', `/posts/${gone}.xml`)).status).toBe(200);
    await make('fran', `/projects/${p}/posts.xml`, '<post><title>Open</title></post>');
    for (const who of ['cleo', 'carl'] as const) {
      const cursors: string[] = [];
      for (let cursor = '0'; ;) {
        const r = await a.h.req(who, 'GET', `/sync/changes.json?since=${cursor}&limit=1`);
        expect(r.status, r.body).toBe(200);
        const f = r.json() as { cursor: string; more: boolean; changes: Change[] };
        if (!f.more) break;
        expect(f.changes.length, `${who}: a page before ${f.cursor} told of an entry it did not carry`).toBe(1);
        expect(f.cursor).toBe(String(f.changes[0].seq));
        cursors.push(f.cursor);
        cursor = f.cursor;
      }
      expect(cursors.length).toBeGreaterThan(0);
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

// ---- people and companies of another client company (issue #25, D268) ---------------------------------------

/** The conformance fixture plus a second client company (Rival Ridge Co, its person rita) and a project of theirs. */
const TWO_CLIENTS = {
  ...FIXTURE,
  companies: [...(FIXTURE as unknown as { companies: unknown[] }).companies, { key: 'rival', name: 'Rival Ridge Co', city: 'Annecy' }],
  people: [...FIXTURE.people, {
    key: 'rita', company: 'rival', 'first-name': 'Rita', 'last-name': 'Rival', 'email-address': 'rita@rival.example',
    'user-name': 'rita', password: 'rita-pass-6', token: '9c1d0f3a7e5b2c4d6e8f0a1b3c5d7e9f0a2b4c6d', administrator: false,
  }],
  projects: [...(FIXTURE as unknown as { projects: unknown[] }).projects,
    { key: 'ridge', name: 'Ridge Route', company: 'rival', status: 'active', members: ['fran', 'rita'] }],
} as typeof FIXTURE;

type Who2 = Who | 'rita';

/** A person of `companyId` written directly (people cannot be created through the interface), or removed. */
const addPerson = (h: Harness, companyId: number, name: string): Promise<number> => h.store.write((w) => w.insert('people', {
  first_name: name, last_name: 'Temp', email_address: `${name.toLowerCase()}@temp.example`, user_name: name.toLowerCase(), title: '',
  time_zone_name: 'UTC', company_id: companyId, administrator: 0, token: null, password_hash: null, created_at: w.now, updated_at: w.now,
}));
const removePerson = (h: Harness, id: number): Promise<void> => h.store.write((w) => w.remove('people', id));

describe('feed privacy of people and companies (two client companies)', () => {
  let h: Harness;
  let ids: { firm: number; client: number; rival: number; person: Record<string, number> };
  beforeEach(async () => {
    h = await harness(TWO_CLIENTS);
    const co = (await h.req('ada', 'GET', '/companies.json')).json() as { id: number; name: string }[];
    const pe = (await h.req('ada', 'GET', '/people.json')).json() as { id: number; user_name: string }[];
    ids = {
      firm: co.find((c) => c.name === 'Summit Firm Ltd')!.id, client: co.find((c) => c.name === 'Valley Client Co')!.id,
      rival: co.find((c) => c.name === 'Rival Ridge Co')!.id, person: Object.fromEntries(pe.map((p) => [p.user_name, p.id])),
    };
  });
  afterEach(async () => { await h.close(); });

  const all = async (who: Who2, since: string | number = 0): Promise<{ changes: Change[]; cursor: string }> => {
    const out: Change[] = [];
    let cursor = String(since);
    for (;;) {
      const r = await h.req(who as Who, 'GET', `/sync/changes.json?since=${cursor}&limit=1000`);
      expect(r.status, r.body).toBe(200);
      const f = r.json() as { cursor: string; more: boolean; changes: Change[] };
      out.push(...f.changes);
      cursor = f.cursor;
      if (!f.more) return { changes: out, cursor };
    }
  };
  const directory = (cs: Change[]) => cs.filter((c) => c.resource === 'company' || c.resource === 'person')
    .map((c) => `${c.resource}:${c.id}:${c.op}`).sort();

  it('a client gets entries of the firm, of its own company and of their people only: nothing of another client company', async () => {
    const { firm, client, rival, person: p } = ids;
    const up = (r: string, ...xs: number[]) => xs.map((x) => `${r}:${x}:upsert`);
    const clientSide = [...up('company', firm, client), ...up('person', p.ada, p.fran, p.finn, p.cleo, p.carl)].sort();
    for (const who of ['cleo', 'carl'] as const) expect(directory((await all(who)).changes), who).toEqual(clientSide);
    expect(directory((await all('rita')).changes)).toEqual([...up('company', firm, rival), ...up('person', p.ada, p.fran, p.finn, p.rita)].sort());
    const everything = [...up('company', firm, client, rival), ...up('person', p.ada, p.fran, p.finn, p.cleo, p.carl, p.rita)].sort();
    for (const who of ['ada', 'fran', 'finn'] as const) expect(directory((await all(who)).changes), who).toEqual(everything);
  });

  it('a restored backup (the feed rebuilt from the rows) keeps each entry\'s company', async () => {
    const backup = await exportAccount(h.store);
    await h.close();
    const empty = h.engine === 'postgres' ? await PgStore.open(await freshDatabase(), { max: 4 }) : new SqliteStore(':memory:');
    await importBackup(empty, backup);
    h = await harnessOver(empty, h.engine, TWO_CLIENTS);
    const cleo = directory((await all('cleo')).changes);
    expect(cleo).toContain(`company:${ids.client}:upsert`);
    expect(cleo.filter((x) => x.startsWith(`company:${ids.rival}:`) || x.startsWith(`person:${ids.person.rita}:`))).toEqual([]);
    expect(directory((await all('fran')).changes)).toContain(`person:${ids.person.rita}:upsert`);
  });

  it('deletions of people reach only those who could see them', async () => {
    const firmTemp = await addPerson(h, ids.firm, 'Tess');
    const rivalTemp = await addPerson(h, ids.rival, 'Ron');
    const clientTemp = await addPerson(h, ids.client, 'Val');
    const start = { cleo: (await all('cleo')).cursor, rita: (await all('rita')).cursor, fran: (await all('fran')).cursor };
    expect(directory((await all('cleo')).changes)).not.toContain(`person:${rivalTemp}:upsert`);
    for (const id of [firmTemp, rivalTemp, clientTemp]) await removePerson(h, id);
    const gone = (cs: Change[]) => directory(cs).filter((x) => x.endsWith(':delete'));
    for (const since of [0, 'start'] as const) {
      const at = (who: 'cleo' | 'rita' | 'fran') => (since === 0 ? 0 : start[who]);
      expect(gone((await all('cleo', at('cleo'))).changes), `cleo since ${since}`).toEqual([`person:${firmTemp}:delete`, `person:${clientTemp}:delete`].sort());
      expect(gone((await all('carl', at('cleo'))).changes), `carl since ${since}`).toEqual([`person:${firmTemp}:delete`, `person:${clientTemp}:delete`].sort());
      expect(gone((await all('rita', at('rita'))).changes), `rita since ${since}`).toEqual([`person:${firmTemp}:delete`, `person:${rivalTemp}:delete`].sort());
      expect(gone((await all('fran', at('fran'))).changes), `fran since ${since}`)
        .toEqual([`person:${firmTemp}:delete`, `person:${rivalTemp}:delete`, `person:${clientTemp}:delete`].sort());
    }
  });
});

// ---- the live stream (/changes/stream, docs/changes-stream.md): the same privacy ----------------------------

interface Ev { event: string; id?: string; data: { seq: number; resources: string[]; projects: number[] } }

/** Open a stream for `who` (credentials from `fixture`); `until(p)` collects events until one satisfies p. */
async function stream(h: Harness, who: string, fixture: typeof FIXTURE = FIXTURE) {
  const a = h.app.server.address();
  const base = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  const p = fixture.people.find((x) => x.key === who)!;
  const ctl = new AbortController();
  const res = await fetch(`${base}/changes/stream`, {
    headers: { Authorization: `Basic ${Buffer.from(`${p['user-name']}:${p.password}`).toString('base64')}` }, signal: ctl.signal,
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = '';
  const queue: Ev[] = [];
  let wake = (): void => undefined;
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buf += dec.decode(value, { stream: true });
        for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          if (block.startsWith(':')) continue;
          const ev = { event: 'message' } as Ev;
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) ev.event = line.slice(7);
            else if (line.startsWith('data: ')) ev.data = JSON.parse(line.slice(6)) as Ev['data'];
            else if (line.startsWith('id: ')) ev.id = line.slice(4);
          }
          queue.push(ev);
          wake();
        }
      }
    } catch { /* aborted */ }
  })();
  /** Events up to and including the first that satisfies `p` (a stream that never sends it fails the test). */
  const until = async (p: (e: Ev) => boolean): Promise<Ev[]> => {
    const out: Ev[] = [];
    for (;;) {
      while (queue.length) {
        const e = queue.shift()!;
        out.push(e);
        if (p(e)) return out;
      }
      await new Promise<void>((r) => { wake = r; });
    }
  };
  await until((e) => e.event === 'ready');
  return { until, close: () => ctl.abort() };
}
const names = (evs: Ev[]): string[] => [...new Set(evs.filter((e) => e.event === 'change').flatMap((e) => e.data.resources))].sort();
const naming = (r: string) => (e: Ev) => e.event === 'change' && e.data.resources.includes(r);

describe('live stream privacy', () => {
  let h: Harness;
  afterEach(async () => { await h.close(); });
  const listen = async (fixture?: typeof FIXTURE) => {
    h = await harness(fixture ?? FIXTURE);
    await h.app.listen({ port: 0, host: '127.0.0.1' });
  };
  const make = async (who: Who, url: string, body: string) => {
    const r = await h.req(who, 'POST', url, body);
    expect(r.status, r.body).toBe(201);
    return locId(r);
  };
  /** A change every caller of the fixture sees, named `categories` (the marker that ends a wait). */
  const marker = async (pid: number) => make('fran', `/projects/${pid}/categories.xml`, '<category><name>Marker</name><type>post</type></category>');

  it('a client gets no event of a private post, comment or list created or deleted; a firm member does', async () => {
    await listen();
    const f = await fx(h);
    const p = f.project.alpha;
    const cleo = await stream(h, 'cleo'), fran = await stream(h, 'fran'), finn = await stream(h, 'finn');
    const post = await make('fran', `/projects/${p}/posts.xml`, '<post><title>Secret</title><private>true</private></post>');
    const comment = await make('fran', `/posts/${post}/comments.xml`, '<comment><body>inside</body></comment>');
    const list = await make('fran', `/projects/${p}/todo_lists.xml`, '<todo-list><name>Hidden</name><private>true</private></todo-list>');
    await make('fran', `/todo_lists/${list}/todo_items.xml`, '<todo-item><content>I</content></todo-item>');
    for (const url of [`/comments/${comment}.xml`, `/posts/${post}.xml`, `/todo_lists/${list}.xml`]) {
      expect((await h.req('fran', 'DELETE', url)).status).toBe(200);
    }
    await marker(p);
    // The project's own record changed (last-changed-on, which a client sees): `projects` may be named.
    expect(names(await cleo.until(naming('categories')))).toEqual(['categories', 'projects']);
    for (const s of [fran, finn]) {
      expect(names(await s.until(naming('categories')))).toEqual(['categories', 'comments', 'posts', 'projects', 'todo_items', 'todo_lists']);
    }
    // A public post reaches the client.
    await make('fran', `/projects/${p}/posts.xml`, '<post><title>Open</title></post>');
    expect(names(await cleo.until(naming('posts')))).toContain('posts');
    for (const s of [cleo, fran, finn]) s.close();
  });

  it('a deletion in a project the caller is not on names nothing (a person in no project, a firm person not a member)', async () => {
    await listen();
    const f = await fx(h);
    const crev = f.project.crevasse;
    const post = await make('fran', `/projects/${crev}/posts.xml`, '<post><title>Crevasse</title></post>');
    const list = await make('fran', `/projects/${crev}/todo_lists.xml`, '<todo-list><name>Crevasse gear</name></todo-list>');
    const carl = await stream(h, 'carl'), finn = await stream(h, 'finn'), fran = await stream(h, 'fran');
    expect((await h.req('fran', 'DELETE', `/posts/${post}.xml`)).status).toBe(200);
    expect((await h.req('fran', 'DELETE', `/todo_lists/${list}.xml`)).status).toBe(200);
    expect(names(await fran.until(naming('todo_lists')))).toEqual(expect.arrayContaining(['posts', 'todo_lists']));
    // The marker: a change carl and finn see (a firm person joins the account: `people`).
    await addPerson(h, f.company.firm, 'Mark');
    for (const s of [carl, finn]) expect(names(await s.until(naming('people')))).toEqual(['people']);
    for (const s of [carl, finn, fran]) s.close();
  });

  it('a client gets no event of a person of another client company; a firm person does', async () => {
    await listen(TWO_CLIENTS);
    const co = (await h.req('ada', 'GET', '/companies.json')).json() as { id: number; name: string }[];
    const firm = co.find((c) => c.name === 'Summit Firm Ltd')!.id, rival = co.find((c) => c.name === 'Rival Ridge Co')!.id;
    const cleo = await stream(h, 'cleo', TWO_CLIENTS), carl = await stream(h, 'carl', TWO_CLIENTS), fran = await stream(h, 'fran', TWO_CLIENTS);
    const ron = await addPerson(h, rival, 'Ron');
    expect(names(await fran.until(naming('people')))).toEqual(['people']);
    await removePerson(h, ron);
    expect(names(await fran.until(naming('people')))).toEqual(['people']);
    // The marker for the clients: a category in Alpha (cleo), a firm person (carl, in no project).
    await marker((await fx(h)).project.alpha);
    expect(names(await cleo.until(naming('categories')))).toEqual(['categories', 'projects']);
    await addPerson(h, firm, 'Mark');
    expect(names(await carl.until(naming('people')))).toEqual(['people']);
    expect(names(await cleo.until(naming('people')))).toEqual(['people']);
    for (const s of [cleo, carl, fran]) s.close();
  });
});
