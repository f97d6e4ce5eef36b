// [BENCH_STORE=pg] [ROUNDS=N] [ONLY=variant,…] node bench/batch.ts — what one mutation of a batch costs on a team server (issue #26, D286, D340),
// against the same write without a batch and without HTTP at all (the floor): creates of to-do items into one
// list of a SQLite team server with the bench dataset's seed account, in interleaved rounds (each variant
// once per round, the order rotated), median per mutation:
//  - `batch+keys`: 100 mutations in one POST /sync/batch.json, each with its Idempotency-Key (what a push sends);
//  - `batch`: the same without mutation keys;
//  - `single+key` / `single`: the same request alone through Fastify's inject, with / without a key;
//  - `answer`: the route's handler through http/api.ts's `answer` (body parsed, record rendered) with no Fastify,
//    no light-my-request and no hooks: what a direct dispatch of a batch's mutations would still do (D340);
//  - `service`: todo-items.create called directly (no HTTP, no key): the floor.
// BENCH_STORE=pg: the team server on PostgreSQL (a throwaway cluster, scripts/pg-cluster.mjs, synchronous_commit=off
// as bench:team runs it). Not part of `npm test`; results to stdout.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../electron/http/app.ts';
import { SqliteStore } from '../electron/store/sqlite.ts';
import { PgStore } from '../electron/store/postgres.ts';
import type { Store } from '../electron/store/types.ts';
// @ts-expect-error: a plain ES module without types
import { startCluster } from '../scripts/pg-cluster.mjs';
import { importSeed } from '../electron/service/account.ts';
import * as items from '../electron/service/todo-items.ts';
import { answer, parseBody, type RouteConfig } from '../electron/http/api.ts';
import todoItemRoutes from '../electron/http/plugins/todo-items.ts';
import type { FastifyInstance } from 'fastify';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURE = JSON.parse(readFileSync(join(ROOT, 'tests', 'fixtures', 'account.json'), 'utf8')) as { people: { key: string; 'user-name': string; password: string }[] };
const ADA = FIXTURE.people.find((p) => p.key === 'ada')!;
const tmp = mkdtempSync(join(tmpdir(), 'bivouac-bench-batch-'));
const pgCluster = process.env.BENCH_STORE === 'pg' ? await startCluster({ settings: { synchronous_commit: 'off' } }) as { createDatabase(name: string): Promise<string>; stopSync(): void } : null;
const store: Store = pgCluster ? await PgStore.open(await pgCluster.createDatabase('batch')) : new SqliteStore(join(tmp, 'team.sqlite'));
await importSeed(store, FIXTURE);
const app = await buildApp({ store, responseCacheBytes: 0 });
const headers = { host: '127.0.0.1', authorization: `Basic ${Buffer.from(`${ADA['user-name']}:${ADA.password}`).toString('base64')}` };
const P = (await store.get<{ id: number }>('SELECT id FROM projects ORDER BY id LIMIT 1'))!.id;
const list = (JSON.parse((await app.inject({ method: 'POST', url: `/projects/${P}/todo_lists.json`, payload: '{"name":"bench batch"}', headers: { ...headers, 'content-type': 'application/json' } })).body) as { id: number }).id;
const me = (await store.get<{ id: number; company_id: number; administrator: number; first_name: string; last_name: string }>('SELECT * FROM people WHERE user_name = ?', [ADA['user-name']]))!;
const firm = Number((await store.get<{ firm: number }>('SELECT firm FROM companies WHERE id = ?', [me.company_id]))?.firm) === 1;
const caller = { id: Number(me.id), companyId: Number(me.company_id), firm, admin: firm && Number(me.administrator) === 1, name: `${me.first_name} ${me.last_name}` };

// The create route's spec, as the plugin registers it (a stand-in app that keeps what it is given).
const specs = new Map<string, RouteConfig>();
await todoItemRoutes({ route: (o: { url: string; config: RouteConfig }) => { specs.set(o.url, o.config); } } as unknown as FastifyInstance);
const createSpec = specs.get('/todo_lists/:listId/todo_items.xml')!.spec;

