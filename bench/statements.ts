// [DATA=DIR] [D=S] [TOP=N] node bench/statements.ts
// Which SQL statements the mixed workload (bench/mixed.ts) runs more of than its reads alone, per request: what
// its writes cost the reads after them (kept values dropped, rows read again) and what they run themselves. One
// service (response cache off, on a copy of bench:api's dataset, bench/support/statements-preload.mjs loaded into
// it) is warmed 8 s with the whole workload, then loaded D seconds (default 6) with its reads alone and D with the
// whole, 10 connections. Per SQL text: runs and µs per request in each, and "more": the whole's µs per request
// less 0.9 × the reads alone's (the whole is 90 % reads); the TOP (default 25) with the most. A tool for finding
// what a write costs the reads (D230), not a goal of its own.

import { mixedRequests } from './mixed.ts';
import { address, asker, probe, ROOT } from './support/probe.ts';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
interface CannonRequest { method?: string; path?: string; headers?: Record<string, string>; body?: string }
interface CannonResult { requests: { total: number }; non2xx: number; errors: number }
const autocannon = require('autocannon') as (o: object) => Promise<CannonResult>;
const D = Number(process.env.D ?? 6);
const TOP = Number(process.env.TOP ?? 25);

const { pools, headers, start } = await probe('statements');
const svc = start(['--import', join(ROOT, 'bench', 'support', 'statements-preload.mjs')]);
const base = await address(svc);
type Counted = Map<string, [number, number]>;
const ask = asker<{ counted: [string, number, number][] }>(svc, 'statements');
const counted = async (): Promise<Counted> => new Map((await ask()).counted.map(([sql, n, us]) => [sql, [n, us]]));
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
