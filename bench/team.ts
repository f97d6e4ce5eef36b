// npm run bench:team — the team server on PostgreSQL against the same server on SQLite, in one run.
//
//  1. A throwaway PostgreSQL cluster (scripts/pg-cluster.mjs; synchronous_commit=off, as SQLite's
//     WAL + synchronous=NORMAL also may lose the last commits on a power cut, never corrupt).
//  2. The same account on both engines: the fixture + generateDataset (same sizes, same seed).
//  3. Servers (the real CLI): SQLite; PostgreSQL with one process; two PostgreSQL processes behind
//     the round-robin proxy (tests/support/proxy.ts), and one process behind the same proxy (so the
//     scale-out ratio compares like with like).
//  4. Load from this process (keep-alive HTTP, closed loop, N clients): single GET of one record,
//     a 50-item list, and a mixed workload: 90 % reads of random records (posts, todo items, time
//     entries), 10 % writes (todo item edits, new time entries) that invalidate every cache.
//  5. 100 concurrent clients × 60 s of the mixed load on the two-process PostgreSQL server: errors, p99.
//  6. A time report over 1,000,000 time entries (100 projects, 500 people) on PostgreSQL, response
//     cache off: one person × one month, one project × one month.
// Results: stdout and bench/results/team.md. Not part of `npm test`.
//
//   node bench/team.ts [--seconds 8] [--long 60] [--parts load,long,report]

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent, request } from 'node:http';
import pg from 'pg';
// @ts-expect-error: a plain ES module without types
import { startCluster } from '../scripts/pg-cluster.mjs';
import { startProxy, type Proxy } from '../tests/support/proxy.ts';
import { generateBigReport } from './big-report.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURE = join(ROOT, 'tests', 'fixtures', 'account.json');
const BIN = join(ROOT, 'electron', 'bin.mjs');
const { values: args } = parseArgs({ options: { seconds: { type: 'string' }, long: { type: 'string' }, parts: { type: 'string' } } });
/** Which parts to run (all by default; bench/results/team.md is written only for a full run). */
const PARTS = new Set((args.parts ?? 'load,long,report').split(','));
const SECONDS = Number(args.seconds ?? 8);
const LONG = Number(args.long ?? 60);
const log = (s: string) => process.stdout.write(`${s}\n`);

interface Server { child: ChildProcess; url: string }
const children: ChildProcess[] = [];
function serve(dataDir: string, extra: string[]): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--no-demo', ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /running at (http:\/\/[^\s/]+)\//.exec(out);
      if (m) resolve({ child, url: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
}

// ---- load driver ------------------------------------------------------------------------------
const agent = new Agent({ keepAlive: true, maxSockets: 512 });
/** Status, and for a failed request what it was (the body's start, or the socket error). */
function send(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; why?: string }> {
  const u = new URL(base);
  return new Promise((resolve) => {
    const r = request({ host: u.hostname, port: u.port, method, path, agent, headers: body ? { ...headers, 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) } : headers }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        res.resume();
        res.on('end', () => resolve({ status }));
        return;
      }
      let text = '';
      res.on('data', (d: Buffer) => { text += d.toString(); });
      res.on('end', () => resolve({ status, why: `${method} ${path} → ${status} ${text.replace(/\s+/g, ' ').slice(0, 200)}` }));
    });
    r.on('error', (e: NodeJS.ErrnoException) => resolve({ status: 0, why: `${method} ${path} → socket ${e.code ?? ''} ${e.message}` }));
    if (body) r.write(body);
    r.end();
  });
}

