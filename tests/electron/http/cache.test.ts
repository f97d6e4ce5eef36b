import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { order, ResponseCache } from '../../../electron/http/cache.ts';
import { SqliteStore } from '../../../electron/store/sqlite.ts';
import { importSeed } from '../../../electron/service/account.ts';
import { buildApp } from '../../../electron/http/app.ts';
import { FIXTURE, fx, harness, locId, text } from '../../support/helpers.ts';

const r = (body: string) => ({ status: 200, headers: {}, type: 'application/xml', body });
const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

describe('ResponseCache', () => {
  it('serves a hit only for the same token', () => {
    const c = new ResponseCache(1 << 20);
    c.set('k', 't1', r('a'));
    c.set('k', 't1', r('a'));
    expect(c.get('k', 't1')?.body).toBe('a');
    expect(c.get('k', 't2')).toBeUndefined();
    expect(c.get('k', 't1')).toBeUndefined(); // a stale entry is dropped
  });

  it('stays within its byte budget, least recently used out first', () => {
    const c = new ResponseCache(16 * 1024);
    for (let i = 0; i < 40; i++) for (const _ of [1, 2]) c.set(`k${i}`, 't', r('x'.repeat(500)));
    expect(c.size.bytes).toBeLessThanOrEqual(16 * 1024);
    expect(c.get('k39', 't')).toBeDefined();
    expect(c.get('k0', 't')).toBeUndefined();
    c.set('huge', 't', r('x'.repeat(10_000)));
    c.set('huge', 't', r('x'.repeat(10_000)));
    expect(c.get('huge', 't')).toBeUndefined();
  });

  it('keeps a response from its second request under one token, not one asked for once (D131)', () => {
    const c = new ResponseCache(1 << 20, 100);
    // 10,000 reads of different records, as a team's clients make them: none is kept, and what the
    // cache remembers of them stays within its bound of keys.
    for (let i = 0; i < 10_000; i++) c.set(`/todo_items/${i}.xml`, `t${Math.floor(i / 10)}`, r('x'.repeat(2000)));
    expect(c.size.entries).toBe(0);
    expect(c.size.bytes).toBe(0);
    expect(c.size.seen).toBeLessThanOrEqual(100);
    // asked for again under another token (a write in between): still not kept
    c.set('/todo_items/9999.xml', 't1000', r('y'));
    expect(c.get('/todo_items/9999.xml', 't1000')).toBeUndefined();
    // a second request under the same token is kept and served
    c.set('/todo_items/9999.xml', 't1000', r('y'));
    expect(c.get('/todo_items/9999.xml', 't1000')?.body).toBe('y');
  });
});

