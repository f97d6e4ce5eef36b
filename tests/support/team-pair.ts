#!/usr/bin/env node
// Two `bivouac serve --store postgres://…` processes on one database behind the round-robin proxy,
// started at the same time (they race to migrate and to import the seed). Takes the options of
// `serve` (--port is the proxy's; --data-dir, --seed, --store are passed on; each process gets its
// own sub-directory of the data directory). Used by scripts/test.mjs to run the conformance suite
// through two processes; stops both on SIGTERM/SIGINT.
//
//   node tests/support/team-pair.ts --port 8080 --data-dir DIR --seed FILE --store postgres://…

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startProxy } from './proxy.ts';

const { values: o } = parseArgs({
  options: { port: { type: 'string' }, 'data-dir': { type: 'string' }, seed: { type: 'string' }, store: { type: 'string' }, processes: { type: 'string' } },
});
const bin = fileURLToPath(new URL('../../electron/bin.mjs', import.meta.url));
const children: ChildProcess[] = [];
const stop = (code: number) => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  setTimeout(() => process.exit(code), 300).unref();
};
process.on('SIGTERM', () => stop(0));
process.on('SIGINT', () => stop(0));

function serve(n: number): Promise<string> {
  // Behind the proxy: trust its X-Forwarded-* (the Host the client used is the proxy's). The auth
  // guard stays off as on the local service, whose contract has no 429 for sign-ins.
  const args = [bin, 'serve', '--port', '0', '--data-dir', join(o['data-dir'] ?? '.', `p${n}`), '--store', o.store ?? '',
    '--trust-proxy', '127.0.0.1', '--auth-guard', 'off'];
  if (o.seed) args.push('--seed', o.seed);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /running at (http:\/\/[^\s/]+)\//.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`process ${n} exited (${code}) before listening`)));
  });
}

try {
  const urls = await Promise.all(Array.from({ length: Number(o.processes ?? 2) }, (_, i) => serve(i + 1)));
  const proxy = await startProxy(urls, Number(o.port ?? 0));
  process.stdout.write(`Bivouac is running at ${proxy.url}/ (round robin over ${urls.join(', ')})\n`);
  for (const c of children) c.on('exit', () => stop(1));
} catch (e) {
  process.stderr.write(`team-pair: ${(e as Error).message}\n`);
  stop(1);
}
