// The interrupted clone (issue #26, D346): a replica run as a child process (`bivouac serve --remote …` on an
// empty data directory) cloning a team server in small feed pages is SIGKILLed at seeded random points (after
// the k-th feed request reached the server, before or after its answer), then started again with the same
// command on the same directory until the clone completes. Every record is there exactly once (per table as
// on the team server; the id map has no remote id twice), the local API answers the data as the team server
// does, and a restart goes on from the saved cursor: its first feed request asks from the cursor saved by the
// last page applied before the kill, and the feed requests of the whole interrupted clone are at most the
// uninterrupted clone's plus one per kill (the page asked but not committed when the process died).
// 3 seeds in `npm test`; CLONE_KILL_SEEDS=N runs N.

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateDataset } from '../../../electron/service/dataset.ts';
import { SqliteStore } from '../../../electron/store/sqlite.ts';
import * as q from '../../../electron/store/queries/replica.ts';
import { forwardTo } from '../../support/forward.ts';
import { dump, password, startRemote, wrap, type Remote, type Requester } from '../../support/sync-helpers.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const cli = join(root, 'electron', 'bin.mjs');
/** Changes per feed page (the team server honours a smaller `limit`): a clone of the account is ≥ 10 pages. */
const PAGE = 150;
const TABLES = ['projects', 'categories', 'milestones', 'posts', 'comments', 'todo_lists', 'todo_items', 'time_entries'] as const;
const SEEDS = Math.max(1, Number(process.env.CLONE_KILL_SEEDS ?? 3));
const authHeader = { authorization: `Basic ${Buffer.from(`ada:${password('ada')}`).toString('base64')}` };

/** A seeded PRNG (mulberry32): the same seed, the same kill points. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Where a kill lands: when the k-th feed request (counted over the whole clone) arrives, or `delayMs` after its answer. */
interface KillAt { feedRequest: number; when: 'asked' | 'answered'; delayMs: number }

/**
 * In front of the team server: every feed request asks for PAGE changes; counts requests, records each feed
 * request's `since` and whether its answer said `more`, and runs `onFeed` hooks (the kill) as told.
 */
interface Counter {
  url: string; requests: number; feed: { since: string; more: boolean | null }[];
  killAt: (KillAt & { kill: () => void }) | null;
  /** Until a feed answer from request `from` (0-based) on says `more: false`. */
  waitFeedEnd(from: number): Promise<void>;
  close(): Promise<void>;
}
async function startCounter(target: string): Promise<Counter> {
  const forward = forwardTo(target);
  let ended: { from: number; done: () => void } | null = null;
  const c: Counter = {
    url: '', requests: 0, feed: [], killAt: null,
    waitFeedEnd: (from) => new Promise<void>((r) => { if (c.feed.slice(from).some((f) => f.more === false)) r(); else ended = { from, done: r }; }),
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (b: Buffer) => chunks.push(b));
    req.on('end', () => void (async () => {
      c.requests++;
      const url = new URL(req.url ?? '/', 'http://x');
      const feed = url.pathname === '/sync/changes.json';
      let entry: Counter['feed'][number] | null = null;
      if (feed) {
        entry = { since: url.searchParams.get('since') ?? '0', more: null };
        c.feed.push(entry);
        url.searchParams.set('limit', String(PAGE));
        req.url = url.pathname + url.search;
        const k = c.killAt;
        if (k && k.feedRequest === c.feed.length && k.when === 'asked') { c.killAt = null; k.kill(); return; }
      }
      const r = await forward(req, Buffer.concat(chunks));
      const h = { ...r.headers };
      delete h['transfer-encoding'];
      delete h.connection;
      res.writeHead(r.status, h);
      res.end(r.body);
      if (entry && r.status === 200) {
        entry.more = (JSON.parse(r.body.toString('utf8')) as { more: boolean }).more;
        const k = c.killAt;
        if (k && k.feedRequest === c.feed.length && k.when === 'answered') { c.killAt = null; setTimeout(k.kill, k.delayMs); }
        if (entry.more === false && ended && c.feed.indexOf(entry) >= ended.from) { ended.done(); ended = null; }
      }
    })().catch(() => req.socket.destroy()));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  c.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return c;
}

/** Replica processes not yet exited (a failed test leaves none behind). */
const alive = new Set<ChildProcess>();

