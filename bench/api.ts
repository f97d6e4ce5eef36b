// npm run bench:api — the local API under load, against a bare Fastify route, in one run.
//
//  1. Generates a large account (seed fixture + generateDataset) into a temporary data dir.
//  2. Cold start: spawns the real CLI (`electron/bin.mjs serve`) on that data dir and times it
//     until /health answers (3 starts, median). The last one stays up as the service under test.
//  3. Starts a bare Fastify route answering a small fixed XML string in another process.
//  4. Drives both with autocannon (10 connections, loopback, Basic auth as the seed's admin) and
//     prints throughput ratios and p99 latencies; times the time report (one person, one month);
//     reads the service's RSS after the load.
//  4b. A mixed workload on both services (cache off and cached): random records of every resource
//     type, a different record each request, 10 % writes (which change the store and so invalidate
//     cached responses), against the same bare route.
//  5. XML output: the escaped-template serializer (shared/codec/out.ts) against fast-xml-parser's
//     XMLBuilder on the same 50-record document (same content).
// Results go to stdout and, for a full run, bench/results/api.md (updated in place: its history is git's;
// bench/README.md says how to read it). Not part of `npm test`.
//
// Environment: BENCH_DURATION=S (seconds per run, default 6); BENCH_ONLY=REGEX (only the targets whose
// label matches, `mixed` for the mixed workload); BENCH_BASELINE=GIT-REF (also runs that commit's service,
// cache off, on the same data and the same bare runs: before/after side by side in one run); BENCH_OUT=FILE
// (a file of bench/results/ to write instead of api.md; a run with BENCH_ONLY writes none without it).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync, symlinkSync } from 'node:fs';
import { tmpdir, cpus, totalmem, loadavg } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { XMLBuilder } from 'fast-xml-parser';
import { cliEntry } from './dataset.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURE = join(ROOT, 'tests', 'fixtures', 'account.json');
const require = createRequire(import.meta.url);
const BARE_XML = '<?xml version="1.0" encoding="UTF-8"?>\n<ok>\n  <id type="integer">1</id>\n  <name>bare</name>\n</ok>\n';

