// npm run bench:sync — the sync client (issue #8) in one run, against a team server (feed + idempotency)
// and the same server seen as a plain server of the interface (a filter hides /sync/* and .json):
//  1. initial clone of the bench dataset (requests, time);
//  2. incremental sync of 100 remote changes vs a full resync (a fresh clone), as ratios;
//  3. push of 1,000 offline mutations;
//  4. local write latency with the remote hanging vs with no remote at all (ratio of medians and p99);
//  5. the replica's peak RSS (a `bivouac serve` child): idle, after a clone, an endless feed, a 3 GB answer.
//     BENCH_CASES=idle,endless runs some of them (and prints the child's V8 heap spaces); BENCH_CHILD_FLAGS
//     adds node options to the child (e.g. --max-semi-space-size=16, D279).
//  6. the request rate to a remote that is down, per minute, over 11 minutes (the real schedule on a virtual clock).
//  7. live sync (issue #26, D305): propagation replica → replica and team server → replica (p50, p95, default
//     settings, real clock), an idle replica's requests per minute and local commits per idle sync (`--only=live`;
//     BENCH_LIVE_TRIALS=N changes each way, 40; BENCH_IDLE_SEC=S of idle observed, 60).
//  8. the clone of a large account (issue #26, D346): a team server and a replica as child processes, records/s,
//     requests, the replica's peak RSS; then killed half way and restarted: requests interrupted / uninterrupted
//     (`--only=clone`; BENCH_CLONE_SCALE=F scales bench/dataset.ts's sizes, 0.2 by default: 55,224 rows).
// Results go to stdout and, for a full run, bench/results/sync.md (a partial run writes only with BENCH_OUT=FILE). Not part of `npm test`.

import { createServer, request as httpRequest, type ServerResponse } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../electron/http/app.ts';
import { SqliteStore } from '../electron/store/sqlite.ts';
import { importSeed } from '../electron/service/account.ts';
import { generateDataset } from '../electron/service/dataset.ts';
import { SyncEngine } from '../electron/sync/engine.ts';
import type { Timers } from '../electron/sync/backoff.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURE = JSON.parse(readFileSync(join(ROOT, 'tests', 'fixtures', 'account.json'), 'utf8')) as { people: { key: string; 'user-name': string; password: string }[] };
const ADA = FIXTURE.people.find((p) => p.key === 'ada')!;
const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
const tmp = mkdtempSync(join(tmpdir(), 'bivouac-bench-sync-'));
const lines: string[] = [];
const say = (s: string) => { lines.push(s); process.stdout.write(`${s}\n`); };
const ms = (n: number) => `${n.toFixed(0)} ms`;

// ---- the remote ---------------------------------------------------------------------------------
const remoteStore = new SqliteStore(join(tmp, 'remote.sqlite'));
await importSeed(remoteStore, FIXTURE);
const sizes = { projects: 4, posts: 300, comments: 1200, todoItems: 1500, timeEntries: 1500, milestonesPerProject: 5, seed: 7 };
const summary = await generateDataset(remoteStore, sizes);
const remoteApp = await buildApp({ store: remoteStore, responseCacheBytes: 0 });
// Where a push's time goes: the team server's time inside its batch answers (request in → answer sent).
const batchServer = { ms: 0, n: 0 };
remoteApp.addHook('onResponse', async (req, reply) => {
  if (req.url !== '/sync/batch.json') return;
  batchServer.ms += reply.elapsedTime;
  batchServer.n++;
});
await remoteApp.listen({ host: '127.0.0.1', port: 0 });
const teamUrl = `http://127.0.0.1:${(remoteApp.server.address() as AddressInfo).port}`;

// A filter in front of it: a plain server (no extension, no JSON), or a hanging one.
const mode = { plain: true, hang: false };
const hanging = new Set<ServerResponse>();
const filter = createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0];
  if (mode.hang) { hanging.add(res); return; }
  if (mode.plain && (path.startsWith('/sync/') || path.endsWith('.json'))) {
    res.writeHead(404, { 'content-type': 'application/xml' });
    res.end('<?xml version="1.0" encoding="UTF-8"?>\n<errors><error>No such route</error></errors>');
    return;
  }
  const t = new URL(teamUrl);
  const out = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: { ...req.headers, host: t.host } }, (r) => {
    res.writeHead(r.statusCode ?? 502, r.headers);
    r.pipe(res);
  });
  out.on('error', () => res.destroy());
  req.pipe(out);
});
await new Promise<void>((ok) => filter.listen(0, '127.0.0.1', ok));
const plainUrl = `http://127.0.0.1:${(filter.address() as AddressInfo).port}`;

async function replica(url: string, name: string, timeoutMs = 15_000, pushConcurrency?: number) {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  const store = new SqliteStore(join(dir, 'bivouac.sqlite'));
  const engine = new SyncEngine({ store, dataDir: dir, intervalSec: 0, timeoutMs, pushConcurrency });
  const t0 = performance.now();
  await engine.connect(url, { user: ADA['user-name'], password: ADA.password });
  const clone = { ms: performance.now() - t0, requests: engine.requests };
  engine.stop();
  const app = await buildApp({ store, sync: engine, responseCacheBytes: 0 });
  return { store, engine, app, clone, async close() { engine.stop(); await app.close(); await store.close(); } };
}

