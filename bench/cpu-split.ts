// experiment: who uses the CPU during the mixed workload, read threads 0 vs N, alternating
import { mixedRequests } from './mixed.ts';
import { address, probe } from './support/probe.ts';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as (o: object) => Promise<{ requests: { total: number }; latency: { p50: number; p99: number } }>;
const C = Number(process.env.C ?? 10);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const variants = (process.env.VARIANTS ?? '0,1').split(',');
const svcs = [];
for (const v of variants) {
  const p = await probe('cpusplit');
  const child = p.start([], ['--read-threads', v]);
  if (process.env.PIN) { const { execSync } = await import('node:child_process'); execSync(`taskset -a -p -c ${process.env.PIN} ${child.pid}`); }
  svcs.push({ v, p, child, base: await address(child) });
}
const ticks = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' '); return (Number(f[11]) + Number(f[12])) * 1e4; };
import { readdirSync } from 'node:fs';
const threads = (pid: number) => Object.fromEntries(readdirSync(`/proc/${pid}/task`).map((t) => { const raw = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8'); const name = /\((.*)\)/.exec(raw)![1]; const f = raw.replace(/^.*\) /s, '').split(' '); return [`${name}/${t}`, (Number(f[11]) + Number(f[12])) * 1e4]; }));
const sys = () => { const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number); return { idle: f[3] + f[4], total: f.reduce((a, b) => a + b, 0) }; };
const run = (s: typeof svcs[0], d: number) => autocannon({ url: s.base, connections: C, duration: d, requests: [{ setupRequest: mixedRequests(s.p.pools, s.p.headers) }] });
for (const s of svcs) await run(s, 6);
for (let i = 0; i < ROUNDS; i++) for (const s of svcs) {
  const t0 = threads(s.child.pid!);
  const s0 = ticks(s.child.pid!), c0 = process.cpuUsage(), y0 = sys();
  const r = await run(s, 5);
  const s1 = ticks(s.child.pid!), c1 = process.cpuUsage(c0), y1 = sys();
  const n = r.requests.total;
  const t1 = threads(s.child.pid!);
  const per = Object.entries(t1).map(([k, v]) => [k, (v - (t0[k] ?? 0)) / n] as const).filter(([, v]) => v > 2).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ');
  const rss = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${s.child.pid}/status`, 'utf8'))![1];
  const { statSync } = await import('node:fs');
  const wal = (() => { try { return statSync(`${s.p.dir}/bivouac.sqlite-wal`).size; } catch { return -1; } })();
  const db = statSync(`${s.p.dir}/bivouac.sqlite`).size;
  console.log('   threads µs/req: ' + per + ` | RSS ${(Number(rss) / 1024).toFixed(0)} MB, db ${(db / 1e6).toFixed(1)} MB, wal ${(wal / 1e6).toFixed(1)} MB`);
  console.log(`threads ${s.v}: reqs ${n} p50 ${r.latency.p50} p99 ${r.latency.p99}; server ${((s1 - s0) / n).toFixed(0)} µs/req, client ${((c1.user + c1.system) / n).toFixed(0)} µs/req; machine idle ${(100 * (y1.idle - y0.idle) / (y1.total - y0.total)).toFixed(0)} %`);
}
process.exit(0);
