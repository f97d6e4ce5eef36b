// Idempotency-Key on every write route (docs/sync-protocol.md, "Idempotent writes").

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../electron/http/app.ts';
import { SqliteStore } from '../../../electron/store/sqlite.ts';
import { importSeed } from '../../../electron/service/account.ts';
import { purge } from '../../../electron/service/idempotency.ts';
import { withoutSecrets } from '../../../electron/http/idempotency.ts';
import { hash } from 'node:crypto';
import { FIXTURE, freshAccount, locId, text, type Account } from '../../support/helpers.ts';

const POST = '<post><title>Hello</title><body>Once only</body></post>';
const countPosts = async (a: Account) => Number((await a.h.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM posts'))!.n);

describe('Idempotency-Key', () => {
  let a: Account;
  freshAccount((x) => { a = x; });
  const post = (key: string, body = POST, who: 'fran' | 'finn' = 'fran') =>
    a.h.req(who, 'POST', `/projects/${a.pid}/posts.xml`, body, { 'idempotency-key': key });

  it('same key twice: executed once, the stored response replayed byte for byte with Idempotent-Replayed', async () => {
    const before = await countPosts(a);
    const first = await post('key-1');
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post('key-1');
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.body).toBe(first.body);
    expect(await countPosts(a)).toBe(before + 1);
    // Without a key, the same request executes again.
    expect((await a.h.req('fran', 'POST', `/projects/${a.pid}/posts.xml`, POST)).status).toBe(201);
    expect(await countPosts(a)).toBe(before + 2);
  });

  it('same key with a different body or path: 422 with the error body, nothing executed', async () => {
    await post('key-2');
    const n = await countPosts(a);
    const other = await post('key-2', POST.replace('Hello', 'Other'));
    expect(other.status).toBe(422);
    expect(other.xml().name).toBe('errors');
    const json = await a.h.req('fran', 'POST', `/projects/${a.pid}/posts.json`, POST, { 'idempotency-key': 'key-2' });
    expect(json.status).toBe(422);
    expect(json.json()).toEqual({ errors: [expect.stringContaining('Idempotency-Key')] });
    expect(await countPosts(a)).toBe(n);
  });

  it('a password in the body leaves nothing of itself in the stored fingerprint (the row is not a fast hash of it)', async () => {
    const people = (await a.h.req('ada', 'GET', '/people.xml')).xml();
    const fran = people.children.find((p) => text(p, 'user-name') === 'fran')!;
    const id = text(fran, 'id')!;
    const put = (key: string, password: string, wire: 'xml' | 'json') => wire === 'xml'
      ? a.h.req('ada', 'PUT', `/people/${id}.xml`, `<person><password>${password}</password></person>`, { 'idempotency-key': key })
      : a.h.req('ada', 'PUT', `/people/${id}.json`, JSON.stringify({ person: { password } }), { 'idempotency-key': key, 'content-type': 'application/json' });
    const stored = async (key: string) => (await a.h.store.get<{ fingerprint: string }>(
      'SELECT fingerprint FROM idempotency_keys WHERE idem_key = ?', [key]))!.fingerprint;
    for (const wire of ['xml', 'json'] as const) {
      expect((await put(`pw-${wire}-1`, 'first secret 1', wire)).status).toBeLessThan(300);
      expect((await put(`pw-${wire}-2`, 'other secret 2', wire)).status).toBeLessThan(300);
      // Two bodies that differ only in the password: the same fingerprint, so it tells nothing of either.
      expect(await stored(`pw-${wire}-1`)).toBe(await stored(`pw-${wire}-2`));
    }
    // A batch (D284) carrying such a body, in XML and in JSON: the batch's own key as well as each mutation's
    // (the same mutation keys sent with another password replay, where a fingerprint of the password would refuse).
    const batchBody = (password: string) => JSON.stringify({ mutations: [
      { method: 'PUT', path: `/people/${id}.xml`, body: `<person><password>${password}</password></person>`, key: 'pw-m-a' },
      { method: 'PUT', path: `/people/${id}.json`, body: JSON.stringify({ person: { password } }), key: 'pw-m-b' },
    ] });
    const batch = (key: string, password: string) =>
      a.h.req('ada', 'POST', '/sync/batch.json', batchBody(password), { 'idempotency-key': key, 'content-type': 'application/json' });
    const statuses = (r: Awaited<ReturnType<typeof batch>>) => (r.json() as { results: { status: number }[] }).results.map((x) => x.status);
    const b1 = await batch('pw-batch-1', 'first secret 1');
    expect(statuses(b1)).toEqual([200, 200]);
    const b2 = await batch('pw-batch-2', 'other secret 2');
    expect(statuses(b2)).toEqual([200, 200]);
    // The batch's own key is kept only when a mutation changed something (D284), so the first one only: its body's
    // fingerprint is taken without either password.
    expect(await stored('pw-batch-1')).toBe(hash('sha256', Buffer.concat([Buffer.from('POST /sync/batch.json\n'), withoutSecrets(Buffer.from(batchBody('any other')))]), 'base64'));
    // Another field still tells requests apart: the same key with another first name is refused.
    const other = await a.h.req('ada', 'PUT', `/people/${id}.xml`, '<person><first-name>Frances</first-name><password>first secret 1</password></person>', { 'idempotency-key': 'pw-xml-1' });
    expect(other.status).toBe(422);
  });

  it('is scoped per person: another person with the same key executes', async () => {
    const fran = await post('shared-key');
    const finn = await post('shared-key', POST, 'finn');
    expect(finn.status).toBe(201);
    expect(finn.headers['idempotent-replayed']).toBeUndefined();
    expect(locId(finn)).not.toBe(locId(fran));
  });

  it('a retry while the first is still running: 409 with Retry-After: 1; afterwards the replay', async () => {
    const store = a.h.store;
    const write = store.write.bind(store);
    let open!: () => void;
    const gate = new Promise<void>((r) => { open = r; });
    let waiting = 0;
    const before = await countPosts(a);
    store.write = (async (fn: Parameters<typeof write>[0]) => { waiting++; await gate; return write(fn); }) as typeof store.write;
    // Both run until their write: the key is claimed in the transaction of the first's (D340), the
    // second's claim then finds it taken, and its write rolls back.
    const first = post('slow-key');
    const second = post('slow-key');
    for (let i = 0; i < 400 && waiting < 2; i++) await new Promise((r) => setTimeout(r, 5));
    expect(waiting).toBe(2);
    open();
    const done = await first;
    expect(done.status).toBe(201);
    const during = await second;
    expect(during.status).toBe(409);
    expect(during.headers['retry-after']).toBe('1');
    expect(during.xml().name).toBe('errors');
    store.write = write;
    expect(await countPosts(a)).toBe(before + 1); // executed once
    // While the first is past its write but not answered yet (its key stored as running): 409 at once.
    await a.h.store.run("UPDATE idempotency_keys SET state = 'running' WHERE idem_key = 'slow-key'");
    expect((await post('slow-key')).status).toBe(409);
    await a.h.store.run("UPDATE idempotency_keys SET state = 'done' WHERE idem_key = 'slow-key'");
    const after = await post('slow-key');
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(after.body).toBe(done.body);
  });

  it('a 5xx is not stored: the retry executes', async () => {
    const store = a.h.store;
    const write = store.write.bind(store);
    store.write = (async () => { throw new Error('disk full'); }) as typeof store.write;
    const failed = await post('key-5xx');
    expect(failed.status).toBe(500);
    store.write = write;
    const retry = await post('key-5xx');
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a 4xx that changed nothing is not kept (D244): the retry executes again, and its success is kept', async () => {
    const bad = await post('key-422', '<post><title></title></post>');
    expect(bad.status).toBe(422);
    const again = await post('key-422', '<post><title></title></post>');
    expect(again.status).toBe(422);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.body).toBe(bad.body);
    expect(await a.h.store.get("SELECT 1 AS x FROM idempotency_keys WHERE idem_key = 'key-422'")).toBeUndefined();
  });

  it('action routes honour it on GET; a claim abandoned by a dead process is taken over after the lease', async () => {
    const list = locId(await a.h.req('fran', 'POST', `/projects/${a.pid}/todo_lists.xml`, '<todo-list><name>L</name></todo-list>'));
    const item = locId(await a.h.req('fran', 'POST', `/todo_lists/${list}/todo_items.xml`, '<todo-item><content>I</content></todo-item>'));
    const del = await a.h.req('fran', 'GET', `/todos/delete_item/${item}`, undefined, { 'idempotency-key': 'del-1' });
    expect(del.status).toBe(200);
    const again = await a.h.req('fran', 'GET', `/todos/delete_item/${item}`, undefined, { 'idempotency-key': 'del-1' });
    expect(again.status).toBe(200); // executed again it would be 404
    expect(again.headers['idempotent-replayed']).toBe('true');
    // Resource GETs ignore the header.
    const read = await a.h.req('fran', 'GET', `/projects/${a.pid}.xml`, undefined, { 'idempotency-key': 'del-1' });
    expect(read.status).toBe(200);
    expect(read.headers['idempotent-replayed']).toBeUndefined();

    const fran = a.f.person.fran;
    await a.h.store.run(`INSERT INTO idempotency_keys (person_id, idem_key, fingerprint, state, started_ms, created_at)
      VALUES (?, 'fresh', 'x', 'running', ?, '2026-01-01T00:00:00Z')`, [fran, Date.now()]);
    expect((await post('fresh')).status).toBe(422); // another request's fingerprint
    const fp = (body: string) => a.h.req('fran', 'POST', `/projects/${a.pid}/posts.xml`, body, { 'idempotency-key': 'abandoned' });
    const first = await fp(POST); // completes and stores
    await a.h.store.run("UPDATE idempotency_keys SET state = 'running', started_ms = ? WHERE idem_key = 'abandoned'", [Date.now()]);
    expect((await fp(POST)).status).toBe(409);
    await a.h.store.run("UPDATE idempotency_keys SET started_ms = ? WHERE idem_key = 'abandoned'", [Date.now() - 10 * 60_000]);
    const taken = await fp(POST);
    expect(taken.status).toBe(201);
    expect(taken.headers['idempotent-replayed']).toBeUndefined();
    expect(locId(taken)).not.toBe(locId(first));
  });

  it('refuses a malformed key with 400', async () => {
    expect((await post('')).status).toBe(400);
    expect((await post('x'.repeat(256))).status).toBe(400);
    expect((await post('with space')).status).toBe(400);
    expect((await post('x'.repeat(255))).status).toBe(201);
  });

  it('keys are kept at least 30 days', async () => {
    await post('old');
    await post('older');
    const day = 86_400_000;
    const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19) + 'Z';
    await a.h.store.run("UPDATE idempotency_keys SET created_at = ? WHERE idem_key = 'old'", [iso(Date.now() - 29 * day)]);
    await a.h.store.run("UPDATE idempotency_keys SET created_at = ? WHERE idem_key = 'older'", [iso(Date.now() - 31 * day)]);
    expect(await purge(a.h.store, 1)).toBe(1); // asked for 1 day: 30 is the floor
    expect((await post('old')).headers['idempotent-replayed']).toBe('true');
  });
});

describe('Idempotency-Key across a restart (file store)', () => {
  it('a retry after the server restarted gets the stored response', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bivouac-idem-'));
    const file = join(dir, 'bivouac.sqlite');
    const basic = `Basic ${Buffer.from('fran:fran-pass-2').toString('base64')}`;
    try {
      let store = new SqliteStore(file);
      await importSeed(store, FIXTURE);
      const pid = Number((await store.get<{ id: number }>("SELECT id FROM projects WHERE name = 'Alpha Ascent'"))!.id);
      const send = async (s: SqliteStore) => {
        const app = await buildApp({ store: s });
        const r = await app.inject({ method: 'POST', url: `/projects/${pid}/posts.xml`, payload: POST,
          headers: { host: '127.0.0.1', authorization: basic, 'idempotency-key': 'survives' } });
        await app.close();
        return r;
      };
      const first = await send(store);
      expect(first.statusCode).toBe(201);
      await store.close();
      store = new SqliteStore(file);
      const again = await send(store);
      expect(again.statusCode).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(first.body);
      expect(Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM posts WHERE title = ?', ['Hello']))!.n)).toBe(1);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