// ---- the bare route, in its own process (`node bench/api.ts --bare`) ----------------------
if (process.argv.includes('--bare')) {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  app.get('/bare.xml', async (_req, reply) => reply.type('application/xml; charset=utf-8').send(BARE_XML));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  process.stdout.write(`listening ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
  process.on('SIGTERM', () => { void app.close().then(() => process.exit(0)); });
} else {
  await main();
}

// ---- autocannon (no bundled types) --------------------------------------------------------
interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number; errors: number; timeouts: number;
}
interface CannonRequest { method?: string; path?: string; headers?: Record<string, string>; body?: string }
type Cannon = (o: {
  url: string; connections: number; duration: number; headers?: Record<string, string>; pipelining?: number;
  requests?: { setupRequest: (req: CannonRequest) => CannonRequest }[];
}) => Promise<CannonResult>;

interface Row { metric: string; value: string; goal: string; ok: boolean | null }

async function main(): Promise<void> {
  const t0 = performance.now();
  const loadBefore = loadavg()[0];
  const autocannon = require('autocannon') as Cannon;
  const { SqliteStore } = await import('../electron/store/sqlite.ts');
  const { importSeed } = await import('../electron/service/account.ts');
  const { generateDataset } = await import('../electron/service/dataset.ts');
  const { DB_FILE } = await import('../electron/server.ts');

  const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { people: { 'user-name': string; password: string; administrator?: boolean }[] };
  const admin = fixture.people.find((p) => p.administrator)!;
  const auth = `Basic ${Buffer.from(`${admin['user-name']}:${admin.password}`).toString('base64')}`;
  const dir = mkdtempSync(join(tmpdir(), 'bivouac-bench-'));
  const rows: Row[] = [];
  const notes: string[] = [];
  const children: ChildProcess[] = [];
  const log = (s: string) => process.stdout.write(`${s}\n`);
  const cleanup = () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('SIGINT', () => { cleanup(); process.exit(130); });

  try {
    // ---- 1. dataset
    const sizes = { projects: 10, people: 20, posts: 5000, comments: 50_000, todoItems: 20_000, timeEntries: 200_000 };
    log(`generating the dataset into ${dir} …`);
    // With a baseline, the older code generates the (seeded, so identical) dataset into its own data
    // directory, and this tree opens a copy of it (migrating it forward): each service has its own file
    // in its own schema, with the same records.
    const baselineRef = process.env.BENCH_BASELINE;
    const baseTree = baselineRef ? checkout(baselineRef, dir) : null;
    const baseDir = join(dir, 'before');
    let summary!: Awaited<ReturnType<typeof generateDataset>>;
    if (baseTree) {
      const from = (p: string) => import(pathToFileURL(join(baseTree, p)).href);
      mkdirSync(baseDir, { recursive: true });
      const old = new (await from('electron/store/sqlite.ts')).SqliteStore(join(baseDir, DB_FILE));
      await (await from('electron/service/account.ts')).importSeed(old, JSON.parse(readFileSync(FIXTURE, 'utf8')));
      summary = await (await from('electron/service/dataset.ts')).generateDataset(old, sizes);
      await old.close();
      copyFileSync(join(baseDir, DB_FILE), join(dir, DB_FILE));
    }
    const store = new SqliteStore(join(dir, DB_FILE));
    if (!baseTree) {
      await importSeed(store, JSON.parse(readFileSync(FIXTURE, 'utf8')));
      summary = await generateDataset(store, sizes);
    }
    const c = summary.counts;
    log(`  ${c.projects} projects (+ the fixture's), ${c.people} extra people, ${c.posts} posts, ${c.comments} comments, ${c.todoLists} lists, ${c.todoItems} items, ${c.timeEntries} time entries in ${summary.ms} ms`);
    // Targets for the requests, read straight from the store.
    const list = summary.biggestList!;
    const item = (await store.get<{ id: number }>('SELECT id FROM todo_items WHERE todo_list_id = ? ORDER BY position LIMIT 1', [list]))!.id;
    const post = (await store.get<{ id: number }>('SELECT id FROM posts WHERE private = 0 ORDER BY id DESC LIMIT 1'))!.id;
    const entry = (await store.get<{ id: number }>('SELECT id FROM time_entries ORDER BY id DESC LIMIT 1'))!.id;
    const busy = (await store.get<{ project_id: number; n: number }>('SELECT project_id, COUNT(*) AS n FROM time_entries GROUP BY project_id ORDER BY n DESC LIMIT 1'))!;
    const today = new Date();
    const ymd = (d: Date) => d.toISOString().slice(0, 10).replace(/-/g, '');
    const from = ymd(new Date(today.getTime() - 30 * 86_400_000)), to = ymd(today);
    const person = (await store.get<{ person_id: number; n: number }>(`SELECT te.person_id, COUNT(*) AS n FROM time_entries te
      JOIN people pe ON pe.id = te.person_id JOIN companies co ON co.id = pe.company_id
      WHERE co.firm = 1 AND te.date >= ? AND te.date <= ? GROUP BY te.person_id ORDER BY n DESC LIMIT 1`,
      [`${from.slice(0, 4)}-${from.slice(4, 6)}-${from.slice(6)}`, `${to.slice(0, 4)}-${to.slice(4, 6)}-${to.slice(6)}`]))!;
    const entryRows = (await import('../electron/store/queries/time-entries.ts'));
    const benchCaller = { id: 0, companyId: 0, firm: true, admin: true, name: 'bench' };
    const docRows = await entryRows.listProjectEntries(store, benchCaller, busy.project_id, 50, 0);
    const { mixedPools, mixedRun } = await import('./mixed.ts');
    const pools = await mixedPools(store);
    // Different records each request (D185): every list with items, every project's first five pages.
    const allLists = (await store.all<{ id: number }>('SELECT DISTINCT todo_list_id AS id FROM todo_items ORDER BY todo_list_id')).map((r) => Number(r.id));
    const entryProjects = (await store.all<{ id: number }>('SELECT project_id AS id FROM time_entries GROUP BY project_id HAVING COUNT(*) >= 250 ORDER BY project_id')).map((r) => Number(r.id));
    await store.close();

    // ---- 2. cold start (median of 3), the last server stays up
    const starts: number[] = [];
    let service!: { child: ChildProcess; base: string };
    for (let k = 0; k < 3; k++) {
      const s = await startService(dir);
      starts.push(s.ms);
      if (k < 2) await stop(s.child);
      else { service = s; children.push(s.child); }
    }
    const cold = median(starts);
    // The same service with its response cache off: every request runs its queries and renders.
    const raw = await startService(dir, ['--response-cache', '0']);
    children.push(raw.child);
    let baseline: { child: ChildProcess; base: string } | null = null;
    if (baselineRef && baseTree) {
      baseline = await startService(baseDir, ['--response-cache', '0'], baseTree);
      children.push(baseline.child);
      log(`baseline ${baselineRef} (${gitShort(baselineRef)}) runs from ${baseTree} on ${baseDir}`);
    }
    const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
    type Svc = { base: string; child: ChildProcess };
    const services: [string, Svc][] = [['cache off', raw], ['cached', service], ...(baseline ? [[`before (${baselineRef}), cache off`, baseline] as [string, Svc]] : [])];
    log(`cold start to /health: ${starts.map((m) => m.toFixed(0)).join(', ')} ms (median ${cold.toFixed(0)})`);

    // ---- 3. bare route
    const bare = await startBare();
    children.push(bare.child);

    // ---- 4. load
    const headers = { authorization: auth };
    const check = async (path: string): Promise<boolean> => {
      try {
        const r = await fetch(`${service.base}${path}`, { headers });
        await r.arrayBuffer();
        return r.status === 200;
      } catch { return false; }
    };
    // Each API run is paired with bare runs right before and after it (half the duration each),
    // so that a change in machine load during the bench hits both sides of a ratio alike.
    const DURATION = Number(process.env.BENCH_DURATION ?? 6);
    const run = async (url: string, duration: number, h?: Record<string, string>): Promise<CannonResult> => {
      const r = await autocannon({ url, connections: 10, duration, headers: h });
      if (r.non2xx || r.errors || r.timeouts) notes.push(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
      return r;
    };
    const bareUrl = `${bare.base}/bare.xml`;
    await run(bareUrl, 1); // warm-up
    const bareRuns: CannonResult[] = [];
    const bareCpu: number[] = [];
    const bareRun = async (): Promise<{ rate: number; cpu: number }> => {
      const { r, cpu } = await measured(bare.child, () => run(bareUrl, Math.max(1, Math.round(DURATION / 2))));
      bareRuns.push(r);
      bareCpu.push(cpu);
      return { rate: r.requests.average, cpu };
    };
    /**
     * One API run between two bare runs. Two ratios: throughput (req/s of the API / req/s of the bare
     * route) and CPU cost (server CPU time per bare request / per API request, read from /proc). The
     * load generator shares the 2 cores, and other processes may too: the CPU ratio is what the
     * server itself costs, and moves much less with the machine's load.
     */
    const compare = async (svc: Svc, go: () => Promise<CannonResult>) => {
      const before = await bareRun();
      const { r, cpu } = await measured(svc.child, go);
      const after = await bareRun();
      const ref = (before.rate + after.rate) / 2, refCpu = (before.cpu + after.cpu) / 2;
      return { r, ref, ratio: r.requests.average / ref, cpu, refCpu, cpuRatio: refCpu / cpu };
    };
    const show = (x: Awaited<ReturnType<typeof compare>>) =>
      `${x.ratio.toFixed(2)}; CPU ${x.cpuRatio.toFixed(2)} (${fmt(x.r.requests.average)} vs ${fmt(x.ref)} req/s; ${x.cpu.toFixed(0)} vs ${x.refCpu.toFixed(0)} µs CPU per request; p50 ${x.r.latency.p50} ms, p99 ${x.r.latency.p99} ms)`;

    /** A path per request, in turn (autocannon's request hook). */
    const rotating = (paths: readonly string[]) => {
      let k = 0;
      return [{ setupRequest: (req: CannonRequest): CannonRequest => ({ ...req, method: 'GET', path: paths[k++ % paths.length], headers }) }];
    };
    const lists = allLists.map((id) => `/todo_lists/${id}/todo_items.xml`);
    const pages = entryProjects.flatMap((p) => [1, 2, 3, 4, 5].map((n) => `/projects/${p}/time_entries.xml?page=${n}`));
    const targets: { label: string; path: string; kind: 'one' | 'list'; paths?: string[] }[] = [
      { label: 'todo item', path: `/todo_items/${item}.xml`, kind: 'one' },
      { label: 'post', path: `/posts/${post}.xml`, kind: 'one' },
      { label: 'time entry', path: `/time_entries/${entry}.xml`, kind: 'one' },
      { label: '50-item todo list', path: `/todo_lists/${list}/todo_items.xml`, kind: 'list' },
      { label: 'time entries page (50)', path: `/projects/${busy.project_id}/time_entries.xml?page=2`, kind: 'list' },
      { label: `todo lists, a different one each request (${lists.length} lists, ~${Math.round(c.todoItems / Math.max(1, lists.length))} items each)`, path: lists[0], kind: 'list', paths: lists },
      { label: `time entries pages (50), a different one each request (${pages.length} pages)`, path: pages[0], kind: 'list', paths: pages },
    ];
    let worstP99 = 0;
    // The p99 goal is read strictly (D226): the worst of every run of this tree, the cache on and the mixed workload
    // included. Beside it, the worst of the cache-off single-record and list runs (fixed and read in turn), for reference.
    let listP99 = 0;
    const apiRows: Row[] = [];
    // Each target twice: the default service (repeat reads come from the response cache) and the
    // service with the cache off (every request queries and renders).
    for (const t of targets) {
      if (only && !only.test(t.label)) continue;
      for (const [mode, svc] of services) {
        if (!(await check(t.path))) {
          notes.push(`skipped ${t.label} (${t.path}): the route does not answer 200 yet`);
          log(`skip ${t.label}: ${t.path} does not answer 200`);
          break;
        }
        const go = (duration: number) => (t.paths
          ? autocannon({ url: svc.base, connections: 10, duration, requests: rotating(t.paths) })
          : run(`${svc.base}${t.path}`, duration, headers));
        await go(1); // warm-up
        const x = await compare(svc, () => go(DURATION));
        if (t.paths && (x.r.non2xx || x.r.errors || x.r.timeouts)) notes.push(`${t.label} (${mode}): ${x.r.non2xx} non-2xx, ${x.r.errors} errors, ${x.r.timeouts} timeouts`);
        const goal = t.kind === 'one' ? 0.5 : 0.25;
        if (svc !== baseline) worstP99 = Math.max(worstP99, x.r.latency.p99); // this tree only
        if (svc !== baseline && mode === 'cache off') listP99 = Math.max(listP99, x.r.latency.p99);
        log(`${t.label} (${mode}) ${t.path}: ${show(x)}`);
        apiRows.push({
          metric: `${t.kind === 'one' ? 'single-record' : '50-record list'} GET ${t.label}, ${mode}, vs bare: throughput; CPU`,
          value: show(x), goal: `≥ ${goal}`, ok: x.ratio >= goal,
        });
      }
    }
    // Mixed workload: what a team's clients do (different records, writes in between).
    for (const [mode, svc] of only && !only.test('mixed') ? [] : services) {
      await mixedRun(svc.base, 1, pools, headers); // warm-up
      const x = await compare(svc, () => mixedRun(svc.base, DURATION, pools, headers));
      const r = x.r;
      if (svc !== baseline) worstP99 = Math.max(worstP99, r.latency.p99);
      if (r.non2xx || r.errors || r.timeouts) notes.push(`mixed (${mode}): ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
      log(`mixed workload (${mode}): ${show(x)}`);
      apiRows.push({
        metric: `mixed workload (90 % reads of random records of every type, single and lists; 10 % writes), ${mode}, vs bare: throughput; CPU`,
        value: show(x), goal: 'reported', ok: null,
      });
    }
    const bareAvg = bareRuns.reduce((n, r) => n + r.requests.average, 0) / Math.max(1, bareRuns.length);
    const bareP99 = Math.max(0, ...bareRuns.map((r) => r.latency.p99));
    log(`bare route: ${bareAvg.toFixed(0)} req/s on average over ${bareRuns.length} runs (${bareRuns.map((r) => r.requests.average.toFixed(0)).join(', ')}), worst p99 ${bareP99} ms`);
    rows.push({ metric: 'bare Fastify route (fixed XML), 10 connections', value: `${fmt(bareAvg)} req/s (runs: ${bareRuns.map((r) => fmt(r.requests.average)).join(', ')}), worst p99 ${bareP99} ms`, goal: 'reference', ok: null });
    rows.push(...apiRows);
    rows.push({ metric: 'p99 latency at 10 connections (worst of every run of this tree: the cache on too, and the mixed workload)', value: `${worstP99} ms`, goal: '< 5 ms', ok: worstP99 > 0 ? worstP99 < 5 : null });
    rows.push({ metric: 'p99 latency at 10 connections, cache off (worst of this tree\'s single-record and list runs: a fixed record, list and page, and lists and pages read in turn)', value: `${listP99} ms`, goal: 'reference', ok: null });

    // Time report: one person, one month; sequential requests on a keep-alive connection.
    const report = async (path: string) => {
      const times: number[] = [];
      let bytes = 0, n = 0;
      for (let k = 0; k < 65; k++) {
        const s = performance.now();
        const r = await fetch(`${raw.base}${path}`, { headers });
        const body = await r.text();
        const ms = performance.now() - s;
        if (r.status !== 200) throw new Error(`${path} answered ${r.status}: ${body.slice(0, 200)}`);
        if (k >= 5) times.push(ms);
        bytes = body.length;
        n = (body.match(/<time-entry>/g) ?? []).length;
      }
      return { med: median(times), p90: quantile(times, 0.9), bytes, n };
    };
    const rq = await report(`/time_entries/report.xml?subject_id=${person.person_id}&from=${from}&to=${to}`);
    log(`time report, one person over one month (${rq.n} entries, ${fmt(rq.bytes)} bytes): median ${rq.med.toFixed(1)} ms, p90 ${rq.p90.toFixed(1)} ms`);
    rows.push({ metric: `time report, one person, one month (${rq.n} entries of ${fmt(c.timeEntries)}), cache off, median of 60`, value: `${rq.med.toFixed(1)} ms (p90 ${rq.p90.toFixed(1)} ms)`, goal: '< 20 ms', ok: rq.med < 20 });
    const lq = await report(`/time/report/${person.person_id}/${from}/${to}/`);
    rows.push({ metric: 'legacy /time/report/{person}/{from}/{to}/, same report', value: `${lq.med.toFixed(1)} ms`, goal: '< 20 ms', ok: lq.med < 20 });

    rows.push({ metric: 'cold start to /health with the dataset (median of 3)', value: `${cold.toFixed(0)} ms (${starts.map((m) => m.toFixed(0)).join(', ')})`, goal: '< 500 ms', ok: cold < 500 });
    const rss = rssMb(service.child.pid!);
    rows.push({ metric: 'service RSS after the load', value: rss === null ? 'n/a' : `${rss.toFixed(0)} MB`, goal: '< 200 MB', ok: rss === null ? null : rss < 200 });
    log(`service RSS after load: ${rss === null ? 'n/a' : `${rss.toFixed(0)} MB`}`);
    // The other services went through the same runs (the baseline without the time report): their RSS
    // beside it, so a change in memory shows against the older code in the same run (D130, D131).
    for (const [mode, svc] of services.filter(([, s]) => s !== service)) {
      const m = rssMb(svc.child.pid!);
      rows.push({ metric: `service RSS after the load, ${mode}`, value: m === null ? 'n/a' : `${m.toFixed(0)} MB`, goal: 'reference', ok: null });
    }

    // ---- 5. XML output
    // Loaded here so the bare process never imports the codec.
    const x = xmlCompare(docRows, await import('../shared/codec/out.ts'), (await import('../shared/registry.ts')).RESOURCES.timeEntry);
    log(`XML, 50 time entries: templates ${x.tpl.toFixed(1)} µs, XMLBuilder ${x.builder.toFixed(1)} µs per document (builder/templates ${x.ratio.toFixed(2)}x), same content: ${x.same}`);
    rows.push({ metric: 'XML out, 50-record document: XMLBuilder time / template time', value: `${x.ratio.toFixed(2)}x (templates ${x.tpl.toFixed(0)} µs, builder ${x.builder.toFixed(0)} µs; same content: ${x.same})`, goal: 'reference (> 1 = templates faster)', ok: null });
    if (!x.same) notes.push('XMLBuilder output differs from the template output after whitespace normalisation');

    const total = (performance.now() - t0) / 1000;
    const md = [
      '# API bench (npm run bench:api)', '',
      `Run: ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, total ${total.toFixed(0)} s.`,
      `Machine load (1-min load average) before/after the run: ${loadBefore.toFixed(2)} / ${loadavg()[0].toFixed(2)}. Above ~1 other processes share the cores and every figure is pessimistic and noisy.`,
      `Dataset: ${summary.projects.length} projects, ${c.posts} posts, ${c.comments} comments, ${c.todoLists} todo lists, ${c.todoItems} todo items, ${c.timeEntries} time entries (generated in ${(summary.ms / 1000).toFixed(1)} s).`,
      `Load: autocannon, 10 connections, ${DURATION} s per run after a 1 s warm-up, loopback, Basic auth (the seed's admin); the load generator runs on the same 2 cores as the server.`,
      `Command: ${[process.env.BENCH_DURATION && `BENCH_DURATION=${process.env.BENCH_DURATION}`, process.env.BENCH_ONLY && `BENCH_ONLY='${process.env.BENCH_ONLY}'`, baselineRef && `BENCH_BASELINE=${baselineRef}`, process.env.BENCH_OUT && `BENCH_OUT=${process.env.BENCH_OUT}`].filter(Boolean).join(' ')} npm run bench:api${baselineRef ? ` (baseline ${baselineRef} = ${gitShort(baselineRef)}; this tree = ${gitShort('HEAD')}${spawnSync('git', ['-C', ROOT, 'status', '--porcelain', 'electron', 'shared'], { encoding: 'utf8' }).stdout.trim() ? ' + uncommitted changes' : ''})` : ''}.`, '',
      '| Metric | Value | Goal | Met |', '|---|---|---|---|',
      ...rows.map((r) => `| ${r.metric} | ${r.value} | ${r.goal} | ${r.ok === null ? '-' : r.ok ? 'yes' : '**no**'} |`),
      '', ...(notes.length ? ['Notes:', ...notes.map((n) => `- ${n}`), ''] : []),
    ].join('\n');
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    const outFile = process.env.BENCH_OUT ?? (process.env.BENCH_ONLY ? null : 'api.md');
    if (outFile) writeFileSync(join(ROOT, 'bench', 'results', outFile), md);
    log(`\n${md}`);
    log(outFile ? `written to bench/results/${outFile}` : 'a partial run (BENCH_ONLY): bench/results/api.md left as it was');
  } finally {
    cleanup();
  }
  process.exit(0);
}

// ---- processes ----------------------------------------------------------------------------

/** Spawn the real CLI on the data dir; resolve once /health answers 200. */
async function startService(dir: string, extra: readonly string[] = [], root = ROOT): Promise<{ child: ChildProcess; base: string; ms: number }> {
  const t = performance.now();
  const child = spawn(process.execPath, [cliEntry(root), 'serve', '--port', '0', '--data-dir', dir, '--no-demo', '--log-level', 'warn', ...extra],
    { stdio: ['ignore', 'pipe', 'inherit'], cwd: root });
  const base = await new Promise<string>((res, rej) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /running at (http:\/\/[^/\s]+)/.exec(out);
      if (m) res(m[1]);
    });
    child.on('exit', (code) => rej(new Error(`the service exited with ${code}: ${out}`)));
  });
  for (;;) {
    try {
      const r = await fetch(`${base}/health`);
      await r.text();
      if (r.status === 200) break;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 2));
  }
  return { child, base, ms: performance.now() - t };
}

