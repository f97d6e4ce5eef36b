// node bench/routes.ts [PATH…] — CPU per request of API paths against the bare Fastify route, side by side.
// A tool for finding what costs while working (ratios per path, one process each, response cache off);
// the figures that count come from bench/api.ts. DIR=data directory (default: bench/profile.ts's dataset
// at /tmp/prof-data, made by `node bench/profile.ts --data-dir /tmp/prof-data`), D=seconds per run,
// ROUNDS=N (default 1): each path is measured N times, interleaved with the bare route, and the medians
// are printed. BASE=DIR: also runs the service of another checkout (e.g. `git archive REF | tar -x -C DIR`
// with a node_modules link), interleaved with this one on the same data: before/after in one run.
// PAIRED=1: with BASE, both are loaded at the same time (same machine load for both; the throughput
// ratios then mean little, CPU per request is the figure). CACHE=MB: the response cache (default 0: off).
// ARGS=more arguments for `bivouac serve`, AS=user name of the fixture person asking (default: the administrator).

import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { cliEntry } from './dataset.ts';
const require = createRequire(import.meta.url);
const autocannon = require('autocannon');
const fixture = JSON.parse(readFileSync('tests/fixtures/account.json', 'utf8'));
const admin = fixture.people.find((p: any) => (process.env.AS ? p['user-name'] === process.env.AS : p.administrator));
const auth = `Basic ${Buffer.from(`${admin['user-name']}:${admin.password}`).toString('base64')}`;
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10000; };
function start(args: string[], re: RegExp, cwd = process.cwd()): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], cwd });
  return new Promise((res) => { let out = ''; child.stdout!.on('data', (d: Buffer) => { out += d; const m = re.exec(out); if (m) res({ child, base: m[1] }); }); });
}
const serve = (cwd: string) => start([cliEntry(cwd), 'serve', '--port', '0', '--data-dir', process.env.DIR ?? '/tmp/prof-data', '--no-demo', '--log-level', 'warn',
  '--response-cache', process.env.CACHE ?? '0', ...(process.env.ARGS ?? '').split(' ').filter(Boolean)], /running at (http:\/\/[^/\s]+)/, cwd);
const bare = await start(['bench/api.ts', '--bare'], /listening (\d+)/);
bare.base = `http://127.0.0.1:${bare.base}`;
const svc = await serve(process.cwd());
const base = process.env.BASE ? await serve(process.env.BASE) : null;
const D = Number(process.env.D ?? 4);
const ROUNDS = Number(process.env.ROUNDS ?? 1);
async function m(c: ChildProcess, url: string) {
  await autocannon({ url, connections: 10, duration: 1, headers: { authorization: auth } });
  const c0 = cpu(c.pid!); const r = await autocannon({ url, connections: 10, duration: D, headers: { authorization: auth } });
  if (r.non2xx) console.log('non2xx', url, r.non2xx);
  return { rate: r.requests.average, cpu: (cpu(c.pid!) - c0) / r.requests.total, p99: r.latency.p99 };
}
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
for (const p of process.argv.slice(2)) {
  const runs: { bc: number; br: number; s: Awaited<ReturnType<typeof m>>; b: Awaited<ReturnType<typeof m>> | null }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const b1 = await m(bare.child, `${bare.base}/bare.xml`);
    // PAIRED=1: this tree and BASE under load at the same time (both see the same machine).
    const [s, b] = process.env.PAIRED && base
      ? await Promise.all([m(svc.child, `${svc.base}${p}`), m(base.child, `${base.base}${p}`)])
      : [await m(svc.child, `${svc.base}${p}`), base ? await m(base.child, `${base.base}${p}`) : null];
    const b2 = await m(bare.child, `${bare.base}/bare.xml`);
    runs.push({ bc: (b1.cpu + b2.cpu) / 2, br: (b1.rate + b2.rate) / 2, s, b });
  }
  const bc = median(runs.map((r) => r.bc));
  const sc = median(runs.map((r) => r.s.cpu));
  const ratio = median(runs.map((r) => r.s.rate / r.br));
  let line = `${p.padEnd(32)} ratio ${ratio.toFixed(2)} cpu ${sc.toFixed(0)} vs ${bc.toFixed(0)} µs (cpu ratio ${(bc / sc).toFixed(2)}), p99 ${median(runs.map((r) => r.s.p99))} ms`;
  if (base) {
    const bcpu = median(runs.map((r) => r.b!.cpu));
    line += ` | BASE cpu ${bcpu.toFixed(0)} µs, ratio ${median(runs.map((r) => r.b!.rate / r.br)).toFixed(2)}; this − BASE ${median(runs.map((r) => r.s.cpu - r.b!.cpu)).toFixed(0)} µs`;
  }
  console.log(line);
}
svc.child.kill('SIGINT');
base?.child.kill('SIGINT');
bare.child.kill();
