// [DATA=DIR] [D=S] [ROUNDS=N] [LIMIT=MS] [C=N] [KEEP=reads|writes] [NODE_FLAGS=…] [SERVICE_FLAGS=…] node bench/tail.ts
// Which requests of the mixed workload (bench/mixed.ts) are slow, and what was under way in the service while
// they were. One service (response cache off, on a copy of bench:api's dataset, bench/support/tail-preload.mjs
// loaded into it) is warmed 8 s, then loaded with the whole workload (KEEP=reads or writes: its reads or writes alone) at C connections (default 10), ROUNDS windows (default
// 3) of D seconds (default 5). Every response is stamped on the clock both processes share (CLOCK_MONOTONIC):
// its kind, when it was sent and when it was answered. The service records on the same clock its garbage
// collections, the times its event loop was held (a 1 ms timer > 2 ms late) and the checkpoint gate's waits
// (D180). A response slower than LIMIT ms (default 5, the p99 goal) is put down to the first of these its
// time overlapped: the gate (a write's, during a wait for a caught-up pass), a young-generation collection, another
// collection, the loop held otherwise (none of the above: another request's work, or the machine not running
// the process), or nothing seen (queued behind other requests' work only). A tool for attributing the tail
// (D229), not a goal of its own.

import { mixedRequests } from './mixed.ts';
import { address, asker, probe, ROOT } from './support/probe.ts';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
interface CannonRequest { method?: string; path?: string; headers?: Record<string, string>; body?: string }
interface CannonResult { requests: { total: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number }
interface Tracker extends Promise<CannonResult> { on(e: 'response', f: (client: { requestIterator: { context: { kind?: string } } }, status: number, bytes: number, ms: number) => void): void }
const autocannon = require('autocannon') as (o: object) => Tracker;
const D = Number(process.env.D ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const LIMIT = Number(process.env.LIMIT ?? 5);
const C = Number(process.env.C ?? 10);
const KEEP = process.env.KEEP;
if (KEEP !== undefined && KEEP !== 'reads' && KEEP !== 'writes') throw new Error('KEEP=reads or KEEP=writes (or unset: the whole workload)');
const keep = (r: CannonRequest) => KEEP === undefined || (r.method === 'GET') === (KEEP === 'reads');

const { pools, headers, start } = await probe('tail');
const nodeFlags = (process.env.NODE_FLAGS ?? '').split(' ').filter(Boolean);
const svc = start([...nodeFlags, '--import', join(ROOT, 'bench', 'support', 'tail-preload.mjs')], (process.env.SERVICE_FLAGS ?? '').split(' ').filter(Boolean));
const base = await address(svc);
interface Span { from: number; to: number }
interface Seen { gcs: (Span & { kind: number })[]; held: Span[]; gates: Span[] }
const seen = asker<Seen>(svc, 'tail');

const clock = () => Number(process.hrtime.bigint()) / 1e6;
const kind = (r: CannonRequest) => `${r.method} ${(r.path ?? '').replace(/\?.*/, '').replace(/\d+/g, 'N')}`;
interface Done { kind: string; from: number; to: number }
async function run(seconds: number, done: Done[] | null): Promise<CannonResult> {
  const next = mixedRequests(pools, headers);
  const t = autocannon({ url: base, connections: C, duration: seconds, requests: [{ setupRequest: (req: CannonRequest, context: { kind?: string }) => {
    let r = next(req);
    while (!keep(r)) r = next(req);
    context.kind = kind(r);
    return r;
  } }] });
  if (done) t.on('response', (client, _status, _bytes, ms) => { const to = clock(); done.push({ kind: client.requestIterator.context.kind ?? '?', from: to - ms, to }); });
  return t;
}
const cpu = (): number => {
  const f = readFileSync(`/proc/${svc.pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  return (Number(f[11]) + Number(f[12])) * 1e4; // µs: utime + stime in ticks of 1/100 s (USER_HZ on Linux)
};

await run(8, null); // warm-up: the JIT, the caches
const causes = ['checkpoint gate', 'young-generation collection', 'other collection', 'loop held otherwise', 'nothing seen'] as const;
const overlaps = (a: Span, b: Span) => a.from < b.to && b.from < a.to;
const byKind = new Map<string, { n: number; slow: number }>();
console.log(`| window | CPU µs / request | p50 ms | p99 ms | requests | > ${LIMIT} ms | ${causes.join(' | ')} | young collections: count, longest ms |`);
console.log(`|---|---|---|---|---|---|${causes.map(() => '---|').join('')}---|`);
for (let round = 1; round <= ROUNDS; round++) {
  await seen();
  const done: Done[] = [];
  const c0 = cpu();
  const r = await run(D, done);
  const us = (cpu() - c0) / Math.max(1, r.requests.total);
  const s = await seen();
  const young = s.gcs.filter((g) => g.kind === 1 && g.to - g.from >= 1);
  const other = s.gcs.filter((g) => g.kind !== 1 && g.to - g.from >= 1);
  const count = new Map<string, number>(causes.map((c) => [c, 0]));
  let slow = 0;
  for (const d of done) {
    const k = byKind.get(d.kind) ?? { n: 0, slow: 0 };
    byKind.set(d.kind, k);
    k.n++;
    if (d.to - d.from <= LIMIT) continue;
    slow++;
    k.slow++;
    // The gate holds writes only (reads go on): a read during a wait is not put down to it.
    const cause = !d.kind.startsWith('GET ') && s.gates.some((g) => overlaps(g, d)) ? causes[0]
      : young.some((g) => overlaps(g, d)) ? causes[1]
        : other.some((g) => overlaps(g, d)) ? causes[2]
          : s.held.some((h) => overlaps(h, d)) ? causes[3] : causes[4];
    count.set(cause, count.get(cause)! + 1);
  }
  const longest = young.length ? Math.max(...young.map((g) => g.to - g.from)).toFixed(1) : '-';
  const bad = r.non2xx || r.errors ? ` (${r.non2xx} non-2xx, ${r.errors} errors)` : '';
  console.log(`| ${round} | ${us.toFixed(0)} | ${r.latency.p50} | ${r.latency.p99} | ${done.length}${bad} | ${slow} | ${causes.map((c) => count.get(c)).join(' | ')} | ${s.gcs.filter((g) => g.kind === 1).length}, ${longest} |`);
}
console.log(`\n| kind | requests | > ${LIMIT} ms |\n|---|---|---|`);
for (const [k, v] of [...byKind].sort((a, b) => b[1].slow / b[1].n - a[1].slow / a[1].n)) console.log(`| ${k} | ${v.n} | ${v.slow} (${((100 * v.slow) / v.n).toFixed(2)} %) |`);
process.exit(0);