/**
 * The plain scan's deep pass (D162): syncs with nothing changed on the remote, on the same replica,
 * without it (deepScanEvery 0: hints only), with the default rotation (one slice in 10 of the
 * comment lists per scan: 10 syncs = one full rotation) and with every comment list read every time.
 */
async function deepPass(store: SqliteStore, dataDir: string, clone: { requests: number; ms: number }): Promise<void> {
  const rows: string[] = [];
  for (const every of [0, 10, 1]) {
    const engine = new SyncEngine({ store, dataDir, intervalSec: 0, deepScanEvery: every });
    if (!(await engine.resume())) throw new Error('resume');
    engine.stop();
    const n = every === 10 ? 10 : 3;
    const req: number[] = [];
    const t0 = performance.now();
    for (let k = 0; k < n; k++) {
      const before = engine.requests;
      await engine.run();
      req.push(engine.requests - before);
    }
    const avg = (performance.now() - t0) / n;
    rows.push(`| ${every === 0 ? 'off (hints only)' : every === 1 ? 'every list, every sync (N = 1)' : `rotation, N = ${every} (default)`} | ${(req.reduce((a, b) => a + b, 0) / n).toFixed(1)} (min ${Math.min(...req)}, max ${Math.max(...req)}) | ${ms(avg)} | ${every === 0 ? 'never (until the parent changes)' : `${every} sync(s)`} |`);
  }
  say('\nplain-server sync with nothing changed (comment bodies edited alone are seen within the bound):');
  say('| deep pass | requests per sync (avg over a rotation) | time per sync | body-only comment edit seen within |');
  say('|---|---|---|---|');
  for (const r of rows) say(r);
  say(`(a full clone through the public routes: ${clone.requests} requests, ${ms(clone.ms)})`);
}

async function remoteEdits(n: number, tag: string, offset = 0): Promise<void> {
  const items = await remoteStore.all<{ id: number }>('SELECT id FROM todo_items ORDER BY id LIMIT ? OFFSET ?', [n, offset]);
  for (const it of items) {
    const r = await remoteApp.inject({ method: 'PUT', url: `/todo_items/${it.id}.xml`, payload: `<todo-item><content>${tag} ${it.id}</content></todo-item>`,
      headers: { host: '127.0.0.1', authorization: basic(ADA['user-name'], ADA.password) } });
    if (r.statusCode !== 200) throw new Error(`remote edit: ${r.statusCode}`);
  }
}

say(`# bench:sync — ${new Date().toISOString()}`);
say(`machine: ${cpus().length} cores, load ${loadavg().map((x) => x.toFixed(1)).join(' ')}; dataset: ${JSON.stringify(summary.counts)}`);

// `--only=push` runs section 3 alone, `--only=hostile` section 5, `--only=down` section 6, `--only=live` section 7, `--only=clone` section 8 (printed; written to
// BENCH_OUT when set).
const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7) ?? null;

// ---- 1 + 2: clone, incremental vs full ---------------------------------------------------------------
const results: Record<string, { requests: number; ms: number }> = {};
for (const kind of only ? [] : ['team', 'plain'] as const) {
  mode.plain = kind === 'plain';
  const url = kind === 'team' ? teamUrl : plainUrl;
  const r = await replica(url, `clone-${kind}`);
  say(`\n## ${kind} server`);
  say(`initial clone: ${r.clone.requests} requests, ${ms(r.clone.ms)}`);
  await remoteEdits(100, `${kind}-edit`);
  const before = r.engine.requests;
  const t0 = performance.now();
  await r.engine.run();
  const inc = { ms: performance.now() - t0, requests: r.engine.requests - before };
  const check = await r.store.all("SELECT id FROM todo_items WHERE content LIKE ?", [`${kind}-edit %`]);
  if (check.length !== 100) throw new Error(`incremental sync applied ${check.length} of 100 changes`);
  // The team server's incremental sync again, 6 more times (other items each round: the load of a shared
  // machine moves single figures a lot; the median is what the ratio uses, D170).
  const incs = [inc.ms];
  if (kind === 'team') {
    for (let k = 1; k < 7; k++) {
      await remoteEdits(100, `${kind}-edit${k}`, k * 100);
      const t = performance.now();
      await r.engine.run();
      incs.push(performance.now() - t);
      if ((await r.store.all('SELECT id FROM todo_items WHERE content LIKE ?', [`${kind}-edit${k} %`])).length !== 100) throw new Error('incremental sync');
    }
  }
  incs.sort((a, b) => a - b);
  const median = incs[Math.floor(incs.length / 2)];
  const full = await replica(url, `full-${kind}`);
  say(`incremental sync of 100 remote changes: ${inc.requests} requests, ${ms(inc.ms)}`
    + (incs.length > 1 ? `; median of ${incs.length} rounds (100 other items each) ${ms(median)} (min ${ms(incs[0])}, max ${ms(incs[incs.length - 1])})` : ''));
  inc.ms = median;
  results[`${kind}-inc`] = inc;
  results[`${kind}-full`] = full.clone;
  say(`full resync (fresh clone): ${full.clone.requests} requests, ${ms(full.clone.ms)}`);
  say(`ratio full / incremental${incs.length > 1 ? ' (median)' : ''}: ${(full.clone.requests / inc.requests).toFixed(1)}x fewer requests, ${(full.clone.ms / inc.ms).toFixed(1)}x less time`
    + (kind === 'team' ? ' (goal >= 50x, >= 20x)' : ' (a plain server has no feed: a sync is a full scan, comments skipped when unchanged)'));
  if (kind === 'plain') await deepPass(r.store, join(tmp, 'clone-plain'), full.clone);
  await full.close();
  await r.close();
}