const N = 100;
let seq = 0;
const body = (k: number) => `<todo-item><content>bench ${k}</content></todo-item>`;
const ok = (s: number) => { if (s < 200 || s >= 300) throw new Error(`status ${s}`); };
const variants: Record<string, () => Promise<void>> = {
  'batch+keys': async () => {
    const muts = Array.from({ length: N }, () => { const k = ++seq; return { method: 'POST', path: `/todo_lists/${list}/todo_items.xml`, body: body(k), key: `bench-${k}` }; });
    const r = await app.inject({ method: 'POST', url: '/sync/batch.json', payload: JSON.stringify({ mutations: muts }), headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `bench-b-${seq}` } });
    ok(r.statusCode);
    if (!(JSON.parse(r.body) as { done: boolean }).done) throw new Error(r.body);
  },
  batch: async () => {
    const muts = Array.from({ length: N }, () => { const k = ++seq; return { method: 'POST', path: `/todo_lists/${list}/todo_items.xml`, body: body(k), key: null }; });
    const r = await app.inject({ method: 'POST', url: '/sync/batch.json', payload: JSON.stringify({ mutations: muts }), headers: { ...headers, 'content-type': 'application/json' } });
    ok(r.statusCode);
    if (!(JSON.parse(r.body) as { done: boolean }).done) throw new Error(r.body);
  },
  'single+key': async () => {
    for (let i = 0; i < N; i++) { const k = ++seq; ok((await app.inject({ method: 'POST', url: `/todo_lists/${list}/todo_items.xml`, payload: body(k), headers: { ...headers, 'idempotency-key': `bench-${k}` } })).statusCode); }
  },
  single: async () => {
    for (let i = 0; i < N; i++) { const k = ++seq; ok((await app.inject({ method: 'POST', url: `/todo_lists/${list}/todo_items.xml`, payload: body(k), headers })).statusCode); }
  },
  answer: async () => {
    for (let i = 0; i < N; i++) {
      const k = ++seq;
      const buf = Buffer.from(body(k));
      const r = await answer(app, { caller, handler: createSpec.POST!, method: 'POST', params: { listId: String(list) }, query: {}, root: parseBody(buf, undefined),
        json: false, url: `/todo_lists/${list}/todo_items.xml`, changeToken: undefined, bodyLength: buf.length, readOnly: null });
      ok(r.status);
    }
  },
  service: async () => {
    for (let i = 0; i < N; i++) { const k = ++seq; await items.create({ store, caller }, list, { content: `bench ${k}` }); }
  },
};
// What each variant asks of the store per mutation (deterministic, whatever the load): write transactions,
// statements of their own (each its own commit), and on PostgreSQL the statements sent (round trips, BEGIN
// and COMMIT not counted: one each per transaction).
const counts = { writes: 0, own: 0, sent: 0 };
{
  const st = store as Store & { query?: (...a: unknown[]) => Promise<unknown> };
  const write = st.write.bind(st), run = st.run.bind(st);
  st.write = ((fn) => { counts.writes++; return write(fn); }) as Store['write'];
  st.run = ((sql, params) => { counts.own++; return run(sql, params); }) as Store['run'];
  if (st.query) { const query = st.query.bind(st); st.query = (...a: unknown[]) => { counts.sent++; return query(...a); }; }
}
const perMutation: Record<string, string> = {};
const names = Object.keys(variants).filter((n) => !process.env.ONLY || process.env.ONLY.split(',').includes(n));
const ROUNDS = Number(process.env.ROUNDS ?? 8);
const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
for (const n of names) {
  await variants[n](); // warm-up
  Object.assign(counts, { writes: 0, own: 0, sent: 0 });
  await variants[n]();
  perMutation[n] = `${(counts.writes / N).toFixed(2)} | ${(counts.own / N).toFixed(2)}${store.dialect === 'postgres' ? ` | ${(counts.sent / N).toFixed(2)}` : ''}`;
}
for (let r = 0; r < ROUNDS; r++) {
  for (let j = 0; j < names.length; j++) {
    const n = names[(r + j) % names.length];
    const t0 = performance.now();
    await variants[n]();
    times[n].push((performance.now() - t0) / N);
  }
}
const median = (a: number[]) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
process.stdout.write(`# bench:batch — ${new Date().toISOString()}, ${store.dialect}, ${ROUNDS} rounds of ${N} creates each\n| variant | ms per mutation (median) | vs service | write transactions | statements of their own |${store.dialect === 'postgres' ? ' statements sent |' : ''}\n|---|---|---|---|---|${store.dialect === 'postgres' ? '---|' : ''}\n`);
const floor = times.service ? median(times.service) : NaN;
for (const n of names) process.stdout.write(`| ${n} | ${median(times[n]).toFixed(3)} | ${(median(times[n]) / floor).toFixed(2)}× | ${perMutation[n]} |\n`);
await app.close();
await store.close();
pgCluster?.stopSync();
rmSync(tmp, { recursive: true, force: true });
