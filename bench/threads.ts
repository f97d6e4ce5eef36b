// [DATA=DIR] [D=S] [ROUNDS=N] [C=N] [VARIANTS='[NAME=V …] [NODE:--flag …] [serve flags]|…'] [PIN=CPUS] node bench/threads.ts
// Who uses the CPU under the mixed workload (bench/mixed.ts): each thread of the service (its main thread,
// the checkpoint worker, V8's helpers), the load generator (this process) and the machine's idle share, per
// request, with the throughput and p50/p99. One service per variant (`serve` flags; variants separated by
// `|`, default one with none), each on its own copy of bench:api's dataset, response cache off, loaded in
// turn for ROUNDS windows of D seconds (default 4 of 5) at C connections (default 10) after a 6 s warm-up.
// PIN=0 runs the services on CPU 0 only (taskset; run this process on the other: `taskset -c 1 node …`).
// A tool for finding where the time goes on this machine (D232: the read threads), not a goal of its own.

import { mixedRequests } from './mixed.ts';
import { address, probe, type Probe } from './support/probe.ts';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
interface CannonResult { requests: { total: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number }
const autocannon = require('autocannon') as (o: object) => Promise<CannonResult>;
const D = Number(process.env.D ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const C = Number(process.env.C ?? 10);
const variants = (process.env.VARIANTS ?? '').split('|').map((v) => v.trim());

interface Svc { readonly flags: string; readonly p: Probe; readonly child: ChildProcess; readonly base: string }
const svcs: Svc[] = [];
for (const flags of variants) {
  const p = await probe('threads');
  // Leading NAME=VALUE words are the service's environment; NODE:--flag words are Node's options; the rest serve's.
  const words = flags.split(' ').filter(Boolean);
  const set: [string, string | undefined][] = [];
  const node: string[] = [];
  while (words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[0])) {
    const [k, ...v] = words.shift()!.split('=');
    set.push([k, process.env[k]]);
    process.env[k] = v.join('=');
  }
  for (let i = words.length - 1; i >= 0; i--) if (words[i].startsWith('NODE:')) node.unshift(words.splice(i, 1)[0].slice(5));
  const child = p.start(node, words);
  for (const [k, was] of set.reverse()) { if (was === undefined) delete process.env[k]; else process.env[k] = was; } // this process's own again
  if (process.env.PIN) execFileSync('taskset', ['-a', '-p', '-c', process.env.PIN, String(child.pid)], { stdio: 'ignore' });
  svcs.push({ flags, p, child, base: await address(child) });
}

/** CPU µs of each thread of `pid` (name/tid), from utime + stime in ticks of 1/100 s (USER_HZ on Linux). */
function perThread(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let raw: string;
    try { raw = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'); } catch { continue; } // ended meanwhile
    const name = /\((.*)\)/s.exec(raw)![1];
    const f = raw.replace(/^.*\) /s, '').split(' ');
    out.set(`${name}/${tid}`, (Number(f[11]) + Number(f[12])) * 1e4);
  }
  return out;
}
/** The machine's idle (idle + iowait) and total jiffies. */
function machine(): { idle: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  return { idle: f[3] + f[4], total: f.reduce((a, b) => a + b, 0) };
}
const run = (s: Svc, seconds: number) => autocannon({ url: s.base, connections: C, duration: seconds, requests: [{ setupRequest: mixedRequests(s.p.pools, s.p.headers) }] });

const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
console.log(`# The mixed workload's CPU by thread (bench/threads.ts)\n\nRun: ${new Date().toISOString()}, load average before: ${load}, C=${C}, ${ROUNDS} rounds of ${D} s${process.env.PIN ? `, services pinned to CPU ${process.env.PIN}` : ''}.\n`);
console.log('| round | variant | requests | p50 ms | p99 ms | service µs/req | load generator µs/req | machine idle | threads µs/req (> 2) | RSS MB | WAL MB |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const s of svcs) await run(s, 6);
for (let i = 1; i <= ROUNDS; i++) {
  for (const s of svcs) {
    const t0 = perThread(s.child.pid!), c0 = process.cpuUsage(), m0 = machine();
    const r = await run(s, D);
    const t1 = perThread(s.child.pid!), c1 = process.cpuUsage(c0), m1 = machine();
    const n = r.requests.total;
    let service = 0;
    const parts: [string, number][] = [];
    for (const [k, v] of t1) {
      const d = v - (t0.get(k) ?? 0);
      service += d;
      if (d / n > 2) parts.push([k.replace(/\/\d+$/, ''), d / n]);
    }
    parts.sort((a, b) => b[1] - a[1]);
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${s.child.pid}/status`, 'utf8'))![1]) / 1024;
    let wal = 0;
    try { wal = statSync(`${s.p.dir}/bivouac.sqlite-wal`).size / 1e6; } catch { /* none yet */ }
    const bad = r.non2xx + r.errors ? ` (${r.non2xx} non-2xx, ${r.errors} errors)` : '';
    console.log(`| ${i} | ${s.flags || '(none)'} | ${n}${bad} | ${r.latency.p50} | ${r.latency.p99} | ${(service / n).toFixed(0)} | ${((c1.user + c1.system) / n).toFixed(0)} | `
      + `${(100 * (m1.idle - m0.idle) / (m1.total - m0.total)).toFixed(0)} % | ${parts.map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')} | ${rss.toFixed(0)} | ${wal.toFixed(1)} |`);
  }
}
console.log(`\nLoad average after: ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`);
process.exit(0);
