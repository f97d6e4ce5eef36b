// What a web page in the user's browser can make the local service do (issue #6, "Browser attacks"):
// fetch metadata (CSRF through action routes), HEAD, framing of the UI, Host and Origin parsing.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, hostAllowed } from '../../../electron/http/app.ts';
import { SqliteStore } from '../../../electron/store/sqlite.ts';
import { fx, harness, locId, type Harness } from '../../support/helpers.ts';

let h: Harness;
let alpha = 0;
beforeAll(async () => { h = await harness(); alpha = (await fx(h)).project.alpha; });
afterAll(async () => { await h.close(); });

async function newItem(): Promise<number> {
  const list = locId(await h.req('fran', 'POST', `/projects/${alpha}/todo_lists.xml`, '<todo-list><name>L</name></todo-list>'));
  return locId(await h.req('fran', 'POST', `/todo_lists/${list}/todo_items.xml`, '<todo-item><content>Keep me</content></todo-item>'));
}
const exists = async (item: number) => (await h.req('fran', 'GET', `/todo_items/${item}.xml`)).status === 200;

describe('fetch metadata (CSRF through action routes)', () => {
  it('refuses a request another site (or another port: same-site) made, with 403 and an <errors> body; nothing changes', async () => {
    for (const site of ['cross-site', 'same-site', 'SAME-SITE', 'bogus', '']) {
      for (const [dest, mode] of [['image', 'no-cors'], ['script', 'no-cors'], ['style', 'no-cors'], ['iframe', 'navigate'], ['document', 'navigate'], ['empty', 'no-cors'], ['empty', 'cors']]) {
        const item = await newItem();
        const r = await h.req('fran', 'GET', `/todos/delete_item/${item}`, undefined,
          { 'sec-fetch-site': site, 'sec-fetch-dest': dest, 'sec-fetch-mode': mode });
        expect([site, dest, r.status]).toEqual([site, dest, 403]);
        expect(r.xml().name).toBe('errors');
        expect(r.headers.status).toBe('403');
        expect(await exists(item)).toBe(true);
      }
    }
    const item = await newItem();
    const post = await h.req('fran', 'POST', `/todos/complete_item/${item}`, '', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' });
    expect(post.status).toBe(403);
    const json = await h.req('fran', 'GET', '/projects.json', undefined, { 'sec-fetch-site': 'same-site' });
    expect([json.status, (json.json() as { errors: string[] }).errors.length]).toEqual([403, 1]);
    expect((await h.req('fran', 'GET', `/todo_items/${item}.json`)).json()).toMatchObject({ completed: false });
  });

  it('lets the service’s own pages and the user’s own navigations through, and clients without fetch metadata', async () => {
    for (const site of ['same-origin', 'none', 'Same-Origin']) {
      const item = await newItem();
      const r = await h.req('fran', 'GET', `/todos/complete_item/${item}`, undefined, { 'sec-fetch-site': site, 'sec-fetch-mode': 'navigate' });
      expect([site, r.status]).toEqual([site, 200]);
    }
    const item = await newItem();
    expect((await h.req('fran', 'GET', `/todos/delete_item/${item}`)).status).toBe(200);
    expect(await exists(item)).toBe(false);
  });

  it('refuses before authentication: a cross-site request never reaches the credential check', async () => {
    const r = await h.req(null, 'GET', '/projects.xml', undefined, { 'sec-fetch-site': 'cross-site' });
    expect(r.status).toBe(403);
    expect(r.headers['www-authenticate']).toBeUndefined();
  });
});

describe('HEAD never changes anything', () => {
  /** Every table's rows, to compare before and after. */
  async function snapshot(): Promise<string> {
    const out: Record<string, unknown> = {};
    for (const t of ['posts', 'comments', 'milestones', 'todo_lists', 'todo_items', 'time_entries', 'changes']) {
      out[t] = (await h.store.all(`SELECT * FROM ${t} ORDER BY 1`)).map((r) => ({ ...r }));
    }
    return JSON.stringify(out);
  }

  it('HEAD of an action route that writes answers 405 and writes nothing; HEAD of a read answers like GET', async () => {
    const item = await newItem();
    const list = (await h.req('fran', 'GET', `/todo_items/${item}.json`)).json() as { todo_list_id: number };
    const post = locId(await h.req('fran', 'POST', `/projects/${alpha}/posts.xml`, '<post><title>T</title><body>b</body></post>'));
    const comment = locId(await h.req('fran', 'POST', `/posts/${post}/comments.xml`, '<comment><body>c</body></comment>'));
    const ms = (await h.req('fran', 'POST', `/projects/${alpha}/milestones/create`, '<request><milestone><title>M</title><deadline>2030-01-01</deadline><responsible-party>0</responsible-party></milestone></request>'));
    const milestone = Number(/(\d+)$/.exec(String(ms.headers.location))![1]);
    const writes: [string, string?][] = [
      [`/todos/delete_item/${item}`], [`/todos/complete_item/${item}`], [`/todos/delete_list/${list.todo_list_id}`],
      [`/todos/create_item/${list.todo_list_id}`, '<todo-item><content>new</content></todo-item>'],
      [`/todos/update_item/${item}`, '<todo-item><content>changed</content></todo-item>'],
      [`/msg/delete/${post}`], [`/msg/delete_comment/${comment}`], [`/milestones/complete/${milestone}`],
      [`/milestones/delete/${milestone}`], [`/projects/${alpha}/msg/create`, '<request><post><title>new</title><body>b</body></post></request>'],
    ];
    for (const [url, body] of writes) {
      const before = await snapshot();
      const r = await h.req('fran', 'HEAD', url, body);
      expect([url, r.status, r.body]).toEqual([url, 405, '']);
      expect(r.headers.allow).toBe('GET, POST, PUT, DELETE');
      expect(await snapshot()).toBe(before);
    }
    for (const url of ['/project/list', `/todos/item/${item}`, `/msg/comments/${post}`]) {
      const r = await h.req('fran', 'HEAD', url);
      expect([url, r.status, r.body]).toEqual([url, 200, '']);
    }
    // GET of the same action route still deletes: only HEAD is held back.
    expect((await h.req('fran', 'GET', `/todos/delete_item/${item}`)).status).toBe(200);
  });
});

describe('the UI cannot be framed', () => {
  it('every UI file forbids framing (CSP frame-ancestors, merged with the rest of the policy, and X-Frame-Options)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bivouac-ui-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>B</title>');
    writeFileSync(join(dir, 'assets', 'app.js'), 'void 0;');
    const store = new SqliteStore(':memory:');
    const app = await buildApp({ store, uiDir: dir });
    try {
      for (const url of ['/', '/index.html', '/assets/app.js']) {
        const r = await app.inject({ url, headers: { host: '127.0.0.1', 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'iframe' } });
        expect([url, r.statusCode]).toEqual([url, 200]);
        const csp = String(r.headers['content-security-policy']).split(';').map((d) => d.trim());
        expect(csp).toContain("frame-ancestors 'none'");
        expect(csp).toContain("default-src 'self'");
        expect(csp.filter((d) => d.startsWith('frame-ancestors'))).toHaveLength(1);
        expect(r.headers['x-frame-options']).toBe('DENY');
      }
    } finally {
      await app.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Host and Origin are parsed strictly', () => {
  it('Host: exact loopback names or --allow-host entries, nothing around them; a loopback name on any port (D239)', () => {
    const ok = (h: string | undefined, extra: string[] = [], dflt?: number) => hostAllowed(h, extra, dflt);
    for (const good of ['127.0.0.1:4817', 'localhost:4817', 'LocalHost:4817', '[::1]:4817', '127.0.0.1', 'localhost', '[::1]', '127.0.0.1:4818', '127.9.8.7:1']) {
      expect([good, ok(good)]).toEqual([good, true]);
    }
    for (const bad of ['[::1]evil', '[::1]evil:4817', '[::1].evil.com:4817', '127.0.0.1.evil.com:4817', 'localhost.evil.com:4817',
      '127.0.0.1:4817:1', '127.0.0.1:abc', ' 127.0.0.1:4817', '127.0.0.1:4817 ', '127.0.0.1:', '[::1]:', 'evil@127.0.0.1:4817',
      '127.0.0.1:4817/x', '[::1', '::1', '', '127.0.0.1:99999', '127.0.0.1:0', '127.0.0.256', '127.0.1', '0127.0.0.1', '[::2]']) {
      expect([bad, ok(bad)]).toEqual([bad, false]);
    }
    // --allow-host: a bare name on any port or none, a name with a port exactly that port (none means 80, or 443 for https).
    expect(ok('bivouac.lan:4817', ['bivouac.lan'])).toBe(true);
    expect(ok('bivouac.lan:4818', ['bivouac.lan'])).toBe(true);
    expect(ok('bivouac.lan', ['bivouac.lan'])).toBe(true);
    expect(ok('bivouac.lan', ['bivouac.lan:80'])).toBe(true);
    expect(ok('bivouac.lan', ['bivouac.lan:443'])).toBe(false);
    expect(ok('bivouac.lan', ['bivouac.lan:443'], 443)).toBe(true);
    expect(ok('bivouac.lan:8080', ['bivouac.lan:80'])).toBe(false);
    expect(ok('bivouac.lan.evil:4817', ['bivouac.lan'])).toBe(false);
  });

  it('Origin: scheme, host and port must all be this server’s', async () => {
    const send = (origin: string, host = '127.0.0.1:4817') => h.req('fran', 'GET', '/projects.xml', undefined, { origin, host });
    expect((await send('http://127.0.0.1:4817')).status).toBe(200);
    expect((await send('http://LOCALHOST:4817', 'localhost:4817')).status).toBe(200);
    expect((await send('http://[::1]:4817', '[::1]:4817')).status).toBe(200);
    expect((await send('http://127.0.0.1', '127.0.0.1:80')).status).toBe(200);
    for (const bad of ['https://127.0.0.1:4817', 'ftp://127.0.0.1:4817', 'http://127.0.0.1:4818', 'http://localhost:4817',
      'http://127.0.0.1:4817/path', 'http://user@127.0.0.1:4817', 'null', 'http://127.0.0.1:4817.evil.com', '']) {
      const r = await send(bad);
      expect([bad, r.status]).toEqual([bad, 403]);
      expect(r.xml().name).toBe('errors');
    }
  });

  it('over a real socket, a loopback Host with another port or none is accepted, another name refused (D239)', async () => {
    const store = new SqliteStore(':memory:');
    const app = await buildApp({ store });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as AddressInfo).port;
    try {
      const get = (host: string) => new Promise<number>((resolve, reject) => {
        httpRequest({ host: '127.0.0.1', port, path: '/health', headers: { host } }, (res) => { res.resume(); resolve(res.statusCode!); }).on('error', reject).end();
      });
      expect(await get(`127.0.0.1:${port}`)).toBe(200);
      expect(await get(`localhost:${port}`)).toBe(200);
      expect(await get(`127.0.0.1:${port + 1}`)).toBe(200);
      expect(await get('127.0.0.1')).toBe(200);
      expect(await get(`evil.example:${port}`)).toBe(403);
      expect(await get(`[::1]evil:${port}`)).toBe(403);
    } finally {
      await app.close();
      await store.close();
    }
  });
});
