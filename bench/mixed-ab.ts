// BASE=DIR node bench/mixed-ab.ts — the mixed workload of bench:api (bench/mixed.ts) on this tree and on
// another checkout (DIR: e.g. `git worktree add DIR REF` with a node_modules link), both loaded at the same
// time, each on its own copy of the dataset (DATA, default bench/profile.ts's /tmp/prof-data), response
// cache off. ROUNDS (default 4) of D seconds (default 6): CPU per request of each, req/s and p99. bench:api
// runs its baseline after this tree, one at a time, and the mixed workload's cost falls by ~45 % over its
// first rounds (JIT, caches): its columns move with position and drift; these pairs do not (D218).

import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mixedPools, mixedRun } from './mixed.ts';
import { SqliteStore } from '../electron/store/sqlite.ts';
import { cliEntry } from './dataset.ts';

const HERE = resolve(fileURLToPath(new URL('..', import.meta.url)));
const base = process.env.BASE;
if (!base) throw new Error('BASE=DIR: the other checkout to compare with');
const data = join(process.env.DATA ?? '/tmp/prof-data', 'bivouac.sqlite');
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const D = Number(process.env.D ?? 6);
const fixture = JSON.parse(readFileSync(join(HERE, 'tests/fixtures/account.json'), 'utf8')) as { people: { administrator?: boolean; 'user-name': string; password: string }[] };
const admin = fixture.people.find((p) => p.administrator)!;
const headers = { authorization: `Basic ${Buffer.from(`${admin['user-name']}:${admin.password}`).toString('base64')}` };
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10_000; };

const trees = [{ name: 'BASE', cwd: resolve(base) }, { name: 'this tree', cwd: HERE }].map((t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bv-mixab-'));
  copyFileSync(data, join(dir, 'bivouac.sqlite'));
  return { ...t, dir };
});
// The ids, read by this tree from its copy (migrating it forward; the older tree opens its own, untouched).
const st = new SqliteStore(join(trees[1].dir, 'bivouac.sqlite'), { checkpoints: false });
const pools = await mixedPools(st);
await st.close();

function serve(cwd: string, dir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [cliEntry(cwd), 'serve', '--port', '0', '--data-dir', dir, '--no-demo', '--log-level', 'warn', '--response-cache', '0'], { stdio: ['ignore', 'pipe', 'inherit'], cwd });
  return new Promise((res, rej) => {
    let out = '';
    child.on('exit', (code) => rej(new Error(`${cwd}: the service exited (${code})`)));
    child.stdout!.on('data', (d: Buffer) => { out += d; const m = /running at (http:\/\/[^/\s]+)/.exec(out); if (m) res({ child, url: m[1] }); });
  });
}
const svcs = await Promise.all(trees.map((t) => serve(t.cwd, t.dir)));
try {
  for (let round = 0; round < ROUNDS; round++) {
    const c0 = svcs.map((s) => cpu(s.child.pid!));
    const rs = await Promise.all(svcs.map((s) => mixedRun(s.url, D, pools, headers)));
    const us = rs.map((r, i) => (cpu(svcs[i].child.pid!) - c0[i]) / r.requests.total);
    console.log(`round ${round + 1}: ${rs.map((r, i) => `${trees[i].name} ${us[i].toFixed(0)} µs/req, ${Math.round(r.requests.average)} req/s, p99 ${r.latency.p99} ms${r.non2xx ? `, ${r.non2xx} non-2xx` : ''}`).join(' | ')} | this tree − BASE ${(us[1] - us[0]).toFixed(0)} µs`);
  }
} finally {
  for (const s of svcs) { s.child.removeAllListeners('exit'); s.child.kill('SIGINT'); }
  await new Promise((r) => setTimeout(r, 500));
  for (const t of trees) rmSync(t.dir, { recursive: true, force: true });
}