if (!only) {
  const inc = results['team-inc'], scan = results['plain-full'];
  say(`\nteam incremental vs a full resync through the public routes (the scan a server without the feed needs): `
    + `${(scan.requests / inc.requests).toFixed(0)}x fewer requests, ${(scan.ms / inc.ms).toFixed(1)}x less time`);
}

// ---- 3: push of 1,000 offline mutations: batches to the team server (D285), one request per mutation
// (pipelined, D105) to a plain server -----------------------------------------------------------------
if (!only || only === 'push') say('\n## push');
// Two workloads: all 600 new items in one list (creates into one list stay in order: a chain), and
// the same spread over 20 lists (what a day offline across several lists looks like).
const pushFigures: Record<string, number> = {};
const pushRequests: Record<string, number> = {};
// BENCH_PUSH=team (or plain) runs that server's cases alone.
const pushCases = ([['team', 8, 1], ['team', 8, 20], ['plain', 8, 1], ['plain', 8, 20]] as const).filter(([s]) => !process.env.BENCH_PUSH || process.env.BENCH_PUSH === s);
for (const [server, concurrency, nLists] of only && only !== 'push' ? [] : pushCases) {
  const tag = `${server}-${concurrency}-${nLists}`;
  mode.plain = server === 'plain';
  const r = await replica(server === 'team' ? teamUrl : plainUrl, `push-${tag}`, 15_000, concurrency);
  const auth = { host: '127.0.0.1', authorization: basic(ADA['user-name'], ADA.password) };
  const P = (await r.store.get<{ id: number }>('SELECT id FROM projects ORDER BY id LIMIT 1'))!.id;
  const lists: number[] = [];
  for (let k = 0; k < nLists; k++) {
    lists.push((JSON.parse((await r.app.inject({ method: 'POST', url: `/projects/${P}/todo_lists.json`, payload: `{"name":"bench push ${tag}"}`, headers: { ...auth, 'content-type': 'application/json' } })).body) as { id: number }).id);
  }
  const ids: number[] = [];
  for (let k = 0; ids.length < 600; k++) {
    const res = await r.app.inject({ method: 'POST', url: `/todo_lists/${lists[k % nLists]}/todo_items.xml`, payload: `<todo-item><content>offline ${tag} ${k}</content></todo-item>`, headers: auth });
    ids.push(Number(/(\d+)$/.exec(String(res.headers.location))![1]));
  }
  for (let k = 0; k < 399; k++) {
    const res = await r.app.inject({ method: 'PUT', url: k % 2 ? `/todo_items/${ids[k]}/complete.xml` : `/todo_items/${ids[k]}.xml`, payload: `<todo-item><content>edited ${k}</content></todo-item>`, headers: auth });
    if (res.statusCode !== 200) throw new Error(`local write ${res.statusCode}`);
  }
  const pending = (await r.engine.status()).pending;
  const before = r.engine.requests;
  const remoteBefore = Number((await remoteStore.get<{ n: number }>('SELECT COUNT(*) AS n FROM todo_items'))!.n);
  batchServer.ms = 0; batchServer.n = 0;
  const t0 = performance.now();
  await r.engine.run();
  const t = performance.now() - t0;
  const st = await r.engine.status();
  if (st.pending !== 0) throw new Error('outbox not empty after push');
  const remoteAfter = Number((await remoteStore.get<{ n: number }>('SELECT COUNT(*) AS n FROM todo_items'))!.n);
  if (remoteAfter - remoteBefore !== 600) throw new Error(`the remote got ${remoteAfter - remoteBefore} items, not 600`);
  const check = await remoteStore.get<{ e: number; c: number }>("SELECT SUM(content LIKE 'edited %') AS e, SUM(completed) AS c FROM todo_items WHERE todo_list_id IN (SELECT id FROM todo_lists WHERE name = ?)", [`bench push ${tag}`]);
  if (Number(check!.e) !== 200 || Number(check!.c) !== 199) throw new Error(`the remote shows ${check!.e} of 200 edits, ${check!.c} of 199 completions`);
  // The remote keeps each list's local order.
  for (const l of lists) {
    const rl = (await r.store.get<{ id: number }>('SELECT remote_id AS id FROM sync_ids WHERE resource = ? AND local_id = ?', ['todoList', l]))!.id;
    const mine = (await r.store.all<{ content: string }>('SELECT content FROM todo_items WHERE todo_list_id = ? ORDER BY position', [l])).map((x) => x.content).join('|');
    const theirs = (await remoteStore.all<{ content: string }>('SELECT content FROM todo_items WHERE todo_list_id = ? ORDER BY position', [rl])).map((x) => x.content).join('|');
    if (mine !== theirs) throw new Error(`list ${l}: the remote order differs from the local one`);
  }
  pushFigures[tag] = t;
  pushRequests[tag] = r.engine.requests - before;
  say(`push of ${pending} offline mutations (${nLists} list(s), 600 items, 200 edits, 199 completions) to the ${server === 'team' ? 'team server (batches)' : 'plain server (one request per mutation, 8 at once)'}: ${ms(t)}, ${r.engine.requests - before} requests`
    + (batchServer.n ? ` (the server inside its ${batchServer.n} batch answers: ${ms(batchServer.ms)}, ${(batchServer.ms / pending).toFixed(2)} ms per mutation)` : ''));
  await r.close();
}
mode.plain = false;
if ((!only || only === 'push') && !process.env.BENCH_PUSH) {
  say(`team server (batches) vs plain server: ${pushRequests['team-8-1']} vs ${pushRequests['plain-8-1']} requests, ${ms(pushFigures['team-8-1'])} vs ${ms(pushFigures['plain-8-1'])} in one list; `
    + `${pushRequests['team-8-20']} vs ${pushRequests['plain-8-20']} requests, ${ms(pushFigures['team-8-20'])} vs ${ms(pushFigures['plain-8-20'])} over 20 lists (goal: ≤ 20 requests and < 2 s to the team server)`);
}

