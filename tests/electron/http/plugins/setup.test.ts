// First run, "connect to a team server" (docs/setup.md): an empty data directory becomes a replica
// through the public, loopback-only POST /setup.json {"remote": …}; a refused connect changes nothing.

import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../../../electron/http/app.ts';
import { SqliteStore } from '../../../../electron/store/sqlite.ts';
import { SyncEngine } from '../../../../electron/sync/engine.ts';
import { password, startProxy, startRemote } from '../../../support/sync-helpers.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => { for (const c of closers.splice(0).reverse()) await c(); });

async function empty() {
  const dir = mkdtempSync(join(tmpdir(), 'bivouac-first-run-'));
  const store = new SqliteStore(join(dir, 'bivouac.sqlite'));
  const engine = new SyncEngine({ store, dataDir: dir, intervalSec: 0, timeoutMs: 1000 });
  const app = await buildApp({ store, sync: engine });
  closers.push(async () => { engine.stop(); await app.close(); await store.close(); rmSync(dir, { recursive: true, force: true }); });
  const post = async (body: unknown) => {
    const r = await app.inject({ method: 'POST', url: '/setup.json', payload: JSON.stringify(body), headers: { host: '127.0.0.1', 'content-type': 'application/json' } });
    return { status: r.statusCode, json: () => JSON.parse(r.body) as { empty?: boolean; errors?: string[] } };
  };
  const get = async (url: string, user: string, pw: string) => app.inject({ method: 'GET', url,
    headers: { host: '127.0.0.1', authorization: `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}` } });
  const run = async (user: string, pw: string) => app.inject({ method: 'POST', url: '/sync/run?wait=true',
    headers: { host: '127.0.0.1', authorization: `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}` } });
  return { dir, post, get, run };
}

describe('first run: connect to a team server', () => {
  it('blank fields, wrong credentials and an unreachable server are refused and leave the directory empty', async () => {
    const l = await empty();
    const remote = await startRemote();
    closers.push(() => remote.close());
    const blank = await l.post({ remote: { url: '', user: '', password: '' } });
    expect(blank.status).toBe(422);
    expect(blank.json().errors).toEqual(["url can't be blank", "user can't be blank", "password can't be blank"]);
    const wrong = await l.post({ remote: { url: remote.url, user: 'ada', password: 'nope' } });
    expect(wrong.status).toBe(422);
    expect(wrong.json().errors![0]).toMatch(/refused these credentials/);
    const away = await l.post({ remote: { url: 'http://127.0.0.1:9', user: 'ada', password: 'x' } });
    expect(away.status).toBe(502);
    expect(existsSync(join(l.dir, 'remote-token'))).toBe(false);
    expect(JSON.parse((await l.get('/setup.json', '', '')).body)).toMatchObject({ empty: true });
  });

  it('clones what the person sees; they sign in locally with their remote password; a second setup is 409', async () => {
    const l = await empty();
    const remote = await startRemote();
    closers.push(() => remote.close());
    const ok = await l.post({ remote: { url: remote.url, user: 'ada', password: password('ada') } });
    expect(ok.status).toBe(201);
    expect(ok.json().empty).toBe(false);
    const here = await l.get('/projects.json', 'ada', password('ada'));
    expect(here.statusCode).toBe(200);
    const there = await remote.as('ada')('GET', '/projects.json');
    expect(JSON.parse(here.body).map((p: { name: string }) => p.name).sort()).toEqual(JSON.parse(there.body).map((p: { name: string }) => p.name).sort());
    const st = JSON.parse((await l.get('/sync/status', 'ada', password('ada'))).body);
    expect(st.remote.url).toBe(remote.url.replace(/\/+$/, ''));
    expect((await l.post({ remote: { url: remote.url, user: 'ada', password: password('ada') } })).status).toBe(409);
  });

  it.each([['team server', false], ['plain server', true]] as const)('GET /setup.json shows the clone\'s progress, n of m, while a first-run connect runs (%s)', async (_n, plain) => {
    const l = await empty();
    const remote = await startRemote();
    closers.push(() => remote.close());
    // A slow remote, so that the clone takes a while.
    const proxy = await startProxy(remote.url, { plain, delayMs: 20 });
    closers.push(() => proxy.close());
    let done = false;
    const seen: ({ done: number; total: number } | null)[] = [];
    const watch = (async () => {
      while (!done) {
        const st = JSON.parse((await l.get('/setup.json', '', '')).body) as { connecting?: { progress: { done: number; total: number } | null } };
        if (st.connecting) seen.push(st.connecting.progress);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const ok = await l.post({ remote: { url: proxy.url, user: 'ada', password: password('ada') } });
    done = true;
    await watch;
    expect(ok.status).toBe(201);
    const known = seen.filter((p): p is { done: number; total: number } => !!p && p.total > 0);
    expect(known.length).toBeGreaterThan(0);
    for (const p of known) expect(p.done).toBeLessThanOrEqual(p.total);
    // A plain scan moves one company or project at a time; the fixture's feed is one page (of 1000) here.
    if (plain) expect(new Set(known.map((p) => p.done)).size).toBeGreaterThan(1);
    // Once connected, nothing more to show.
    expect(JSON.parse((await l.get('/setup.json', '', '')).body)).toEqual({ empty: false, demo: null, form: true });
  });
});

describe('first run: the team server stops answering in the middle of the clone', () => {
  it.each([['team server', false], ['plain server', true]] as const)('the connect stands (201), the clone finishes when it is back, the same projects on both sides (%s)', async (_n, plain) => {
    const l = await empty();
    const remote = await startRemote();
    closers.push(() => remote.close());
    const proxy = await startProxy(remote.url, { plain });
    closers.push(() => proxy.close());
    // Down after a few reads of the clone: /me.xml (and capabilities) have answered, the clone has begun.
    let reads = 0;
    proxy.faults.loseAnswer = () => ++reads > 6 && (proxy.faults.down = true);
    const res = await l.post({ remote: { url: proxy.url, user: 'ada', password: password('ada') } });
    expect(reads).toBeGreaterThan(6); // it did go down in the middle
    expect(res.status, JSON.stringify(res.json())).toBe(201);
    proxy.faults.loseAnswer = undefined;
    proxy.faults.down = false;
    // Linked: the remote token is kept and a later sync finishes the clone.
    expect(existsSync(join(l.dir, 'remote-token'))).toBe(true);
    const again = await l.post({ remote: { url: proxy.url, user: 'ada', password: password('ada') } });
    expect([201, 409]).toContain(again.status);
    // Until the owner is cloned nobody can sign in locally; the engine's own retries go on meanwhile.
    let st: { state?: string; pending?: number } = {};
    for (let k = 0; k < 40 && st.state !== 'idle'; k++) {
      const r = await l.run('ada', password('ada'));
      if (r.statusCode === 200) st = JSON.parse(r.body);
      else await new Promise((ok) => setTimeout(ok, 250));
    }
    expect(st).toMatchObject({ state: 'idle', pending: 0 });
    const here = JSON.parse((await l.get('/projects.json', 'ada', password('ada'))).body).map((p: { name: string }) => p.name).sort();
    const there = JSON.parse((await remote.as('ada')('GET', '/projects.json')).body).map((p: { name: string }) => p.name).sort();
    expect(here).toEqual(there);
  });
});