async function startBare(): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--bare'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((res, rej) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) res(Number(m[1]));
    });
    child.on('exit', (code) => rej(new Error(`the bare server exited with ${code}`)));
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

/** The service's code at a git ref, extracted next to the data (node_modules shared by a symlink). */
function checkout(ref: string, dir: string): string {
  const tree = join(dir, 'baseline');
  mkdirSync(tree, { recursive: true });
  const tar = spawnSync('sh', ['-c', `git -C "${ROOT}" archive "${ref}" electron shared package.json | tar -x -C "${tree}"`], { stdio: 'inherit' });
  if (tar.status !== 0) throw new Error(`cannot extract ${ref}`);
  symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
  return tree;
}
function gitShort(ref: string): string { return spawnSync('git', ['-C', ROOT, 'rev-parse', '--short', ref], { encoding: 'utf8' }).stdout.trim(); }

function stop(child: ChildProcess): Promise<void> {
  return new Promise((res) => {
    if (child.exitCode !== null) { res(); return; }
    child.once('exit', () => res());
    child.kill('SIGTERM');
  });
}

/** CPU time (user + system, µs) a process used so far, from /proc (Linux); 0 elsewhere. */
function cpuMicros(pid: number | undefined): number {
  const f = `/proc/${pid}/stat`;
  if (pid === undefined || !existsSync(f)) return 0;
  const fields = readFileSync(f, 'utf8').replace(/^.*\) /s, '').split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / 100) * 1e6; // utime, stime in ticks of 1/100 s
}

