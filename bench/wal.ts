// node bench/wal.ts [--data-dir DIR] [--duration S] [--rounds N] [--every MS] [--skip-mixed] [--skip-writes]
// Who checkpoints SQLite's WAL, side by side in one run (D180): SQLite itself inside the COMMIT that
// crosses 1,000 pages (`sqlite`) against the checkpoint worker (`worker`), in alternating rounds.
//   1. In-process: the bench's dataset (a fresh copy per run), writes with a pause of --every ms after
//      each (default 2.5: a comment, a todo item's content, a time entry's hours, like the mixed
//      workload's writes) for --duration s, while the event loop's delay is sampled
//      (perf_hooks.monitorEventLoopDelay, 1 ms): each write's latency (p50, p99, max, including a wait for
//      the worker), the time each COMMIT holds the thread, the event loop's p99 and max, the WAL's high-water mark
//      (frames) and, for the worker, its passes and the writes that waited for a caught-up pass.
//   2. The mixed workload of bench:api (bench/mixed.ts: 10 connections, 10 % writes, response cache off)
//      through the real CLI (`electron/bin.mjs serve --wal-checkpoint sqlite|worker`), each mode on its own
//      copy of the data: req/s, p50, p99, and the served process's event loop delay (a preload).
// The machine's load average is printed with each run: on a busy machine compare ratios, not times.

import { benchAuth, benchDataset, cliEntry } from './dataset.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, fsyncSync, openSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: {
  'data-dir': { type: 'string' }, duration: { type: 'string' }, rounds: { type: 'string' }, every: { type: 'string' }, 'skip-mixed': { type: 'boolean' }, 'skip-writes': { type: 'boolean' },
} });
const duration = Number(values.duration ?? 10);
const rounds = Number(values.rounds ?? 2);
const every = Number(values.every ?? 2.5);
const work = mkdtempSync(join(tmpdir(), 'bivouac-wal-'));
const dir = values['data-dir'] ?? join(work, 'data');
const { DB_FILE } = await import('../electron/server.ts');
const { SqliteStore } = await import('../electron/store/sqlite.ts');
await benchDataset(dir);
// A closed store has no WAL: copy the database file alone.
{ const s = new SqliteStore(join(dir, DB_FILE), { checkpoints: false }); await s.close(); }

type Mode = 'sqlite' | 'worker';
const MODES: Mode[] = ['sqlite', 'worker'];
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const walFrames = (db: string) => { try { return Math.max(0, Math.round((statSync(`${db}-wal`).size - 32) / 4120)); } catch { return 0; } };

function copyData(name: string): string {
  const d = join(work, name);
  rmSync(d, { recursive: true, force: true });
  mkdirSync(d, { recursive: true, mode: 0o700 });
  copyFileSync(join(dir, DB_FILE), join(d, DB_FILE));
  // On disk before the run: otherwise the first checkpoint's fsync writes the whole copy out.
  const fd = openSync(join(d, DB_FILE), 'r+');
  fsyncSync(fd);
  closeSync(fd);
  return d;
}

// ---- 1. in-process writes at a steady rate
interface WriteRun { mode: Mode; writes: number; p50: number; p99: number; max: number; over5: number; cP99: number; cMax: number; cOver5: number; eldP99: number; eldMax: number; frames: number; passes: number; gated: number; load: string }
async function writeRun(mode: Mode): Promise<WriteRun> {
  const d = copyData(`w-${mode}`);
  const db = join(d, DB_FILE);
  const s = new SqliteStore(db, { checkpoints: mode === 'sqlite' ? false : undefined });
  const ids = (sql: string) => s.allSync<{ id: number; p: number }>(sql);
  const items = ids('SELECT id, project_id AS p FROM todo_items ORDER BY random() LIMIT 2000');
  const entries = ids('SELECT id, project_id AS p FROM time_entries ORDER BY random() LIMIT 2000');
  const posts = ids('SELECT id, project_id AS p FROM posts ORDER BY random() LIMIT 2000');
  let seed = 7;
  const rnd = () => { seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648; return seed / 2_147_483_648; };
  const any = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  const write = async (n: number) => {
    const k = n % 10;
    if (k < 4) { const it = any(items); await s.write((w) => w.update('todo_items', it.id, { content: `Steady write ${n}` }, it.p)); }
    else if (k < 7) {
      const po = any(posts);
      await s.write(async (w) => { await w.insert('comments', { commentable_type: 'Post', commentable_id: po.id, author_id: 1, project_id: po.p, body: `Steady write ${n}`, created_at: w.now }, po.p); });
    } else { const e = any(entries); await s.write((w) => w.update('time_entries', e.id, { hours: 1 + (n % 8) / 4 }, e.p)); }
  };
  for (let i = 0; i < 50; i++) await write(-i); // warm the statements
  // The time each COMMIT holds the thread (SQLite's own checkpoint runs inside the one crossing 1,000 pages).
  const commits: number[] = [];
  const exec = s.db.exec.bind(s.db);
  (s.db as unknown as { exec: (sql: string) => void }).exec = (sql: string) => {
    const t = performance.now();
    exec(sql);
    if (sql === 'COMMIT') commits.push(performance.now() - t);
  };
  const lat: number[] = [];
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const end = performance.now() + duration * 1000;
  let n = 0;
  // Closed loop: a write, then a pause of `every` ms (an open loop only measures the queue on a busy machine).
  while (performance.now() < end) {
    const t = performance.now();
    await write(n++);
    lat.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, every));
  }
  h.disable();
  const st = s.checkpointer?.stats();
  const frames = walFrames(db);
  await s.close();
  lat.sort((a, b) => a - b);
  commits.sort((a, b) => a - b);
  return {
    cP99: pct(commits, 0.99), cMax: commits[commits.length - 1], cOver5: commits.filter((x) => x > 5).length,
    mode, writes: lat.length, p50: pct(lat, 0.5), p99: pct(lat, 0.99), max: lat[lat.length - 1], over5: lat.filter((x) => x > 5).length,
    eldP99: h.percentile(99) / 1e6, eldMax: h.max / 1e6, frames, passes: st?.passes ?? 0, gated: st?.gated ?? 0, load: load(),
  };
}