/** `bivouac serve --remote` on `dir` (a clone when empty, a resume when linked): resolves once it listens. */
function serveClone(dir: string, remoteUrl: string, onSpawn?: (child: ChildProcess, exited: Promise<void>) => void): Promise<{ child: ChildProcess; url: string; exited: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dir, '--no-demo', '--remote', remoteUrl, '--remote-user', 'ada'], {
      cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BIVOUAC_REMOTE_PASSWORD: password('ada') },
    });
    let out = '', err = '';
    alive.add(child);
    const exited = new Promise<void>((r) => child.on('close', () => { alive.delete(child); r(); }));
    onSpawn?.(child, exited);
    child.stderr.on('data', (b: Buffer) => { err += b.toString(); });
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /running at (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m) resolve({ child, url: m[1], exited });
    });
    void exited.then(() => reject(new Error(`serve exited before listening: ${err}`)));
  });
}

/** The child's sync idle after a success (its first sync, the clone, done). */
async function settled(url: string): Promise<void> {
  for (let k = 0; k < 600; k++) {
    const st = await (await fetch(`${url}/sync/status`, { headers: authHeader })).json() as { state: string; lastSuccessAt: string | null; error: string | null };
    if (st.state === 'idle' && st.lastSuccessAt) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the clone did not settle');
}

/** The local API of a child as a Requester (for dump). */
const over = (url: string): Requester => async (method, path, body) => {
  const r = await fetch(`${url}${path}`, { method, body, headers: { ...authHeader, host: '127.0.0.1' } });
  const headers: Record<string, string> = {};
  r.headers.forEach((v, k) => { headers[k] = v; });
  return wrap(r.status, headers, await r.text());
};

/** A store's counts per table, and the remote ids its id map holds more than once. */
async function inStore(file: string): Promise<{ counts: Record<string, number>; dupes: unknown[]; cursor: string | null; mapped: number }> {
  const store = new SqliteStore(file);
  try {
    const counts: Record<string, number> = {};
    for (const t of TABLES) counts[t] = (await store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t}`))!.n;
    const dupes = await store.all('SELECT resource, remote_id, COUNT(*) AS n FROM sync_ids GROUP BY resource, remote_id HAVING COUNT(*) > 1');
    const mapped = (await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM sync_ids'))!.n;
    return { counts, dupes, cursor: (await q.state(store)).get('cursor') ?? null, mapped };
  } finally {
    await store.close();
  }
}

let remote: Remote;
let teamCounts: Record<string, number>;
let teamDump: unknown;
/** The uninterrupted clone: feed requests, all requests, and what it holds. */
let baseline: { pages: number; feed: number; requests: number; mapped: number };

async function teamCountsOf(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const t of TABLES) counts[t] = (await remote.store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t}`))!.n;
  return counts;
}

