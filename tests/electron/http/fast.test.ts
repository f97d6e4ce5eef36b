// The thin path for GETs (electron/http/fast.ts, D190) answers the same bytes as Fastify's route: two
// apps over one store, one with the thin path and one without, are asked the same requests over real
// sockets, and their raw answers (status line, headers in order, body; `Date` aside) must be equal. Every
// GET route the app declares, as an administrator, a firm person and a client, in XML and JSON (twin and
// Accept), plus the error cases (401, 403 Host/Origin/fetch metadata, 404, 405) and the requests the thin
// path leaves to Fastify.

import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../electron/http/app.ts';
import { generateDataset } from '../../../electron/service/dataset.ts';
import type { Store } from '../../../electron/store/types.ts';
import { collectRoutes } from '../../../scripts/api-docs.ts';
import { defaultEngine, FIXTURE, seededStore, type Who } from '../../support/helpers.ts';

type App = Awaited<ReturnType<typeof buildApp>>;
let store: Store;
let thin: App;
let slow: App;
const ports = new Map<App, number>();

beforeAll(async () => {
  store = await seededStore(defaultEngine());
  await generateDataset(store, { projects: 1, people: 1, posts: 12, comments: 30, todoItems: 24, timeEntries: 30, privateShare: 0.3, now: new Date('2026-06-01T12:00:00Z') });
  thin = await buildApp({ store });
  slow = await buildApp({ store, thinPath: false });
  for (const app of [thin, slow]) {
    await app.listen({ host: '127.0.0.1', port: 0 });
    ports.set(app, (app.server.address() as AddressInfo).port);
  }
});
afterAll(async () => {
  await thin?.close();
  await slow?.close();
  await store?.close();
});

/** One request over a new connection; everything read until the answer is complete (or the server closes). */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    const got: Buffer[] = [];
    const done = () => { s.destroy(); resolve(Buffer.concat(got).toString('latin1')); };
    s.on('error', reject);
    s.setTimeout(5000, () => { s.destroy(); reject(new Error(`no complete answer to ${request.split('\r\n')[0]}: ${Buffer.concat(got).toString('latin1').slice(0, 200)}`)); });
    s.on('data', (d: Buffer) => {
      got.push(d);
      const raw = Buffer.concat(got);
      const end = raw.indexOf('\r\n\r\n');
      const len = end < 0 ? null : /\r\ncontent-length:\s*(\d+)/i.exec(raw.subarray(0, end).toString('latin1'));
      if (len && raw.length >= end + 4 + Number(len[1])) done();
    });
    s.on('end', done);
    s.write(request);
  });
}

const creds = new Map(FIXTURE.people.map((p) => [p.key, Buffer.from(`${p['user-name']}:${p.password}`).toString('base64')]));
/** `{port}` in a header value is each server's own port. */
type Headers = Record<string, string>;

/** Ask both apps; the thin app's answer, with whether its thin path took the request. */
async function both(path: string, who: Who | null, headers: Headers = {}, line = 'HTTP/1.1', body = ''): Promise<{ raw: string; status: number; taken: boolean }> {
  const raws: string[] = [];
  let taken = false;
  for (const app of [thin, slow]) {
    const port = ports.get(app)!;
    const h: Headers = { Host: `127.0.0.1:${port}`, ...(who ? { Authorization: `Basic ${creds.get(who)}` } : {}), ...headers };
    const before = thin.thinPath!.answered;
    const raw = await exchange(port, `GET ${path} ${line}\r\n${Object.entries(h).map(([k, v]) => `${k}: ${v.replace('{port}', String(port))}\r\n`).join('')}\r\n${body}`);
    if (app === thin) taken = thin.thinPath!.answered === before + 1;
    raws.push(raw.replace(/\r\nDate: [^\r]*/, '\r\nDate: -'));
  }
  expect(raws[0], `${who} GET ${path} ${JSON.stringify(headers)}`).toBe(raws[1]);
  return { raw: raws[0], status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(raws[0])?.[1]), taken };
}

