// Two-instance sync harness (issue #8): a remote (the same program, listening on a free port, on
// its own in-memory store with the fixture) behind a fault-injecting proxy, and replicas (empty
// stores + a SyncEngine) driven through their own local API (Fastify inject).

import { createServer, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { forwardTo } from './forward.ts';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../electron/http/app.ts';
import { SqliteStore } from '../../electron/store/sqlite.ts';
import { importSeed } from '../../electron/service/account.ts';
import { SyncEngine, type EngineOptions } from '../../electron/sync/engine.ts';
import { parseXml, type XNode } from '../../shared/codec/in.ts';
import type { Clock, Store } from '../../electron/store/types.ts';
import { defaultEngine, FIXTURE, seededStore, type Engine, type Who } from './helpers.ts';

export interface Res { status: number; headers: Record<string, string | string[] | undefined>; body: string; xml(): XNode }
export type Requester = (method: string, url: string, body?: string) => Promise<Res>;

const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
export const password = (who: Who) => FIXTURE.people.find((p) => p.key === who)!.password;

export const wrap = (status: number, headers: Res['headers'], body: string): Res => ({
  status, headers, body, xml: () => { const n = parseXml(body); if (!n) throw new Error(`empty body (${status})`); return n; },
});

export interface Remote { app: FastifyInstance; store: Store; url: string; as(who: Who): Requester; close(): Promise<void> }

/**
 * The remote: on SQLite, or on PostgreSQL (a fresh database of the run's cluster) when `engine` is
 * 'postgres' (the default follows BIVOUAC_TEST_STORE, so the `pg` Vitest project runs it there).
 * `clock` is the remote machine's clock (a SQLite remote only: clock skew tests).
 */
export async function startRemote(o: { engine?: Engine; clock?: Clock } = {}): Promise<Remote> {
  const engine = o.engine ?? defaultEngine();
  let store: Store;
  if (engine === 'postgres') {
    if (o.clock) throw new Error('a skewed clock is for a SQLite remote');
    store = await seededStore('postgres');
  } else {
    store = new SqliteStore(':memory:', { clock: o.clock });
    await importSeed(store, FIXTURE);
  }
  const app = await buildApp({ store, responseCacheBytes: 0 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    app, store, url,
    as: (who) => async (method, path, body) => {
      const r = await app.inject({ method: method as 'GET', url: path, payload: body, headers: { host: '127.0.0.1', authorization: basic(who, password(who)) } });
      return wrap(r.statusCode, r.headers as Res['headers'], r.body);
    },
    async close() { await app.close(); await store.close(); },
  };
}

/** What the proxy does to one request (decided per request, in order of arrival). */
export interface Faults {
  /** Refuse everything (connection reset): the remote is down. */
  down?: boolean;
  /** Accept and never answer: a hanging remote. */
  hang?: boolean;
  /** Stand in for a plain server of the interface: no /sync/*, no .json twins, no /health. */
  plain?: boolean;
  /** Forward the request, let the remote commit, then drop the answer (the client sees a reset). */
  loseAnswer?: (method: string, path: string) => boolean;
  /** Send the request twice to the remote (a duplicated request); the client gets the second answer. */
  duplicate?: (method: string, path: string) => boolean;
  /** Delay before forwarding (ms). */
  delayMs?: number;
  /** The remote machine's clock runs this far from ours (ms): its `Date` headers say so. */
  skewMs?: number;
  /**
   * Answer 503 "busy" without forwarding, with `Retry-After` as an HTTP date that many seconds ahead
   * on the remote's (skewed) clock, when it returns a number.
   */
  busy?: (method: string, path: string) => number | undefined;
  /** Awaited before the request is forwarded (a change made on the remote just before it arrives). */
  before?: (method: string, path: string) => Promise<void> | undefined;
}

export interface Proxy { url: string; faults: Faults; seen: { method: string; path: string; status: number }[]; close(): Promise<void> }

export async function startProxy(target: string, faults: Faults = {}): Promise<Proxy> {
  const seen: Proxy['seen'] = [];
  const hanging = new Set<ServerResponse>();
  const forward = forwardTo(target);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const method = req.method ?? 'GET';
      const path = (req.url ?? '/').split('?')[0];
      const f = proxy.faults;
      if (f.down) { req.socket.destroy(); return; }
      if (f.hang) { hanging.add(res); return; }
      // A plain server has no project-create route either (a Bivouac team server lets administrators create projects).
      if (f.plain && (path.startsWith('/sync/') || path.endsWith('.json') || path === '/health' || (method === 'POST' && path === '/projects.xml'))) {
        res.writeHead(404, { 'content-type': 'application/xml; charset=utf-8' });
        res.end('<?xml version="1.0" encoding="UTF-8"?>\n<errors><error>No such route</error></errors>');
        seen.push({ method, path, status: 404 });
        return;
      }
      const remoteDate = (plusMs = 0) => new Date(Date.now() + (f.skewMs ?? 0) + plusMs).toUTCString();
      const busyFor = f.busy?.(method, path);
      if (busyFor !== undefined) {
        res.writeHead(503, { 'content-type': 'application/xml; charset=utf-8', date: remoteDate(), 'retry-after': remoteDate(busyFor * 1000) });
        res.end('<?xml version="1.0" encoding="UTF-8"?>\n<errors><error>Busy: retry later</error></errors>');
        seen.push({ method, path, status: 503 });
        return;
      }
      if (f.delayMs) await new Promise((r) => setTimeout(r, f.delayMs));
      await f.before?.(method, path);
      try {
        const body = Buffer.concat(chunks);
        let r = await forward(req, body);
        if (f.duplicate?.(method, path)) r = await forward(req, body);
        seen.push({ method, path, status: r.status });
        if (f.loseAnswer?.(method, path)) { req.socket.destroy(); return; }
        const headers = { ...r.headers };
        delete headers['transfer-encoding'];
        delete headers.connection;
        if (f.skewMs) headers.date = remoteDate();
        res.writeHead(r.status, headers);
        res.end(r.body);
      } catch {
        req.socket.destroy();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const proxy: Proxy = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, faults, seen,
    async close() {
      for (const h of hanging) h.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return proxy;
}

export interface Replica {
  store: SqliteStore; engine: SyncEngine; app: FastifyInstance; dir: string; who: Who;
  /** The local API as the local owner (the remote person, with their remote password). */
  req: Requester;
  close(): Promise<void>;
}

/** A replica; unless `auto`, it syncs only when the test says so (no background syncs after writes). */
export async function startReplica(remoteUrl: string, who: Who, o: { timeoutMs?: number; auto?: boolean; deepScanEvery?: number; clock?: Clock; onProgress?: EngineOptions['onProgress']; engine?: Partial<EngineOptions> } = {}): Promise<Replica> {
  const dir = mkdtempSync(join(tmpdir(), 'bivouac-replica-'));
  const store = new SqliteStore(join(dir, 'bivouac.sqlite'), { clock: o.clock });
  const engine = new SyncEngine({ store, dataDir: dir, intervalSec: 0, timeoutMs: o.timeoutMs ?? 2000, deepScanEvery: o.deepScanEvery, onProgress: o.onProgress, ...o.engine });
  await engine.connect(remoteUrl, { user: who, password: password(who) });
  if (!o.auto) engine.stop();
  const app = await buildApp({ store, sync: engine, responseCacheBytes: 0 });
  await app.ready();
  return {
    store, engine, app, dir, who,
    req: async (method, path, body) => {
      const r = await app.inject({ method: method as 'GET', url: path, payload: body, headers: { host: '127.0.0.1', authorization: basic(who, password(who)) } });
      return wrap(r.statusCode, r.headers as Res['headers'], r.body);
    },
    async close() { engine.stop(); await app.close(); await store.close(); rmSync(dir, { recursive: true, force: true }); },
  };
}

// ---- comparing two sides through the API -------------------------------------------------------

const kids = (n: XNode) => n.children;
const t = (n: XNode, name: string) => n.children.find((c) => c.name === name)?.text ?? '';
const nil = (n: XNode, name: string) => n.children.find((c) => c.name === name)?.nil ?? false;

/**
 * Everything a person sees, ids replaced by names so that two replicas (different ids) compare
 * equal: projects, categories, posts with comments, milestones, lists with items (in order, with
 * completion and comments), time entries.
 */
export async function dump(req: Requester): Promise<unknown> {
  const get = async (p: string) => {
    const r = await req('GET', p);
    if (r.status !== 200) throw new Error(`GET ${p}: ${r.status} ${r.body}`);
    return r.xml();
  };
  const out: Record<string, unknown> = {};
  const projects = kids(await get('/projects.xml'));
  for (const p of [...projects].sort((a, b) => t(a, 'name').localeCompare(t(b, 'name')))) {
    const P = t(p, 'id');
    const cats = kids(await get(`/projects/${P}/categories.xml`));
    const catName = new Map(cats.map((c) => [t(c, 'id'), t(c, 'name')]));
    const ms = kids(await get(`/projects/${P}/milestones/list`));
    const msName = new Map(ms.map((m) => [t(m, 'id'), t(m, 'title')]));
    const comments = async (kind: string, id: string, count: string) =>
      Number(count) ? kids(await get(`/${kind}/${id}/comments.xml`)).map((c) => t(c, 'body')) : [];
    const posts = [];
    for (const po of kids(await get(`/projects/${P}/posts/archive.xml`))) {
      const full = await get(`/posts/${t(po, 'id')}.xml`);
      posts.push({ title: t(full, 'title'), body: t(full, 'body'), category: catName.get(t(full, 'category-id')) ?? null,
        milestone: msName.get(t(full, 'milestone-id')) ?? null, comments: await comments('posts', t(full, 'id'), t(full, 'comments-count')) });
    }
    posts.sort((a, b) => a.title.localeCompare(b.title));
    const milestones = [];
    for (const m of ms) {
      milestones.push({ title: t(m, 'title'), deadline: t(m, 'deadline'), completed: t(m, 'completed'),
        comments: await comments('milestones', t(m, 'id'), t(m, 'comments-count')) });
    }
    milestones.sort((a, b) => a.title.localeCompare(b.title));
    const itemName = new Map<string, string>();
    const lists = [];
    for (const l of kids(await get(`/projects/${P}/todo_lists.xml`))) {
      const items = [];
      for (const it of kids(await get(`/todo_lists/${t(l, 'id')}/todo_items.xml`))) {
        itemName.set(t(it, 'id'), t(it, 'content'));
        items.push({ content: t(it, 'content'), completed: t(it, 'completed'), position: t(it, 'position'),
          due: nil(it, 'due-at') ? null : t(it, 'due-at'), comments: await comments('todo_items', t(it, 'id'), t(it, 'comments-count')) });
      }
      lists.push({ name: t(l, 'name'), description: t(l, 'description'), position: t(l, 'position'), milestone: msName.get(t(l, 'milestone-id')) ?? null, items });
    }
    const time = kids(await get(`/projects/${P}/time_entries.xml`)).map((e) => ({
      date: t(e, 'date'), hours: t(e, 'hours'), description: t(e, 'description'), item: itemName.get(t(e, 'todo-item-id')) ?? null,
    })).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    out[t(p, 'name')] = { status: t(p, 'status'), categories: [...catName.values()].sort(), posts, milestones, lists, time };
  }
  return out;
}

/** Id from a 201's Location header. */
export const loc = (r: Res): string => {
  if (r.status !== 201) throw new Error(`expected 201, got ${r.status}: ${r.body}`);
  return /(\d+)(?:\.xml)?$/.exec(String(r.headers.location))![1];
};

/** Sync `r` until its outbox is empty (transient failures throw; retried at once), at most `tries` runs. */
export async function settle(r: Replica, tries = 30): Promise<void> {
  for (let k = 0; k < tries; k++) {
    try {
      await r.engine.run();
      if ((await r.engine.status()).pending === 0) return;
    } catch { /* retried */ }
  }
  throw new Error(`outbox not empty after ${tries} syncs: ${JSON.stringify(await r.engine.status())}`);
}

/** Teardown of a remote, its proxy and the replicas on it (the replicas first); each may be unset. */
export async function closeAll(replicas: Replica[], proxy: Proxy | undefined, remote: Remote | undefined): Promise<void> {
  for (const r of replicas.splice(0)) await r.close();
  await proxy?.close();
  await remote?.close();
}
