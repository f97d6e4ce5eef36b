// The local /sync/* routes (docs/sync-client.md §4): owner only, JSON, clear errors that change nothing.

import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../../../electron/http/app.ts';
import { SqliteStore } from '../../../../electron/store/sqlite.ts';
import { importSeed } from '../../../../electron/service/account.ts';
import { SyncEngine } from '../../../../electron/sync/engine.ts';
import { FIXTURE } from '../../../support/helpers.ts';
import { loc, password, startProxy, startRemote, startReplica, type Remote, type Replica } from '../../../support/sync-helpers.ts';

const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => { for (const c of closers.splice(0).reverse()) await c(); });

async function standalone() {
  const dir = mkdtempSync(join(tmpdir(), 'bivouac-standalone-'));
  const store = new SqliteStore(join(dir, 'bivouac.sqlite'));
  await importSeed(store, FIXTURE);
  const engine = new SyncEngine({ store, dataDir: dir, intervalSec: 0, timeoutMs: 1000 });
  const app = await buildApp({ store, sync: engine });
  closers.push(async () => { engine.stop(); await app.close(); await store.close(); rmSync(dir, { recursive: true, force: true }); });
  const req = async (who: string, method: string, url: string, body?: unknown) => {
    const r = await app.inject({ method: method as 'GET', url, payload: body === undefined ? undefined : JSON.stringify(body),
      headers: { host: '127.0.0.1', authorization: basic(who, password(who as 'ada')) } });
    return { status: r.statusCode, json: () => JSON.parse(r.body) as Record<string, unknown> & { errors?: string[] } };
  };
  return { store, req, app };
}

describe('local /sync/* routes', () => {
  it('standalone: state local, owner only, a connect that cannot work changes nothing', async () => {
    const s = await standalone();
    expect((await s.req('ada', 'GET', '/sync/status')).json()).toMatchObject({ state: 'local', remote: null, pending: 0 });
    expect((await s.req('fran', 'GET', '/sync/status')).status).toBe(403);
    expect((await s.req('ada', 'POST', '/sync/run')).status).toBe(409);
    const bad = await s.req('ada', 'PUT', '/sync/remote', { url: 'not a url', user: 'ada', password: 'x' });
    expect(bad.status).toBe(422);
    const missing = await s.req('ada', 'PUT', '/sync/remote', { url: 'http://127.0.0.1:9' });
    expect(missing.status).toBe(422);
    const unreachable = await s.req('ada', 'PUT', '/sync/remote', { url: 'http://127.0.0.1:9', user: 'ada', password: 'x' });
    expect(unreachable.status).toBe(502);
    expect(unreachable.json().errors![0]).toMatch(/unreachable/);
    const remote = await startRemote();
    closers.push(() => remote.close());
    const wrong = await s.req('ada', 'PUT', '/sync/remote', { url: remote.url, user: 'ada', password: 'nope' });
    expect(wrong.status).toBe(422);
    expect(wrong.json().errors![0]).toMatch(/refused these credentials/);
    // Local work that a plain server cannot take (a project it does not have): refused (tests/electron/sync/adopt.test.ts has the rest).
    const plain = await startProxy(remote.url, { plain: true });
    closers.push(() => plain.close());
    const made = await s.app.inject({ method: 'POST', url: '/projects.xml', payload: '<project><name>Only here</name></project>', headers: { host: '127.0.0.1', authorization: basic('ada', password('ada')) } });
    expect(made.statusCode).toBe(201);
    const localWork = await s.req('ada', 'PUT', '/sync/remote', { url: plain.url, user: 'ada', password: password('ada') });
    expect(localWork.status).toBe(409);
    expect(localWork.json().errors![0]).toMatch(/local work .*project "Only here"/);
    expect((await s.req('ada', 'GET', '/sync/status')).json()).toMatchObject({ state: 'local', remote: null });
    expect(await s.store.all('SELECT * FROM sync_state')).toEqual([]);
  });

  describe('on a replica', () => {
    let remote: Remote;
    let r: Replica;
    afterEach(async () => { await r?.close(); await remote?.close(); });

    it('runs on demand, syncs soon after a local write by itself, and disconnects', async () => {
      remote = await startRemote();
      r = await startReplica(remote.url, 'ada', { auto: true });
      const P = (await r.req('GET', '/projects.xml')).xml().children[0].children.find((c) => c.name === 'id')!.text;
      loc(await r.req('POST', `/projects/${P}/todo_lists.xml`, '<todo-list><name>By itself</name></todo-list>'));
      // No explicit sync: the write schedules one.
      for (let k = 0; k < 100 && !(await remote.store.get("SELECT id FROM todo_lists WHERE name = 'By itself'")); k++) await new Promise((ok) => setTimeout(ok, 100));
      expect(await remote.store.get("SELECT id FROM todo_lists WHERE name = 'By itself'")).toBeDefined();
      const run = await r.app.inject({ method: 'POST', url: '/sync/run?wait=true', headers: { host: '127.0.0.1', authorization: basic('ada', password('ada')) } });
      expect(run.statusCode).toBe(200);
      expect(JSON.parse(run.body)).toMatchObject({ state: 'idle', pending: 0, remote: { url: remote.url, user: 'ada' } });
      expect(JSON.parse(run.body).lastSuccessAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(existsSync(join(r.dir, 'remote-token'))).toBe(true);
      const off = await r.app.inject({ method: 'DELETE', url: '/sync/remote', headers: { host: '127.0.0.1', authorization: basic('ada', password('ada')) } });
      expect(off.statusCode).toBe(200);
      expect(JSON.parse(off.body)).toMatchObject({ state: 'local', remote: null });
      expect(existsSync(join(r.dir, 'remote-token'))).toBe(false);
    });
  });
});