/** A long answer (over 8 KB) to ada, the same from both apps and taken by the thin path: its body's bytes, whose count Content-Length gives. */
async function longBody(path: string): Promise<Buffer> {
  const { raw, status, taken } = await both(path, 'ada');
  expect(status).toBe(200);
  expect(taken).toBe(true);
  const end = raw.indexOf('\r\n\r\n');
  const body = Buffer.from(raw.slice(end + 4), 'latin1');
  expect(body.length).toBeGreaterThan(8192);
  expect(Number(/\r\nContent-Length: (\d+)\r\n/.exec(raw.slice(0, end))![1])).toBe(body.length);
  return body;
}

/** Ids to put in a route's path parameters, rows that belong together (a category of its project, an item of its list). */
async function fill(url: string): Promise<string[]> {
  const ids = async (sql: string) => (await store.all<{ a: number; b?: number }>(sql)).map((r) => [r.a, r.b] as const);
  const pick = <T>(xs: readonly T[]): T[] => (xs.length > 1 ? [xs[0], xs[xs.length - 1]] : [...xs]);
  const parent = /^\/(\w+)\/:parentId/.exec(url)?.[1];
  const first = /^\/(\w+)\//.exec(url)?.[1];
  let rows: (readonly [number, number | undefined])[];
  if (url.includes(':categoryId')) rows = await ids('SELECT id AS b, project_id AS a FROM categories ORDER BY id');
  else if (url.includes(':listId') && url.includes(':id')) rows = await ids('SELECT todo_list_id AS a, id AS b FROM todo_items ORDER BY id');
  else if (url.includes(':listId')) rows = await ids('SELECT id AS a FROM todo_lists ORDER BY id');
  else if (url.includes(':projectId')) rows = await ids('SELECT id AS a FROM projects ORDER BY id');
  else if (url.includes(':companyId')) rows = await ids('SELECT id AS a FROM companies ORDER BY id');
  else if (url.includes(':todoId')) rows = await ids('SELECT id AS a FROM todo_items ORDER BY id');
  else if (parent) rows = await ids(`SELECT id AS a FROM ${parent} ORDER BY id`);
  else if (url.includes(':id')) rows = await ids(`SELECT id AS a FROM ${first} ORDER BY id`);
  else return [url];
  expect(rows.length, url).toBeGreaterThan(0);
  const paths = pick(rows).map(([a, b]) => {
    let n = 0;
    return url.replace(/:\w+/g, () => String(n++ === 0 ? a : b));
  });
  // An id that does not exist and one that is not an id (404 before the handler).
  return [...paths, url.replace(/:\w+/g, '999999'), url.replace(/:\w+/, 'x1')];
}