beforeAll(async () => {
  remote = await startRemote({ engine: 'sqlite' });
  // A few thousand records (ada, an administrator of the firm, sees them all: no private share).
  await generateDataset(remote.store, { projects: 2, posts: 300, comments: 900, todoItems: 600, timeEntries: 600, milestonesPerProject: 3, privateShare: 0, seed: 26 });
  teamCounts = await teamCountsOf();
  teamDump = await dump(remote.as('ada'));
  const counter = await startCounter(remote.url);
  const dir = mkdtempSync(join(tmpdir(), 'bivouac-clone-kill-'));
  try {
    const s = await serveClone(dir, counter.url);
    await counter.waitFeedEnd(0);
    await settled(s.url);
    s.child.kill('SIGKILL');
    await s.exited;
    baseline = { pages: counter.feed.findIndex((f) => f.more === false) + 1, feed: counter.feed.length, requests: counter.requests, mapped: (await inStore(join(dir, 'bivouac.sqlite'))).mapped };
  } finally {
    await counter.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

afterEach(() => { for (const c of alive) c.kill('SIGKILL'); });
afterAll(async () => { for (const c of alive) c.kill('SIGKILL'); await remote?.close(); });

describe('a clone killed at seeded random points resumes without duplicates and without starting over (issue #26)', () => {
  it('the uninterrupted clone of the account takes ≥ 10 feed pages', () => {
    expect(Object.values(teamCounts).reduce((a, b) => a + b, 0)).toBeGreaterThan(2000);
    expect(baseline.pages).toBeGreaterThanOrEqual(10);
  });

  it.each(Array.from({ length: SEEDS }, (_, k) => 1 + k))('seed %i: killed, restarted on the same directory until done: every record once, the API answers, no start over', async (seed) => {
    const r = prng(seed);
    const kills = 1 + Math.floor(r() * 2);
    const counter = await startCounter(remote.url);
    const dir = mkdtempSync(join(tmpdir(), 'bivouac-clone-kill-'));
    const db = join(dir, 'bivouac.sqlite');
    try {
      // Each kill: where, the cursor saved when the process died, and the index of the next start's first feed request.
      const resumes: { at: KillAt; savedCursor: string | null; from: number }[] = [];
      let committed = 0;
      for (let k = 0; k < kills; k++) {
        // A point inside what is left of the clone: this run's n-th feed request, its last page included (a kill
        // 'answered' there lands in the last page's apply: the parked records, the round's removals, or after it).
        const left = baseline.pages - committed;
        const from = counter.feed.length;
        const at: KillAt = { feedRequest: from + 1 + Math.floor(r() * left), when: r() < 0.5 ? 'asked' : 'answered', delayMs: Math.floor(r() * 40) };
        // Armed before the process starts: a linked directory's sync asks the feed before the process says it listens.
        let child: ChildProcess | null = null;
        let exited: Promise<void> = Promise.resolve();
        const killed = new Promise<boolean>((ok) => { counter.killAt = { ...at, kill: () => { child?.kill('SIGKILL'); ok(true); } }; });
        const started = serveClone(dir, counter.url, (c, e) => { child = c; exited = e; });
        const done = started.then((s) => counter.waitFeedEnd(from).then(() => settled(s.url))).then(() => false, () => false);
        // The clone ended first: the kill must at least have been armed by its request (then it comes).
        if (!(await Promise.race([killed, done])) && (counter.killAt !== null || !(await killed))) throw new Error(`the kill point ${JSON.stringify(at)} was never reached`);
        await started.catch(() => undefined); // killed before it listened: serveClone rejects
        await exited;
        const saved = (await inStore(db)).cursor;
        resumes.push({ at, savedCursor: saved, from: counter.feed.length });
        // Pages committed: the distinct feed positions read below the saved cursor.
        committed = saved === null ? 0 : new Set(counter.feed.filter((f) => BigInt(f.since) < BigInt(saved)).map((f) => f.since)).size;
      }
      // The last start: the clone completes.
      const last = counter.feed.length;
      const s = await serveClone(dir, counter.url);
      try {
        await counter.waitFeedEnd(last);
        await settled(s.url);
        // The local API answers the team server's data (ids aside).
        expect(await dump(over(s.url))).toEqual(teamDump);
      } finally {
        s.child.kill('SIGKILL');
        await s.exited;
      }
      // Each restart's first feed request: from the cursor saved before the kill (0 only when no page was applied).
      for (const res of resumes) {
        expect(counter.feed[res.from]?.since).toBe(res.savedCursor ?? '0');
        if (res.savedCursor !== null) expect(Number(res.savedCursor)).toBeGreaterThan(0);
      }
      const got = await inStore(db);
      expect(got.counts).toEqual(teamCounts);
      expect(got.dupes).toEqual([]);
      expect(got.mapped).toBe(baseline.mapped);
      // Not started over: at most one page read again per kill (the one asked but not committed).
      expect(counter.feed.length).toBeLessThanOrEqual(baseline.feed + resumes.length);
      expect(counter.requests).toBeLessThanOrEqual(Math.ceil(1.3 * baseline.requests) + 10 * resumes.length);
      console.log(`clone-kill seed ${seed}: ${resumes.length} kill(s), ${resumes.map((x) => `at feed request ${x.at.feedRequest} (${x.at.when}${x.at.when === 'answered' ? ` + ${x.at.delayMs} ms` : ''}): saved cursor ${x.savedCursor ?? 'none'}`).join('; ')}; feed requests ${counter.feed.length} (uninterrupted ${baseline.feed}, its pages ${baseline.pages}), requests ${counter.requests} (uninterrupted ${baseline.requests})`);
    } finally {
      counter.killAt = null;
      await counter.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