describe('ResponseCache: who goes when it is full (D205)', () => {
  /** Ask for `key` as the app does: served from the cache, or rendered and offered to it. */
  const ask = (c: ResponseCache, key: string, token = 't', body = 'x'.repeat(500)): boolean => {
    if (c.get(key, token)) return true;
    c.set(key, token, r(body));
    return false;
  };

  it('reads cycling over more answers than fit keep a stable part of them and hit it', () => {
    const c = new ResponseCache(64 * 1024); // ~50 answers of 1.3 KB; 80 read in turn
    let hits = 0;
    for (let round = 0; round < 20; round++) {
      for (let k = 0; k < 80; k++) if (ask(c, `/todo_lists/${k}/todo_items.xml`) && round >= 10) hits++;
    }
    // Least recently used only: each pushed out before it is read again, no hit at all.
    expect(hits).toBeGreaterThan(10 * 40);
    expect(c.size.bytes).toBeLessThanOrEqual(64 * 1024);
  });

  it('a newcomer asked for more often than the least recently used entry takes its place', () => {
    const c = new ResponseCache(16 * 1024);
    for (let k = 0; k < 12; k++) for (let n = 0; n < 2; n++) ask(c, `k${k}`);
    const full = c.size.entries;
    expect(full).toBeGreaterThan(8);
    // asked for twice: k0 (asked for twice, the least recently used) is not colder: turned away
    ask(c, 'hot'); ask(c, 'hot');
    expect(c.get('hot', 't')).toBeUndefined();
    // asked for again: now more often than k0, whose count went down when it turned `hot` away
    ask(c, 'hot');
    expect(c.get('hot', 't')).toBeDefined();
    expect(c.get('k0', 't')).toBeUndefined();
    expect(c.size.entries).toBe(full);
  });

  it('a response rendered under an older token is not kept and pushes nothing out', () => {
    const c = new ResponseCache(16 * 1024);
    ask(c, 'slow', 't1'); // asked for once under t1: remembered
    expect(c.get('slow', 't1')).toBeUndefined(); // a request misses under t1 and renders…
    for (let k = 0; k < 12; k++) for (let n = 0; n < 2; n++) ask(c, `k${k}`, 't2'); // …while a write commits (t2)
    const entries = c.size.entries;
    // only now it offers its answer, its second request under t1
    c.set('slow', 't1', r('x'.repeat(500)));
    c.set('slow', 't1', r('x'.repeat(500)));
    expect(c.get('slow', 't1')).toBeUndefined();
    expect(c.size.entries).toBe(entries);
    expect(c.get('k11', 't2')).toBeDefined();
  });

  it('an answer kept meanwhile by a request asking for the same is left as it is, count and all', () => {
    const c = new ResponseCache(16 * 1024);
    ask(c, 'a'); ask(c, 'a'); // kept
    for (let n = 0; n < 5; n++) expect(ask(c, 'a')).toBe(true);
    const before = c.size;
    c.set('a', 't', r('y')); // a concurrent miss offering its render after the other request kept it
    expect(c.size).toEqual(before);
    expect(c.get('a', 't')?.body).toBe('x'.repeat(500));
  });

  it('a late request holding an older token neither makes it the newest nor drops newer entries (D207)', () => {
    const c = new ResponseCache(64 * 1024);
    ask(c, 'a', '4:9'); ask(c, 'a', '4:9'); // kept under 4:9
    expect(c.get('a', '4:9')).toBeDefined();
    // a write: B asks under 5:9, then A, which read its token before the write, asks under 4:9
    expect(ask(c, 'b', '5:9')).toBe(false);
    expect(c.get('a', '4:9')).toBeUndefined(); // an older state: not served…
    c.set('a', '4:9', r('old'));
    c.set('a', '4:9', r('old')); // …nor kept
    // every later request holds 5:9: answers are kept and served again
    let hits = 0;
    for (let k = 0; k < 100; k++) if (ask(c, `k${k % 10}`, '5:9')) hits++;
    expect(hits).toBe(80);
    // and an entry of the newer state survives a late request of the older one
    c.get('k1', '4:9');
    expect(c.get('k1', '5:9')).toBeDefined();
  });

  it('orders the stores\' change tokens, part by part', () => {
    expect(order('3', '12')).toBe(-1);
    expect(order('12', '3')).toBe(1);
    expect(order('7:2', '7:2')).toBe(0);
    expect(order('7:2', '8:2')).toBe(-1);
    expect(order('7:3', '7:2')).toBe(1);
    expect(order('7:3', '8:2')).toBeNull();
    expect(order('t1', 't2')).toBeNull();
    expect(order('1', '1:2')).toBeNull();
  });

  it('stale entries make room whatever their count', () => {
    const c = new ResponseCache(16 * 1024);
    for (let k = 0; k < 12; k++) for (let n = 0; n < 6; n++) ask(c, `k${k}`, 't1');
    for (let n = 0; n < 2; n++) ask(c, 'new', 't2'); // a write in between: every kept entry is stale
    expect(c.get('new', 't2')).toBeDefined();
  });
});

describe('cached reads are never stale', () => {
  it('a write through the API shows at once', async () => {
    const h = await harness();
    const p = (await fx(h)).project.alpha;
    const list = locId(await h.req('fran', 'POST', `/projects/${p}/todo_lists.xml`, '<todo-list><name>One</name></todo-list>'));
    expect(text((await h.req('fran', 'GET', `/todo_lists/${list}.xml`)).xml(), 'name')).toBe('One');
    await h.req('fran', 'PUT', `/todo_lists/${list}.xml`, '<todo-list><name>Two</name></todo-list>');
    expect(text((await h.req('fran', 'GET', `/todo_lists/${list}.xml`)).xml(), 'name')).toBe('Two');
    // per caller: a client does not get the firm person's cached answer
    await h.req('fran', 'PUT', `/todo_lists/${list}.xml`, '<todo-list><private>1</private></todo-list>');
    expect((await h.req('fran', 'GET', `/todo_lists/${list}.xml`)).status).toBe(200);
    expect((await h.req('cleo', 'GET', `/todo_lists/${list}.xml`)).status).toBe(404);
    await h.close();
  });

  it('a write by another connection to the same file shows within a millisecond', async () => {
    const d = mkdtempSync(join(tmpdir(), 'bv-cache-')); dirs.push(d);
    const a = new SqliteStore(join(d, 'db.sqlite'));
    await importSeed(a, FIXTURE);
    const b = new SqliteStore(join(d, 'db.sqlite'));
    const app = await buildApp({ store: a });
    const auth = `Basic ${Buffer.from('ada:ada-pass-1').toString('base64')}`;
    const get = async () => (await app.inject({ url: '/projects/1.json', headers: { host: '127.0.0.1', authorization: auth } })).json().name;
    expect(await get()).toBe('Alpha Ascent');
    expect(await get()).toBe('Alpha Ascent');
    await b.write((w) => w.update('projects', 1, { name: 'Renamed elsewhere' }));
    await new Promise((r) => setTimeout(r, 2)); // data_version is sampled at most once per millisecond
    expect(await get()).toBe('Renamed elsewhere');
    await app.close(); await a.close(); await b.close();
  });
});