describe('the thin path answers the bytes Fastify answers', () => {
  it('for every GET route, as an administrator, a firm person and a client, in XML and JSON', async () => {
    const routes = thin.thinPath!.routes();
    // Every API route with GET (collected from the plugins alone) is taken by the thin path, with its .json twin.
    const api = (await collectRoutes()).flatMap(([, rows]) => rows).filter((r) => r.style === 'R');
    for (const r of api) {
      for (const url of r.json ? [r.path, r.path.replace(/\.xml$/, '.json')] : [r.path]) {
        expect(routes.find((x) => x.url === url), url).toEqual({ url, thin: true });
      }
    }
    let asked = 0, taken = 0;
    for (const route of routes) {
      // The change stream never ends: Fastify's (docs/changes-stream.md).
      if (route.url === '/changes/stream') { expect(route.thin).toBe(false); continue; }
      // Routes the thin path does not take (action routes, some of which change data on GET) are asked
      // once, with ids that do not exist.
      for (const path of route.thin ? await fill(route.url) : [route.url.replace(/:\w+/g, '999999')]) {
        for (const who of ['ada', 'fran', 'cleo'] as const) {
          const formats: Headers[] = path.endsWith('.json') ? [{}] : [{}, { Accept: 'application/json' }, { Accept: 'application/xml, application/json;q=0.5' }];
          for (const h of formats) {
            const r = await both(path, who, h);
            asked++;
            if (r.taken) taken++;
            expect([path, r.taken], r.raw.slice(0, 300)).toEqual([path, route.thin]);
          }
        }
      }
    }
    expect(taken).toBeGreaterThan(1000);
    expect(asked).toBeGreaterThan(taken);
  }, 120_000);

  it('answers from the response cache alike (a read asked for again), queries and the //path rewrite', async () => {
    const item = (await store.all<{ id: number }>('SELECT id FROM todo_items ORDER BY id'))[0].id;
    const project = (await store.all<{ id: number }>('SELECT id FROM projects ORDER BY id'))[0].id;
    for (let i = 0; i < 3; i++) {
      for (const path of [`/todo_items/${item}.xml`, `/todo_items/${item}.json`, '/me.xml', `//todo_items/${item}.xml`,
        `/projects/${project}/time_entries.xml?page=1`, `/projects/${project}/time_entries.xml?page=2&page=3`,
        '/time_entries/report.xml?from=20250101&to=20261231', `/time_entries/report.xml?subject_id=&filter[project_id]=${project}`,
        '/projects.xml?a=%ZZ', '/people/%31.xml', '/people/01.xml', '/todo_items.xml?responsible_party=&completed=true',
        'http://elsewhere.example/me.xml']) {
        expect((await both(path, 'fran')).taken, path).toBe(true);
      }
      // `;` is no delimiter (404), a fragment is cut off by the router (200): the same answer either way.
      expect([(await both('/me.xml;x=1', 'fran')).status, (await both('/me.xml#frag', 'fran')).status]).toEqual([404, 200]);
    }
  });

  it('refuses alike: 401, 403 Host, Origin and fetch metadata, 404 and 405', async () => {
    const cases: [string, Who | null, Headers, number][] = [
      ['/me.xml', null, {}, 401],
      ['/me.json', null, {}, 401],
      ['/me.xml', null, { Authorization: `Basic ${Buffer.from('ada:wrong').toString('base64')}` }, 401],
      ['/me.xml', null, { Authorization: 'Bearer x' }, 401],
      ['/me.xml', 'ada', { Host: 'evil.example' }, 403],
      ['/me.xml', 'ada', { Host: '127.0.0.1:1' }, 200], // a loopback name on any port (issue #25, D239)
      ['/me.xml', 'ada', { Host: '127.0.0.1' }, 200],
      ['/me.xml', 'ada', { Host: 'localhost.evil.example' }, 403],
      ['/me.json', 'ada', { Host: '[::1]evil' }, 403],
      ['/me.xml', 'ada', { Origin: 'http://evil.example' }, 403],
      ['/me.xml', 'ada', { Origin: 'https://127.0.0.1:{port}' }, 403],
      ['/me.xml', 'ada', { Origin: 'http://127.0.0.1:{port}' }, 200],
      ['/me.xml', 'ada', { 'Sec-Fetch-Site': 'cross-site' }, 403],
      ['/me.xml', 'ada', { 'Sec-Fetch-Site': 'same-site', Accept: 'application/json' }, 403],
      ['/me.xml', 'ada', { 'Sec-Fetch-Site': 'same-origin' }, 200],
      ['/me.xml', 'ada', { 'Sec-Fetch-Site': 'none' }, 200],
      ['/me.xml', null, { 'Sec-Fetch-Site': 'cross-site' }, 403],
      ['/people/0.xml', 'ada', {}, 404],
      ['/people/99999999999999999.xml', 'ada', {}, 404],
      ['/projects/1/todo_lists/999.xml', 'ada', {}, 404],
      ['/no/such/route.xml', 'ada', {}, 404],
      ['/me.xml/', 'ada', {}, 404],
      ['/ME.xml', 'ada', {}, 404],
      [`/people/${'1'.repeat(300)}.xml`, 'ada', {}, 404],
      ['/people/%E0%A4%A.xml', 'ada', {}, 400],
    ];
    for (const [path, who, h, status] of cases) expect([path, h, (await both(path, who, h)).status]).toEqual([path, h, status]);
    // 405: a resource route without GET, through the thin path too (after authentication, as in Fastify).
    const item = (await store.all<{ id: number }>('SELECT id FROM todo_items ORDER BY id'))[0].id;
    const r405 = await both(`/todo_items/${item}/complete.xml`, 'ada');
    expect([r405.status, r405.taken]).toEqual([405, true]);
    expect(r405.raw).toMatch(/\r\nAllow: PUT\r\n/);
    expect((await both(`/todo_items/${item}/complete.json`, null)).status).toBe(401);
  });

  it('long answers with multi-byte characters: same bytes, Content-Length counts UTF-8 bytes, both formats (D200)', async () => {
    // A list whose answer is well beyond 8 KB, with characters of 2, 3 and 4 UTF-8 bytes.
    const list = (await store.get<{ id: number }>('SELECT id FROM todo_lists ORDER BY id LIMIT 1'))!;
    const port = ports.get(slow)!;
    const text = 'Zürich café ✓ 😀 '.repeat(20);
    for (let k = 0; k < 30; k++) {
      const r = await fetch(`http://127.0.0.1:${port}/todo_lists/${list.id}/todo_items.xml`, {
        method: 'POST', headers: { Authorization: `Basic ${creds.get('ada')}`, 'Content-Type': 'application/xml' },
        body: `<todo-item><content>${text}${k}</content></todo-item>`,
      });
      expect(r.status).toBe(201);
    }
    for (const path of [`/todo_lists/${list.id}/todo_items.xml`, `/todo_lists/${list.id}/todo_items.json`]) {
      const body = await longBody(path);
      const decoded = body.toString('utf8');
      expect(decoded).toContain(`${text}29`);
      expect(decoded.length).toBeLessThan(body.length); // multi-byte characters went out as UTF-8
    }
  });

  it('ASCII answers written as Latin-1, and a stored control character (written as U+FFFD) sends the answer down the UTF-8 path (D211)', async () => {
    const project = (await store.get<{ id: number }>('SELECT id FROM projects ORDER BY id LIMIT 1'))!;
    const port = ports.get(slow)!;
    const post = async (path: string, xml: string): Promise<number> => {
      const r = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { Authorization: `Basic ${creds.get('ada')}`, 'Content-Type': 'application/xml' }, body: xml });
      expect(r.status).toBe(201);
      return Number(/(\d+)$/.exec(r.headers.get('location')!)![1]);
    };
    const lists: number[] = [];
    for (let l = 0; l < 2; l++) {
      const list = await post(`/projects/${project.id}/todo_lists.xml`, `<todo-list><name>ascii ${l}</name></todo-list>`);
      for (let k = 0; k < 20; k++) await post(`/todo_lists/${list}/todo_items.xml`, `<todo-item><content>plain text of item ${k}, long enough to pass 8 KB in all</content></todo-item>`);
      lists.push(list);
    }
    const item = (await store.get<{ id: number }>('SELECT id FROM todo_items WHERE todo_list_id = ? ORDER BY id LIMIT 1', [lists[1]]))!;
    // Written as an older version or another client of the file could have: the API refuses it today.
    await store.write((w) => w.update('todo_items', item.id, { content: 'bell\u0007 ascii otherwise' }, project.id));
    for (const [list, wide] of [[lists[0], false], [lists[1], true]] as const) {
      const before = thin.thinPath!.latin1;
      const body = await longBody(`/todo_lists/${list}/todo_items.xml`);
      expect(thin.thinPath!.latin1 - before).toBe(wide ? 0 : 1);
      expect(body.includes(Buffer.from('bell\uFFFD ascii otherwise', 'utf8'))).toBe(wide); // EF BF BD, UTF-8's bytes
      expect(body.some((b) => b >= 0x80)).toBe(wide);
    }
  });

  it('leaves to Fastify what it does not take, with the same answer', async () => {
    const leave: [string, Headers, string?][] = [
      ['/health', {}],
      ['/projects.xml', { 'Content-Length': '0' }],
      ['/projects.xml', { 'Content-Length': '5' }, 'hello'],
      ['/projects.xml', { 'Transfer-Encoding': 'chunked' }, '0\r\n\r\n'],
      ['/todos/list/1', {}],
      ['/sync/status', {}],
      ['/', {}],
    ];
    for (const [path, h, body] of leave) {
      const r = await both(path, 'ada', h, 'HTTP/1.1', body);
      expect([path, r.taken]).toEqual([path, false]);
    }
    // HTTP/1.0 and Connection: close are the thin path's too, and answered alike.
    expect((await both('/me.xml', 'ada', {}, 'HTTP/1.0')).taken).toBe(true);
    const close = await both('/me.xml', 'ada', { Connection: 'close' });
    expect([close.taken, close.raw.includes('\r\nConnection: close\r\n')]).toEqual([true, true]);
    // Conventional capitalisation and the Status header on the thin path's answers.
    expect(close.raw).toMatch(/^HTTP\/1\.1 200 OK\r\nContent-Type: application\/xml; charset=utf-8\r\nStatus: 200\r\nContent-Length: \d+\r\nDate: -\r\n/);
  });
});

