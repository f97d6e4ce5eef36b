// [DATA=DIR] [D=S] [ROUNDS=N] [ONLY=REGEX] [GC=1] [NODE_FLAGS=…] [SERVICE_FLAGS=…] node bench/classes.ts
// The mixed workload of bench:api (bench/mixed.ts) split by route: one service (response cache off, on a
// copy of bench:api's dataset), warmed up with the whole workload for 8 s, then loaded with each kind of
// request of the workload alone (its own records drawn as the workload draws them, 10 connections, D
// seconds each, default 3), then its reads alone, its writes alone and the whole of it; ROUNDS rounds
// (default 1). Per kind: CPU per request, p50/p99. With GC=1 the service runs with `--trace-gc`, and each
// kind also shows about how many bytes a request allocates (the heap's growth between two scavenges of the
// main thread with no other collection between them, over the requests of that share of the window) and
// its longest scavenge. A tool for finding what the mixed
// workload's cost and tail are made of (D228), not a goal of its own: the figures of one run move with
// the machine's load, compare kinds within a run.

import { mixedRequests } from './mixed.ts';
import { address, probe } from './support/probe.ts';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
interface CannonRequest { method?: string; path?: string; headers?: Record<string, string>; body?: string }
interface CannonResult { requests: { total: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number }
const autocannon = require('autocannon') as (o: object) => Promise<CannonResult>;
const D = Number(process.env.D ?? 3);
const ROUNDS = Number(process.env.ROUNDS ?? 1);
const GC = process.env.GC === '1';
const only = process.env.ONLY ? new RegExp(process.env.ONLY) : null;

const { pools, headers, start } = await probe('classes');
const nodeFlags = [...(process.env.NODE_FLAGS ?? '').split(' ').filter(Boolean), ...(GC ? ['--trace-gc'] : [])];
const svc = start(nodeFlags, (process.env.SERVICE_FLAGS ?? '').split(' ').filter(Boolean));
/**
 * The main thread's collections from `--trace-gc` (the checkpoint worker's isolate prints its own, under another
 * `[pid:isolate]` prefix: left out), each stamped when its line arrived: heap before and after, pause.
 */
const gcs: { at: number; scavenge: boolean; before: number; after: number; ms: number }[] = [];
let mainIsolate = '';
let out = '';
const base = await address(svc, (d) => {
  out += d.toString();
  let nl: number;
  while ((nl = out.indexOf('\n')) >= 0) {
    const line = out.slice(0, nl);
    out = out.slice(nl + 1);
    const g = /^\[(\d+:0x[0-9a-f]+)\]\s+\d+ ms: (\S+)[^,]*? ([\d.]+) \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \//.exec(line);
    if (g) {
      mainIsolate ||= g[1]; // the main thread collects first (the worker starts with the first write)
      if (g[1] === mainIsolate) gcs.push({ at: performance.now(), scavenge: g[2] === 'Scavenge', before: Number(g[3]), after: Number(g[4]), ms: Number(g[5]) });
    }
  }
});

const kind = (r: CannonRequest) => `${r.method} ${(r.path ?? '').replace(/\?.*/, '').replace(/\d+/g, 'N')}`;
// Every kind the workload draws (its generator is seeded: the same sequence every run).
const drawn = new Set<string>();
{ const next = mixedRequests(pools, headers); for (let k = 0; k < 5000; k++) drawn.add(kind(next({}))); }
const groups: [string, (k: string) => boolean][] = [
  ...[...drawn].sort().map((k): [string, (x: string) => boolean] => [k, (x) => x === k]),
  ['its reads alone', (x) => x.startsWith('GET ')],
  ['its writes alone', (x) => !x.startsWith('GET ')],
  ['the whole workload', () => true],
];
const run = (keep: (k: string) => boolean, seconds: number) => {
  const next = mixedRequests(pools, headers);
  return autocannon({ url: base, connections: 10, duration: seconds, requests: [{ setupRequest: (req: CannonRequest) => {
    for (;;) { const r = next(req); if (keep(kind(r))) return r; }
  } }] });
};
const cpu = (): number => {
  const f = readFileSync(`/proc/${svc.pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  return (Number(f[11]) + Number(f[12])) * 1e4; // µs (ticks of 1/100 s)
};

await run(() => true, 8); // warm-up: the JIT, the caches
console.log(`| kind | CPU µs / request | p50 ms | p99 ms | requests |${GC ? ' KB allocated / request | longest scavenge ms |' : ''}`);
console.log(`|---|---|---|---|---|${GC ? '---|---|' : ''}`);
for (let round = 1; round <= ROUNDS; round++) {
  for (const [name, keep] of groups) {
    if (only && !only.test(name)) continue;
    const c0 = cpu();
    const t0 = performance.now();
    const r = await run(keep, D);
    const t1 = performance.now();
    const us = (cpu() - c0) / Math.max(1, r.requests.total);
    let gc = '';
    if (GC) {
      // Allocated between two scavenges in a row (no other collection between) = the heap before the later one
      // less after the earlier one; over the requests of the time those pairs span (the window's rate).
      const w = gcs.filter((g) => g.at >= t0 && g.at <= t1);
      let mb = 0, ms = 0;
      for (let k = 1; k < w.length; k++) {
        if (!w[k].scavenge || !w[k - 1].scavenge) continue;
        mb += w[k].before - w[k - 1].after;
        ms += w[k].at - w[k - 1].at;
      }
      const kb = ms > 0 ? (mb * 1024) / (r.requests.total * (ms / (t1 - t0))) : NaN;
      const young = w.filter((g) => g.scavenge).map((g) => g.ms);
      gc = ` ${Number.isFinite(kb) ? kb.toFixed(1) : '-'} | ${young.length ? Math.max(...young).toFixed(1) : '-'} |`;
    }
    const bad = r.non2xx || r.errors ? ` (${r.non2xx} non-2xx, ${r.errors} errors)` : '';
    console.log(`| ${ROUNDS > 1 ? `round ${round}: ` : ''}${name} | ${us.toFixed(0)} | ${r.latency.p50} | ${r.latency.p99} | ${r.requests.total}${bad} |${gc}`);
  }
}
process.exit(0);