type Op = () => { method: string; path: string; body?: string };
interface Load { rps: number; p50: number; p99: number; errors: number; total: number; samples: string[] }
async function drive(base: string, headers: Record<string, string>, op: Op, clients: number, seconds: number): Promise<Load> {
  const lat: number[] = [];
  let errors = 0;
  const samples: string[] = [];
  const end = performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() < end) {
      const o = op();
      const t = performance.now();
      const { status, why } = await send(base, o.method, o.path, headers, o.body);
      lat.push(performance.now() - t);
      if (status < 200 || status >= 300) {
        errors++;
        if (samples.length < 5) samples.push(`${why} (after ${(performance.now() - t).toFixed(0)} ms)`);
      }
    }
  }));
  lat.sort((a, b) => a - b);
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? NaN;
  return { rps: lat.length / seconds, p50: q(0.5), p99: q(0.99), errors, total: lat.length, samples };
}

let rnd = 42;
const random = () => { rnd = (rnd * 1103515245 + 12345) % 2 ** 31; return rnd / 2 ** 31; };
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];

async function main(): Promise<void> {
  const t0 = performance.now();
  const load0 = loadavg()[0];
  const cluster = await startCluster({ settings: { synchronous_commit: 'off' }, log });
  const dir = mkdtempSync(join(tmpdir(), 'bivouac-team-bench-'));
  const bye = () => { for (const c of children) if (c.exitCode === null) c.kill('SIGTERM'); cluster.stopSync(); rmSync(dir, { recursive: true, force: true }); };
  process.on('SIGINT', () => { bye(); process.exit(130); });
  const lines: string[] = [];
  const out = (s: string) => { log(s); lines.push(s); };
  try {
    const { SqliteStore } = await import('../electron/store/sqlite.ts');
    const { PgStore } = await import('../electron/store/postgres.ts');
    const { importSeed } = await import('../electron/service/account.ts');
    const { generateDataset } = await import('../electron/service/dataset.ts');
    const { DB_FILE } = await import('../electron/server.ts');
    const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { people: { 'user-name': string; password: string; administrator?: boolean }[] };
    const admin = fixture.people.find((p) => p.administrator)!;
    const headers = { authorization: `Basic ${Buffer.from(`${admin['user-name']}:${admin.password}`).toString('base64')}` };

    const results: Record<string, Load> = {};
    let long: Load | undefined;
    if (PARTS.has('load') || PARTS.has('long')) {
    // ---- 2. the same account on both engines
    const sizes = { projects: 10, people: 20, posts: 1000, comments: 4000, todoItems: 3000, timeEntries: 8000, seed: 7, now: new Date('2026-11-01T12:00:00Z') };
    const sqliteDir = join(dir, 'sqlite');
    mkdirSync(sqliteDir);
    const pgUrl = await cluster.createDatabase('bench');
    const targets: Record<string, number[]> = {};
    let biggestList = 0;
    for (const engine of ['sqlite', 'postgres'] as const) {
      const t = performance.now();
      const store = engine === 'sqlite' ? new SqliteStore(join(sqliteDir, DB_FILE)) : await PgStore.open(pgUrl);
      await importSeed(store, JSON.parse(readFileSync(FIXTURE, 'utf8')));
      const s = await generateDataset(store, sizes);
      biggestList = s.biggestList!;
      if (engine === 'postgres') {
        for (const [k, sql] of [['posts', 'SELECT id FROM posts WHERE private = 0'], ['items', 'SELECT id FROM todo_items'], ['entries', 'SELECT id FROM time_entries'], ['projects', 'SELECT DISTINCT project_id AS id FROM time_entries']] as const) {
          targets[k] = (await store.all<{ id: number }>(sql)).map((r) => Number(r.id));
        }
      }
      await store.close();
      out(`dataset on ${engine}: ${s.counts.posts} posts, ${s.counts.comments} comments, ${s.counts.todoItems} items, ${s.counts.timeEntries} time entries in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query('ANALYZE');
    await c.end();

    // ---- 3. servers
    const sq = await serve(sqliteDir, []);
    const p1 = await serve(join(dir, 'pg1'), ['--store', pgUrl]);
    const p2 = await serve(join(dir, 'pg2'), ['--store', pgUrl]);
    const proxies: Proxy[] = [await startProxy([p1.url]), await startProxy([p1.url, p2.url])];
    const [via1, via2] = proxies;

    const item = targets.items[0];
    const single: Op = () => ({ method: 'GET', path: `/todo_items/${item}.xml` });
    const list: Op = () => ({ method: 'GET', path: `/todo_lists/${biggestList}/todo_items.xml` });
    let w = 0;
    const mixed: Op = () => {
      if (random() < 0.1) {
        w++;
        if (w % 2) return { method: 'PUT', path: `/todo_items/${pick(targets.items)}.xml`, body: `<todo-item><content>edited ${w}</content></todo-item>` };
        return { method: 'POST', path: `/projects/${pick(targets.projects)}/time_entries.xml`, body: `<time-entry><date>2026-11-0${1 + (w % 9)}</date><hours>1.5</hours><description>bench ${w}</description></time-entry>` };
      }
      const r = random();
      if (r < 0.34) return { method: 'GET', path: `/posts/${pick(targets.posts)}.xml` };
      if (r < 0.67) return { method: 'GET', path: `/todo_items/${pick(targets.items)}.xml` };
      return { method: 'GET', path: `/time_entries/${pick(targets.entries)}.xml` };
    };

    const run = async (name: string, base: string, op: Op, clients = 10, seconds = SECONDS) => {
      await drive(base, headers, op, clients, 1); // warm-up
      const r = await drive(base, headers, op, clients, seconds);
      results[name] = r;
      out(`  ${name.padEnd(34)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  errors ${r.errors}/${r.total}`);
      for (const s of r.samples) out(`    error: ${s}`);
      return r;
    };
    if (PARTS.has('load')) {
    out(`\nload: 10 clients, ${SECONDS} s each, keep-alive, from this process`);
    for (const [name, op] of [['single GET', single], ['50-item list', list], ['mixed 90/10', mixed]] as const) {
      await run(`${name} sqlite`, sq.url, op);
      await run(`${name} postgres`, p1.url, op);
    }
    out('\nscale-out (both behind the same round-robin proxy), mixed 90/10, 20 clients');
    await run('mixed postgres 1 process', via1.url, mixed, 20);
    await run('mixed postgres 2 processes', via2.url, mixed, 20);
    }
    if (PARTS.has('long')) {
      out(`\n100 concurrent clients × ${LONG} s, mixed 90/10, 2 PostgreSQL processes behind the proxy`);
      long = await run('100 clients mixed postgres ×2', via2.url, mixed, 100, LONG);
    }
    for (const p of proxies) await p.close();
    for (const s of [sq, p1, p2]) s.child.kill('SIGTERM');
    }

    type Timing = { median: number; p95: number; max: number; rows: number };
    let byPerson: Timing | undefined;
    let byProject: Timing | undefined;
    if (PARTS.has('report')) {
    // ---- 6. 1,000,000 time entries
    out('\ntime report over 1,000,000 time entries (100 projects, 500 people), PostgreSQL, response cache off');
    const { url: bigUrl, pmin, emin, count, seconds: genSeconds } = await generateBigReport(await cluster.createDatabase('big'));
    out(`  generated: ${count} time entries in ${genSeconds.toFixed(1)} s (bulk load: indexes built after, VACUUM ANALYZE)`);
    const bs = await serve(join(dir, 'big'), ['--store', bigUrl, '--response-cache', '0']);
    const timeIt = async (paths: string[]) => {
      const ms: number[] = [];
      let rows = 0;
      let last = '';
      for (const p of paths) {
        const s = performance.now();
        const st = await new Promise<number>((resolve) => {
          const u = new URL(bs.url);
          const r = request({ host: u.hostname, port: u.port, path: p, agent, headers }, (res) => {
            let body = '';
            res.on('data', (d: Buffer) => { body += d.toString(); });
            res.on('end', () => { rows += (body.match(/<time-entry>/g) ?? []).length; last = body.slice(0, 300); resolve(res.statusCode ?? 0); });
          });
          r.end();
        });
        if (st !== 200) throw new Error(`report ${p}: ${st} ${last}`);
        ms.push(performance.now() - s);
      }
      ms.sort((x, y) => x - y);
      return { median: ms[Math.floor(ms.length / 2)], p95: ms[Math.floor(ms.length * 0.95)], max: ms[ms.length - 1], rows: rows / paths.length };
    };
    await timeIt([`/time_entries/report.xml?subject_id=${emin}&from=20261001&to=20261031`]); // warm-up
    byPerson = await timeIt(Array.from({ length: 30 }, (_, k) => `/time_entries/report.xml?subject_id=${emin + 3 + k * 16}&from=20261001&to=20261031`));
    byProject = await timeIt(Array.from({ length: 30 }, (_, k) => `/time_entries/report.xml?filter_project_id=${pmin + 1 + k * 3}&from=20261001&to=20261031`));
    out(`  one person, one month:  median ${byPerson.median.toFixed(1)} ms, p95 ${byPerson.p95.toFixed(1)} ms, max ${byPerson.max.toFixed(1)} ms (${byPerson.rows.toFixed(0)} entries per report; goal < 50 ms: ${byPerson.p95 < 50 ? 'ok' : 'MISSED'})`);
    out(`  one project, one month: median ${byProject.median.toFixed(1)} ms, p95 ${byProject.p95.toFixed(1)} ms, max ${byProject.max.toFixed(1)} ms (${byProject.rows.toFixed(0)} entries per report; goal < 50 ms: ${byProject.p95 < 50 ? 'ok' : 'MISSED'})`);
    bs.child.kill('SIGTERM');
    }

    // ---- ratios
    if (!long || !byPerson || !byProject || !PARTS.has('load')) return;
    const ratio = (a: string, b: string) => (results[a].rps / results[b].rps).toFixed(2);
    const summary = [
      '',
      '| Ratio (throughput) | Value |',
      '|---|---|',
      `| single GET: PostgreSQL / SQLite | ${ratio('single GET postgres', 'single GET sqlite')} |`,
      `| 50-item list: PostgreSQL / SQLite | ${ratio('50-item list postgres', '50-item list sqlite')} |`,
      `| mixed 90/10: PostgreSQL / SQLite | ${ratio('mixed 90/10 postgres', 'mixed 90/10 sqlite')} |`,
      `| scale-out: 2 processes / 1 process (PostgreSQL, mixed) | ${ratio('mixed postgres 2 processes', 'mixed postgres 1 process')} |`,
      '',
      `100 clients × ${LONG} s mixed on 2 processes: ${long.errors} errors in ${long.total} requests, p99 ${long.p99.toFixed(1)} ms, ${long.rps.toFixed(0)} req/s.`,
      `Time report, 1,000,000 entries: person-month p95 ${byPerson.p95.toFixed(1)} ms, project-month p95 ${byProject.p95.toFixed(1)} ms.`,
    ];
    for (const s of summary) out(s);
    const md = [
      '# bench:team — the team server on PostgreSQL vs SQLite (one run)',
      '',
      `Run: ${new Date().toISOString()}, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), load average before ${load0.toFixed(2)}, after ${loadavg()[0].toFixed(2)}; total ${((performance.now() - t0) / 1000).toFixed(0)} s.`,
      'The machine is shared with other work: absolute numbers vary between runs; the ratios were measured side by side.',
      'PostgreSQL 15 throwaway cluster, synchronous_commit=off (SQLite: WAL, synchronous=NORMAL). Command: `npm run bench:team`.',
      '',
      '```',
      ...lines,
      '```',
      '',
    ].join('\n');
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    writeFileSync(join(ROOT, 'bench', 'results', 'team.md'), md);
    log('\nwritten to bench/results/team.md');
  } finally {
    bye();
    agent.destroy();
  }
}

await main();
