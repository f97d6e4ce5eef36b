// node bench/ab.ts DIR_A DIR_B [--rounds N] [--requests R] — the same routes against two checkouts of the
// project side by side, in alternating rounds (A B A B …). Each checkout serves its own fresh data
// directory seeded with tests/fixtures/account.json (cache on and off). The measure is the server
// process's CPU time per request (Linux /proc/PID/stat, utime + stime) for R requests over 10
// connections: on a shared, busy machine throughput swings 10× between rounds, CPU time per request
// much less. Prints µs per request per round and the median ratio B/A per route. Used for per-request
// costs of a change: a checkout before and after it (git archive REV | tar -x -C DIR).

import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cliEntry } from './dataset.ts';

interface CannonResult { requests: { average: number; total: number }; non2xx: number; errors: number }
type Cannon = (o: { url: string; connections: number; duration?: number; amount?: number; headers?: Record<string, string> }) => Promise<CannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Cannon;

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => { const i = args.indexOf(name); return i >= 0 ? Number(args[i + 1]) : dflt; };
const [dirA, dirB] = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--')).map((d) => resolve(d));
// Options: --rounds N, --requests R, --routes /a.xml,/b.xml, --cache 16,0 (MiB of response cache per server pair).
if (!dirA || !dirB) { process.stderr.write('usage: node bench/ab.ts DIR_A DIR_B [--rounds N] [--seconds S]\n'); process.exit(2); }
const ROUNDS = opt('--rounds', 5);
const REQUESTS = opt('--requests', 4000);
/** CPU time (ms) the process has used so far: utime + stime from /proc/PID/stat, in clock ticks of 10 ms. */
const cpuMs = (pid: number): number => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) * 10;
};
async function measure(srv: { base: string; child: ChildProcess }, route: string): Promise<number> {
  const before = cpuMs(srv.child.pid!);
  const r = await autocannon({ url: srv.base + route, connections: 10, amount: REQUESTS, headers: AUTH });
  if (r.non2xx || r.errors) throw new Error(`${route}: non-2xx or errors`);
  return ((cpuMs(srv.child.pid!) - before) * 1000) / r.requests.total;
}
const FIXTURE = join(import.meta.dirname, '..', 'tests', 'fixtures', 'account.json');
const AUTH = { authorization: `Basic ${Buffer.from('ada:ada-pass-1').toString('base64')}` };

async function start(dir: string, cacheMb: number): Promise<{ base: string; child: ChildProcess; data: string }> {
  const data = mkdtempSync(join(tmpdir(), 'bivouac-ab-'));
  const child = spawn(process.execPath, [cliEntry(dir), 'serve', '--port', '0', '--data-dir', data, '--seed', FIXTURE,
    '--no-demo', '--log-level', 'warn', '--response-cache', String(cacheMb)], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
  const base = await new Promise<string>((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => { out += d; const m = /http:\/\/127\.0\.0\.1:\d+/.exec(out); if (m) ok(m[0]); });
    child.on('exit', (c) => fail(new Error(`${dir} exited ${c}: ${out}`)));
  });
  return { base, child, data };
}

const ri = args.indexOf('--routes');
const ROUTES = ri >= 0 ? args[ri + 1].split(',') : ['/projects.xml', '/people.xml', '/me.xml', '/projects.json'];
const ci = args.indexOf('--cache');
const CACHES = ci >= 0 ? args[ci + 1].split(',').map(Number) : [16, 0];
const servers: { name: string; a: Awaited<ReturnType<typeof start>>; b: Awaited<ReturnType<typeof start>> }[] = [];
try {
  for (const cache of CACHES) servers.push({ name: cache ? 'cache on' : 'cache off', a: await start(dirA, cache), b: await start(dirB, cache) });
  for (const s of servers) {
    for (const route of ROUTES) {
      const ratios: number[] = [];
      const rows: string[] = [];
      for (const srv of [s.a, s.b]) await autocannon({ url: srv.base + route, connections: 10, amount: 1000, headers: AUTH }); // warm-up
      for (let i = 0; i < ROUNDS; i++) {
        const ua = await measure(s.a, route);
        const ub = await measure(s.b, route);
        ratios.push(ub / ua);
        rows.push(`${Math.round(ua)}/${Math.round(ub)}`);
      }
      ratios.sort((x, y) => x - y);
      process.stdout.write(`${s.name} ${route}: A/B µs of server CPU per request, per round ${rows.join(' ')}; median B/A ${ratios[Math.floor(ratios.length / 2)].toFixed(3)}\n`);
    }
  }
} finally {
  for (const s of servers) for (const x of [s.a, s.b]) { x.child.kill('SIGTERM'); }
  await new Promise((r) => setTimeout(r, 500));
  for (const s of servers) for (const x of [s.a, s.b]) rmSync(x.data, { recursive: true, force: true });
}
