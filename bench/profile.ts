// node bench/profile.ts [--data-dir DIR] [--path URL-PATH]… [--mixed [--keep reads|writes]] [--duration S] [--top N]
// Profiles the service with its response cache off: starts the real CLI under `--cpu-prof`, drives each
// path with autocannon (10 connections), or the mixed workload (bench/mixed.ts; `--keep`: its reads or its
// writes alone), stops it and prints the request rate and the functions with the most self time, then with
// the most inclusive time (samples with the function anywhere on their stack). The dataset is the bench's (bench/api.ts); pass --data-dir to reuse one.
// A tool for finding what costs, not a benchmark: ratios come from bench/api.ts.

import { benchAuth, benchDataset, cliEntry } from './dataset.ts';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, path: { type: 'string', multiple: true }, duration: { type: 'string' }, top: { type: 'string' }, mixed: { type: 'boolean' }, keep: { type: 'string' } } });
if (values.keep !== undefined && !values.mixed) throw new Error('--keep needs --mixed');
const dir = values['data-dir'] ?? mkdtempSync(join(tmpdir(), 'bivouac-prof-'));
const { DB_FILE } = await import('../electron/server.ts');
if (await benchDataset(dir)) process.stdout.write(`dataset in ${dir}\n`);
const auth = benchAuth();
const profDir = mkdtempSync(join(tmpdir(), 'bivouac-cpuprof-'));
const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, cliEntry(ROOT), 'serve', '--port', '0', '--data-dir', dir,
  '--no-demo', '--log-level', 'warn', '--response-cache', '0'], { stdio: ['ignore', 'pipe', 'inherit'], cwd: ROOT });
const base = await new Promise<string>((res) => {
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); const m = /running at (http:\/\/[^/\s]+)/.exec(out); if (m) res(m[1]); });
});
const autocannon = require('autocannon');
if (values.mixed) {
  const { mixedPools, mixedRun } = await import('./mixed.ts');
  const { SqliteStore } = await import('../electron/store/sqlite.ts');
  const store = new SqliteStore(join(dir, DB_FILE));
  const pools = await mixedPools(store);
  await store.close();
  const keep = values.keep;
  if (keep !== undefined && keep !== 'reads' && keep !== 'writes') throw new Error('--keep reads or --keep writes');
  const r = keep === undefined ? await mixedRun(base, Number(values.duration ?? 5), pools, { authorization: auth }) : await (async () => {
    const { mixedRequests } = await import('./mixed.ts');
    const draw = mixedRequests(pools, { authorization: auth });
    const setupRequest = (req: { method?: string }) => { for (;;) { const r = draw(req); if ((r.method === 'GET') === (keep === 'reads')) return r; } };
    return autocannon({ url: base, connections: 10, duration: Number(values.duration ?? 5), requests: [{ setupRequest }] });
  })();
  process.stdout.write(`mixed: ${Math.round(r.requests.average)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, non-2xx ${r.non2xx}\n`);
}
for (const p of values.path ?? (values.mixed ? [] : ['/projects.xml'])) {
  const r = await autocannon({ url: `${base}${p}`, connections: 10, duration: Number(values.duration ?? 5), headers: { authorization: auth } });
  process.stdout.write(`${p}: ${Math.round(r.requests.average)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, non-2xx ${r.non2xx}\n`);
}
await new Promise<void>((res) => { child.once('exit', () => res()); child.kill('SIGINT'); });
const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
if (!file) { process.stdout.write('no profile written\n'); process.exit(1); }
interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount: number; children?: number[] }
const prof = JSON.parse(readFileSync(join(profDir, file), 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const self = new Map<string, number>();
let total = 0;
for (const n of prof.nodes) {
  const f = n.callFrame;
  const key = `${f.functionName || '(anon)'} ${f.url.replace(/^file:\/\//, '').replace(ROOT + '/', '')}:${f.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + n.hitCount);
  total += n.hitCount;
}
const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top ?? 40));
for (const [k, v] of top) process.stdout.write(`${(100 * v / total).toFixed(1).padStart(5)} %  ${k}\n`);
// Inclusive: the share of samples with the function anywhere on their stack (counted once per sample).
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const keyOf = (n: Node) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/^file:\/\//, '').replace(ROOT + '/', '')}:${n.callFrame.lineNumber + 1}`;
const incl = new Map<string, number>();
for (const n of prof.nodes) {
  if (!n.hitCount) continue;
  const seen = new Set<string>();
  for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) seen.add(keyOf(byId.get(id)!));
  for (const k of seen) incl.set(k, (incl.get(k) ?? 0) + n.hitCount);
}
process.stdout.write('inclusive:\n');
incl.delete('(root) :0');
for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top ?? 40))) process.stdout.write(`${(100 * v / total).toFixed(1).padStart(5)} %  ${k}\n`);
process.stdout.write(`profile: ${join(profDir, file)}\n`);
