// npm run bench:memory [-- --data-dir DIR] [--baseline GIT-REF] [--duration S]
// Where the service's memory goes under load: starts the real CLI (`electron/bin.mjs serve`) with and
// without its response cache (and, with --baseline, the same two for an older commit, on a copy of
// the same data), drives each with the mixed workload of bench:api (bench/mixed.ts) twice, and prints
// RSS split into anonymous and file-backed memory (/proc/PID/smaps_rollup) and V8's heap (total, used)
// as the process itself reports it (a preload answers SIGUSR2), and the event loop's delay (p99, max) during each run. A tool for finding what holds memory,
// beside bench:api's single RSS figure (D130, D131). Linux only. Results: stdout and bench/results/memory.md
// (updated in place; bench/README.md). Not part of `npm test`.

import { benchAuth, benchDataset, cliEntry } from './dataset.ts';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const loadBefore = loadavg()[0];
const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, baseline: { type: 'string' }, duration: { type: 'string' } } });
const work = mkdtempSync(join(tmpdir(), 'bivouac-mem-'));
const dir = values['data-dir'] ?? join(work, 'data');
const { DB_FILE } = await import('../electron/server.ts');
await benchDataset(dir);
const { mixedPoolsOf, mixedRun } = await import('./mixed.ts');
const pools = await mixedPoolsOf(dir);
const headers = { authorization: benchAuth() };

// The preload: on SIGUSR2, append process.memoryUsage() to a file named by the environment.
const probe = join(work, 'probe.mjs');
// Also the event loop's delay since the last probe (perf_hooks): the stalls every request in flight waits out.
writeFileSync(probe, `import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
const h = monitorEventLoopDelay({ resolution: 1 }); h.enable();
process.on('SIGUSR2', () => {
  const m = { ...process.memoryUsage(), eldP99: h.percentile(99) / 1e6, eldMax: h.max / 1e6 };
  h.reset();
  writeFileSync(process.env.BIVOUAC_MEM_OUT, JSON.stringify(m) + '\\n', { flag: 'a' });
});\n`);

const trees: [string, string][] = [['this tree', ROOT]];
if (values.baseline) {
  const tree = join(work, 'baseline');
  mkdirSync(tree);
  if (spawnSync('sh', ['-c', `git -C "${ROOT}" archive "${values.baseline}" electron shared package.json | tar -x -C "${tree}"`], { stdio: 'inherit' }).status !== 0) throw new Error('cannot extract the baseline');
  symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
  trees.push([values.baseline, tree]);
}

const mb = (b: number) => (b / 1048576).toFixed(0);
const duration = Number(values.duration ?? 6);
const lines: string[] = [];
for (const [name, tree] of trees) {
  for (const cache of ['16', '0']) {
    const data = join(work, `run-${trees.findIndex(([n]) => n === name)}-${cache}`);
    mkdirSync(data);
    copyFileSync(join(dir, DB_FILE), join(data, DB_FILE));
    const out = join(data, 'mem.jsonl');
    const child = spawn(process.execPath, ['--import', probe, cliEntry(tree), 'serve', '--port', '0', '--data-dir', data, '--no-demo',
      '--log-level', 'warn', '--response-cache', cache], { stdio: ['ignore', 'pipe', 'inherit'], cwd: tree, env: { ...process.env, BIVOUAC_MEM_OUT: out } });
    const base = await new Promise<string>((res) => { let o = ''; child.stdout!.on('data', (d: Buffer) => { o += d.toString(); const m = /running at (http:\/\/[^/\s]+)/.exec(o); if (m) res(m[1]); }); });
    const at = async (label: string) => {
      child.kill('SIGUSR2');
      await new Promise((r) => setTimeout(r, 300));
      const m = JSON.parse(readFileSync(out, 'utf8').trim().split('\n').at(-1)!) as NodeJS.MemoryUsage & { eldP99: number; eldMax: number };
      const sm = readFileSync(`/proc/${child.pid}/smaps_rollup`, 'utf8');
      const rss = Number(/Rss:\s+(\d+)/.exec(sm)![1]) * 1024, anon = Number(/Anonymous:\s+(\d+)/.exec(sm)![1]) * 1024;
      const line = `${name}, cache ${cache === '0' ? 'off' : `${cache} MB`}, ${label}: RSS ${mb(rss)} MB (anonymous ${mb(anon)}, files ${mb(rss - anon)}), V8 heap ${mb(m.heapTotal)} MB (used ${mb(m.heapUsed)})${label === 'started' ? '' : `; event loop delay p99 ${m.eldP99.toFixed(1)} ms, max ${m.eldMax.toFixed(1)} ms`}`;
      lines.push(line);
      process.stdout.write(`${line}\n`);
    };
    await at('started');
    for (const k of [1, 2]) {
      const r = await mixedRun(base, duration, pools, headers);
      process.stdout.write(`  mixed run ${k}: ${Math.round(r.requests.average)} req/s, p99 ${r.latency.p99} ms\n`);
      await at(`after mixed run ${k}`);
    }
    await stop(child);
  }
}
process.stdout.write(`\nload average (1 min): ${loadavg()[0].toFixed(2)}\n`);
mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
writeFileSync(join(ROOT, 'bench', 'results', 'memory.md'), [
  '# Where the service\'s memory goes under the mixed workload (npm run bench:memory)', '',
  `Run: ${new Date().toISOString()}, Node ${process.version}; load average (1 min) before/after: ${loadBefore.toFixed(2)} / ${loadavg()[0].toFixed(2)}.`,
  `Command: npm run bench:memory -- ${process.argv.slice(2).join(' ')}`.trimEnd() + '.',
  `Each service: the real CLI on a copy of bench:api's dataset, two runs of bench:api's mixed workload of ${duration} s each.`, '',
  ...lines.map((l) => `- ${l}`), '',
].join('\n'));
process.stdout.write('written to bench/results/memory.md\n');
rmSync(work, { recursive: true, force: true });

function stop(child: ChildProcess): Promise<void> {
  return new Promise((res) => { child.once('exit', () => res()); child.kill('SIGTERM'); });
}
