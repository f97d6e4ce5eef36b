// The claim of an Idempotency-Key in the transaction of its request's write (D340): no statement of its own
// before the request runs, nothing left by a request that wrote nothing or whose write rolled back, and two
// requests with one key at once execute it once. Runs on both engines (project `pg` too).

import { describe, expect, it } from 'vitest';
import { defaultEngine, freshAccount, locId, type Account } from '../../support/helpers.ts';

const POST = '<post><title>Hello</title><body>Once only</body></post>';
const countPosts = async (a: Account) => Number((await a.h.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM posts'))!.n);

describe(`Idempotency-Key claimed with the write (${defaultEngine()})`, () => {
  let a: Account;
  freshAccount((x) => { a = x; });
  const post = (key: string, body = POST) => a.h.req('fran', 'POST', `/projects/${a.pid}/posts.xml`, body, { 'idempotency-key': key });

  it('the key is claimed in the transaction of the request\'s write (D340): its own statements are only the stored answer; a refusal makes none', async () => {
    const store = a.h.store;
    const run = store.run.bind(store);
    const own: string[] = [];
    store.run = (async (sql: string, params?: Parameters<typeof run>[1]) => { if (/idempotency_keys/.test(sql)) own.push(sql.trim().split(/\s+/)[0]); return run(sql, params); }) as typeof store.run;
    try {
      const created = await post('in-tx');
      expect(created.status).toBe(201);
      expect(own).toEqual(['UPDATE']); // its answer, stored once the answer is known
      own.length = 0;
      const bad = await post('in-tx-422', '<post><title></title></post>');
      expect(bad.status).toBe(422);
      expect(own).toEqual([]); // nothing claimed, nothing to release
      expect((await post('in-tx')).headers['idempotent-replayed']).toBe('true');
      expect(own).toEqual([]);
    } finally {
      store.run = run;
    }
    expect(await a.h.store.get("SELECT 1 AS x FROM idempotency_keys WHERE idem_key = 'in-tx-422'")).toBeUndefined();
    expect((await a.h.store.get<{ state: string }>("SELECT state FROM idempotency_keys WHERE idem_key = 'in-tx'"))!.state).toBe('done');
  });

  it('a write that fails after its claim rolls the claim back with it: the retry executes', async () => {
    const store = a.h.store;
    const write = store.write.bind(store);
    store.write = (async (fn: Parameters<typeof write>[0]) => write(async (w) => { await fn(w); throw new Error('disk full at commit'); })) as typeof store.write;
    const failed = await post('key-rolled-back');
    store.write = write;
    expect(failed.status).toBe(500);
    expect(await a.h.store.get("SELECT 1 AS x FROM idempotency_keys WHERE idem_key = 'key-rolled-back'")).toBeUndefined();
    const retry = await post('key-rolled-back');
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a person\'s key usage is read once per 64 stored answers, not per answer (D340); the cap still holds (idempotency-cap.test.ts)', async () => {
    const store = a.h.store;
    const get = store.get.bind(store);
    let reads = 0;
    store.get = (async (sql: string, params?: Parameters<typeof get>[1]) => { if (/idempotency_usage/.test(sql)) reads++; return get(sql, params); }) as typeof store.get;
    try {
      for (let i = 0; i < 10; i++) expect((await post(`usage-${i}`, POST.replace('Hello', `Hello ${i}`))).status).toBe(201);
    } finally {
      store.get = get;
    }
    expect(reads).toBe(1);
  });

  it('two requests with one key at once: executed once; the other waits for the first\'s write and answers 409 or the replay', async () => {
    const before = await countPosts(a);
    const answers = await Promise.all([post('together'), post('together'), post('together')]);
    const ran = answers.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(ran).toHaveLength(1);
    for (const r of answers) {
      if (r === ran[0]) continue;
      if (r.status === 409) expect(r.headers['retry-after']).toBe('1');
      else expect([r.status, r.headers['idempotent-replayed'], locId(r)]).toEqual([201, 'true', locId(ran[0])]);
    }
    expect(await countPosts(a)).toBe(before + 1);
    const after = await post('together');
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(after.body).toBe(ran[0].body);
  });
});