// ---- 4: local write latency, remote hanging vs no remote ------------------------------------------------
if (!only) {
  const hang = await replica(plainUrl, 'hang', 60_000);
  mode.hang = true;
  hang.engine.start(); // background syncs after each write, each one hanging on the remote
  const alone = new SqliteStore(join(tmp, 'alone.sqlite'));
  await importSeed(alone, FIXTURE);
  const aloneApp = await buildApp({ store: alone, responseCacheBytes: 0 });
  const auth = { host: '127.0.0.1', authorization: basic(ADA['user-name'], ADA.password) };
  const target = async (app: typeof aloneApp, store: SqliteStore) => {
    const P = (await store.get<{ id: number }>('SELECT id FROM projects ORDER BY id LIMIT 1'))!.id;
    const res = await app.inject({ method: 'POST', url: `/projects/${P}/todo_lists.xml`, payload: '<todo-list><name>latency</name></todo-list>', headers: auth });
    return Number(/(\d+)$/.exec(String(res.headers.location))![1]);
  };
  const lh = await target(hang.app, hang.store), la = await target(aloneApp, alone);
  const times: Record<'hang' | 'alone', number[]> = { hang: [], alone: [] };
  void hang.engine.run().catch(() => undefined); // a sync stuck on the hanging remote for the whole run
  for (let k = 0; k < 600; k++) {
    for (const [name, app, l] of [['hang', hang.app, lh], ['alone', aloneApp, la]] as const) {
      const t0 = performance.now();
      const res = await app.inject({ method: 'POST', url: `/todo_lists/${l}/todo_items.xml`, payload: `<todo-item><content>w${k}</content></todo-item>`, headers: auth });
      times[name].push(performance.now() - t0);
      if (res.statusCode !== 201) throw new Error(`write ${res.statusCode}`);
    }
  }
  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)];
  say(`\n## local writes with the remote hanging (a sync in flight, one scheduled after each write) vs no remote`);
  say(`median: ${q(times.hang, 0.5).toFixed(3)} ms vs ${q(times.alone, 0.5).toFixed(3)} ms, ratio ${(q(times.hang, 0.5) / q(times.alone, 0.5)).toFixed(2)} (goal <= 1.2)`);
  say(`p99:    ${q(times.hang, 0.99).toFixed(3)} ms vs ${q(times.alone, 0.99).toFixed(3)} ms, ratio ${(q(times.hang, 0.99) / q(times.alone, 0.99)).toFixed(2)}`);
  say('(the replica records each write in its outbox as well: that is part of the ratio)');
  mode.hang = false;
  for (const h of hanging) h.destroy();
  hang.engine.stop();
  await aloneApp.close();
  await alone.close();
  await hang.app.close();
  await hang.store.close().catch(() => undefined);
}

