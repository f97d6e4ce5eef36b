// Idempotency-Key cannot fill the disk (issue #25, D244): keys are kept only for requests that changed
// something, and what one person keeps is capped (count and bytes; over it, that person's oldest go).
// Runs on both engines (project `pg` too).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../electron/http/app.ts';
import { purge, type KeyCap } from '../../../electron/service/idempotency.ts';
import { SqliteStore } from '../../../electron/store/sqlite.ts';
import type { Store } from '../../../electron/store/types.ts';
import { importSeed } from '../../../electron/service/account.ts';
import { FIXTURE, defaultEngine, seededStore, type Who } from '../../support/helpers.ts';
import pg from 'pg';
import { DatabaseSync } from 'node:sqlite';
import { PgStore } from '../../../electron/store/postgres.ts';
import { MIGRATIONS } from '../../../electron/store/schema.ts';
import { changes } from '../../../electron/service/feed.ts';
import { freshDatabase } from '../../support/pg.ts';

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

// ---- PostgreSQL: several processes on one database, and an existing database upgraded -----------------------

describe('Idempotency-Key cap across two processes on one PostgreSQL database', () => {
  it.runIf(defaultEngine() === 'postgres')('one person writing through both: the cap holds in total, and the usage follows the rows', async () => {
    const url = await freshDatabase();
    const cap = { keys: 8, bytes: 1 << 30 };
    // Two app instances, each with its own connection pools, as two `bivouac serve --store postgres://…` are.
    const [a, b] = await Promise.all([PgStore.open(url, { max: 4 }), PgStore.open(url, { max: 4 })]);
    await importSeed(a, FIXTURE);
    const apps = await Promise.all([a, b].map(async (store) => {
      const app = await buildApp({ store, idempotencyCap: cap });
      await app.ready();
      return app;
    }));
    try {
      const pid = Number((await a.get<{ id: number }>("SELECT id FROM projects WHERE name = 'Alpha Ascent'"))!.id);
      const fran = Number((await a.get<{ id: number }>("SELECT id FROM people WHERE user_name = 'fran'"))!.id);
      const post = async (via: number, key: string) => {
        const r = await apps[via].inject({ method: 'POST', url: `/projects/${pid}/posts.xml`, payload: `<post><title>${key}</title></post>`,
          headers: { host: '127.0.0.1', authorization: basic('fran'), 'idempotency-key': key } });
        expect(r.statusCode, r.body).toBe(201);
        return r;
      };
      const kept = async () => (await b.all<{ idem_key: string }>('SELECT idem_key FROM idempotency_keys WHERE person_id = ? ORDER BY idem_key', [fran]))
        .map((r) => r.idem_key);
      const usage = async () => {
        const u = await a.get<{ keys: number; bytes: number }>('SELECT keys, bytes FROM idempotency_usage WHERE person_id = ?', [fran]);
        const rows = await a.get<{ n: number; b: number }>('SELECT COUNT(*) AS n, COALESCE(SUM(bytes), 0) AS b FROM idempotency_keys WHERE person_id = ?', [fran]);
        return { usage: [Number(u?.keys ?? 0), Number(u?.bytes ?? 0)], rows: [Number(rows!.n), Number(rows!.b)] };
      };
      // In turn through each process: the newest 8 stay, whichever process stored them.
      for (let i = 0; i < 20; i++) await post(i % 2, `seq-${String(i).padStart(2, '0')}`);
      expect(await kept()).toEqual(Array.from({ length: 8 }, (_, i) => `seq-${12 + i}`));
      let u = await usage();
      expect(u.usage).toEqual(u.rows);
      // A key stored by one process replays through the other.
      const again = await post(1, 'seq-18');
      expect(again.headers['idempotent-replayed']).toBe('true');
      // At once through both (trims racing in two processes): never more than the cap, the usage exact.
      await Promise.all(Array.from({ length: 40 }, (_, i) => post(i % 2, `par-${String(i).padStart(2, '0')}`)));
      const left = await kept();
      // Racing trims may each drop the same excess: a key or two too many can go (7 or 8 left in runs), never too few.
      expect(left.length).toBeLessThanOrEqual(cap.keys);
      expect(left.length).toBeGreaterThan(0);
      u = await usage();
      expect(u.usage).toEqual(u.rows);
      expect(await a.get<{ n: number }>("SELECT COUNT(*) AS n FROM idempotency_keys WHERE state <> 'done'")).toEqual({ n: 0 });
    } finally {
      for (const app of apps) await app.close();
      await a.close();
      await b.close();
    }
  });
});