/** Run a load and report the server's CPU time per request served. */
async function measured(child: ChildProcess, go: () => Promise<CannonResult>): Promise<{ r: CannonResult; cpu: number }> {
  const c0 = cpuMicros(child.pid);
  const r = await go();
  return { r, cpu: (cpuMicros(child.pid) - c0) / Math.max(1, r.requests.total) };
}

function rssMb(pid: number): number | null {
  const f = `/proc/${pid}/status`;
  if (!existsSync(f)) return null;
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(f, 'utf8'));
  return m ? Number(m[1]) / 1024 : null;
}

// ---- XML: templates vs XMLBuilder ---------------------------------------------------------

type Out = typeof import('../shared/codec/out.ts');
type Res = typeof import('../shared/registry.ts')['RESOURCES']['timeEntry'];

function xmlCompare(rows: Record<string, unknown>[], out: Out, R: Res): { tpl: number; builder: number; ratio: number; same: boolean } {
  const view = { callerId: 0, firm: true, admin: true };
  const builder = new XMLBuilder({
    ignoreAttributes: false, attributeNamePrefix: '@_', format: true, indentBy: '  ', suppressEmptyNode: false,
    processEntities: true, suppressBooleanAttributes: false,
  });
  const TYPED = new Set(['integer', 'boolean', 'date', 'datetime', 'float']);
  /** The same document as an XMLBuilder object, built from the same rows and registry fields. */
  const viaBuilder = (): string => {
    const recs = rows.map((row) => {
      const o: Record<string, unknown> = {};
      for (const f of R.fields) {
        if (f.show === 'firm' && !view.firm) continue;
        const v = row[f.name.replace(/-/g, '_')];
        const attrs: Record<string, string> = TYPED.has(f.type) ? { '@_type': f.type } : {};
        if (v === null || v === undefined) { o[f.name] = { ...attrs, '@_nil': 'true', '#text': '' }; continue; }
        const text = f.type === 'float' ? out.formatFloat(Number(v)) : f.type === 'boolean' ? (v === 1 || v === true ? 'true' : 'false') : String(v);
        o[f.name] = { ...attrs, '#text': text };
      }
      return o;
    });
    return `${out.XML_DECL}${builder.build({ [R.collection]: { '@_type': 'array', [R.element]: recs } }) as string}`;
  };
  const viaTemplates = (): string => out.xmlMany(R, rows, view);
  const norm = (s: string) => s.replace(/>\s+</g, '><').replace(/<([\w-]+)([^>]*)\/>/g, '<$1$2></$1>').trim();
  const same = norm(viaBuilder()) === norm(viaTemplates());
  const time = (fn: () => string): number => {
    for (let i = 0; i < 300; i++) fn();
    const n = 3000;
    const s = performance.now();
    for (let i = 0; i < n; i++) fn();
    return ((performance.now() - s) / n) * 1000;
  };
  const tpl = time(viaTemplates);
  const b = time(viaBuilder);
  return { tpl, builder: b, ratio: b / tpl, same };
}

// ---- small helpers ------------------------------------------------------------------------
function median(xs: readonly number[]): number { return quantile(xs, 0.5); }
function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}
function fmt(n: number): string { return Math.round(n).toLocaleString('en-US'); }
