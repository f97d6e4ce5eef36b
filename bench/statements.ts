// [DATA=DIR] [D=S] [TOP=N] node bench/statements.ts
// Which SQL statements the mixed workload (bench/mixed.ts) runs more of than its reads alone, per request: what
// its writes cost the reads after them (kept values dropped, rows read again) and what they run themselves. One
// service (response cache off, on a copy of bench:api's dataset, bench/support/statements-preload.mjs loaded into
// it) is warmed 8 s with the whole workload, then loaded D seconds (default 6) with its reads alone and D with the
// whole, 10 connections. Per SQL text: runs and µs per request in each, and "more": the whole's µs per request
// less 0.9 × the reads alone's (the whole is 90 % reads); the TOP (default 25) with the most. A tool for finding
// what a write costs the reads (D230), not a goal of its own.

import { mixedPoolsOf, mixedRequests, type Pools } from './mixed.ts';
import { benchAuth, benchDataset, cliEntry } from './dataset.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
interface CannonRequest { method?: string; path?: string; headers?: Record<string, string>; body?: string }
interface CannonResult { requests: { total: number }; non2xx: number; errors: number }
const autocannon = require('autocannon') as (o: object) => Promise<CannonResult>;
const D = Number(process.env.D ?? 6);
const TOP = Number(process.env.TOP ?? 25);

const work = mkdtempSync(join(tmpdir(), 'bivouac-statements-'));
let child: ChildProcess | null = null;
process.once('exit', () => { child?.kill('SIGKILL'); rmSync(work, { recursive: true, force: true }); });
for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) process.once(sig, () => process.exit(code));

const source = process.env.DATA ?? join(work, 'source');
await benchDataset(source);
const dir = join(work, 'data');
cpSync(source, dir, { recursive: true });
const pools: Pools = await mixedPoolsOf(dir);
const headers = { authorization: benchAuth() };

const svc = spawn(process.execPath, ['--import', join(ROOT, 'bench', 'support', 'statements-preload.mjs'), cliEntry(ROOT), 'serve', '--port', '0',
  '--data-dir', dir, '--no-demo', '--log-level', 'warn', '--response-cache', '0'], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], cwd: ROOT });
child = svc;
type Counted = Map<string, [number, number]>;
const answers = new Map<number, Counted>();
svc.on('message', (m: { statements: number; counted: [string, number, number][] }) => answers.set(m.statements, new Map(m.counted.map(([sql, n, us]) => [sql, [n, us]]))));
const base = await new Promise<string>((res, rej) => {
  let text = '';
  const late = setTimeout(() => rej(new Error('the service did not start within 60 s')), 60_000);
  svc.stdout!.on('data', (d: Buffer) => { text += d.toString(); const m = /running at (http:\/\/[^/\s]+)/.exec(text); if (m) { clearTimeout(late); res(m[1]); } });
  svc.once('exit', (code) => rej(new Error(`the service exited with ${code}`)));
});
let asked = 0;
async function counted(): Promise<Counted> {
  const n = ++asked;
  svc.send({ statements: n });
  for (let t = 0; t < 250 && !answers.has(n); t++) await new Promise((r) => setTimeout(r, 20));
  const a = answers.get(n);
  if (!a) throw new Error('the service did not answer within 5 s');
  answers.delete(n);
  return a;
}
const run = (keep: (r: CannonRequest) => boolean, seconds: number) => {
  const next = mixedRequests(pools, headers);
  return autocannon({ url: base, connections: 10, duration: seconds, requests: [{ setupRequest: (req: CannonRequest) => {
    for (;;) { const r = next(req); if (keep(r)) return r; }
  } }] });
};
const check = (r: CannonResult, what: string) => { if (r.non2xx || r.errors) throw new Error(`${what}: ${r.non2xx} non-2xx answers, ${r.errors} errors`); };

check(await run(() => true, 8), 'warm-up');
await counted();
const reads = await run((r) => r.method === 'GET', D);
check(reads, 'reads alone');
const inReads = await counted();
const whole = await run(() => true, D);
check(whole, 'whole');
const inWhole = await counted();
const rows = [...new Set([...inReads.keys(), ...inWhole.keys()])].map((sql) => {
  const [rn, ru] = inReads.get(sql) ?? [0, 0];
  const [wn, wu] = inWhole.get(sql) ?? [0, 0];
  const r = reads.requests.total, w = whole.requests.total;
  return { sql, rn: rn / r, ru: ru / r, wn: wn / w, wu: wu / w };
}).sort((a, b) => (b.wu - 0.9 * b.ru) - (a.wu - 0.9 * a.ru));
const sum = (f: (x: (typeof rows)[number]) => number) => rows.reduce((s, x) => s + f(x), 0).toFixed(1);
console.log(`Reads alone: ${reads.requests.total} requests, statements ${sum((x) => x.ru)} µs per request. Whole: ${whole.requests.total} requests, ${sum((x) => x.wu)} µs per request.\n`);
console.log('| more, µs / request | whole: runs / request, µs | reads alone: runs / request, µs | statement |\n|---|---|---|---|');
for (const x of rows.slice(0, TOP)) {
  console.log(`| ${(x.wu - 0.9 * x.ru).toFixed(2)} | ${x.wn.toFixed(3)}, ${x.wu.toFixed(2)} | ${x.rn.toFixed(3)}, ${x.ru.toFixed(2)} | \`${x.sql.replace(/\s+/g, ' ').slice(0, 160)}\` |`);
}
process.exit(0);