describe(`migrations 11–13 on a populated database of the schema before them (${defaultEngine()})`, () => {
  it('usage counters, bytes, shown flags and entry companies come out right; two processes migrate once', async () => {
    const engine = defaultEngine();
    const dir = mkdtempSync(join(tmpdir(), 'bv-upgrade-'));
    const path = join(dir, 'bivouac.sqlite');
    const url = engine === 'postgres' ? await freshDatabase() : '';
    // The schema as it was before migration 11 (every migration but 11–13, which only add to it), as the store
    // applied it then, and rows as that code wrote them.
    const c = engine === 'postgres' ? new pg.Client({ connectionString: url }) : null;
    const db = engine === 'postgres' ? null : new DatabaseSync(path);
    const exec = async (sql: string) => { if (c) await c.query(sql); else db!.exec(sql); };
    await c?.connect();
    try {
      await exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
      for (const m of MIGRATIONS) {
        if (m.version >= 11 && m.version <= 13) continue;
        for (const st of m.sql(engine)) await exec(st);
        await exec(`INSERT INTO schema_migrations VALUES (${m.version}, '${m.name.replace(/'/g, "''")}', '2026-11-01T00:00:00Z')`);
      }
      if (c) {
        await exec('CREATE TABLE commit_counter (id INTEGER PRIMARY KEY, n BIGINT NOT NULL)');
        await exec('INSERT INTO commit_counter (id, n) VALUES (1, 0)');
      }
      for (const st of [
        "INSERT INTO companies (id, name, firm) VALUES (1, 'Firm', 1), (2, 'Valley', 0), (3, 'Rival', 0)",
        `INSERT INTO people (id, company_id, first_name, last_name, email_address, user_name, administrator) VALUES
          (1, 1, 'Ada', 'A', 'a@x', 'ada', 1), (2, 2, 'Cleo', 'C', 'c@x', 'cleo', 0), (3, 3, 'Rita', 'R', 'r@x', 'rita', 0)`,
        "INSERT INTO projects (id, name, status, company_id, last_changed_on) VALUES (1, 'P', 'active', 2, '2026-11-01T00:00:00Z')",
        'INSERT INTO project_members (project_id, person_id) VALUES (1, 1), (1, 2)',
        "INSERT INTO posts (id, project_id, author_id, title, private) VALUES (1, 1, 1, 'Open', 0), (2, 1, 1, 'Secret', 1), (3, 1, 1, 'Null private', NULL)",
        `INSERT INTO comments (id, project_id, author_id, body, commentable_type, commentable_id, private) VALUES
          (1, 1, 1, 'on open', 'Post', 1, 0), (2, 1, 1, 'on secret', 'Post', 2, 0), (3, 1, 1, 'private on open', 'Post', 1, 1)`,
        "INSERT INTO todo_lists (id, project_id, name, private) VALUES (1, 1, 'Hidden', 1), (2, 1, 'Open', 0)",
        "INSERT INTO todo_items (id, project_id, todo_list_id, content) VALUES (1, 1, 1, 'in hidden'), (2, 1, 2, 'in open')",
        `INSERT INTO time_entries (id, project_id, person_id, todo_item_id, hours, date, private) VALUES
          (1, 1, 1, 1, 1, '2026-11-01', 0), (2, 1, 1, NULL, 1, '2026-11-01', 0), (3, 1, 1, NULL, 1, '2026-11-01', 1)`,
        "INSERT INTO milestones (id, project_id, title, private) VALUES (1, 1, 'M', 1)",
        // The feed: one entry per live record, tombstones (a public post, a private one, a person), a membership.
        `INSERT INTO changes (seq, tbl, record_id, op, at, project_id, person_id) VALUES
          (1, 'companies', 1, 'insert', 'T', NULL, NULL), (2, 'companies', 2, 'insert', 'T', NULL, NULL), (3, 'companies', 3, 'insert', 'T', NULL, NULL),
          (4, 'people', 1, 'insert', 'T', NULL, NULL), (5, 'people', 2, 'insert', 'T', NULL, NULL), (6, 'people', 3, 'insert', 'T', NULL, NULL),
          (7, 'projects', 1, 'update', 'T', 1, NULL), (8, 'posts', 1, 'insert', 'T', 1, NULL), (9, 'posts', 2, 'insert', 'T', 1, NULL),
          (10, 'posts', 3, 'insert', 'T', 1, NULL), (11, 'comments', 1, 'insert', 'T', 1, NULL), (12, 'comments', 2, 'insert', 'T', 1, NULL),
          (13, 'comments', 3, 'insert', 'T', 1, NULL), (14, 'todo_lists', 1, 'insert', 'T', 1, NULL), (15, 'todo_lists', 2, 'insert', 'T', 1, NULL),
          (16, 'todo_items', 1, 'insert', 'T', 1, NULL), (17, 'todo_items', 2, 'insert', 'T', 1, NULL), (18, 'time_entries', 1, 'insert', 'T', 1, NULL),
          (19, 'time_entries', 2, 'insert', 'T', 1, NULL), (20, 'time_entries', 3, 'insert', 'T', 1, NULL), (21, 'milestones', 1, 'insert', 'T', 1, NULL),
          (22, 'posts', 40, 'delete', 'T', 1, NULL), (23, 'posts', 41, 'delete', 'T', 1, NULL), (24, 'people', 42, 'delete', 'T', NULL, NULL),
          (25, 'project_members', 1, 'insert', 'T', 1, 2)`,
        'UPDATE feed_clock SET seq = 25',
        // Stored keys of two people: answered ones (multi-byte text counts in bytes) and a running claim.
        `INSERT INTO idempotency_keys (person_id, idem_key, fingerprint, state, started_ms, created_at, status, location, content_type, body) VALUES
          (1, 'k1', 'f1', 'done', 0, '2026-11-01T00:00:00Z', 201, '/posts/1.xml', 'application/xml', 'héllo'),
          (1, 'k2', 'f2', 'done', 0, '2026-11-01T00:00:01Z', 200, NULL, 'application/xml', 'ok'),
          (1, 'k3', 'f3', 'running', 0, '2026-11-01T00:00:02Z', NULL, NULL, NULL, NULL),
          (2, 'kk', 'ffff', 'done', 0, '2026-11-01T00:00:00Z', 200, NULL, NULL, '€')`,
      ]) await exec(st);
    } finally {
      await c?.end();
      db?.close();
    }
    // The new code, two processes at once: the migrations run once (PostgreSQL: under their lock).
    const [a, b]: Store[] = engine === 'postgres' ? await Promise.all([PgStore.open(url, { max: 2 }), PgStore.open(url, { max: 2 })])
      : [new SqliteStore(path), new SqliteStore(path)];
    try {
      expect((await a.all<{ version: number }>('SELECT version FROM schema_migrations WHERE version BETWEEN 11 AND 13 ORDER BY version'))
        .map((r) => Number(r.version))).toEqual([11, 12, 13]);
      const bytes = Object.fromEntries((await a.all<{ idem_key: string; bytes: number }>('SELECT idem_key, bytes FROM idempotency_keys'))
        .map((r) => [r.idem_key, Number(r.bytes)]));
      expect(bytes).toEqual({
        k1: 2 + 2 + '/posts/1.xml'.length + 'application/xml'.length + 6, k2: 2 + 2 + 'application/xml'.length + 2, k3: 4, kk: 2 + 4 + 3,
      });
      const usage = async () => Object.fromEntries((await b.all<{ person_id: number; keys: number; bytes: number }>('SELECT person_id, keys, bytes FROM idempotency_usage'))
        .map((r) => [Number(r.person_id), [Number(r.keys), Number(r.bytes)]]));
      expect(await usage()).toEqual({ 1: [3, bytes.k1 + bytes.k2 + bytes.k3], 2: [1, bytes.kk] });
      // The triggers run from now on, whichever process writes.
      await b.run("DELETE FROM idempotency_keys WHERE idem_key = 'k2'");
      await a.run(`INSERT INTO idempotency_keys (person_id, idem_key, fingerprint, state, started_ms, created_at, bytes)
        VALUES (2, 'new', 'f', 'running', 0, '2026-11-02T00:00:00Z', 4)`);
      expect(await usage()).toEqual({ 1: [2, bytes.k1 + bytes.k3], 2: [2, bytes.kk + 4] });

      const entries = Object.fromEntries((await a.all<{ tbl: string; record_id: number; shown: number | null; company_id: number | null }>(
        'SELECT tbl, record_id, shown, company_id FROM changes')).map((r) => [`${r.tbl}:${r.record_id}`,
        [r.shown === null ? null : Number(r.shown), r.company_id === null ? null : Number(r.company_id)]]));
      expect(entries).toEqual({
        'companies:1': [null, 1], 'companies:2': [null, 2], 'companies:3': [null, 3],
        'people:1': [null, 1], 'people:2': [null, 2], 'people:3': [null, 3], 'people:42': [null, null],
        'projects:1': [null, null], 'project_members:1': [null, null],
        'posts:1': [1, null], 'posts:2': [0, null], 'posts:3': [1, null],
        'comments:1': [1, null], 'comments:2': [0, null], 'comments:3': [0, null],
        'todo_lists:1': [0, null], 'todo_lists:2': [1, null], 'todo_items:1': [0, null], 'todo_items:2': [1, null],
        'time_entries:1': [0, null], 'time_entries:2': [1, null], 'time_entries:3': [0, null], 'milestones:1': [0, null],
        // Tombstones: whether clients saw them is unknown, so they are not shown (D245).
        'posts:40': [0, null], 'posts:41': [0, null],
      });
      // What the client (Cleo, of Valley) gets from the upgraded feed: the public records and its directory, nothing else.
      const cleo = { id: 2, companyId: 2, firm: false, admin: false, name: 'Cleo C' };
      const page = await changes({ store: a, caller: cleo }, 0, 1000);
      expect(page.entries.map((e) => `${e.resource}:${e.id}:${e.op}`).sort()).toEqual([
        'comment:1:upsert', 'company:1:upsert', 'company:2:upsert', 'person:1:upsert', 'person:2:upsert', 'post:1:upsert', 'post:3:upsert',
        'project:1:resync', 'project:1:upsert', 'timeEntry:2:upsert', 'todoItem:2:upsert', 'todoList:2:upsert',
      ]);
    } finally {
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
