// Idempotency-Key cannot fill the disk (issue #25, D244): keys are kept only for requests that changed
// something, and what one person keeps is capped (count and bytes; over it, that person's oldest go).
// Runs on both engines (project `pg` too).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../electron/http/app.ts';
import { purge, type KeyCap } from '../electron/service/idempotency.ts';
import { SqliteStore } from '../electron/store/sqlite.ts';
import type { Store } from '../electron/store/types.ts';
import { importSeed } from '../electron/service/account.ts';
import { FIXTURE, defaultEngine, seededStore, type Who } from './helpers.ts';

const basic = (who: Who) => {
  const p = FIXTURE.people.find((x) => x.key === who)!;
  return `Basic ${Buffer.from(`${p['user-name']}:${p.password}`).toString('base64')}`;
};

async function server(cap?: KeyCap) {
  const store = await seededStore();
  const app = await buildApp({ store, idempotencyCap: cap });
  await app.ready();
  const req = async (who: Who, method: string, url: string, body?: string, key?: string) => {
    const r = await app.inject({ method: method as 'GET', url, payload: body,
      headers: { host: '127.0.0.1', authorization: basic(who), ...(key === undefined ? {} : { 'idempotency-key': key }) } });
    return { status: r.statusCode, headers: r.headers, body: r.body };
  };
  const ids = async (who: Who) => Number((await store.get<{ id: number }>('SELECT id FROM people WHERE user_name = ?',
    [FIXTURE.people.find((x) => x.key === who)!['user-name']]))!.id);
  const held = async (who: Who) => {
    const r = await store.get<{ n: number; b: number }>(`SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(idem_key) + LENGTH(fingerprint)
      + COALESCE(LENGTH(body), 0) + COALESCE(LENGTH(location), 0) + COALESCE(LENGTH(content_type), 0)), 0) AS b
      FROM idempotency_keys WHERE person_id = ?`, [await ids(who)]);
    return { keys: Number(r!.n), bytes: Number(r!.b) };
  };
  const pid = Number((await store.get<{ id: number }>("SELECT id FROM projects WHERE name = 'Alpha Ascent'"))!.id);
  const close = async () => { await app.close(); await store.close(); };
  return { store, app, req, held, pid, close };
}

