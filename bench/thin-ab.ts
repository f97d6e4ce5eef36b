// node bench/thin-ab.ts — a one-off probe (issue #30): does the thin path (electron/http/fast.ts, D190) pay on
// today's code? The real CLI of this tree beside the same tree with the thin path turned off (a copy of
// electron/ and shared/ with `thinPath` forced off in app.ts), each on its own copy of bench:api's dataset,
// cache off (--response-cache 0) and cached (the default 16 MB). bench:api's workloads, driven by autocannon
// (10 connections, Basic auth), in many short alternated rounds (which of the two goes first alternates):
// per round the server's CPU µs per request (/proc) and req/s of each; the figure is the median of the
// per-round ratios (off / on), beside their spread (min–max). The noise is measured too: a second process
// of this tree (A/A: thin path on in both) in the same rounds, its ratio to the first beside the A/B one.
// The three go in a rotating order. ROUNDS (10), D (2 s a side), DIR (data dir, kept),
// ONLY (a regex of workload labels), ON_REF (above).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchAuth, benchDataset, cliEntry } from './dataset.ts';
import { mixedPoolsOf, mixedRun, type CannonResult } from './mixed.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
type Cannon = (o: Record<string, unknown>) => Promise<CannonResult>;
const autocannon = require('autocannon') as Cannon;
const ROUNDS = Number(process.env.ROUNDS ?? 10);
const D = Number(process.env.D ?? 2);
const log = (s: string) => process.stdout.write(`${s}\n`);
const uptime = () => spawnSync('uptime', { encoding: 'utf8' }).stdout.trim();

const work = mkdtempSync(join(tmpdir(), 'bivouac-thin-ab-'));
const data = process.env.DIR ?? join(tmpdir(), 'bivouac-thin-ab-data');
const children: ChildProcess[] = [];
const cleanup = () => { for (const c of children) if (c.exitCode === null) c.kill('SIGTERM'); rmSync(work, { recursive: true, force: true }); };
process.on('SIGINT', () => { cleanup(); process.exit(130); });

const { DB_FILE } = await import('../electron/server.ts');
log(`dataset in ${data}: ${(await benchDataset(data)) ? 'generated' : 'reused'}`);
const pools = await mixedPoolsOf(data);
const { SqliteStore } = await import('../electron/store/sqlite.ts');
const s = new SqliteStore(join(data, DB_FILE));
const lists = (await s.all<{ id: number }>('SELECT todo_list_id AS id FROM todo_items GROUP BY todo_list_id ORDER BY todo_list_id')).map((r) => Number(r.id));
const item = (await s.get<{ id: number }>('SELECT id FROM todo_items ORDER BY id LIMIT 1 OFFSET 100'))!.id;
const post = (await s.get<{ id: number }>('SELECT id FROM posts WHERE private = 0 ORDER BY id DESC LIMIT 1'))!.id;
const entry = (await s.get<{ id: number }>('SELECT id FROM time_entries ORDER BY id DESC LIMIT 1'))!.id;
const list = (await s.get<{ id: number }>('SELECT todo_list_id AS id FROM todo_items GROUP BY todo_list_id HAVING COUNT(*) >= 50 ORDER BY todo_list_id LIMIT 1'))!.id;
await s.close();

// The tree measured: this checkout, or ON_REF's electron/ and shared/ (a commit with the thin path, once this
// tree has none). The same tree with the thin path off: a copy, app.ts's switch forced off.
const onRef = process.env.ON_REF;
const tree = (name: string): string => {
  const t = join(work, name);
  mkdirSync(t);
  const from = onRef ? `git -C "${ROOT}" archive "${onRef}" electron shared package.json | tar -x -C "${t}"` : `cp -r "${ROOT}/electron" "${ROOT}/shared" "${ROOT}/package.json" "${t}/"`;
  if (spawnSync('sh', ['-c', from], { stdio: 'inherit' }).status !== 0) throw new Error(`cannot copy ${onRef ?? 'the tree'}`);
  symlinkSync(join(ROOT, 'node_modules'), join(t, 'node_modules'));
  return t;
};
const onRoot = onRef ? tree('on') : ROOT;
const off = tree('off');
const appTs = join(off, 'electron', 'http', 'app.ts');
const src = readFileSync(appTs, 'utf8');
const switched = src.replace('if (opts.thinPath !== false && !opts.trustProxy)', 'if (false as boolean)');
if (switched === src) throw new Error('app.ts: the thin path switch was not found');
writeFileSync(appTs, switched);

async function start(root: string, name: string, extra: string[]): Promise<{ child: ChildProcess; base: string }> {
  const dir = join(work, name);
  mkdirSync(dir);
  copyFileSync(join(data, DB_FILE), join(dir, DB_FILE));
  const child = spawn(process.execPath, [cliEntry(root), 'serve', '--port', '0', '--data-dir', dir, '--no-demo', '--log-level', 'warn', ...extra],
    { stdio: ['ignore', 'pipe', 'inherit'], cwd: root });
  children.push(child);
  const base = await new Promise<string>((res, rej) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => { out += d.toString(); const m = /running at (http:\/\/[^/\s]+)/.exec(out); if (m) res(m[1]); });
    child.on('exit', (code) => rej(new Error(`${name} exited with ${code}: ${out}`)));
  });
  return { child, base };
}
const cpu = (pid: number): number => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  return ((Number(f[11]) + Number(f[12])) / 100) * 1e6;
};