// ---- 5: the replica's peak RSS against a hostile remote (issue #25; goal < 300 MB) ----------------------
// The replica runs as `bivouac serve` (a child process: its own RSS, VmHWM from /proc) on a clone of the
// bench dataset, against tests/support/hostile-remote.ts in front of the team server. Two baselines first,
// the same child with the same data: idle (started on a clone, its first sync finds nothing new) and the
// clone itself (started on an empty directory with --remote: it clones the dataset). bench/support/mem-probe.mjs
// in the child gives the breakdown (V8 heap, external memory, array buffers; sampled every 20 ms).
if ((!only || only === 'hostile') && process.platform === 'linux') {
  const { startHostileRemote } = await import('../tests/support/hostile-remote.ts');
  const { spawn } = await import('node:child_process');
  const h = await startHostileRemote(teamUrl);
  const auth = { authorization: basic(ADA['user-name'], ADA.password) };
  say('\n## the replica against a hostile remote (a `bivouac serve` child process; peak RSS = VmHWM)');
  say('| case | what the remote did | replica peak RSS | vs idle | breakdown at the peak sample (heap used / total, external, array buffers) | local API during it |');
  say('|---|---|---|---|---|---|');
  let idlePeak = 0;
  for (const kind of (['idle', 'clone', 'endless', 'huge'] as const).filter((k) => !process.env.BENCH_CASES || process.env.BENCH_CASES.split(',').includes(k))) {
    const dir = join(tmp, `hostile-${kind}`);
    mkdirSync(dir, { recursive: true });
    if (kind !== 'clone') { const r = await replica(h.url, `hostile-${kind}`); await r.close(); }
    if (kind === 'endless') h.mode.endlessFeed = true;
    else if (kind === 'huge') h.mode.hugeAnswer = { path: /^\/sync\/changes\.json$/, bytes: 3 * 1024 ** 3 };
    const pages0 = h.stats.feedPages, bytes0 = h.stats.hugeBytes;
    const args = kind === 'clone' ? ['--remote', h.url, '--remote-user', ADA['user-name'], '--remote-password', ADA.password] : [];
    const child = spawn(process.execPath, [join(ROOT, 'electron', 'bin.mjs'), 'serve', '--port', '0', '--data-dir', dir, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${process.env.BENCH_CHILD_FLAGS ?? ''} --import ${join(ROOT, 'bench', 'support', 'mem-probe.mjs')}` },
    });
    let err = '';
    child.stderr.on('data', (b: Buffer) => { err += b.toString(); });
    const url = await new Promise<string>((ok, ko) => {
      let out = '';
      child.stdout.on('data', (b: Buffer) => { out += b.toString(); const m = /running at (http:\/\/127\.0\.0\.1:\d+)\//.exec(out); if (m) ok(m[1]); });
      child.on('close', () => ko(new Error(`serve exited: ${err}`)));
    });
    const status = async () => (await (await fetch(`${url}/sync/status`, { headers: auth })).json()) as { state: string; lastSuccessAt: string | null };
    /** Until the child's sync is idle after a success (each status read waits for the remote's next answer). */
    const settled = async () => {
      for (;;) {
        const seen = h.stats.requests;
        const st = await status();
        if (st.state === 'idle' && st.lastSuccessAt && h.stats.feedPages > pages0) return;
        await h.until(() => h.stats.requests > seen, 120_000).catch(() => undefined);
      }
    };
    if (kind === 'endless') await h.until(() => h.stats.feedPages - pages0 >= 1000, 600_000);
    else if (kind === 'huge') await h.until(() => h.stats.hugeAborted >= 4, 600_000); // the page asked with limits 1000, 100, 10, 1 (D278)
    else await settled();
    const t0 = performance.now();
    const res = await fetch(`${url}/projects.xml`, { headers: auth });
    const apiMs = performance.now() - t0;
    await res.arrayBuffer();
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
    const peak = m ? Number(m[1]) / 1024 : NaN;
    const probe = new Promise<{ atPeak: Record<string, number> }>((ok) => {
      const look = () => { const x = /mem-probe (\{.*\})\n/.exec(err); if (x) ok(JSON.parse(x[1]) as { atPeak: Record<string, number> }); };
      child.stderr.on('data', look);
      look();
    });
    child.kill('SIGUSR2');
    const b = (await probe).atPeak;
    if (process.env.BENCH_CASES) say(`  ${JSON.stringify(await probe)}`);
    const exited = new Promise<void>((ok) => child.on('close', () => ok()));
    child.kill('SIGKILL');
    await exited;
    if (kind === 'idle') idlePeak = peak;
    const did = {
      idle: 'nothing new (baseline: the service on the clone, its first sync)',
      clone: `an ordinary clone of the dataset (${h.stats.feedPages - pages0} feed pages)`,
      endless: `${h.stats.feedPages - pages0} pages of 1,000 changes, more: true forever`,
      huge: `a 3 GB answer; ${((h.stats.hugeBytes - bytes0) / 1024 ** 2).toFixed(0)} MB written before the replica closed it (a feed page is read to 16 MB, D278: asked with limits 1000, 100, 10, 1)`,
    }[kind];
    say(`| ${kind === 'endless' ? 'endless feed' : kind === 'huge' ? 'huge answer' : kind} | ${did} | ${peak.toFixed(0)} MB${kind === 'endless' || kind === 'huge' ? ' (goal < 300)' : ''} | ${kind === 'idle' ? '—' : `+${(peak - idlePeak).toFixed(0)} MB`} | ${b.heapUsed} / ${b.heapTotal}, ${b.external}, ${b.arrayBuffers} MB (rss ${b.rss}) | ${res.status} in ${apiMs.toFixed(0)} ms |`);
    h.behave();
  }
  await h.close();
}

// ---- 6: the request rate to a remote that is down (issue #25, D255) ----------------------------------
// The engine's real schedule (interval, backoff with jitter) on a virtual clock: 11 minutes of an outage in
// a moment. Each replica clones a small remote, which then goes down (its port refuses connections).
if (!only || only === 'down') {
  class VirtualClock implements Timers {
    t = 0;
    private q: { at: number; fn: () => void }[] = [];
    now(): number { return this.t; }
    set(fn: () => void, ms: number): unknown { const h = { at: this.t + ms, fn }; this.q.push(h); return h; }
    clear(h: unknown): void { this.q = this.q.filter((x) => x !== h); }
    nextAt(): number { return Math.min(...this.q.map((x) => x.at)); }
    fire(): void {
      const next = this.q.reduce((a, b) => (b.at < a.at ? b : a));
      this.q = this.q.filter((x) => x !== next);
      this.t = next.at;
      next.fn();
    }
  }
  const small = new SqliteStore(':memory:');
  await importSeed(small, FIXTURE);
  const smallApp = await buildApp({ store: small, responseCacheBytes: 0 });
  await smallApp.listen({ host: '127.0.0.1', port: 0 });
  const smallUrl = `http://127.0.0.1:${(smallApp.server.address() as AddressInfo).port}`;
  const REPLICAS = 20, MINUTES = 11;
  const replicas: { clock: VirtualClock; store: SqliteStore; engine: SyncEngine }[] = [];
  for (let k = 0; k < REPLICAS; k++) {
    const clock = new VirtualClock();
    const store = new SqliteStore(':memory:');
    const engine = new SyncEngine({ store, dataDir: null, intervalSec: 30, timeoutMs: 5000, timers: clock }); // the default interval, real jitter
    await engine.connect(smallUrl, { user: ADA['user-name'], password: ADA.password });
    replicas.push({ clock, store, engine });
  }
  await smallApp.close();
  await small.close();
  const perMinute = new Array<number>(MINUTES).fill(0);
  for (const { clock, engine } of replicas) {
    const t0 = clock.now();
    while (clock.nextAt() < t0 + MINUTES * 60_000) {
      const before = engine.requests;
      clock.fire();
      await engine.idle();
      perMinute[Math.floor((clock.now() - t0) / 60_000)] += engine.requests - before;
    }
  }
  const rate = (m: number) => (perMinute[m] / REPLICAS).toFixed(2);
  say(`\n## a remote that is down: requests per minute from one replica (mean of ${REPLICAS}, the engine's schedule on a virtual clock, interval 30 s)`);
  say('| minute of the outage | 1st | 2nd (after 1 min) | 5th | 11th (after 10 min) | total in 11 min |');
  say('|---|---|---|---|---|---|');
  say(`| requests / minute | ${rate(0)} | ${rate(1)} | ${rate(4)} | ${rate(10)} | ${(perMinute.reduce((a, b) => a + b, 0) / REPLICAS).toFixed(1)} |`);
  say('(before D255: a retry every 2 s after a network error, 30 requests a minute for as long as the outage lasts)');
  for (const r of replicas) { r.engine.stop(); await r.store.close(); }
}

// ---- 7: live sync (issue #26, D305) -------------------------------------------------------------
// Two people's replicas (Ada, Fran) of a small team server, with default settings (interval 30 s, the change
// stream followed), on the real clock. A change is made through one side's API and the other side's local API
// is read every 5 ms until it shows it: the time from the write's answer to the first read that shows it.
if (!only || only === 'live') {
  const FRAN = FIXTURE.people.find((p) => p.key === 'fran')!;
  const teamStore = new SqliteStore(join(tmp, 'live-team.sqlite'));
  await importSeed(teamStore, FIXTURE);
  const team = await buildApp({ store: teamStore, responseCacheBytes: 0 });
  await team.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(team.server.address() as AddressInfo).port}`;
  const asTeam = (method: string, path: string, body?: string) => team.inject({ method: method as 'GET', url: path, payload: body, headers: { host: '127.0.0.1', authorization: basic(ADA['user-name'], ADA.password) } });
  const side = async (who: { 'user-name': string; password: string }, name: string) => {
    const dir = join(tmp, `live-${name}`);
    mkdirSync(dir, { recursive: true });
    const store = new SqliteStore(join(dir, 'bivouac.sqlite'));
    const engine = new SyncEngine({ store, dataDir: null }); // default settings
    await engine.connect(url, { user: who['user-name'], password: who.password });
    const app = await buildApp({ store, sync: engine, responseCacheBytes: 0 });
    engine.start();
    const req = (method: string, path: string, body?: string) => app.inject({ method: method as 'GET', url: path, payload: body, headers: { host: '127.0.0.1', authorization: basic(who['user-name'], who.password) } });
    return { store, engine, app, req };
  };
  const a = await side(ADA, 'ada');
  const b = await side(FRAN, 'fran');
  while (!a.engine.following || !b.engine.following) await new Promise((r) => setTimeout(r, 20));
  const XMLD = '<?xml version="1.0" encoding="UTF-8"?>\n';
  const listIn = async (req: typeof a.req, name: string) => {
    const projects = (await req('GET', '/projects.xml')).body;
    const P = /<project>(?:(?!<\/project>)[^])*?<id type="integer">(\d+)<\/id>(?:(?!<\/project>)[^])*?<name>Alpha Ascent<\/name>/.exec(projects)![1];
    const lists = (await req('GET', `/projects/${P}/todo_lists.xml`)).body;
    return { P, L: [...lists.matchAll(/<todo-list>[^]*?<\/todo-list>/g)].map((m) => m[0]).find((x) => x.includes(`<name>${name}</name>`))?.match(/<id type="integer">(\d+)<\/id>/)?.[1] };
  };
  const { P: PA } = await listIn(a.req, '');
  await a.req('POST', `/projects/${PA}/todo_lists.xml`, `${XMLD}<todo-list><name>Bench live</name></todo-list>`);
  let LB: string | undefined;
  while (!(LB = (await listIn(b.req, 'Bench live')).L)) await new Promise((r) => setTimeout(r, 20));
  const LA = (await listIn(a.req, 'Bench live')).L!;
  const LT = (await listIn(asTeam, 'Bench live')).L!;
  const trials = Number(process.env.BENCH_LIVE_TRIALS ?? 40);
  const pct = (xs: number[], p: number) => { const s = [...xs].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]; };
  const propagate = async (write: (content: string) => Promise<unknown>, tag: string) => {
    const out: number[] = [];
    for (let k = 0; k < trials; k++) {
      const content = `${tag} ${k} ${Math.random().toString(36).slice(2)}`;
      await write(content);
      const t0 = performance.now();
      while (!(await b.req('GET', `/todo_lists/${LB}/todo_items.xml`)).body.includes(content)) {
        if (performance.now() - t0 > 60_000) throw new Error(`${tag}: not seen within 60 s`);
        await new Promise((r) => setTimeout(r, 5));
      }
      out.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 300)); // writes apart, at random phases of the stream's poll
    }
    return out;
  };
  const r2r = await propagate((c) => a.req('POST', `/todo_lists/${LA}/todo_items.xml`, `${XMLD}<todo-item><content>${c}</content></todo-item>`), 'replica');
  const t2r = await propagate((c) => asTeam('POST', `/todo_lists/${LT}/todo_items.xml`, `${XMLD}<todo-item><content>${c}</content></todo-item>`), 'team');
  say(`\n## live sync: propagation with default settings (${trials} changes each way, real clock; goal p95 ≤ 1 s)`);
  say('| from → to | p50 | p95 | max |');
  say('|---|---|---|---|');
  say(`| replica (Ada) → replica (Fran) | ${ms(pct(r2r, 0.5))} | ${ms(pct(r2r, 0.95))} | ${ms(Math.max(...r2r))} |`);
  say(`| team server → replica (Fran) | ${ms(pct(t2r, 0.5))} | ${ms(pct(t2r, 0.95))} | ${ms(Math.max(...t2r))} |`);
  // Idle: nothing changes anywhere; what one replica sends, and what an idle sync commits locally.
  const idleSec = Number(process.env.BENCH_IDLE_SEC ?? 60);
  await new Promise((r) => setTimeout(r, 2000));
  const r0 = b.engine.requests;
  await new Promise((r) => setTimeout(r, idleSec * 1000));
  const perMin = (b.engine.requests - r0) / (idleSec / 60);
  const commitsOf = async () => Number((await b.store.changeToken()).split(':')[0]);
  const c0 = await commitsOf();
  const SYNCS = 10;
  const q0 = b.engine.requests;
  for (let k = 0; k < SYNCS; k++) await b.engine.run();
  const perSync = (b.engine.requests - q0) / SYNCS;
  say(`\n## live sync: an idle replica (team server, stream open: ${b.engine.following})`);
  say('| requests per minute (idle, observed ' + idleSec + ' s) | requests per idle sync | local commits per idle sync |');
  say('|---|---|---|');
  say(`| ${perMin.toFixed(2)} | ${perSync.toFixed(1)} | ${((await commitsOf() - c0) / SYNCS).toFixed(2)} |`);
  for (const s of [a, b]) { s.engine.stop(); await s.app.close(); await s.store.close(); }
  await team.close();
  await teamStore.close();
}

// ---- 8: the clone of a large account, uninterrupted and killed half way (issue #26, D346) -----------------
// The real CLI twice: a team server (SQLite) on bench/dataset.ts's account (BENCH_SIZES scaled by BENCH_CLONE_SCALE,
// 0.2 by default: 55,224 rows; 1 is bench:api's 275,000), and a replica (`serve --remote` on an empty directory) cloning it through a
// counting proxy. Records = rows of the replica's account tables once the clone is done (companies, people,
// projects, categories, milestones, posts, comments, lists, items, time entries); the clone's time runs from
// the replica's first request to the team server to its sync status idle after the success. Then the same clone
// SIGKILLed when the feed request half way is asked, and started again on the same directory.
if (!only || only === 'clone') {
  const { serveChild, peakRssMb, countingProxy, cloneSettled } = await import('./support/clone-run.ts');
  const { BENCH_SIZES, benchFixture } = await import('./dataset.ts');
  const BIN = join(ROOT, 'electron', 'bin.mjs');
  const scale = Number(process.env.BENCH_CLONE_SCALE ?? 0.2);
  const sizesC = Object.fromEntries(Object.entries(BENCH_SIZES).map(([k, v]) => [k, k === 'projects' || k === 'people' ? v : Math.round(v * scale)]));
  const teamDir = join(tmp, 'clone-team');
  mkdirSync(teamDir, { recursive: true });
  const ts = new SqliteStore(join(teamDir, 'bivouac.sqlite'));
  await importSeed(ts, benchFixture());
  const TABLES = ['companies', 'people', 'projects', 'categories', 'milestones', 'posts', 'comments', 'todo_lists', 'todo_items', 'time_entries'];
  const rowsOf = async (st: SqliteStore) => { let n = 0; for (const t of TABLES) n += (await st.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t}`))!.n; return n; };
  const seedRows = await rowsOf(ts);
  const tg = performance.now();
  await generateDataset(ts, sizesC);
  const genMs = performance.now() - tg;
  const teamRows = await rowsOf(ts);
  const { replicaFloor } = await import('./support/clone-floor.ts');
  mkdirSync(join(tmp, 'clone-floor'), { recursive: true });
  const floor = await replicaFloor(ts, join(tmp, 'clone-floor', 'bivouac.sqlite'));
  await ts.close();
  say(`\n## clone of a large account (a \`bivouac serve\` team server on SQLite → a \`bivouac serve --remote\` replica, both child processes)`);
  say(`account: ${teamRows} rows in the team server's account tables (the fixture + generateDataset ${JSON.stringify(sizesC)})`);
  // The floor: the generated records written straight into a SQLite store (its Writer: rows and their change-log
  // entries, no HTTP, no sync bookkeeping), in this process.
  say(`floor: the generator wrote its ${teamRows - seedRows} rows straight into a store (no HTTP, no sync) at ${((teamRows - seedRows) / (genMs / 1000)).toFixed(0)} rows/s (${ms(genMs)})`);
  // The replica's floor (D350): the same records as an ideal replica keeps them (row, feed entry, id-map row, shadow),
  // written in bulk into a new store, timed alone (bench/support/clone-floor.ts).
  say(`replica floor: the team server's ${floor.records} records written as an ideal replica keeps them (rows with their feed entries, id-map rows, shadows; multi-row statements, 1,000 a transaction; no HTTP, no decoding, no merge) at ${(floor.records / (floor.ms / 1000)).toFixed(0)} records/s (${ms(floor.ms)})`);
  const team = await serveChild(BIN, teamDir, []);
  const auth = basic(ADA['user-name'], ADA.password);
  const cloneArgs = (url: string) => ['--remote', url, '--remote-user', ADA['user-name']];
  const env = { BIVOUAC_REMOTE_PASSWORD: ADA.password, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${process.env.BENCH_CLONE_CHILD_FLAGS ?? ''}` };
  say('| clone | records cloned | feed pages | requests | time (first request → idle) | records/s | replica peak RSS (VmHWM) |');
  say('|---|---|---|---|---|---|---|');
  const cloneOnce = async (name: string, killAt: number | null) => {
    const dir = join(tmp, name);
    mkdirSync(dir, { recursive: true });
    const proxy = await countingProxy(team.url);
    const t0 = performance.now();
    const peaks: number[] = [];
    const started: number[] = [];
    if (killAt !== null) {
      const s = await serveChild(BIN, dir, cloneArgs(proxy.url), env);
      await new Promise<void>((ok) => { proxy.killAtFeed = { n: killAt, kill: () => { peaks.push(peakRssMb(s.child.pid!)); s.child.kill('SIGKILL'); ok(); } }; });
      await s.exited;
      started.push(proxy.requests);
    }
    const s = await serveChild(BIN, dir, cloneArgs(proxy.url), env);
    await cloneSettled(s, auth, proxy);
    const t1 = performance.now();
    peaks.push(peakRssMb(s.child.pid!));
    // With BENCH_CLONE_CHILD_FLAGS="--import bench/support/mem-probe.mjs": the breakdown of the replica's memory at its peak sample.
    if (process.env.BENCH_CLONE_CHILD_FLAGS?.includes('mem-probe')) {
      s.child.kill('SIGUSR2');
      for (let k = 0; k < 100 && !/mem-probe \{.*\}\n/.test(s.stderr()); k++) await new Promise((r) => setTimeout(r, 20));
      say(`  ${name}: ${/mem-probe (\{.*\})\n/.exec(s.stderr())?.[1] ?? 'no mem-probe line'}`);
    }
    // BENCH_CLONE_CHILD_FLAGS (node options of the replica, e.g. --cpu-prof): stopped by SIGTERM so that it writes its profile.
    if (process.env.BENCH_CLONE_CHILD_FLAGS) { s.child.kill('SIGTERM'); await s.exited; } else await s.kill();
    const st = new SqliteStore(join(dir, 'bivouac.sqlite'));
    const rows = await rowsOf(st);
    await st.close();
    if (process.env.BENCH_CLONE_PATHS) say(proxy.paths.join('\n'));
    const out = { remoteMs: proxy.remoteMs, feedMs: proxy.feedMs, rows, feed: proxy.feed, requests: proxy.requests, ms: t1 - (proxy.firstAt || t0), peak: Math.max(...peaks), before: started[0] ?? 0 };
    await proxy.close();
    return out;
  };
  const whole = await cloneOnce('clone-whole', null);
  const split = (x: typeof whole) => `the team server's answers ${ms(x.remoteMs)} (the feed's ${ms(x.feedMs)}), the rest (the replica, the loopback) ${ms(x.ms - x.remoteMs)}`;
  say(`| uninterrupted | ${whole.rows} | ${whole.feed} | ${whole.requests} | ${ms(whole.ms)} | ${(whole.rows / (whole.ms / 1000)).toFixed(0)} (goal ≥ 20,000) | ${whole.peak.toFixed(0)} MB |`);
  if (process.env.BENCH_CLONE_CHILD_FLAGS) say(`where the uninterrupted clone's time went: ${split(whole)}`);
  const half = Math.max(1, Math.floor(whole.feed / 2));
  const cut = await cloneOnce('clone-killed', half);
  say(`| killed at feed request ${half}, restarted | ${cut.rows} | ${cut.feed} | ${cut.requests} (${cut.before} before the kill) | ${ms(cut.ms)} (first request → idle, the restart included) | ${(cut.rows / (cut.ms / 1000)).toFixed(0)} | ${cut.peak.toFixed(0)} MB (the worse of the two processes) |`);
  say(`where the uninterrupted clone's time went: ${split(whole)}`);
  say(`interrupted / uninterrupted: requests ${(cut.requests / whole.requests).toFixed(3)} (goal ≤ 1.3), feed pages ${(cut.feed / whole.feed).toFixed(3)}; rows ${cut.rows === whole.rows && whole.rows === teamRows ? 'equal to the team server\'s in both' : `DIFFER (team ${teamRows}, uninterrupted ${whole.rows}, killed ${cut.rows})`}`);
  await team.kill();
}

mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
const outFile = only ? process.env.BENCH_OUT : join(ROOT, 'bench', 'results', 'sync.md');
if (outFile) writeFileSync(outFile, `${lines.join('\n')}\n`);
filter.closeAllConnections();
filter.close();
await remoteApp.close();
await remoteStore.close();
rmSync(tmp, { recursive: true, force: true });
process.exit(0);
