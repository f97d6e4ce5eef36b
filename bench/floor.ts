// [D=S] [ROUNDS=N] [C=N] [PROFILES='const:100 mixed:200 …'] npm run bench:floor
// The p99 a service gets on this machine for a given CPU cost per request, whatever it does: a plain
// node:http server (no store, no Fastify, nothing allocated per request but the answer) that spins a
// calibrated loop for each request, loaded by autocannon at C connections (default 10) from this process,
// as bench:api loads the service (without its Basic header). A profile is
//  - `const:N`: every request spins N µs and answers 1.5 KB;
//  - `mixed:M`: requests drawn with bench/mixed.ts's weights (a seeded draw, not its sequence), each kind spinning in
//    proportion to what it costs the service (measured per kind in D228: classes-s11.md, in git at a7a4e62) and answering about the bytes
//    the service answers, scaled so that the spin averages M µs.
// The spin comes on top of node:http's own cost (the `const:0` row). Each profile gets its own server; they
// are loaded in turn for ROUNDS windows of D seconds (default 4 of 5) after a 3 s warm-up. PIN=0 runs the
// servers on CPU 0 only (taskset; run this process on the other: `taskset -c 1 node …`).
// A tool for knowing what the p99 goal asks of the service's mean cost here (D237), not a benchmark of it.
// Results: stdout and bench/results/floor.md (updated in place; bench/README.md). Not part of `npm test`.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The mixed workload's kinds (bench/mixed.ts's table, in its order): weight, relative cost, answer bytes. */
const KINDS: [weight: number, cost: number, bytes: number][] = [
  [12, 87, 1_500], [10, 53, 1_600], [8, 82, 1_000], [8, 44, 1_000], [6, 252, 45_000], [5, 51, 1_200],
  [5, 54, 1_400], [3, 64, 700], [3, 57, 400], [8, 178, 42_000], [5, 138, 30_000], [5, 111, 25_000],
  [4, 139, 12_000], [3, 220, 20_000], [2, 103, 6_000], [2, 111, 12_000], [1, 83, 2_000],
  [4, 401, 1_500], [3, 593, 1_200], [2, 398, 1_000], [1, 138, 1_500],
];

if (process.argv[2] === '--serve') serve();
else await main();

function serve(): void {
  // Iterations of the loop per µs, measured once (the loop is plain arithmetic: no allocation, no system call).
  let sink = 0;
  const spin = (n: number) => { for (let i = 0; i < n; i++) sink = (sink * 31 + i) | 0; };
  spin(5e7);
  const t0 = process.hrtime.bigint();
  spin(5e7);
  const perUs = 5e7 / (Number(process.hrtime.bigint() - t0) / 1e3);
  const bodies = new Map<number, string>();
  const body = (n: number) => { let b = bodies.get(n); if (!b) bodies.set(n, b = `<x>${'y'.repeat(Math.max(0, n - 7))}</x>`); return b; };
  const server = createServer((req, res) => {
    const [, us, bytes] = /^\/(\d+)\/(\d+)/.exec(req.url ?? '') ?? ['', '0', '10'];
    spin(Math.round(Number(us) * perUs));
    const b = body(Number(bytes));
    res.writeHead(200, { 'Content-Type': 'application/xml; charset=utf-8', 'Content-Length': Buffer.byteLength(b) });
    res.end(b);
    if (sink === 42) process.stdout.write(''); // keeps the loop's result alive
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`port ${(server.address() as { port: number }).port}\n`));
}

async function main(): Promise<void> {
  const require = createRequire(import.meta.url);
  interface Result { requests: { total: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number }
  type Req = { method?: string; path?: string };
  const autocannon = require('autocannon') as (o: object) => Promise<Result>;
  const D = Number(process.env.D ?? 5), ROUNDS = Number(process.env.ROUNDS ?? 4), C = Number(process.env.C ?? 10);
  const profiles = (process.env.PROFILES ?? 'const:0 const:50 const:100 const:150 mixed:100 mixed:150 mixed:200').split(/\s+/).filter(Boolean);

  const totalWeight = KINDS.reduce((s, [w]) => s + w, 0);
  const meanCost = KINDS.reduce((s, [w, c]) => s + w * c, 0) / totalWeight;
  /** Requests of a profile: a seeded draw with bench/mixed.ts's weights. */
  const requests = (profile: string) => {
    const [kind, n] = profile.split(':');
    const target = Number(n);
    if (kind === 'const') return (req: Req): Req => ({ ...req, method: 'GET', path: `/${target}/1500` });
    let seed = 42;
    const rnd = () => { seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648; return seed / 2_147_483_648; };
    return (req: Req): Req => {
      let x = rnd() * totalWeight;
      const k = KINDS.find(([w]) => (x -= w) < 0) ?? KINDS[0];
      return { ...req, method: 'GET', path: `/${Math.round((k[1] * target) / meanCost)}/${k[2]}` };
    };
  };
  const cpuOf = (pid: number) => {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    return (Number(f[11]) + Number(f[12])) * 1e4; // µs (USER_HZ 100)
  };
  const self = fileURLToPath(import.meta.url);
  const servers: { profile: string; child: ChildProcess; url: string }[] = [];
  for (const profile of profiles) {
    const child = spawn(process.execPath, [self, '--serve'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<string>((res) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => { out += d; const m = /port (\d+)/.exec(out); if (m) res(m[1]); });
    });
    if (process.env.PIN) execFileSync('taskset', ['-a', '-p', '-c', process.env.PIN, String(child.pid)], { stdio: 'ignore' });
    servers.push({ profile, child, url: `http://127.0.0.1:${port}` });
  }
  const run = (s: (typeof servers)[number], seconds: number) =>
    autocannon({ url: s.url, connections: C, duration: seconds, requests: [{ setupRequest: requests(s.profile) }] });
  const lines: string[] = [];
  const say = (line: string) => { lines.push(line); console.log(line); };
  try {
    say(`# The p99 of a service that only spins (bench/floor.ts)\n\nRun: ${new Date().toISOString()}, load average before: ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}, C=${C}, ${ROUNDS} rounds of ${D} s${process.env.PIN ? `, servers pinned to CPU ${process.env.PIN}` : ''}.\n`);
    say('| round | profile | requests | server CPU µs/req | p50 ms | p99 ms |');
    say('|---|---|---|---|---|---|');
    for (const s of servers) await run(s, 3);
    for (let i = 1; i <= ROUNDS; i++) {
      for (const s of servers) {
        const c0 = cpuOf(s.child.pid!);
        const r = await run(s, D);
        const n = r.requests.total;
        say(`| ${i} | ${s.profile} | ${n} | ${((cpuOf(s.child.pid!) - c0) / n).toFixed(0)} | ${r.latency.p50} | ${r.latency.p99} |${r.errors + r.non2xx ? ` errors ${r.errors + r.non2xx}` : ''}`);
      }
    }
  } finally {
    for (const s of servers) s.child.kill();
  }
  const root = fileURLToPath(new URL('..', import.meta.url));
  mkdirSync(`${root}bench/results`, { recursive: true });
  writeFileSync(`${root}bench/results/floor.md`, `${lines.join('\n')}\n`);
  console.log('written to bench/results/floor.md');
}
