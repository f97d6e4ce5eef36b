// The Overview (docs/api-extensions.md E7, D300–D302): GET /overview.xml and .json, for each kind of caller,
// keyset paging, bad input. On both engines (vitest project `pg` runs it on PostgreSQL).

import { afterEach, describe, expect, it } from 'vitest';
import type { XNode } from '../../../shared/codec/in.ts';
import { defaultEngine, freshAccount, locId, text, type Account, type Who } from '../../support/helpers.ts';
import { pgSkipReason } from '../../support/pg.ts';
import { overview } from '../../../electron/service/overview.ts';
import { parseBefore } from '../../../electron/http/plugins/overview.ts';
import type { Caller } from '../../../electron/store/types.ts';
import { closeAll, loc, startProxy, startRemote, startReplica, type Proxy, type Remote, type Replica } from '../../support/sync-helpers.ts';

interface Ev { kind: string; at: string; project_id: number; project_name: string; resource: string; record_id: number;
  title: string | null; excerpt: string | null; parent_type: string | null; parent_id: number | null;
  person_id: number | null; person_name: string | null; hours: number | null }
interface Page { events: Ev[]; next_before: string | null }

const today = new Date().toISOString().slice(0, 10);

describe('the Overview', () => {
  let a: Account;
  freshAccount((x) => { a = x; });
  const req = (who: Who, method: string, url: string, body?: string) => a.h.req(who, method, url, body);
  const page = async (who: Who, q = ''): Promise<Page> => {
    const r = await req(who, 'GET', `/overview.json${q}`);
    expect(r.status, r.body).toBe(200);
    return r.json() as Page;
  };
  /** Every event of the caller, by pages of `limit`, following next_before. */
  const all = async (who: Who, limit = 100): Promise<Ev[]> => {
    const out: Ev[] = [];
    let q = `?limit=${limit}`;
    for (let n = 0; n < 200; n++) {
      const p = await page(who, q);
      out.push(...p.events);
      if (!p.next_before) return out;
      q = `?limit=${limit}&before=${encodeURIComponent(p.next_before)}`;
    }
    throw new Error('no last page');
  };
  const created = async (who: Who, url: string, body: string): Promise<number> => {
    const r = await req(who, 'POST', url, body);
    expect(r.status, `${url}: ${r.body}`).toBe(201);
    return locId(r);
  };
  const titles = (evs: Ev[]): string[] => evs.map((e) => `${e.kind}:${e.title ?? ''}`).sort();

  /** Alpha (ada, fran, finn, cleo): public and private records of every kind; Crevasse (fran only): one post. */
  async function world() {
    const alpha = a.f.project.alpha, crevasse = a.f.project.crevasse;
    const post = await created('fran', `/projects/${alpha}/posts.xml`, '<post><title>Route plan</title><body>b</body></post>');
    await created('fran', `/projects/${alpha}/posts.xml`, '<post><title>Secret budget</title><body>b</body><private>true</private></post>');
    await created('fran', `/projects/${crevasse}/posts.xml`, '<post><title>Crevasse notes</title><body>b</body></post>');
    await created('finn', `/posts/${post}/comments.xml`, '<comment><body>Looks good</body></comment>');
    await created('finn', `/posts/${post}/comments.xml`, '<comment><body>Internal remark</body><private>true</private></comment>');
    const list = await created('fran', `/projects/${alpha}/todo_lists.xml`, '<todo-list><name>Gear</name></todo-list>');
    const hidden = await created('fran', `/projects/${alpha}/todo_lists.xml`, '<todo-list><name>Staff</name><private>true</private></todo-list>');
    const rope = await created('fran', `/todo_lists/${list}/todo_items.xml`, '<todo-item><content>Buy rope</content></todo-item>');
    const hire = await created('fran', `/todo_lists/${hidden}/todo_items.xml`, '<todo-item><content>Hire guide</content></todo-item>');
    expect((await req('finn', 'POST', `/todos/complete_item/${rope}`)).status).toBe(200);
    await created('fran', `/todo_items/${hire}/comments.xml`, '<comment><body>On a private list</body></comment>');
    const ms = await req('fran', 'POST', `/projects/${alpha}/milestones/create`,
      '<request><milestone><title>Summit day</title><deadline>2030-01-01</deadline><responsible-party>0</responsible-party></milestone></request>');
    expect(ms.status, ms.body).toBe(201);
    const m = Number(text(ms.xml().children[0], 'id'));
    expect((await req('fran', 'POST', `/milestones/complete/${m}`)).status).toBe(200);
    await req('fran', 'POST', `/projects/${alpha}/milestones/create`,
      '<request><milestone><title>Secret milestone</title><deadline>2030-01-01</deadline><private>true</private></milestone></request>');
    await created('finn', `/projects/${alpha}/time_entries.xml`, `<time-entry><date>${today}</date><hours>2.5</hours><description>Scouting</description></time-entry>`);
    await created('finn', `/projects/${alpha}/time_entries.xml`, `<time-entry><date>${today}</date><hours>1</hours><description>Private hours</description><private>true</private></time-entry>`);
    await created('finn', `/todo_items/${hire}/time_entries.xml`, `<time-entry><date>${today}</date><hours>1</hours><description>On the hidden list</description></time-entry>`);
    // Dated tomorrow: not shown before its day.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await created('finn', `/projects/${alpha}/time_entries.xml`, `<time-entry><date>${tomorrow}</date><hours>1</hours><description>Tomorrow</description></time-entry>`);
    return { alpha, crevasse, post, list, rope, m };
  }

  const PUBLIC = ['post:Route plan', 'comment:Route plan', 'todo-item:Buy rope', 'todo-item-completed:Buy rope',
    'milestone:Summit day', 'milestone-completed:Summit day', 'time-entry:Scouting'];
  const PRIVATE = ['post:Secret budget', 'comment:Route plan', 'todo-item:Hire guide', 'comment:Hire guide',
    'milestone:Secret milestone', 'time-entry:Private hours', 'time-entry:On the hidden list'];

  it('shows each caller exactly what the API shows them: administrators all, members their projects, clients no private record, others nothing', async () => {
    await world();
    expect(titles(await all('ada'))).toEqual([...PUBLIC, ...PRIVATE, 'post:Crevasse notes'].sort());
    expect(titles(await all('fran'))).toEqual([...PUBLIC, ...PRIVATE, 'post:Crevasse notes'].sort());
    expect(titles(await all('finn'))).toEqual([...PUBLIC, ...PRIVATE].sort());
    expect(titles(await all('cleo'))).toEqual([...PUBLIC].sort());
    expect(await all('carl')).toEqual([]);
    // Removed from the project: nothing of it any more.
    expect((await req('ada', 'DELETE', `/projects/${a.f.project.alpha}/people/${a.f.person.cleo}.xml`)).status).toBe(200);
    expect(await all('cleo')).toEqual([]);
  });

  it('says who did what, and where: each event carries its project, record, parent and person', async () => {
    const w = await world();
    const evs = await all('cleo');
    const by = (k: string) => evs.find((e) => e.kind === k)!;
    expect(by('post')).toMatchObject({ project_id: w.alpha, project_name: 'Alpha Ascent', resource: 'post', record_id: w.post, person_id: a.f.person.fran, person_name: 'Fran Firm' });
    expect(by('comment')).toMatchObject({ resource: 'comment', parent_type: 'Post', parent_id: w.post, excerpt: 'Looks good', person_name: 'Finn Fellow' });
    expect(by('todo-item-completed')).toMatchObject({ resource: 'todo-item', record_id: w.rope, parent_type: 'TodoList', parent_id: w.list, excerpt: 'Gear', person_name: 'Finn Fellow' });
    expect(by('milestone-completed')).toMatchObject({ resource: 'milestone', record_id: w.m, person_name: 'Fran Firm' });
    expect(by('time-entry')).toMatchObject({ hours: 2.5, person_name: 'Finn Fellow', at: `${today}T00:00:00Z` });
    // Newest first.
    const ats = evs.map((e) => e.at);
    expect([...ats].sort().reverse()).toEqual(ats);
  });

  it('a client reads no name of a person of another client company (as every answer, D32)', async () => {
    const co = await created('ada', '/companies.xml', '<company><name>Other Client</name></company>');
    const oz = await created('ada', '/people.xml', `<person><first-name>Oz</first-name><last-name>Other</last-name><user-name>oz</user-name><email-address>oz@other.example</email-address><company-id>${co}</company-id><password>oz-long-pass</password></person>`);
    expect((await req('ada', 'POST', `/projects/${a.pid}/people.xml`, `<person><id>${oz}</id></person>`)).status).toBe(201);
    const basic = `Basic ${Buffer.from('oz:oz-long-pass').toString('base64')}`;
    const r = await a.h.app.inject({ method: 'POST', url: `/projects/${a.pid}/posts.xml`, payload: '<post><title>From Oz</title><body>x</body></post>', headers: { host: '127.0.0.1', authorization: basic } });
    expect(r.statusCode, r.body).toBe(201);
    const cleo = (await all('cleo')).find((e) => e.title === 'From Oz')!;
    expect(cleo).toMatchObject({ person_id: oz, person_name: '' });
    expect((await all('fran')).find((e) => e.title === 'From Oz')!.person_name).toBe('Oz Other');
  });

  it('pages by a keyset cursor: every event once, in order, whatever the page size, also among events of the same second', async () => {
    await world();
    for (let k = 0; k < 6; k++) await created('fran', `/projects/${a.pid}/posts.xml`, `<post><title>Note ${k}</title><body>b</body></post>`);
    const whole = await all('ada', 100);
    expect(whole.length).toBe(PUBLIC.length + PRIVATE.length + 1 + 6);
    for (const size of [1, 2, 3, 7]) {
      const paged = await all('ada', size);
      expect(paged.map((e) => `${e.kind}:${e.record_id}`), `limit ${size}`).toEqual(whole.map((e) => `${e.kind}:${e.record_id}`));
    }
    // A page does not shift when new events arrive: the next page after a cursor stays the same. (Times are
    // seconds: an event of the cursor's own second and of a kind ranked after the cursor's would sort after it,
    // so the new one is made in a later second, as a teammate's would be — the CI run that made it in the same
    // second saw it on the next page.)
    const first = await page('ada', '?limit=3');
    const next = await page('ada', `?limit=3&before=${encodeURIComponent(first.next_before!)}`);
    const cursorSecond = first.next_before!.split('.')[0];
    while (new Date().toISOString().replace(/\.\d+Z$/, 'Z') <= cursorSecond) await new Promise((r) => setTimeout(r, 50));
    await created('fran', `/projects/${a.pid}/posts.xml`, '<post><title>Late news</title><body>b</body></post>');
    expect((await page('ada', `?limit=3&before=${encodeURIComponent(first.next_before!)}`)).events).toEqual(next.events);
    // It comes before every older post (events of the same second are ordered by kind, then id).
    expect((await page('ada', '?limit=100')).events.find((e) => e.kind === 'post')!.title).toBe('Late news');
    // The last page says so.
    expect((await page('ada', `?limit=${whole.length + 1}`)).next_before).toBeNull();
  });

  it('a page never splits a second: an event made later in the cursor\'s own second, of a kind ranked after it, is at the top, never on "Load more" (D301 amended)', async () => {
    const alpha = a.f.project.alpha;
    const S = '2099-01-01T00:00:05Z';
    const at = (table: string, col: string, id: number) => a.h.store.write(async (w) => { await w.run(`UPDATE ${table} SET ${col} = ? WHERE id = ?`, [S, id]); });
    await created('fran', `/projects/${alpha}/posts.xml`, '<post><title>Older</title><body>b</body></post>');
    const first = await created('fran', `/projects/${alpha}/posts.xml`, '<post><title>First</title><body>b</body></post>');
    await at('posts', 'posted_on', first);
    await at('comments', 'created_at', await created('finn', `/posts/${first}/comments.xml`, '<comment><body>Reply</body></comment>'));
    // The newest page of one event: the comment (same second, ranked above the post); the post of that second comes with it.
    const top = await page('ada', '?limit=1');
    expect(top.events.map((e) => `${e.kind}:${e.title}`)).toEqual(['comment:First', 'post:First']);
    // A teammate's post made in that same second, after the page was read (a post ranks after a comment).
    await at('posts', 'posted_on', await created('fran', `/projects/${alpha}/posts.xml`, '<post><title>Late</title><body>b</body></post>'));
    const more = await page('ada', `?limit=5&before=${encodeURIComponent(top.next_before!)}`);
    expect(more.events.map((e) => e.title)).not.toContain('Late');
    expect(more.events.map((e) => e.title)).toEqual(['Older']);
    expect((await page('ada', '?limit=1')).events.map((e) => e.title)).toContain('Late');
  });

  it('pages across days and seconds: the order of time, then kind, then id; time entries at their day', async () => {
    await world();
    // Spread the records over three days and several seconds (as a long-lived account has them).
    const store = a.h.store;
    const day = (n: number, s: number): string => new Date(Date.UTC(2026, 0, 10 + n, 12, 0, s)).toISOString().replace(/\.\d{3}Z$/, 'Z');
    let k = 0;
    for (const [table, col] of [['posts', 'posted_on'], ['comments', 'created_at'], ['todo_items', 'created_at'], ['milestones', 'created_on']] as const) {
      for (const r of await store.all<{ id: number }>(`SELECT id FROM ${table} ORDER BY id`)) { await store.run(`UPDATE ${table} SET ${col} = ? WHERE id = ?`, [day(k % 3, k % 2), r.id]); k++; }
    }
    for (const r of await store.all<{ id: number }>('SELECT id FROM time_entries ORDER BY id')) await store.run('UPDATE time_entries SET date = ? WHERE id = ?', [day(k++ % 3, 0).slice(0, 10), r.id]);
    const whole = await all('ada', 100);
    const keys = whole.map((e) => e.at);
    expect([...keys].sort().reverse()).toEqual(keys);
    expect(whole.filter((e) => e.kind === 'time-entry').every((e) => e.at.endsWith('T00:00:00Z'))).toBe(true);
    for (const size of [1, 2, 5]) {
      expect((await all('ada', size)).map((e) => `${e.kind}:${e.record_id}`), `limit ${size}`).toEqual(whole.map((e) => `${e.kind}:${e.record_id}`));
    }
  });

  it('a person who sees a few projects is read project by project: the same events, the same pages (D301)', async () => {
    await world();
    for (let k = 0; k < 4; k++) await created('finn', `/projects/${a.f.project.basecamp}/posts.xml`, `<post><title>Base ${k}</title><body>b</body></post>`);
    const callerOf = async (who: Who): Promise<Caller> => {
      const r = (await a.h.store.get<{ id: number; company_id: number; administrator: number; firm: number }>(
        'SELECT pe.id, pe.company_id, pe.administrator, co.firm FROM people pe JOIN companies co ON co.id = pe.company_id WHERE pe.user_name = ?', [who]))!;
      return { id: Number(r.id), companyId: Number(r.company_id), admin: Number(r.administrator) === 1, firm: Number(r.firm) === 1, name: '' };
    };
    const pages = async (caller: Caller, perProjectMax: number, limit: number, secondMax?: number): Promise<string[]> => {
      const out: string[] = [];
      let before;
      for (let n = 0; n < 100; n++) {
        const p = await overview({ store: a.h.store, caller }, { limit, perProjectMax, before, secondMax });
        out.push(...p.events.map((e) => `${e.kind}:${e.id}:${e.person_name}`));
        if (!p.next_before) return out;
        before = parseBefore(p.next_before);
      }
      throw new Error('no last page');
    };
    for (const who of ['fran', 'finn', 'cleo', 'carl'] as const) {
      const caller = await callerOf(who);
      const whole = await pages(caller, -1, 100); // never project by project
      expect(whole.length > 0, who).toBe(who !== 'carl');
      for (const limit of [100, 3]) expect(await pages(caller, 100, limit), `${who}, ${limit} a page`).toEqual(whole);
      // A second with more events than a page may add is split by kind and id: every event still once, in order.
      for (const limit of [1, 2]) expect(await pages(caller, -1, limit, 0), `${who}, ${limit} a page, seconds split`).toEqual(whole);
    }
  });

  it('XML twin: <overview> with <events type="array"> and <next-before>', async () => {
    await world();
    const r = await req('cleo', 'GET', '/overview.xml?limit=2');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/application\/xml/);
    const root = r.xml();
    expect(root.name).toBe('overview');
    const events = root.children.find((c) => c.name === 'events') as XNode;
    // Two events, and the rest of the second of the second one (a page never splits a second).
    expect(events.children.length).toBeGreaterThanOrEqual(2);
    expect(events.children[0].name).toBe('event');
    expect(text(events.children[0], 'kind')).toBeTruthy();
    expect(text(root, 'next-before')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ(\.\d\.\d+)?$/);
    expect(r.body).not.toMatch(/Secret|Private|hidden/);
  });

  it('bad input: a clear 400, nothing else', async () => {
    for (const q of ['?limit=0', '?limit=101', '?limit=abc', '?limit=-1', '?before=yesterday', '?before=2026-01-01T00:00:00Z.9.1',
      '?before=2026-01-01T00:00:00Z.1.0', "?before=2026-01-01T00:00:00Z.1.1'%20OR%201=1", '?before=2026-13-45T99:99:99Z.1.1']) {
      const r = await req('fran', 'GET', `/overview.xml${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body).toMatch(/<error>(limit|before) must/);
    }
    expect((await a.h.req(null, 'GET', '/overview.xml')).status).toBe(401);
    expect((await req('fran', 'POST', '/overview.xml')).status).toBe(405);
  });
});

describe.skipIf(defaultEngine() === 'postgres' ? pgSkipReason() : '')('the Overview on a replica', () => {
  let remote: Remote | undefined;
  let proxy: Proxy | undefined;
  const replicas: Replica[] = [];
  afterEach(() => closeAll(replicas, proxy, remote));

  it('is answered from the local store: what the person sees of the remote, with its times and people, and offline work', async () => {
    remote = await startRemote();
    proxy = await startProxy(remote.url, {});
    const fran = remote.as('fran');
    const alpha = (await fran('GET', '/projects.xml')).xml().children.find((p) => text(p, 'name') === 'Alpha Ascent')!;
    const pid = text(alpha, 'id')!;
    const post = loc(await fran('POST', `/projects/${pid}/posts.xml`, '<post><title>From the team server</title><body>b</body></post>'));
    await fran('POST', `/projects/${pid}/posts.xml`, '<post><title>Firm only</title><body>b</body><private>true</private></post>');
    const postedOn = text((await fran('GET', `/posts/${post}.xml`)).xml(), 'posted-on');
    const cleo = await startReplica(proxy.url, 'cleo');
    replicas.push(cleo);
    const local = async (): Promise<Ev[]> => (JSON.parse((await cleo.req('GET', '/overview.json')).body) as Page).events;
    const seen = (await local()).find((e) => e.title === 'From the team server')!;
    expect(seen).toMatchObject({ kind: 'post', at: postedOn, person_name: 'Fran Firm', project_name: 'Alpha Ascent' });
    expect((await local()).some((e) => e.title === 'Firm only')).toBe(false);
    // Offline: the remote does not answer; the Overview still does, with what was written meanwhile.
    proxy.faults.down = true;
    const r = await cleo.req('POST', `/posts/${seen.record_id}/comments.xml`, '<comment><body>Written offline</body></comment>');
    expect(r.status, r.body).toBe(201);
    const after = await local();
    expect(after[0]).toMatchObject({ kind: 'comment', excerpt: 'Written offline', title: 'From the team server', person_name: 'Cleo Client' });
  });
});