const f = (x: number, d = 2) => x.toFixed(d);
process.stdout.write(`\n== 1. in-process: a write every ${every} ms for ${duration} s (bench dataset, a fresh copy per run)\n`);
process.stdout.write('| round | checkpoint | writes | write p50 ms | p99 ms | max ms | > 5 ms | COMMIT p99 ms | max ms | > 5 ms | event loop p99 ms | max ms | WAL high-water (frames) | passes | waited | load avg (1/5/15) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n');
const writeRuns: WriteRun[] = [];
for (let r = 1; r <= (values['skip-writes'] ? 0 : rounds); r++) {
  for (const mode of r % 2 ? MODES : [...MODES].reverse()) {
    const x = await writeRun(mode);
    writeRuns.push(x);
    process.stdout.write(`| ${r} | ${mode} | ${x.writes} | ${f(x.p50)} | ${f(x.p99)} | ${f(x.max, 1)} | ${x.over5} | ${f(x.cP99)} | ${f(x.cMax, 1)} | ${x.cOver5} | ${f(x.eldP99)} | ${f(x.eldMax, 1)} | ${x.frames} | ${x.passes} | ${x.gated} | ${x.load} |\n`);
  }
}

// ---- 2. the mixed workload through the real CLI
if (!values['skip-mixed']) {
  const { mixedPools, mixedRun } = await import('./mixed.ts');
  const pools = await (async () => { const s = new SqliteStore(join(dir, DB_FILE), { checkpoints: false }); try { return await mixedPools(s); } finally { await s.close(); } })();
  const headers = { authorization: benchAuth() };
  const probe = join(work, 'probe.mjs');
  writeFileSync(probe, `import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
const h = monitorEventLoopDelay({ resolution: 1 }); h.enable();
process.on('SIGUSR2', () => {
  writeFileSync(process.env.BIVOUAC_ELD_OUT, JSON.stringify({ p99: h.percentile(99) / 1e6, max: h.max / 1e6 }) + '\\n', { flag: 'a' });
  h.reset();
});\n`);
  const data = Object.fromEntries(MODES.map((m) => [m, copyData(`m-${m}`)])) as Record<Mode, string>;
  const start = async (mode: Mode): Promise<{ child: ChildProcess; base: string; out: string }> => {
    const out = join(work, `eld-${mode}.jsonl`);
    const child = spawn(process.execPath, ['--import', probe, cliEntry(ROOT), 'serve', '--port', '0', '--data-dir', data[mode],
      '--no-demo', '--log-level', 'warn', '--response-cache', '0', '--wal-checkpoint', mode], { stdio: ['ignore', 'pipe', 'inherit'], cwd: ROOT, env: { ...process.env, BIVOUAC_ELD_OUT: out } });
    const base = await new Promise<string>((res) => {
      let o = '';
      child.stdout!.on('data', (d: Buffer) => { o += d.toString(); const m = /running at (http:\/\/[^/\s]+)/.exec(o); if (m) res(m[1]); });
    });
    return { child, base, out };
  };
  const eld = async (c: { child: ChildProcess; out: string }) => {
    rmSync(c.out, { force: true });
    c.child.kill('SIGUSR2');
    for (let i = 0; i < 200 && !existsSync(c.out); i++) await new Promise((r) => setTimeout(r, 10));
    return JSON.parse(readFileSync(c.out, 'utf8').trim().split('\n').pop()!) as { p99: number; max: number };
  };
  process.stdout.write(`\n== 2. mixed workload (bench/mixed.ts, 10 connections, 10 % writes, response cache off), ${duration} s per run\n`);
  process.stdout.write('| round | checkpoint | req/s | p50 ms | p99 ms | non-2xx | event loop p99 ms | max ms | WAL high-water (frames) | load avg (1/5/15) |\n|---|---|---|---|---|---|---|---|---|---|\n');
  for (let r = 1; r <= rounds; r++) {
    for (const mode of r % 2 ? MODES : [...MODES].reverse()) {
      const c = await start(mode);
      await mixedRun(c.base, 2, pools, headers); // warm-up
      await eld(c);
      const res = await mixedRun(c.base, duration, pools, headers);
      const e = await eld(c);
      const frames = walFrames(join(data[mode], DB_FILE));
      await new Promise<void>((res2) => { c.child.once('exit', () => res2()); c.child.kill('SIGINT'); });
      process.stdout.write(`| ${r} | ${mode} | ${Math.round(res.requests.average)} | ${res.latency.p50} | ${res.latency.p99} | ${res.non2xx} | ${f(e.p99)} | ${f(e.max, 1)} | ${frames} | ${load()} |\n`);
    }
  }
}
rmSync(work, { recursive: true, force: true });