const svc = {
  on: { raw: await start(onRoot, 'on-raw', ['--response-cache', '0']), cached: await start(onRoot, 'on-cached', []) },
  aa: { raw: await start(onRoot, 'aa-raw', ['--response-cache', '0']), cached: await start(onRoot, 'aa-cached', []) },
  off: { raw: await start(off, 'off-raw', ['--response-cache', '0']), cached: await start(off, 'off-cached', []) },
};
const headers = { authorization: benchAuth() };
for (const x of [svc.on.raw, svc.off.raw]) {
  const r = await fetch(`${x.base}/todo_items/${item}.xml`, { headers });
  await r.text();
  if (r.status !== 200) throw new Error(`${x.base}: ${r.status}`);
}

type Load = (base: string, duration: number) => Promise<CannonResult>;
const fixed = (path: string): Load => (base, duration) => autocannon({ url: `${base}${path}`, connections: 10, duration, headers });
const turn = (paths: string[]): Load => (base, duration) => {
  let k = 0;
  return autocannon({ url: base, connections: 10, duration, requests: [{ setupRequest: (req: object) => ({ ...req, method: 'GET', path: paths[k++ % paths.length], headers }) }] });
};
const allLoads: { label: string; mode: 'raw' | 'cached'; go: Load }[] = [
  { label: 'todo item', mode: 'raw', go: fixed(`/todo_items/${item}.xml`) },
  { label: 'post', mode: 'raw', go: fixed(`/posts/${post}.xml`) },
  { label: 'time entry', mode: 'raw', go: fixed(`/time_entries/${entry}.xml`) },
  { label: '50-item todo list (board)', mode: 'raw', go: fixed(`/todo_lists/${list}/todo_items.xml`) },
  { label: `todo lists in turn (${lists.length})`, mode: 'raw', go: turn(lists.map((id) => `/todo_lists/${id}/todo_items.xml`)) },
  { label: 'todo item', mode: 'cached', go: fixed(`/todo_items/${item}.xml`) },
  { label: '50-item todo list (board)', mode: 'cached', go: fixed(`/todo_lists/${list}/todo_items.xml`) },
  { label: 'mixed workload (10 % writes)', mode: 'raw', go: (base, duration) => mixedRun(base, duration, pools, headers) },
  { label: 'mixed workload (10 % writes)', mode: 'cached', go: (base, duration) => mixedRun(base, duration, pools, headers) },
];

const onlyRe = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
const loads = allLoads.filter((l) => !onlyRe || onlyRe.test(`${l.label} ${l.mode}`));
const med = (xs: number[]) => { const t = [...xs].sort((a, b) => a - b); return t.length % 2 ? t[(t.length - 1) / 2] : (t[t.length / 2 - 1] + t[t.length / 2]) / 2; };
const f1 = (n: number) => n.toFixed(1), f2 = (n: number) => n.toFixed(2);
const started = new Date().toISOString();
const up0 = uptime();
const rows: string[] = [];
try {
  for (const l of loads) {
    const three = [svc.on[l.mode], svc.aa[l.mode], svc.off[l.mode]];
    for (const x of three) await l.go(x.base, 1); // warm-up
    const us: number[][] = [[], [], []], rate: number[][] = [[], [], []];
    let bad = 0;
    for (let i = 0; i < ROUNDS; i++) {
      for (let k = 0; k < 3; k++) {
        const j = (i + k) % 3; // rotating order
        const x = three[j];
        const c0 = cpu(x.child.pid!);
        const r = await l.go(x.base, D);
        bad += r.non2xx + r.errors + r.timeouts;
        us[j].push((cpu(x.child.pid!) - c0) / Math.max(1, r.requests.total));
        rate[j].push(r.requests.average);
      }
    }
    const ratio = (a: number[], b: number[]) => a.map((v, i) => v / b[i]);
    const spread = (xs: number[]) => `${f2(med(xs))} (${f2(Math.min(...xs))}–${f2(Math.max(...xs))})`;
    const line = `| ${l.label} | ${l.mode === 'raw' ? 'off' : 'on'} | ${f1(med(us[0]))} | ${f1(med(us[2]))} | ${f1(med(us[2]) - med(us[0]))} | ${spread(ratio(us[2], us[0]))} | ${spread(ratio(us[1], us[0]))} | ${Math.round(med(rate[0]))} / ${Math.round(med(rate[2]))} | ${spread(ratio(rate[0], rate[2]))} |${bad ? ` ${bad} non-2xx/errors` : ''}`;
    rows.push(line);
    log(`${line}   [${uptime()}]`);
  }
} finally {
  cleanup();
}
log([
  '', `Run ${started}, ${ROUNDS} alternated rounds of ${D} s a side per workload, Node ${process.version}, loadavg before: ${up0}; after: ${uptime()} (${loadavg()[0].toFixed(2)})`,
  '', '| Workload | Response cache | CPU µs/req, thin on | CPU µs/req, thin off | off − on (µs) | CPU off/on, median of rounds (min–max) | A/A: CPU on′/on (noise) | req/s on / off | req/s on/off, median (min–max) |',
  '|---|---|---|---|---|---|---|---|---|', ...rows,
].join('\n'));
process.exit(0);
