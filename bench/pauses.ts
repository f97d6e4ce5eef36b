// [DATA=DIR] [ROUNDS=N] [D=S] node bench/pauses.ts — what the mixed workload's p99 is made of (D226). The service (cache off, on a copy of
// bench:api's dataset) is loaded with the mixed workload (bench/mixed.ts), its reads alone and its writes alone,
// in turn, ROUNDS (default 3) rounds of D seconds (default 4) each after a warm-up; each variant in a
// service of its own, all three alive at once so that each round sees the machine as the others do. Per
// variant: CPU per request, p50/p99 at 10 connections, and from inside the service during its own run only
// (bench/support/pauses-preload.mjs, over an IPC channel): its collections (young generation, major, other
// kinds: count, total, longest) and how often its event loop was held longer than 10 ms (ten requests' work at
// most; longer is a pause). ONLY=REGEX picks variants, SERVICE_FLAGS adds options of `serve` (`--wal-checkpoint
// sqlite`, say), NODE_FLAGS options of Node (`--max-semi-space-size=8`), TMPDIR the file system of the copies.
// A tool for finding where latency goes, not a goal of its own.

import { mixedPoolsOf, mixedRequests, type Pools } from './mixed.ts';
import { benchAuth, benchDataset, cliEntry } from './dataset.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const D = Number(process.env.D ?? 4);

interface CannonRequest { method?: string; path?: string; headers?: Record<string, string>; body?: string }
interface CannonResult { requests: { average: number; total: number }; latency: { p50: number; p99: number } }
const autocannon = require('autocannon') as (o: object) => Promise<CannonResult>;

const work = mkdtempSync(join(tmpdir(), 'bivouac-pauses-'));
const children: ChildProcess[] = [];
const cleanup = () => { for (const c of children) c.kill('SIGKILL'); rmSync(work, { recursive: true, force: true }); };
process.once('exit', cleanup);
for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) process.once(sig, () => process.exit(code));

// DATA: a directory holding bench:api's dataset already (bench/profile.ts's, say); else generated here (~10 s).
const source = process.env.DATA ?? join(work, 'source');
await benchDataset(source);
const pools: Pools = await mixedPoolsOf(source);
const headers = { authorization: benchAuth() };

const only = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
const variants: { name: string; keep: (r: CannonRequest) => boolean }[] = ([
  { name: 'mixed (10 % writes)', keep: () => true },
  { name: 'its reads alone', keep: (r) => r.method === 'GET' },
  { name: 'its writes alone', keep: (r) => r.method !== 'GET' },
] as { name: string; keep: (r: CannonRequest) => boolean }[]).filter((v) => !only || only.test(v.name));
const extra = (process.env.SERVICE_FLAGS ?? '').split(' ').filter(Boolean);
const nodeFlags = (process.env.NODE_FLAGS ?? '').split(' ').filter(Boolean);

interface Pauses { gcs: { kind: number; ms: number }[]; lates: number[] }
interface Service { child: ChildProcess; base: string; asked: number; answers: Map<number, Pauses> }

async function start(name: string, k: number): Promise<Service> {
  const dir = join(work, `data-${k}`);
  cpSync(source, dir, { recursive: true });
  const child = spawn(process.execPath, [...nodeFlags, '--import', join(ROOT, 'bench', 'support', 'pauses-preload.mjs'), cliEntry(ROOT), 'serve', '--port', '0',
    '--data-dir', dir, '--no-demo', '--log-level', 'warn', '--response-cache', '0', ...extra], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], cwd: ROOT });
  children.push(child);
  const svc: Service = { child, base: '', asked: 0, answers: new Map() };
  child.on('message', (m: { pauses: number } & Pauses) => svc.answers.set(m.pauses, m));
  svc.base = await new Promise<string>((res, rej) => {
    let text = '';
    child.stdout!.on('data', (d: Buffer) => { text += d.toString(); const m = /running at (http:\/\/[^/\s]+)/.exec(text); if (m) res(m[1]); });
    child.once('exit', (code) => rej(new Error(`${name}: the service exited with ${code}`)));
  });
  return svc;
}

/** What the service recorded since it was last asked (each asking numbered: a late answer cannot pass for the next). */
async function pauses(svc: Service): Promise<Pauses> {
  const n = ++svc.asked;
  svc.child.send({ pauses: n });
  for (let t = 0; t < 250 && !svc.answers.has(n); t++) await new Promise((r) => setTimeout(r, 20));
  const a = svc.answers.get(n);
  if (!a) throw new Error('the service did not answer with its pauses within 5 s');
  svc.answers.delete(n);
  return a;
}

const cpu = (pid: number): number => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  return (Number(f[11]) + Number(f[12])) * 1e4; // µs (ticks of 1/100 s)
};

const services = await Promise.all(variants.map((v, k) => start(v.name, k)));
const run = (k: number, seconds: number) => {
  const next = mixedRequests(pools, headers);
  const keep = variants[k].keep;
  return autocannon({ url: services[k].base, connections: 10, duration: seconds, requests: [{ setupRequest: (req: CannonRequest) => {
    for (;;) { const r = next(req); if (keep(r)) return r; }
  } }] });
};
for (let k = 0; k < variants.length; k++) await run(k, 2); // warm-up
const fmt = (xs: number[]) => (xs.length ? `${xs.length}, ${xs.reduce((a, b) => a + b, 0).toFixed(0)} ms in all, longest ${Math.max(...xs).toFixed(1)} ms` : 'none');
for (let round = 1; round <= ROUNDS; round++) {
  for (let k = 0; k < variants.length; k++) {
    const pid = services[k].child.pid!;
    await pauses(services[k]); // what it recorded while the others ran is dropped
    const c0 = cpu(pid);
    const r = await run(k, D);
    const us = (cpu(pid) - c0) / Math.max(1, r.requests.total);
    const p = await pauses(services[k]);
    // perf_hooks' kinds: 1 minor (scavenge), 4 major (mark-compact), 8 incremental marking, 16 weak callbacks.
    const young = p.gcs.filter((g) => g.kind === 1).map((g) => g.ms);
    const major = p.gcs.filter((g) => g.kind === 4).map((g) => g.ms);
    const other = p.gcs.filter((g) => g.kind !== 1 && g.kind !== 4).map((g) => g.ms);
    const held = p.lates.filter((x) => x > 10); // longer than ten requests' work: a pause, not a queue
    console.log(`round ${round}, ${variants[k].name}: ${Math.round(r.requests.average)} req/s, ${us.toFixed(0)} µs CPU per request, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms`);
    console.log(`  collections: young generation ${fmt(young)}; major ${fmt(major)}; other kinds ${fmt(other)}; event loop held > 10 ms: ${fmt(held)}`);
  }
}
process.exit(0);