describe(`Idempotency-Key: only changes are kept, and capped per person (${defaultEngine()})`, () => {
  let s: Awaited<ReturnType<typeof server>> | undefined;
  afterEach(async () => { await s?.close(); s = undefined; });

  it('3,000 reads with new keys store nothing; a write that changed nothing is not kept', async () => {
    s = await server();
    // carl belongs to no project; /project/list is an action route (its GET goes through the key's claim).
    for (let i = 0; i < 3000; i++) {
      const r = await s.req('carl', 'GET', '/project/list', undefined, `read-${i}`);
      expect(r.status).toBe(200);
    }
    expect(await s.held('carl')).toEqual({ keys: 0, bytes: 0 });
    // A resource GET, a 404 and a 422 with a key: nothing kept either.
    expect((await s.req('fran', 'GET', `/projects/${s.pid}/posts.xml`, undefined, 'r1')).status).toBe(200);
    expect((await s.req('fran', 'GET', '/todos/delete_item/999999', undefined, 'gone')).status).toBe(404);
    const bad = await s.req('fran', 'POST', `/projects/${s.pid}/posts.xml`, '<post><title></title></post>', 'bad');
    expect(bad.status).toBe(422);
    expect(await s.held('fran')).toEqual({ keys: 0, bytes: 0 });
    // Its retry executes again (nothing was changed the first time), and once it succeeds it is kept.
    const ok = await s.req('fran', 'POST', `/projects/${s.pid}/posts.xml`, '<post><title>Fixed</title></post>', 'good');
    expect(ok.status).toBe(201);
    const again = await s.req('fran', 'POST', `/projects/${s.pid}/posts.xml`, '<post><title>Fixed</title></post>', 'good');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(ok.body);
    expect((await s.held('fran')).keys).toBe(1);
  });

  it('a GET of an action route that changes something keeps its key (the replay answers, not a 404)', async () => {
    s = await server();
    const list = /(\d+)$/.exec(String((await s.req('fran', 'POST', `/projects/${s.pid}/todo_lists.xml`, '<todo-list><name>L</name></todo-list>')).headers.location))![1];
    const item = /(\d+)$/.exec(String((await s.req('fran', 'POST', `/todo_lists/${list}/todo_items.xml`, '<todo-item><content>I</content></todo-item>')).headers.location))![1];
    const del = await s.req('fran', 'GET', `/todos/delete_item/${item}`, undefined, 'del');
    expect(del.status).toBe(200);
    const again = await s.req('fran', 'GET', `/todos/delete_item/${item}`, undefined, 'del');
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('over the count cap, the person\'s oldest keys go; another person\'s keys are untouched; a recent key replays', async () => {
    s = await server({ keys: 5, bytes: 1 << 30 });
    const post = (who: Who, i: number) => s!.req(who, 'POST', `/projects/${s!.pid}/posts.xml`, `<post><title>T${i}</title></post>`, `k-${i}`);
    const finn0 = await post('finn', 0);
    expect(finn0.status).toBe(201);
    await post('finn', 1);
    const first: string[] = [];
    for (let i = 0; i < 12; i++) first.push((await post('fran', i)).body);
    expect((await s.held('fran')).keys).toBe(5);
    expect((await s.held('finn')).keys).toBe(2);
    const recent = await post('fran', 11);
    expect(recent.headers['idempotent-replayed']).toBe('true');
    expect(recent.body).toBe(first[11]);
    const finn = await post('finn', 0);
    expect(finn.headers['idempotent-replayed']).toBe('true');
    expect(finn.body).toBe(finn0.body);
    // The oldest was forgotten: it executes again (a new post).
    const old = await post('fran', 0);
    expect(old.status).toBe(201);
    expect(old.headers['idempotent-replayed']).toBeUndefined();
    expect((await s.held('fran')).keys).toBe(5);
  });

  it('over the byte cap, the oldest go until the person holds no more than the cap', async () => {
    const cap = { keys: 1000, bytes: 20_000 };
    s = await server(cap);
    const big = 'x'.repeat(3000);
    for (let i = 0; i < 30; i++) {
      const r = await s.req('fran', 'POST', `/projects/${s.pid}/posts.xml`, `<post><title>T${i}</title><body>${big}</body></post>`, `b-${i}`);
      expect(r.status).toBe(201);
      const h = await s.held('fran');
      expect(h.bytes).toBeLessThanOrEqual(cap.bytes);
    }
    const h = await s.held('fran');
    expect(h.keys).toBeGreaterThanOrEqual(2); // each answer holds the post's body twice (body, display-body)
    expect(h.keys).toBeLessThan(10);
    // The usage kept by the store agrees with the rows.
    const use = await s.store.get<{ keys: number; bytes: number }>('SELECT keys, bytes FROM idempotency_usage WHERE person_id = (SELECT id FROM people WHERE user_name = ?)',
      [FIXTURE.people.find((x) => x.key === 'fran')!['user-name']]);
    const rows = await s.store.get<{ n: number; b: number }>('SELECT COUNT(*) AS n, SUM(bytes) AS b FROM idempotency_keys');
    expect([Number(use!.keys), Number(use!.bytes)]).toEqual([Number(rows!.n), Number(rows!.b)]);
    const last = await s.req('fran', 'POST', `/projects/${s.pid}/posts.xml`, `<post><title>T29</title><body>${big}</body></post>`, 'b-29');
    expect(last.headers['idempotent-replayed']).toBe('true');
  });

  it('retention brings a person stored over the cap (before it existed) under it, oldest first', async () => {
    s = await server();
    const fran = Number((await s.store.get<{ id: number }>('SELECT id FROM people WHERE user_name = ?', [FIXTURE.people.find((x) => x.key === 'fran')!['user-name']]))!.id);
    for (let i = 0; i < 40; i++) {
      await s.store.run(`INSERT INTO idempotency_keys (person_id, idem_key, fingerprint, state, started_ms, created_at, status, body, bytes)
        VALUES (?, ?, 'f', 'done', 0, ?, 200, 'b', 10)`, [fran, `old-${String(i).padStart(2, '0')}`, new Date(Date.now() - (40 - i) * 1000).toISOString().slice(0, 19) + 'Z']);
    }
    expect(await purge(s.store, 30, new Date(), { keys: 10, bytes: 1 << 30 })).toBe(30);
    const left = (await s.store.all<{ idem_key: string }>('SELECT idem_key FROM idempotency_keys WHERE person_id = ? ORDER BY idem_key', [fran])).map((r) => r.idem_key);
    expect(left).toEqual(Array.from({ length: 10 }, (_, i) => `old-${30 + i}`));
  });
});

describe('migration 11 upgrades an existing data directory', () => {
  it.runIf(defaultEngine() === 'sqlite')('keys stored before it get their bytes and their person\'s usage', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bv-idem-'));
    try {
      const path = join(dir, 'bivouac.sqlite');
      let store: Store = new SqliteStore(path);
      await importSeed(store, FIXTURE);
      // Back to schema 10: no bytes column, no usage, no triggers.
      for (const t of ['idempotency_usage_ins', 'idempotency_usage_upd', 'idempotency_usage_del']) await store.run(`DROP TRIGGER ${t}`);
      await store.run('DROP TABLE idempotency_usage');
      await store.run('DROP INDEX idempotency_age');
      await store.run('ALTER TABLE idempotency_keys DROP COLUMN bytes');
      await store.run('DELETE FROM schema_migrations WHERE version = 11');
      await store.run(`INSERT INTO idempotency_keys (person_id, idem_key, fingerprint, state, started_ms, created_at, status, body)
        VALUES (7, 'k', 'ffff', 'done', 0, '2026-01-01T00:00:00Z', 200, 'héllo')`);
      await store.close();
      store = new SqliteStore(path);
      expect(await store.get('SELECT bytes FROM idempotency_keys')).toEqual({ bytes: 1 + 4 + 6 });
      expect(await store.get('SELECT keys, bytes FROM idempotency_usage WHERE person_id = 7')).toEqual({ keys: 1, bytes: 11 });
      await store.run("DELETE FROM idempotency_keys WHERE idem_key = 'k'");
      expect(await store.get('SELECT keys, bytes FROM idempotency_usage WHERE person_id = 7')).toEqual({ keys: 0, bytes: 0 });
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
