// node bench/routes.ts [PATH…] — CPU per request of API paths against the bare Fastify route, side by side.
// A tool for finding what costs while working (ratios per path, one process each, response cache off);
// the figures that count come from bench/api.ts. DIR=data directory (default: bench/profile.ts's dataset
// at /tmp/prof-data, made by `node bench/profile.ts --data-dir /tmp/prof-data`), D=seconds per run,
// ARGS=more arguments for `bivouac serve`, AS=user name of the fixture person asking (default: the administrator).

import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
const require = createRequire(import.meta.url);
const autocannon = require('autocannon');
const fixture = JSON.parse(readFileSync('tests/fixtures/account.json', 'utf8'));
const admin = fixture.people.find((p: any) => (process.env.AS ? p['user-name'] === process.env.AS : p.administrator));
const auth = `Basic ${Buffer.from(`${admin['user-name']}:${admin.password}`).toString('base64')}`;
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10000; };
function start(args: string[], re: RegExp): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((res) => { let out = ''; child.stdout!.on('data', (d: Buffer) => { out += d; const m = re.exec(out); if (m) res({ child, base: m[1] }); }); });
}
const bare = await start(['bench/api.ts', '--bare'], /listening (\d+)/);
bare.base = `http://127.0.0.1:${bare.base}`;
const svc = await start(['electron/bin.ts', 'serve', '--port', '0', '--data-dir', process.env.DIR ?? '/tmp/prof-data', '--no-demo', '--log-level', 'warn', '--response-cache', '0', ...(process.env.ARGS ?? '').split(' ').filter(Boolean)], /running at (http:\/\/[^/\s]+)/);
const D = Number(process.env.D ?? 4);
async function m(c: ChildProcess, url: string) {
  await autocannon({ url, connections: 10, duration: 1, headers: { authorization: auth } });
  const c0 = cpu(c.pid!); const r = await autocannon({ url, connections: 10, duration: D, headers: { authorization: auth } });
  if (r.non2xx) console.log('non2xx', url, r.non2xx);
  return { rate: r.requests.average, cpu: (cpu(c.pid!) - c0) / r.requests.total, p99: r.latency.p99 };
}
for (const p of process.argv.slice(2)) {
  const b1 = await m(bare.child, `${bare.base}/bare.xml`);
  const s = await m(svc.child, `${svc.base}${p}`);
  const b2 = await m(bare.child, `${bare.base}/bare.xml`);
  const bc = (b1.cpu + b2.cpu) / 2, br = (b1.rate + b2.rate) / 2;
  console.log(p.padEnd(40), `ratio ${(s.rate / br).toFixed(2)} cpu ${s.cpu.toFixed(0)} vs ${bc.toFixed(0)} µs (cpu ratio ${(bc / s.cpu).toFixed(2)}), p99 ${s.p99} ms`);
}
svc.child.kill('SIGINT');
bare.child.kill();