describe('what the thin path leaves to Fastify', () => {
  it("while the app closes, a GET gets Fastify's 503, as without the thin path", async () => {
    const raws: string[] = [];
    for (const thinPath of [true, false]) {
      const app = await buildApp({ store, thinPath });
      await app.listen({ host: '127.0.0.1', port: 0 });
      const port = (app.server.address() as AddressInfo).port;
      const head = `Host: 127.0.0.1:${port}\r\nAuthorization: Basic ${creds.get('ada')}\r\n`;
      // A write in flight (held in the store's write queue) keeps the connection busy while close()
      // begins; a GET pipelined behind it arrives after, and its answer follows the write's.
      let release = (): void => undefined;
      const holding = store.write(() => new Promise<void>((r) => { release = r; }));
      const s = connect(port, '127.0.0.1');
      const got: Buffer[] = [];
      s.on('data', (d: Buffer) => got.push(d));
      const ended = new Promise<void>((resolve) => s.on('close', () => resolve()));
      const body = '<project><name>Closing</name></project>';
      s.write(`POST /projects.xml HTTP/1.1\r\n${head}Content-Type: application/xml\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      await new Promise((r) => setTimeout(r, 100));
      const closed = app.close();
      while (app.server.listening) await new Promise((r) => setTimeout(r, 5));
      s.write(`GET /me.xml HTTP/1.1\r\n${head}\r\n`);
      await new Promise((r) => setTimeout(r, 50));
      release();
      await holding;
      await ended;
      await closed;
      const answers = Buffer.concat(got).toString('latin1').replace(/\r\nDate: [^\r]*/g, '').replace(/<id type="integer">\d+<\/id>|\/projects\/\d+\.xml|<created-on[^<]*<\/created-on>|<last-changed-on[^<]*<\/last-changed-on>/g, '');
      const second = answers.slice(answers.indexOf('HTTP/1.1', 1));
      expect(second).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
      expect(second).toContain('\r\nConnection: close\r\n');
      raws.push(answers);
      if (thinPath) expect(app.thinPath!.answered).toBe(0);
    }
    expect(raws[0]).toBe(raws[1]);
  });

  it('a request logged one by one (level info) and any request behind a trusted proxy', async () => {
    for (const o of [{ logLevel: 'info' }, { trustProxy: true }]) {
      const app = await buildApp({ store, ...o });
      await app.listen({ host: '127.0.0.1', port: 0 });
      const port = (app.server.address() as AddressInfo).port;
      const raw = await exchange(port, `GET /me.xml HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Basic ${creds.get('ada')}\r\n\r\n`);
      expect(raw).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(app.thinPath?.answered ?? 0).toBe(0);
      await app.close();
    }
  });
});
